import { randomUUID } from 'node:crypto';
import { SiteverifyVerifier } from '../http/siteverify.ts';

/** Cloudflare Turnstile (developers.cloudflare.com/turnstile/get-started/server-side-validation). */
export class TurnstileVerifier extends SiteverifyVerifier {
  readonly id = 'turnstile' as const;
  static readonly URL = 'https://challenges.cloudflare.com/turnstile/v0/siteverify';
  constructor(opts: { secretKey: string; siteKey: string }) {
    // Turnstile tokens are at most 2048 characters (server-side validation docs)
    super({ ...opts, url: TurnstileVerifier.URL, script: 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit', maxTokenLength: 2048 });
  }

  // the idempotency key lets a retried call after a network error not count as a second use
  protected fields(token: string, ip: string) {
    return { secret: this.secretKey, response: token, remoteip: ip, idempotency_key: randomUUID() };
  }
}
