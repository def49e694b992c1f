import { createHmac, timingSafeEqual } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { FitroomError } from './errors.ts';
import type { BotCheck } from './pipeline.ts';
import type { ChallengeVerifier } from './ports/challenge-verifier.ts';
import type { ChallengeReplayStore } from './ports/challenge-replay-store.ts';

/** The pass lasts one hour from verification; use never extends it (spec, Authentication 5). */
export const PASS_SECONDS = 3600;
export const PASS_COOKIE = 'fitroom_pass';

/**
 * Bot verification for browser-protected requests: a single-use challenge token (X-Challenge-Token),
 * checked by the configured verifier and claimed in the replay store, mints a signed pass cookie
 * bound to the client's network (IPv4 /24, IPv6 /64) that stands in for a token for one hour.
 * Passes carry the key id (`kid`) of the secret that signed them, so secrets rotate like account
 * tokens (TOKEN_SECRETS: the first signs, every one verifies; without it one key derived from the
 * deployment's signing secret).
 */
export class BotVerification implements BotCheck {
  readonly passCookie = PASS_COOKIE;
  readonly verifier: ChallengeVerifier;
  readonly #replay: ChallengeReplayStore;
  readonly #keys: { kid: string; key: Buffer }[];
  readonly #now: () => Date;

  constructor(opts: { verifier: ChallengeVerifier; replay: ChallengeReplayStore; signingSecret: string; secrets?: { kid: string; secret: string }[]; now?: () => Date }) {
    this.verifier = opts.verifier;
    this.#replay = opts.replay;
    const derive = (secret: string) => createHmac('sha256', secret).update('fitroom bot pass v1').digest();
    this.#keys = opts.secrets?.length ? opts.secrets.map((s) => ({ kid: s.kid, key: derive(s.secret) })) : [{ kid: 'd1', key: derive(opts.signingSecret) }];
    this.#now = opts.now ?? (() => new Date());
  }

  async check(input: { challengeToken?: string; passCookie?: string; ip: string; subject?: string }) {
    const now = this.#now();
    if (input.challengeToken) {
      if (input.challengeToken.length > 8192) throw refuse('the challenge token is too long');
      const verdict = await this.verifier.verify(input.challengeToken, { ip: input.ip });
      if (!verdict.ok) throw refuse(verdict.reason ?? 'the challenge token is invalid');
      const id = verdict.id ?? input.challengeToken;
      if (!(await this.#replay.claim(id, verdict.expiresAt ?? new Date(now.getTime() + 600_000)))) throw refuse('the challenge token was already used: solve a new challenge');
      const value = this.#sign({ v: 1, kid: this.#keys[0].kid, at: Math.floor(now.getTime() / 1000), net: network(input.ip), ...(input.subject ? { sub: input.subject } : {}) });
      return { ttlSeconds: PASS_SECONDS, setPass: { name: PASS_COOKIE, value, maxAgeSeconds: PASS_SECONDS } };
    }
    const pass = input.passCookie ? this.#read(input.passCookie) : null;
    // a pass minted for a forwarded shopper is that shopper's only; one minted for a browser is no shopper's
    if (pass && pass.net === network(input.ip) && pass.sub === input.subject) {
      const remaining = pass.at + PASS_SECONDS - Math.floor(now.getTime() / 1000);
      if (remaining > 0) return { ttlSeconds: remaining };
    }
    throw refuse(pass ? 'the verification pass has expired or belongs to another network or shopper: solve a new challenge' : 'this request needs a solved challenge (X-Challenge-Token) or a valid verification pass');
  }

  passHolder(value: string, ip: string): string | null {
    const pass = this.#read(value);
    if (!pass || pass.net !== network(ip) || pass.at + PASS_SECONDS <= Math.floor(this.#now().getTime() / 1000)) return null;
    // the signature is unique per pass; its hash names the holder without revealing the pass
    return createHmac('sha256', 'fitroom pass holder').update(value).digest('base64url').slice(0, 22);
  }

  #sign(claims: { v: 1; kid: string; at: number; net: string; sub?: string }): string {
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return `${payload}.${createHmac('sha256', this.#keys[0].key).update(payload).digest('base64url')}`;
  }

  #read(cookie: string): { at: number; net: string; sub?: string } | null {
    const [payload, sig, extra] = cookie.split('.');
    if (!payload || !sig || extra !== undefined || payload.length > 512) return null;
    let c: { v?: unknown; kid?: unknown; at?: unknown; net?: unknown; sub?: unknown };
    try {
      c = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof c;
    } catch {
      return null;
    }
    // the key id picks the key; the signature is checked before any claim is believed
    const key = this.#keys.find((k) => k.kid === c?.kid)?.key;
    if (!key) return null;
    const expected = Buffer.from(createHmac('sha256', key).update(payload).digest('base64url'));
    const given = Buffer.from(sig);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    if (c.sub !== undefined && typeof c.sub !== 'string') return null;
    return c.v === 1 && Number.isInteger(c.at) && typeof c.net === 'string' ? { at: c.at as number, net: c.net, ...(c.sub ? { sub: c.sub } : {}) } : null;
  }
}

function refuse(why: string): FitroomError {
  return new FitroomError('BOT_VERIFICATION_REQUIRED', `Bot verification failed: ${why}`);
}

/** The client's network: IPv4 /24, IPv6 /64 (IPv4-mapped IPv6 counts as IPv4). */
export function network(ip: string): string {
  try {
    const a = ipaddr.process(ip);
    if (a.kind() === 'ipv4') return `${a.toByteArray().slice(0, 3).join('.')}.0/24`;
    const parts = (a as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
    return `${parts.join(':')}::/64`;
  } catch {
    return `unknown:${ip}`;
  }
}
