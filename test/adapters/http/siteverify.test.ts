/**
 * The Turnstile and hCaptcha verifiers against their documented siteverify contracts (nock):
 * - Cloudflare Turnstile, "Validate the token" (developers.cloudflare.com/turnstile/get-started/server-side-validation):
 *   POST https://challenges.cloudflare.com/turnstile/v0/siteverify, form or JSON with `secret`, `response`,
 *   optional `remoteip` and `idempotency_key` (a UUID for safe retries); answers `{success, "error-codes",
 *   challenge_ts, hostname, action, cdata}`; tokens are at most 2048 characters, valid 300 s, single use
 *   (a replay answers `timeout-or-duplicate`).
 * - hCaptcha, "Verify the User Response Server Side" (docs.hcaptcha.com/#verify-the-user-response-server-side):
 *   POST https://api.hcaptcha.com/siteverify, form-encoded `secret`, `response`, optional `remoteip` and
 *   `sitekey`; answers `{success, challenge_ts, hostname, credit?, "error-codes"?}`.
 */
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { useNock } from '../vendor-helpers.ts';
import { TurnstileVerifier } from '../../../adapters/turnstile/verifier.ts';
import { HcaptchaVerifier } from '../../../adapters/hcaptcha/verifier.ts';

useNock();

/** Replies once at `origin + path` and hands the form fields the verifier sent to `into`. */
function siteverify(origin: string, path: string, reply: Record<string, unknown>, into: { form?: URLSearchParams; type?: string }) {
  nock(origin)
    .post(path)
    .reply(200, async (req: Request) => {
      into.type = req.headers.get('content-type') ?? undefined;
      into.form = new URLSearchParams(await req.text());
      return reply;
    });
}

describe('Cloudflare Turnstile', () => {
  const t = new TurnstileVerifier({ secretKey: 'ts-secret', siteKey: 'ts-site' });
  const ORIGIN = 'https://challenges.cloudflare.com';
  const PATH = '/turnstile/v0/siteverify';

  it('sends secret, response, remoteip and an idempotency key as a form; a success is remembered until 300 s after challenge_ts', async () => {
    const sent: { form?: URLSearchParams; type?: string } = {};
    const solvedAt = new Date(Date.now() - 20_000);
    siteverify(ORIGIN, PATH, { success: true, challenge_ts: solvedAt.toISOString(), hostname: 'shop.example', 'error-codes': [], action: 'tryon', cdata: '' }, sent);
    const ok = await t.verify('tok-1', { ip: '203.0.113.5' });
    expect(ok).toMatchObject({ ok: true, id: expect.stringMatching(/^challenges\.cloudflare\.com:[0-9a-f]{64}$/) });
    expect(ok.expiresAt!.getTime()).toBe(solvedAt.getTime() + 300_000);
    expect(sent.type).toMatch(/application\/x-www-form-urlencoded/);
    expect([...sent.form!.keys()].sort()).toEqual(['idempotency_key', 'remoteip', 'response', 'secret']);
    expect(sent.form!.get('secret')).toBe('ts-secret');
    expect(sent.form!.get('response')).toBe('tok-1');
    expect(sent.form!.get('remoteip')).toBe('203.0.113.5');
    expect(sent.form!.get('idempotency_key')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('passes the error codes of a refusal on, fails closed on outages, and refuses over-long tokens without a call', async () => {
    siteverify(ORIGIN, PATH, { success: false, 'error-codes': ['timeout-or-duplicate'] }, {});
    expect(await t.verify('tok-1', { ip: '203.0.113.5' })).toEqual({ ok: false, reason: 'the challenge was refused (timeout-or-duplicate)' });
    nock(ORIGIN).post(PATH).reply(503, 'unavailable');
    expect(await t.verify('tok-2', { ip: '203.0.113.5' })).toEqual({ ok: false, reason: 'the verification service answered HTTP 503' });
    nock(ORIGIN).post(PATH).replyWithError('socket hang up');
    expect(await t.verify('tok-3', { ip: '203.0.113.5' })).toMatchObject({ ok: false, reason: expect.stringMatching(/could not be reached/) });
    nock(ORIGIN).post(PATH).reply(200, 'not json');
    expect((await t.verify('tok-4', { ip: '203.0.113.5' })).ok).toBe(false);
    // no interceptor is left for this one: a call would fail the test with a nock error instead
    expect(await t.verify('x'.repeat(2049), { ip: '203.0.113.5' })).toEqual({ ok: false, reason: 'the challenge token is too long' });
  });

  it('tells the page which script and site key to render', async () => {
    expect(await t.challenge()).toEqual({ siteKey: 'ts-site', script: 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit' });
  });
});

describe('hCaptcha', () => {
  const h = new HcaptchaVerifier({ secretKey: '0x-secret', siteKey: 'site-uuid' });
  const ORIGIN = 'https://api.hcaptcha.com';

  it('sends secret, response, remoteip and sitekey as a form; maps success and error codes', async () => {
    const sent: { form?: URLSearchParams; type?: string } = {};
    siteverify(ORIGIN, '/siteverify', { success: true, challenge_ts: new Date().toISOString(), hostname: 'shop.example', credit: false }, sent);
    expect(await h.verify('P1_h-1', { ip: '198.51.100.4' })).toMatchObject({ ok: true, id: expect.stringMatching(/^api\.hcaptcha\.com:[0-9a-f]{64}$/) });
    expect(sent.type).toMatch(/application\/x-www-form-urlencoded/);
    expect(Object.fromEntries(sent.form!)).toEqual({ secret: '0x-secret', response: 'P1_h-1', remoteip: '198.51.100.4', sitekey: 'site-uuid' });
    siteverify(ORIGIN, '/siteverify', { success: false, 'error-codes': ['invalid-input-response', 'sitekey-secret-mismatch'] }, {});
    expect(await h.verify('bad', { ip: '198.51.100.4' })).toEqual({ ok: false, reason: 'the challenge was refused (invalid-input-response, sitekey-secret-mismatch)' });
    siteverify(ORIGIN, '/siteverify', { success: false }, {});
    expect(await h.verify('bad', { ip: '198.51.100.4' })).toEqual({ ok: false, reason: 'the challenge was refused (unknown)' });
    expect(await h.challenge()).toEqual({ siteKey: 'site-uuid', script: 'https://js.hcaptcha.com/1/api.js?render=explicit' });
  });
});
