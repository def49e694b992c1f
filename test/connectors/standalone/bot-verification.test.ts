/**
 * Spec, Authentication 5 through the HTTP API and at the unit level: browser-protected requests need
 * a single-use X-Challenge-Token or the pass cookie it mints (network-bound, one hour from
 * verification, never extended); 403 otherwise; X-Service-Verification-TTL on protected answers.
 * Turnstile and hCaptcha adapters against their documented siteverify contracts (nock):
 * developers.cloudflare.com/turnstile/get-started/server-side-validation and
 * docs.hcaptcha.com/#verify-the-user-response-server-side.
 */
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { solveChallenge } from 'altcha-lib/v1';
import { startTestService, type TestService } from '../../support/harness.ts';
import { images, type Images } from '../../plugins/tryon/helpers.ts';
import { BotVerification, PASS_COOKIE, network } from '../../../core/bot-verification.ts';
import { AltchaVerifier } from '../../../adapters/altcha/verifier.ts';
import { TurnstileVerifier } from '../../../adapters/turnstile/verifier.ts';
import { HcaptchaVerifier } from '../../../adapters/hcaptcha/verifier.ts';
import type { ChallengeReplayStore } from '../../../core/ports/challenge-verifier.ts';
import { TOKENS } from '../../../core/tokens.ts';

let svc: TestService;
let img: Images;
let shopKey: string;

beforeAll(async () => {
  svc = await startTestService({ worker: false });
  img = await images();
  ({ key: shopKey } = await svc.createKey({ accountId: 'bot-shop' }));
}, 120_000);
afterAll(async () => {
  nock.cleanAll();
  await svc?.close();
});

async function solved(): Promise<string> {
  const c = (await svc.call('GET', '/api/v1/challenge')).body;
  expect(c.verifier).toBe('altcha');
  const s = await solveChallenge(c.challenge.challenge, c.challenge.salt, c.challenge.algorithm, c.challenge.maxnumber).promise;
  return Buffer.from(JSON.stringify({ algorithm: c.challenge.algorithm, challenge: c.challenge.challenge, number: s!.number, salt: c.challenge.salt, signature: c.challenge.signature })).toString('base64');
}

const fitting = () => ({ personImages: [img.face], topGarment: img.top, options: { quality: 'draft' } });

describe('browser-protected requests through the API', () => {
  it('a storefront token alone gets 403; a solved challenge passes once, sets the pass and the TTL header; the pass alone then works', async () => {
    const token = (await svc.call('POST', '/api/v1/storefront/tokens', { key: shopKey, body: {} })).body.token;
    const bare = await svc.call('POST', '/api/v1/virtual-fitting', { key: token, body: fitting() });
    expect(bare.status).toBe(403);
    expect(bare.body.error.code).toBe('BOT_VERIFICATION_REQUIRED');

    const challenge = await solved();
    const ok = await svc.call('POST', '/api/v1/virtual-fitting', { key: token, body: fitting(), headers: { 'x-challenge-token': challenge } });
    expect(ok.status, ok.text).toBe(202);
    expect(ok.headers.get('x-service-verification-ttl')).toBe('3600');
    const cookie = ok.headers.getSetCookie().find((c) => c.startsWith(`${PASS_COOKIE}=`))!;
    expect(cookie).toMatch(/httponly/i);
    expect(cookie).toMatch(/max-age=3600|expires=/i);

    const replay = await svc.call('POST', '/api/v1/virtual-fitting', { key: token, body: { ...fitting(), topGarment: img.top2 }, headers: { 'x-challenge-token': challenge } });
    expect(replay.status).toBe(403);
    expect(replay.body.error.message).toMatch(/already used/);

    const pass = cookie.split(';')[0];
    const read = await svc.call('GET', `/api/v1/jobs/${ok.body.jobId}`, { key: token, headers: { cookie: pass } });
    expect(read.status).toBe(200);
    expect(Number(read.headers.get('x-service-verification-ttl'))).toBeGreaterThan(3590);
    const forged = await svc.call('GET', `/api/v1/jobs/${ok.body.jobId}`, { key: token, headers: { cookie: `${PASS_COOKIE}=${pass.split('=')[1].replace(/.$/, 'x')}` } });
    expect(forged.status).toBe(403);
    // the pass never replaces the key
    const noKey = await svc.call('GET', `/api/v1/jobs/${ok.body.jobId}`, { headers: { cookie: pass } });
    expect(noKey.status).toBe(401);
  });

  it('secret-key calls from servers are not asked; the same calls from a browser are', async () => {
    const { key } = await svc.createKey();
    const server = await svc.call('POST', '/api/v1/tryon/clothing', { key, body: fitting() });
    expect(server.status, server.text).toBe(202);
    const browser = await svc.call('POST', '/api/v1/tryon/clothing', { key, body: { ...fitting(), topGarment: img.top2 }, headers: { origin: 'https://shop.example' } });
    expect(browser.status).toBe(403);
    expect(browser.headers.get('access-control-allow-origin')).toBeNull();
    const shoe = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images: [] }, headers: { 'sec-fetch-site': 'cross-site' } });
    expect(shoe.status).toBe(403);
  });

  it('answers CORS preflights for storefront operations and serves the widget, cacheable and within its size budget', async () => {
    const pre = await fetch(`${svc.api}/api/v1/virtual-fitting`, { method: 'OPTIONS', headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-api-key,x-challenge-token,content-type' } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    expect(pre.headers.get('access-control-allow-credentials')).toBe('true');
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/X-Challenge-Token/i);
    const w = await fetch(`${svc.api}/widget/v1/fitroom.js`);
    expect(w.status).toBe(200);
    expect(w.headers.get('content-type')).toMatch(/javascript/);
    expect(w.headers.get('cache-control')).toMatch(/immutable/);
    const source = await w.text();
    const gz = gzipSync(source, { level: 9 }).length;
    console.log(`widget: ${source.length} bytes, ${gz} bytes gzipped (budget 30720)`);
    expect(gz).toBeLessThanOrEqual(30 * 1024);
    expect(source).not.toMatch(/fr_(live|svc|dev)_|wfs1\.|x-admin-key/i);
  });
});

describe('the pass, with a controllable clock', () => {
  it('lasts one hour from verification, use never extends it, and it is bound to the client network', async () => {
    let now = new Date('2026-11-24T10:00:00Z');
    const used = new Set<string>();
    const replay: ChallengeReplayStore = { claim: async (id) => (used.has(id) ? false : (used.add(id), true)), purgeExpired: async () => 0 };
    const verifier = new AltchaVerifier({ hmacKey: 'unit-hmac-key', maxNumber: 200, ttlSeconds: 600 });
    const bot = new BotVerification({ verifier, replay, signingSecret: svc.fitroom.get(TOKENS.signingSecret), now: () => now });
    const c = (await verifier.challenge()) as { algorithm: string; challenge: string; salt: string; signature: string; maxnumber: number };
    const s = await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise;
    const token = Buffer.from(JSON.stringify({ ...c, number: s!.number })).toString('base64');
    const first = await bot.check({ challengeToken: token, ip: '203.0.113.7' });
    expect(first.ttlSeconds).toBe(3600);
    const pass = first.setPass!.value;
    now = new Date(now.getTime() + 1800_000);
    expect((await bot.check({ passCookie: pass, ip: '203.0.113.200' })).ttlSeconds).toBe(1800); // same /24
    await expect(bot.check({ passCookie: pass, ip: '198.51.100.7' })).rejects.toMatchObject({ code: 'BOT_VERIFICATION_REQUIRED' });
    now = new Date(now.getTime() + 1799_000);
    expect((await bot.check({ passCookie: pass, ip: '203.0.113.7' })).ttlSeconds).toBe(1); // not extended by the uses above
    now = new Date(now.getTime() + 2000);
    await expect(bot.check({ passCookie: pass, ip: '203.0.113.7' })).rejects.toMatchObject({ code: 'BOT_VERIFICATION_REQUIRED', status: 403 });
    await expect(bot.check({ challengeToken: token, ip: '203.0.113.7' })).rejects.toThrow(/already used|invalid or expired/);
    expect(network('2001:db8:1:2:3:4:5:6')).toBe(network('2001:db8:1:2:ffff::1'));
    expect(network('::ffff:203.0.113.9')).toBe('203.0.113.0/24');
  });
});

describe('vendor verifiers (siteverify)', () => {
  it('Turnstile: sends secret, response, remoteip and an idempotency key; maps success, errors and outages', async () => {
    const t = new TurnstileVerifier({ secretKey: 'ts-secret', siteKey: 'ts-site' });
    let form: URLSearchParams | null = null;
    nock('https://challenges.cloudflare.com')
      .post('/turnstile/v0/siteverify')
      .reply(200, async (req: Request) => {
        form = new URLSearchParams(await req.text());
        return { success: true, challenge_ts: new Date().toISOString(), hostname: 'shop.example', 'error-codes': [], action: '', cdata: '' };
      });
    const ok = await t.verify('tok-1', { ip: '203.0.113.5' });
    expect(ok.ok).toBe(true);
    expect(form!.get('secret')).toBe('ts-secret');
    expect(form!.get('response')).toBe('tok-1');
    expect(form!.get('remoteip')).toBe('203.0.113.5');
    expect(form!.get('idempotency_key')).toMatch(/^[0-9a-f-]{36}$/);
    nock('https://challenges.cloudflare.com').post('/turnstile/v0/siteverify').reply(200, { success: false, 'error-codes': ['timeout-or-duplicate'] });
    expect(await t.verify('tok-1', { ip: '203.0.113.5' })).toMatchObject({ ok: false, reason: expect.stringMatching(/timeout-or-duplicate/) });
    nock('https://challenges.cloudflare.com').post('/turnstile/v0/siteverify').reply(503, 'unavailable');
    expect((await t.verify('tok-2', { ip: '203.0.113.5' })).ok).toBe(false);
    expect(await t.challenge()).toEqual({ siteKey: 'ts-site', script: 'https://challenges.cloudflare.com/turnstile/v0/api.js' });
  });

  it('hCaptcha: sends secret, response, remoteip and sitekey; maps success and errors', async () => {
    const h = new HcaptchaVerifier({ secretKey: '0x-secret', siteKey: 'site-uuid' });
    let form: URLSearchParams | null = null;
    nock('https://api.hcaptcha.com')
      .post('/siteverify')
      .reply(200, async (req: Request) => {
        form = new URLSearchParams(await req.text());
        return { success: true, challenge_ts: new Date().toISOString(), hostname: 'shop.example' };
      });
    expect((await h.verify('h-1', { ip: '198.51.100.4' })).ok).toBe(true);
    expect(Object.fromEntries(form!)).toEqual({ secret: '0x-secret', response: 'h-1', remoteip: '198.51.100.4', sitekey: 'site-uuid' });
    nock('https://api.hcaptcha.com').post('/siteverify').reply(200, { success: false, 'error-codes': ['invalid-input-response'] });
    expect(await h.verify('bad', { ip: '198.51.100.4' })).toMatchObject({ ok: false, reason: expect.stringMatching(/invalid-input-response/) });
  });
});
