/** The outcome of checking one challenge token. */
export interface ChallengeVerdict {
  ok: boolean;
  /** Why it was refused (logged and returned in the 403 message). */
  reason?: string;
  /** A stable id of the solved challenge, for single use (defaults to a hash of the token). */
  id?: string;
  /** Until when the token could be replayed (how long its id must be remembered). */
  expiresAt?: Date;
}

/**
 * ChallengeVerifier: checks the bot-verification token a browser sends in X-Challenge-Token. The
 * builtin is a proof-of-work challenge (ALTCHA) that Fitroom issues itself; Cloudflare Turnstile and
 * hCaptcha adapters ask their vendor's siteverify endpoint.
 */
export interface ChallengeVerifier {
  readonly id: 'altcha' | 'turnstile' | 'hcaptcha';
  /** What a page needs to show the challenge: a proof-of-work challenge, or the vendor and site key. */
  challenge(): Promise<Record<string, unknown>>;
  verify(token: string, ctx: { ip: string }): Promise<ChallengeVerdict>;
}
