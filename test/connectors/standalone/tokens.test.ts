/**
 * Spec, Authentication 2-4 through the HTTP API: storefront (wfs1.), account (wfa1.) and usage (wfu1.)
 * tokens: minting, where each is accepted and refused, expiry, tampering, revocation of the minting
 * key, re-minting reaching jobs in flight, what each counts, and the AR host shortcuts' links.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/harness.ts';
import { images, type Images } from '../../plugins/tryon/helpers.ts';
import { AccountTokens, usageHandshake } from '../../../core/account-tokens.ts';
import { sha256Hex } from '../../../core/credentials.ts';
import { TOKENS } from '../../../core/tokens.ts';

const HANDSHAKE = 'usage-handshake-secret-0123456789-abcdef';
let svc: TestService;
let img: Images;

beforeAll(async () => {
  svc = await startTestService({ worker: false, env: { USAGE_TOKEN_HANDSHAKE_SECRET: HANDSHAKE, BOT_VERIFIER: 'off' } });
  img = await images();
}, 120_000);
afterAll(async () => svc?.close());

async function mint(key: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return svc.call('POST', '/api/v1/storefront/tokens', { key, body, headers });
}

const fitting = () => ({ personImages: [img.face], topGarment: img.top, options: { quality: 'draft' } });

describe('storefront tokens (wfs1.)', () => {
  it('are minted by a key for its own account, short-lived by default and never beyond the maximum', async () => {
    const { key } = await svc.createKey({ accountId: 'shop-1' });
    const r = await mint(key);
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ success: true, tokenType: 'storefront', accountId: 'shop-1', expiresIn: 900 });
    expect(r.body.token).toMatch(/^wfs1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(Date.parse(r.body.expiresAt) - Date.now()).toBeGreaterThan(890_000);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect((await mint(key, { ttlSeconds: 3601 })).body.error.details[0].field).toBe('ttlSeconds');
    expect((await mint(key, { accountId: 'another-shop' })).body.error.code).toBe('CREDENTIAL_NOT_ALLOWED');
    // a key without an account mints for its own namespace
    const lone = await svc.createKey();
    expect((await mint(lone.key)).body.accountId).toBe(`key:${lone.id}`);
  });

  it('submit virtual fitting and read their jobs; a re-minted token of the same account reaches them, nobody else does', async () => {
    const shop = await svc.createKey({ accountId: 'shop-2' });
    const t1 = (await mint(shop.key)).body.token;
    const sub = await svc.call('POST', '/api/v1/virtual-fitting', { key: t1, body: fitting() });
    expect(sub.status, sub.text).toBe(202);
    expect(sub.body.statusUrl).toBe(`${svc.api}/api/v1/jobs/${sub.body.jobId}`);
    expect((await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}`, { key: t1 })).status).toBe(200);

    const t2 = (await mint(shop.key)).body.token;
    expect(t2).not.toBe(t1);
    expect((await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}`, { key: t2 })).status).toBe(200);

    const other = (await mint((await svc.createKey({ accountId: 'shop-3' })).key)).body.token;
    const foreign = await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}`, { key: other });
    const missing = await svc.call('GET', '/api/v1/jobs/00000000-0000-4000-8000-000000000000', { key: other });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toEqual({ ...missing.body.error, message: foreign.body.error.message });
    // the shop's own key owns key-submitted jobs only
    expect((await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}`, { key: shop.key })).status).toBe(404);

    // ownership and webhook key: SHA-256 of storefront:<accountId>
    const row = await svc.fitroom.pool.query<{ owner_hash: string }>('select owner_hash from jobs where id = $1', [sub.body.jobId]);
    expect(row.rows[0].owner_hash).toBe(sha256Hex('storefront:shop-2'));
  });

  it('are refused on every other operation with 403 CREDENTIAL_NOT_ALLOWED', async () => {
    const token = (await mint((await svc.createKey({ accountId: 'shop-4' })).key)).body.token;
    const sub = await svc.call('POST', '/api/v1/virtual-fitting', { key: token, body: fitting() });
    const refused = [
      await svc.call('POST', '/api/v1/tryon/clothing', { key: token, body: fitting() }),
      await svc.call('DELETE', `/api/v1/jobs/${sub.body.jobId}`, { key: token }),
      await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}/trace`, { key: token }),
      await svc.call('POST', '/api/v1/storefront/tokens', { key: token, body: {} }),
      await svc.call('GET', '/api/v1/warmup', { key: token }),
    ];
    for (const r of refused) {
      expect(r.status, r.text).toBe(403);
      expect(r.body.error.code).toBe('CREDENTIAL_NOT_ALLOWED');
    }
  });

  it('count the AI quota of the account, not the key usage counter', async () => {
    const shop = await svc.createKey({ accountId: 'shop-5', monthlyQuota: 1 });
    const token = (await mint(shop.key)).body.token;
    expect((await svc.call('POST', '/api/v1/virtual-fitting', { key: token, body: fitting() })).status).toBe(202);
    expect(await svc.usage(shop.id)).toBe(0);
    const over = await svc.call('POST', '/api/v1/virtual-fitting', { key: token, body: { ...fitting(), topGarment: img.top2 } });
    expect(over.status, over.text).toBe(429);
    expect(over.body.error.code).toBe('QUOTA_EXCEEDED');
  });

  it('expired, tampered and orphaned tokens answer 401 ACCOUNT_TOKEN_INVALID', async () => {
    const shop = await svc.createKey({ accountId: 'shop-6' });
    const token: string = (await mint(shop.key)).body.token;
    const rec = (await svc.fitroom.get(TOKENS.credentials).active(shop.id))!;
    // the same deployment secret, a clock two hours back: signed correctly, expired an hour ago
    const past = new AccountTokens({ secrets: [], derivedFrom: svc.fitroom.get(TOKENS.signingSecret), usageHandshakeSecret: null, credentials: svc.fitroom.get(TOKENS.credentials), now: () => new Date(Date.now() - 2 * 3600_000) });
    const expired = past.mint('storefront', rec, 3600).token;
    const [payload, sig] = token.slice(5).split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const tampered = `wfs1.${Buffer.from(JSON.stringify({ ...claims, acc: 'shop-7' })).toString('base64url')}.${sig}`;
    for (const t of [expired, tampered, `${token}x`, 'wfs1.garbage']) {
      const r = await svc.call('GET', '/api/v1/jobs/00000000-0000-4000-8000-000000000000', { key: t });
      expect(r.status, t).toBe(401);
      expect(r.body.error.code).toBe('ACCOUNT_TOKEN_INVALID');
    }
    expect((await svc.call('GET', '/api/v1/jobs/00000000-0000-4000-8000-000000000000', { key: token })).status).toBe(404);
    await svc.call('DELETE', `/admin/v1/keys/${shop.id}`, { headers: { 'x-admin-key': ADMIN_KEY } });
    const revoked = await svc.call('GET', '/api/v1/jobs/00000000-0000-4000-8000-000000000000', { key: token });
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.code).toBe('ACCOUNT_TOKEN_INVALID');
  });
});

describe('account tokens (wfa1.) in X-Service-Account', () => {
  it('with a service key: ownership account:<id>, AI quota counted, key usage not; re-minted tokens reach the jobs', async () => {
    const shop = await svc.createKey({ accountId: 'acct-1' });
    const service = await svc.createKey({ kind: 'service' });
    const a1 = (await mint(shop.key, { type: 'account' })).body.token;
    expect(a1).toMatch(/^wfa1\./);
    const sub = await svc.call('POST', '/api/v1/virtual-fitting', { key: service.key, body: fitting(), headers: { 'x-service-account': a1 } });
    expect(sub.status, sub.text).toBe(202);
    const row = await svc.fitroom.pool.query<{ owner_hash: string }>('select owner_hash from jobs where id = $1', [sub.body.jobId]);
    expect(row.rows[0].owner_hash).toBe(sha256Hex('account:acct-1'));
    expect(await svc.usage(service.id)).toBe(0);
    // the admin API mints account tokens too; either reaches the job together with a service key
    const a2 = await svc.call('POST', '/admin/v1/account-tokens', { headers: { 'x-admin-key': ADMIN_KEY }, body: { accountId: 'acct-1' } });
    expect(a2.status, a2.text).toBe(201);
    expect((await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}`, { key: service.key, headers: { 'x-service-account': a2.body.token } })).status).toBe(200);
    // the service key alone does not own account jobs
    expect((await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}`, { key: service.key })).status).toBe(404);
    expect((await svc.call('POST', '/admin/v1/account-tokens', { headers: { 'x-admin-key': ADMIN_KEY }, body: { accountId: 'nobody' } })).status).toBe(404);
  });

  it('forged ones answer 401 ACCOUNT_TOKEN_INVALID (shoe-3d included); misplaced ones are refused', async () => {
    const service = await svc.createKey({ kind: 'service' });
    const user = await svc.createKey({ accountId: 'acct-2' });
    const forged = 'wfa1.eyJ0eXAiOiJhY2NvdW50Iiwia2lkIjoiZDEiLCJhY2MiOiJhY2N0LTIiLCJrZXkiOiJ4IiwiaWF0IjoxLCJleHAiOjk5OTk5OTk5OTl9.c2lnbmF0dXJl';
    for (const path of ['/api/v1/shoe-3d', '/api/v1/virtual-fitting']) {
      const r = await svc.call('POST', path, { key: service.key, body: {}, headers: { 'x-service-account': forged } });
      expect(r.status, r.text).toBe(401);
      expect(r.body.error.code).toBe('ACCOUNT_TOKEN_INVALID');
    }
    const real = (await mint(user.key, { type: 'account' })).body.token;
    const inKey = await svc.call('GET', '/api/v1/warmup', { key: real });
    expect(inKey.status).toBe(401);
    expect(inKey.body.error.code).toBe('HTTP_ERROR');
    const withUserKey = await svc.call('GET', '/api/v1/warmup', { key: user.key, headers: { 'x-service-account': real } });
    expect(withUserKey.status).toBe(403);
    expect(withUserKey.body.error.code).toBe('CREDENTIAL_NOT_ALLOWED');
  });
});

describe('usage tokens (wfu1.) in X-Service-Usage-Account', () => {
  it('need the handshake to mint, attribute successful requests, and change nothing else', async () => {
    const service = await svc.createKey({ kind: 'service' });
    const user = await svc.createKey({ accountId: 'partner-1' });
    expect((await mint(service.key, { type: 'usage', accountId: 'partner-1' })).status).toBe(401);
    expect((await mint(service.key, { type: 'usage', accountId: 'partner-1' }, { 'x-usage-handshake': usageHandshake('wrong-secret-wrong-secret-wrong', 'partner-1') })).status).toBe(401);
    expect((await mint(service.key, { type: 'usage', accountId: 'partner-1' }, { 'x-usage-handshake': usageHandshake(HANDSHAKE, 'partner-1', new Date(Date.now() - 600_000)) })).status).toBe(401);
    expect((await mint(user.key, { type: 'usage', accountId: 'partner-1' }, { 'x-usage-handshake': usageHandshake(HANDSHAKE, 'partner-1') })).body.error.code).toBe('CREDENTIAL_NOT_ALLOWED');
    const minted = await mint(service.key, { type: 'usage', accountId: 'partner-1' }, { 'x-usage-handshake': usageHandshake(HANDSHAKE, 'partner-1') });
    expect(minted.status, minted.text).toBe(201);
    const usage: string = minted.body.token;
    expect(usage).toMatch(/^wfu1\./);

    const sub = await svc.call('POST', '/api/v1/virtual-fitting', { key: service.key, body: fitting(), headers: { 'x-service-usage-account': usage } });
    expect(sub.status, sub.text).toBe(202);
    // ownership stays with the service key
    expect((await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}`, { key: service.key })).status).toBe(200);
    // an invalid usage token is ignored
    expect((await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}`, { key: service.key, headers: { 'x-service-usage-account': 'wfu1.bogus' } })).status).toBe(200);
    const report = await svc.call('GET', '/admin/v1/usage-attribution?accountId=partner-1', { headers: { 'x-admin-key': ADMIN_KEY } });
    expect(report.body.usage).toEqual([{ accountId: 'partner-1', operationId: 'createVirtualFitting', day: new Date().toISOString().slice(0, 10), count: 1 }]);

    // refused with any other credential and anywhere else
    const refused = [
      await svc.call('GET', '/api/v1/warmup', { key: user.key, headers: { 'x-service-usage-account': usage } }),
      await svc.call('GET', '/api/v1/health', { headers: { 'x-service-usage-account': usage } }),
      await svc.call('GET', '/admin/v1/keys', { headers: { 'x-admin-key': ADMIN_KEY, 'x-service-usage-account': usage } }),
      await svc.call('GET', '/api/v1/warmup', { key: usage }),
    ];
    expect(refused.map((r) => r.status)).toEqual([403, 403, 403, 401]);
  });
});

describe('the IP allowlist scheme', () => {
  it('lets allowlisted clients in without a key and answers 403 to others', async () => {
    const { definePlugin } = await import('../../../core/plugin.ts');
    const probe = definePlugin({
      name: 'allowlist-probe',
      setup(api) {
        api.operation({ id: 'operatorProbe', method: 'GET', path: '/api/v1/operator-probe', summary: 'probe', auth: ['ipAllowlist'], responses: { 200: { description: 'ok' } }, handler: async () => ({ body: { ok: true } }) });
      },
    });
    const open = await startTestService({ worker: false, plugins: [probe], env: { MONITORING_ALLOWED_IPS: '127.0.0.0/8,::1/128' } });
    const closed = await startTestService({ worker: false, plugins: [probe], env: { MONITORING_ALLOWED_IPS: '10.0.0.0/8' } });
    const unset = await startTestService({ worker: false, plugins: [probe] });
    try {
      expect((await open.call('GET', '/api/v1/operator-probe')).body).toEqual({ ok: true });
      expect((await unset.call('GET', '/api/v1/operator-probe')).status).toBe(403);
      const refused = await closed.call('GET', '/api/v1/operator-probe');
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('FORBIDDEN');
    } finally {
      await open.close();
      await closed.close();
      await unset.close();
    }
  });
});
