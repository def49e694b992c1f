/**
 * A merchant server acting for its shoppers (the Medusa plugin's store routes): a storefront token
 * minted by a service key with `forwardsShoppers` names each shopper in X-Fitroom-Shopper and gives
 * their address in X-Fitroom-Shopper-IP. Limits count per shopper, bot verification sees the shopper's
 * address, and the pass it mints works for that shopper only. Nobody else may send those headers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solveChallenge } from 'altcha-lib/v1';
import { startTestService, type TestService } from '../../support/harness.ts';

let svc: TestService;
let serviceKey: string;
let userKey: string;
const NO_JOB = '/api/v1/jobs/00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  svc = await startTestService({ worker: false });
  ({ key: serviceKey } = await svc.createKey({ kind: 'service', accountId: 'forwarding-shop' }));
  ({ key: userKey } = await svc.createKey({ accountId: 'forwarding-shop' }));
}, 120_000);
afterAll(async () => {
  await svc?.close();
});

async function solved(): Promise<string> {
  const c = (await svc.call('GET', '/api/v1/challenge')).body.challenge;
  const s = await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise;
  return Buffer.from(JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number: s!.number, salt: c.salt, signature: c.signature })).toString('base64');
}

async function mint(key: string, body: Record<string, unknown>) {
  return svc.call('POST', '/api/v1/storefront/tokens', { key, body });
}

const as = (shopper: string, ip: string, more: Record<string, string> = {}) => ({ 'x-fitroom-shopper': shopper, 'x-fitroom-shopper-ip': ip, 'x-service-verification-pass-mode': 'header', ...more });

describe('forwarded shoppers', () => {
  it('only a service key mints a forwarding storefront token', async () => {
    expect((await mint(userKey, { forwardsShoppers: true })).body.error.code).toBe('CREDENTIAL_NOT_ALLOWED');
    expect((await mint(serviceKey, { type: 'account', forwardsShoppers: true })).body.error.code).toBe('CREDENTIAL_NOT_ALLOWED');
    expect((await mint(serviceKey, { forwardsShoppers: true })).status).toBe(201);
  });

  it('a pass minted for one shopper is refused for another shopper on the same network, and for the same shopper elsewhere', async () => {
    const token = (await mint(serviceKey, { forwardsShoppers: true })).body.token;
    const first = await svc.call('GET', NO_JOB, { key: token, headers: as('cart_A', '198.51.100.7', { 'x-challenge-token': await solved() }) });
    expect(first.status).toBe(404); // verified, then no such job
    const pass = first.headers.get('x-service-verification-pass')!;
    expect(pass).toBeTruthy();
    expect((await svc.call('GET', NO_JOB, { key: token, headers: as('cart_A', '198.51.100.9', { 'x-service-verification-pass': pass }) })).status).toBe(404);
    const other = await svc.call('GET', NO_JOB, { key: token, headers: as('cart_B', '198.51.100.7', { 'x-service-verification-pass': pass }) });
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe('BOT_VERIFICATION_REQUIRED');
    expect((await svc.call('GET', NO_JOB, { key: token, headers: as('cart_A', '203.0.113.5', { 'x-service-verification-pass': pass }) })).status).toBe(403);
  });

  it('limits count per shopper', async () => {
    const token = (await mint(serviceKey, { forwardsShoppers: true })).body.token;
    const verified = async (shopper: string) => (await svc.call('GET', NO_JOB, { key: token, headers: as(shopper, '192.0.2.1', { 'x-challenge-token': await solved() }) })).headers.get('x-service-verification-pass')!
    const passC = await verified('cus_C')
    const passD = await verified('cus_D')
    const remaining = async (shopper: string, pass: string) => Number((await svc.call('GET', NO_JOB, { key: token, headers: as(shopper, '192.0.2.1', { 'x-service-verification-pass': pass }) })).headers.get('x-ratelimit-remaining'));
    const c1 = await remaining('cus_C', passC);
    const c2 = await remaining('cus_C', passC);
    const d1 = await remaining('cus_D', passD);
    expect(c2).toBe(c1 - 1);
    expect(d1).toBe(c1); // D's first two calls (verify + this) match C's first two
  });

  it("an operator's limit on each shopper's submissions (SHOPPER_SUBMISSIONS_PER_MINUTE) is exact and per shopper", async () => {
    const token = (await mint(serviceKey, { forwardsShoppers: true })).body.token;
    svc.config.shopperSubmissionsPerMinute = 2;
    try {
      // no challenge: each is counted, then refused by bot verification (it costs the service nothing)
      const submit = (shopper: string) => svc.call('POST', '/api/v1/virtual-fitting', { key: token, headers: as(shopper, '192.0.2.9'), body: {} });
      expect((await submit('cart_E')).status).toBe(403);
      expect((await submit('cart_E')).status).toBe(403);
      const over = await submit('cart_E');
      expect(over.status).toBe(429);
      expect(over.body.error.code).toBe('RATE_LIMITED');
      expect(over.headers.get('x-ratelimit-limit')).toBe('2'); // no development multiplier
      expect((await submit('cart_F')).status).toBe(403); // another shopper at the same address: a limit of its own
    } finally {
      svc.config.shopperSubmissionsPerMinute = null;
    }
  });

  it('the headers are refused from any other credential, and checked', async () => {
    const plain = (await mint(serviceKey, {})).body.token;
    const r = await svc.call('GET', NO_JOB, { key: plain, headers: as('cart_A', '198.51.100.7') });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('CREDENTIAL_NOT_ALLOWED');
    expect((await svc.call('GET', NO_JOB, { key: userKey, headers: { 'x-fitroom-shopper': 'cart_A' } })).body.error.code).toBe('CREDENTIAL_NOT_ALLOWED');
    const token = (await mint(serviceKey, { forwardsShoppers: true })).body.token;
    const missing = await svc.call('GET', NO_JOB, { key: token });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.map((d: { field: string }) => d.field)).toEqual(['X-Fitroom-Shopper']);
    const badIp = await svc.call('GET', NO_JOB, { key: token, headers: as('cart A!', 'not-an-ip') });
    expect(badIp.body.error.details.map((d: { field: string }) => d.field)).toEqual(['X-Fitroom-Shopper', 'X-Fitroom-Shopper-IP']);
  });
});
