import { createHash } from 'node:crypto';
import type { ChallengeVerdict, ChallengeVerifier } from '../../core/ports/challenge-verifier.ts';

/**
 * The siteverify contract Cloudflare Turnstile and hCaptcha share: a form POST of the secret, the
 * token (`response`) and the client address, answered with `{success, "error-codes", challenge_ts,
 * hostname}`. A vendor that does not answer refuses the request (fail closed), with the reason.
 */
export async function siteverify(url: string, fields: Record<string, string>, token: string, timeoutMs = 5000): Promise<ChallengeVerdict> {
  let body: { success?: boolean; 'error-codes'?: string[]; challenge_ts?: string };
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields), signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return { ok: false, reason: `the verification service answered HTTP ${res.status}` };
    body = (await res.json()) as typeof body;
  } catch (e) {
    return { ok: false, reason: `the verification service could not be reached (${(e as Error).message})` };
  }
  if (body.success !== true) return { ok: false, reason: `the challenge was refused (${(body['error-codes'] ?? ['unknown']).join(', ')})` };
  // vendor tokens are valid for 300 s after they were issued; remember them that long
  const issued = body.challenge_ts ? Date.parse(body.challenge_ts) : Date.now();
  return { ok: true, id: `${new URL(url).hostname}:${createHash('sha256').update(token).digest('hex')}`, expiresAt: new Date((Number.isFinite(issued) ? issued : Date.now()) + 300_000) };
}

/** A vendor widget checked through siteverify: the page renders the vendor's widget with the site key. */
export abstract class SiteverifyVerifier implements ChallengeVerifier {
  abstract readonly id: 'turnstile' | 'hcaptcha';
  readonly #url: string;
  readonly #script: string;
  readonly #maxTokenLength: number;
  protected readonly secretKey: string;
  protected readonly siteKey: string;
  constructor(opts: { url: string; script: string; secretKey: string; siteKey: string; maxTokenLength?: number }) {
    this.#url = opts.url;
    this.#script = opts.script;
    this.#maxTokenLength = opts.maxTokenLength ?? 8192;
    this.secretKey = opts.secretKey;
    this.siteKey = opts.siteKey;
  }

  async challenge() {
    return { siteKey: this.siteKey, script: this.#script };
  }

  /** The form fields of one check; vendors add their own to secret, response and remoteip. */
  protected abstract fields(token: string, ip: string): Record<string, string>;

  async verify(token: string, ctx: { ip: string }): Promise<ChallengeVerdict> {
    // a token longer than the vendor ever issues is refused without spending a siteverify call
    if (token.length > this.#maxTokenLength) return { ok: false, reason: 'the challenge token is too long' };
    return siteverify(this.#url, this.fields(token, ctx.ip), token);
  }
}
