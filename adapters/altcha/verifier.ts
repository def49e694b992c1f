import { createHash } from 'node:crypto';
import { createChallenge, verifySolution, extractParams } from 'altcha-lib/v1';
import type { ChallengeVerdict, ChallengeVerifier } from '../../core/ports/challenge-verifier.ts';

/**
 * Proof of work (ALTCHA, altcha-lib v1 format): the server issues a signed challenge with an expiry;
 * the browser searches the number whose SHA-256 with the salt matches; the solution is sent back as
 * base64 JSON. No third party, no cookies, no tracking.
 */
export class AltchaVerifier implements ChallengeVerifier {
  readonly id = 'altcha' as const;
  readonly #hmacKey: string;
  readonly #maxNumber: number;
  readonly #ttlMs: number;

  constructor(opts: { hmacKey: string; maxNumber?: number; ttlSeconds?: number }) {
    this.#hmacKey = opts.hmacKey;
    // 100k SHA-256 tries: well under a second in a browser, a cost for a bot at volume
    this.#maxNumber = opts.maxNumber ?? 100_000;
    this.#ttlMs = (opts.ttlSeconds ?? 600) * 1000;
  }

  async challenge(): Promise<Record<string, unknown>> {
    const c = await createChallenge({ hmacKey: this.#hmacKey, maxNumber: this.#maxNumber, expires: new Date(Date.now() + this.#ttlMs), algorithm: 'SHA-256' });
    return { ...c };
  }

  async verify(token: string): Promise<ChallengeVerdict> {
    let ok: boolean;
    try {
      ok = await verifySolution(token, this.#hmacKey, true);
    } catch {
      ok = false;
    }
    if (!ok) return { ok: false, reason: 'the challenge solution is invalid or expired' };
    const params = extractParams(token) as { expires?: string };
    const expires = Number(params.expires);
    let signature: string;
    try {
      signature = String((JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as { signature?: string }).signature ?? '');
    } catch {
      signature = '';
    }
    return { ok: true, id: `altcha:${signature || createHash('sha256').update(token).digest('hex')}`, expiresAt: new Date(Number.isFinite(expires) ? expires * 1000 : Date.now() + this.#ttlMs) };
  }
}
