import type { ChallengeVerdict, ChallengeVerifier } from '../../core/ports/challenge-verifier.ts';
import { siteverify } from '../http/siteverify.ts';

/** hCaptcha (docs.hcaptcha.com, "Verify the User Response Server Side"). */
export class HcaptchaVerifier implements ChallengeVerifier {
  readonly id = 'hcaptcha' as const;
  static readonly URL = 'https://api.hcaptcha.com/siteverify';
  readonly #secret: string;
  readonly #siteKey: string;
  constructor(opts: { secretKey: string; siteKey: string }) {
    this.#secret = opts.secretKey;
    this.#siteKey = opts.siteKey;
  }

  async challenge() {
    return { siteKey: this.#siteKey, script: 'https://js.hcaptcha.com/1/api.js' };
  }

  verify(token: string, ctx: { ip: string }): Promise<ChallengeVerdict> {
    return siteverify(HcaptchaVerifier.URL, { secret: this.#secret, response: token, remoteip: ctx.ip, sitekey: this.#siteKey }, token);
  }
}
