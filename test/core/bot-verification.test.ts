/**
 * BotVerification (spec, Authentication 5) at the unit level, against real PostgreSQL: a challenge
 * token is used once across processes (two pools stand for two processes), the pass lasts one hour
 * from verification and use never extends it (a controllable clock), it is bound to the client
 * network, signed with a key id so secrets rotate, and expired token ids are purged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solveChallenge } from 'altcha-lib/v1';
import { createTestDatabase } from '../support/database.ts';
import { createPool, type Pool } from '../../adapters/postgres/db.ts';
import { PostgresChallengeReplayStore } from '../../adapters/postgres/challenge-replay-store.ts';
import { AltchaVerifier } from '../../adapters/altcha/verifier.ts';
import { BotVerification, PASS_SECONDS, network } from '../../core/bot-verification.ts';
import type { ChallengeVerifier } from '../../core/ports/challenge-verifier.ts';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let poolA: Pool;
let poolB: Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  poolA = createPool(db.url, 4);
  poolB = createPool(db.url, 4);
});
afterAll(async () => {
  await poolA?.end();
  await poolB?.end();
  await db?.drop();
});

const SECRET = 'unit-test-signing-secret-of-the-deployment';
const altcha = new AltchaVerifier({ hmacKey: 'unit-hmac-key', maxNumber: 300, ttlSeconds: 600 });

/** A solved ALTCHA challenge, as the widget sends it in X-Challenge-Token. */
async function solvedToken(): Promise<string> {
  const c = (await altcha.challenge()) as { algorithm: string; challenge: string; salt: string; signature: string; maxnumber: number };
  const s = await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise;
  return Buffer.from(JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number: s!.number, salt: c.salt, signature: c.signature })).toString('base64');
}

describe('the replay store (PostgreSQL)', () => {
  it('lets exactly one of many concurrent claims of an id win, from any process', async () => {
    const a = new PostgresChallengeReplayStore(poolA);
    const b = new PostgresChallengeReplayStore(poolB);
    const until = new Date(Date.now() + 600_000);
    const claims = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? a : b).claim('race-id', until)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await a.claim('race-id', until)).toBe(false);
    expect(await b.claim('another-id', until)).toBe(true);
  });

  it('purges only the ids whose tokens have expired', async () => {
    const store = new PostgresChallengeReplayStore(poolA);
    const now = new Date('2026-11-24T12:00:00Z');
    await store.claim('old-1', new Date(now.getTime() - 1000));
    await store.claim('old-2', new Date(now.getTime() - 60_000));
    await store.claim('live', new Date(now.getTime() + 60_000));
    expect(await store.purgeExpired(now)).toBeGreaterThanOrEqual(2);
    const left = await poolA.query<{ id: string }>("select id from used_challenges where id in ('old-1', 'old-2', 'live')");
    expect(left.rows.map((r) => r.id)).toEqual(['live']);
    // a purged id could be claimed again, but its token has expired and the verifier refuses it first
    expect(await store.claim('live', new Date(now.getTime() + 60_000))).toBe(false);
  });
});

describe('BotVerification', () => {
  it('accepts a solved challenge once across processes, then the pass: one hour from verification, never extended, bound to the network', async () => {
    let now = new Date('2026-11-24T10:00:00Z');
    const clock = () => now;
    const processA = new BotVerification({ verifier: altcha, replay: new PostgresChallengeReplayStore(poolA), signingSecret: SECRET, now: clock });
    const processB = new BotVerification({ verifier: altcha, replay: new PostgresChallengeReplayStore(poolB), signingSecret: SECRET, now: clock });

    const token = await solvedToken();
    const [first, second] = await Promise.allSettled([processA.check({ challengeToken: token, ip: '203.0.113.7' }), processB.check({ challengeToken: token, ip: '203.0.113.7' })]);
    const won = [first, second].filter((r) => r.status === 'fulfilled');
    const lost = [first, second].filter((r) => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost[0]).toMatchObject({ reason: { code: 'BOT_VERIFICATION_REQUIRED', status: 403, message: expect.stringMatching(/already used/) } });
    const minted = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<BotVerification['check']>>>).value;
    expect(minted.ttlSeconds).toBe(PASS_SECONDS);
    expect(minted.setPass).toMatchObject({ name: 'fitroom_pass', maxAgeSeconds: 3600 });
    const pass = minted.setPass!.value;

    // the other process honours the pass (same deployment secret), for the rest of the hour only
    now = new Date(now.getTime() + 1800_000);
    expect(await processB.check({ passCookie: pass, ip: '203.0.113.200' })).toEqual({ ttlSeconds: 1800 }); // same /24, no new pass
    await expect(processB.check({ passCookie: pass, ip: '198.51.100.7' })).rejects.toMatchObject({ code: 'BOT_VERIFICATION_REQUIRED' });
    now = new Date(now.getTime() + 1799_000);
    expect((await processA.check({ passCookie: pass, ip: '203.0.113.7' })).ttlSeconds).toBe(1); // the uses above did not extend it
    now = new Date(now.getTime() + 1000);
    await expect(processA.check({ passCookie: pass, ip: '203.0.113.7' })).rejects.toMatchObject({ code: 'BOT_VERIFICATION_REQUIRED', status: 403 });

    // a new token mints a fresh pass even while the old one is valid
    const again = await processA.check({ challengeToken: await solvedToken(), ip: '203.0.113.7' });
    expect(again.ttlSeconds).toBe(3600);
    expect(again.setPass!.value).not.toBe(pass);
    await expect(processA.check({ ip: '203.0.113.7' })).rejects.toThrow(/needs a solved challenge/);
  });

  it('refuses tampered, unsigned, foreign and oversized passes and tokens', async () => {
    const bot = new BotVerification({ verifier: altcha, replay: new PostgresChallengeReplayStore(poolA), signingSecret: SECRET });
    const pass = (await bot.check({ challengeToken: await solvedToken(), ip: '2001:db8:1:2::7' })).setPass!.value;
    expect((await bot.check({ passCookie: pass, ip: '2001:db8:1:2:ffff::1' })).ttlSeconds).toBeGreaterThan(3590); // same /64
    const [payload, sig] = pass.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { at: number; kid: string };
    expect(claims.kid).toBe('d1');
    const later = Buffer.from(JSON.stringify({ ...claims, at: claims.at + 86_400 })).toString('base64url');
    for (const forged of [`${later}.${sig}`, payload, `${payload}.${sig}.x`, `${payload}.${sig.slice(0, -2)}`, 'not-a-pass', '']) {
      await expect(bot.check({ passCookie: forged, ip: '2001:db8:1:2::7' })).rejects.toMatchObject({ code: 'BOT_VERIFICATION_REQUIRED' });
    }
    // a pass names its holder (a platform's rate-limit bucket) only when it is valid for this network
    expect(bot.passHolder(pass, '2001:db8:1:2::9')).toMatch(/^[\w-]{22}$/);
    expect(bot.passHolder(pass, '2001:db8:1:2::9')).toBe(bot.passHolder(pass, '2001:db8:1:2::7'));
    expect(bot.passHolder(pass, '2001:db8:9::1')).toBeNull();
    for (const forged of [`${later}.${sig}`, 'not-a-pass', '']) expect(bot.passHolder(forged, '2001:db8:1:2::7')).toBeNull();
    const otherDeployment = new BotVerification({ verifier: altcha, replay: new PostgresChallengeReplayStore(poolA), signingSecret: 'another-deployment-secret' });
    await expect(otherDeployment.check({ passCookie: pass, ip: '2001:db8:1:2::7' })).rejects.toMatchObject({ code: 'BOT_VERIFICATION_REQUIRED' });
    await expect(bot.check({ challengeToken: 'x'.repeat(9000), ip: '2001:db8:1:2::7' })).rejects.toThrow(/too long/);
    await expect(bot.check({ challengeToken: Buffer.from('{"number":1}').toString('base64'), ip: '2001:db8:1:2::7' })).rejects.toThrow(/invalid or expired/);
  });

  it('signs passes with the first configured secret and verifies with every configured one (rotation by key id)', async () => {
    const replay = new PostgresChallengeReplayStore(poolA);
    const before = new BotVerification({ verifier: altcha, replay, signingSecret: SECRET, secrets: [{ kid: 'k1', secret: 'first-secret-of-at-least-thirty-two-chars' }] });
    const pass = (await before.check({ challengeToken: await solvedToken(), ip: '192.0.2.10' })).setPass!.value;
    expect(JSON.parse(Buffer.from(pass.split('.')[0], 'base64url').toString('utf8')).kid).toBe('k1');
    const rotating = new BotVerification({ verifier: altcha, replay, signingSecret: SECRET, secrets: [{ kid: 'k2', secret: 'second-secret-of-at-least-thirty-two-chars' }, { kid: 'k1', secret: 'first-secret-of-at-least-thirty-two-chars' }] });
    expect((await rotating.check({ passCookie: pass, ip: '192.0.2.10' })).ttlSeconds).toBeGreaterThan(3590);
    const fresh = (await rotating.check({ challengeToken: await solvedToken(), ip: '192.0.2.10' })).setPass!.value;
    expect(JSON.parse(Buffer.from(fresh.split('.')[0], 'base64url').toString('utf8')).kid).toBe('k2');
    const rotated = new BotVerification({ verifier: altcha, replay, signingSecret: SECRET, secrets: [{ kid: 'k2', secret: 'second-secret-of-at-least-thirty-two-chars' }] });
    await expect(rotated.check({ passCookie: pass, ip: '192.0.2.10' })).rejects.toMatchObject({ code: 'BOT_VERIFICATION_REQUIRED' });
    expect((await rotated.check({ passCookie: fresh, ip: '192.0.2.10' })).ttlSeconds).toBeGreaterThan(3590);
  });

  it('remembers a vendor token by its verdict id until the vendor says it expires, and passes on the vendor\'s reason', async () => {
    const seen: string[] = [];
    const vendor: ChallengeVerifier = {
      id: 'turnstile',
      challenge: async () => ({ siteKey: 'site' }),
      verify: async (token, ctx) => (seen.push(`${token}@${ctx.ip}`), token === 'good' ? { ok: true, id: 'vendor:good', expiresAt: new Date(Date.now() + 300_000) } : { ok: false, reason: 'the challenge was refused (invalid-input-response)' }),
    };
    const bot = new BotVerification({ verifier: vendor, replay: new PostgresChallengeReplayStore(poolB), signingSecret: SECRET });
    expect((await bot.check({ challengeToken: 'good', ip: '198.51.100.9' })).setPass).toBeDefined();
    await expect(bot.check({ challengeToken: 'good', ip: '198.51.100.9' })).rejects.toThrow(/already used/);
    await expect(bot.check({ challengeToken: 'bad', ip: '198.51.100.9' })).rejects.toThrow(/invalid-input-response/);
    expect(seen).toEqual(['good@198.51.100.9', 'good@198.51.100.9', 'bad@198.51.100.9']);
    const row = await poolB.query<{ expires_at: Date }>("select expires_at from used_challenges where id = 'vendor:good'");
    expect(row.rows[0].expires_at.getTime()).toBeGreaterThan(Date.now() + 250_000);
  });

  it('computes the client network: IPv4 /24, IPv6 /64, IPv4-mapped IPv6 as IPv4', () => {
    expect(network('203.0.113.7')).toBe('203.0.113.0/24');
    expect(network('::ffff:203.0.113.9')).toBe('203.0.113.0/24');
    expect(network('2001:db8:1:2:3:4:5:6')).toBe(network('2001:db8:1:2:ffff::1'));
    expect(network('2001:db8:1:3::1')).not.toBe(network('2001:db8:1:2::1'));
    expect(network('garbage')).toBe('unknown:garbage');
  });
});
