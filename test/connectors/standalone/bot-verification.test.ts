/**
 * Spec, Authentication 5 through the HTTP API: browser-protected requests need
 * a single-use X-Challenge-Token or the pass cookie it mints (network-bound, one hour from
 * verification, never extended); 403 otherwise; X-Service-Verification-TTL on protected answers.
 * The class itself (clock, rotation, replay across processes) is tested in test/core/bot-verification.test.ts,
 * the Turnstile and hCaptcha adapters in test/adapters/http/siteverify.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solveChallenge } from 'altcha-lib/v1';
import { startTestService, type TestService } from '../../support/harness.ts';
import { images, type Images } from '../../plugins/tryon/helpers.ts';
import { PASS_COOKIE } from '../../../core/bot-verification.ts';
import { WIDGET_BUDGET_GZIP, scriptSize } from '../../../plugins/storefront/widget-size.ts';

let svc: TestService;
let img: Images;
let shopKey: string;

beforeAll(async () => {
  svc = await startTestService({ worker: false });
  img = await images();
  ({ key: shopKey } = await svc.createKey({ accountId: 'bot-shop' }));
}, 120_000);
afterAll(async () => {
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
    const size = scriptSize(source);
    console.log(`widget: ${size.bytes} bytes, ${size.gzipped} bytes gzipped (budget ${WIDGET_BUDGET_GZIP})`);
    expect(size.gzipped).toBeLessThanOrEqual(WIDGET_BUDGET_GZIP);
    expect(source).not.toMatch(/fr_(live|svc|dev)_|wfs1\.|x-admin-key/i);
  });
});
