import { SiteverifyVerifier } from '../http/siteverify.ts';

/** hCaptcha (docs.hcaptcha.com, "Verify the User Response Server Side"). */
export class HcaptchaVerifier extends SiteverifyVerifier {
  readonly id = 'hcaptcha' as const;
  static readonly URL = 'https://api.hcaptcha.com/siteverify';
  constructor(opts: { secretKey: string; siteKey: string }) {
    super({ ...opts, url: HcaptchaVerifier.URL, script: 'https://js.hcaptcha.com/1/api.js?render=explicit' });
  }

  protected fields(token: string, ip: string) {
    return { secret: this.secretKey, response: token, remoteip: ip, sitekey: this.siteKey };
  }
}
