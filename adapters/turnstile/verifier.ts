import { randomUUID } from 'node:crypto';
import type { ChallengeVerdict, ChallengeVerifier } from '../../core/ports/challenge-verifier.ts';
import { siteverify } from '../http/siteverify.ts';

/** Cloudflare Turnstile (developers.cloudflare.com/turnstile/get-started/server-side-validation). */
export class TurnstileVerifier implements ChallengeVerifier {
  readonly id = 'turnstile' as const;
  static readonly URL = 'https://challenges.cloudflare.com/turnstile/v0/siteverify';
  readonly #secret: string;
  readonly #siteKey: string;
  constructor(opts: { secretKey: string; siteKey: string }) {
    this.#secret = opts.secretKey;
    this.#siteKey = opts.siteKey;
  }

  async challenge() {
    return { siteKey: this.#siteKey, script: 'https://challenges.cloudflare.com/turnstile/v0/api.js' };
  }

  verify(token: string, ctx: { ip: string }): Promise<ChallengeVerdict> {
    // the idempotency key lets a retried call after a network error not count as a second use
    return siteverify(TurnstileVerifier.URL, { secret: this.#secret, response: token, remoteip: ctx.ip, idempotency_key: randomUUID() }, token);
  }
}
