import { createHmac, timingSafeEqual } from 'node:crypto';

/** A dashboard session: who is signed in on the AR host and with which rights. */
export interface ArSession {
  /** Account (user) id. */
  userId: string;
  /** Team whose members share objects. */
  group: string | null;
  admin: boolean;
  /** Expiry, seconds since the epoch. */
  exp: number;
}

export const SESSION_PREFIX = 'frs1.';
export const SESSION_COOKIE = 'fitroom_session';

/**
 * Signed session tokens: `frs1.<base64url(JSON payload)>.<base64url(HMAC-SHA256)>` with the
 * deployment's signing secret. The same token is a Bearer session token and the value of the
 * dashboard session cookie; nothing is stored server-side, expiry is inside the signed payload.
 */
export class SessionTokens {
  private readonly secret: string;
  private readonly now: () => number;
  constructor(secret: string, now: () => number = () => Date.now()) {
    this.secret = secret;
    this.now = now;
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', `ar-session:${this.secret}`).update(payload).digest();
  }

  sign(s: Omit<ArSession, 'exp'>, ttlSeconds: number): { token: string; session: ArSession } {
    const session: ArSession = { ...s, exp: Math.floor(this.now() / 1000) + ttlSeconds };
    const payload = Buffer.from(JSON.stringify(session)).toString('base64url');
    return { token: `${SESSION_PREFIX}${payload}.${this.mac(payload).toString('base64url')}`, session };
  }

  /** The session of a valid, unexpired token; null for anything else. */
  verify(token: string): ArSession | null {
    if (!token.startsWith(SESSION_PREFIX) || token.length > 4096) return null;
    const [payload, sig, extra] = token.slice(SESSION_PREFIX.length).split('.');
    if (!payload || !sig || extra !== undefined) return null;
    const expected = this.mac(payload);
    const given = Buffer.from(sig, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    let s: ArSession;
    try {
      s = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as ArSession;
    } catch {
      return null;
    }
    if (typeof s.userId !== 'string' || typeof s.exp !== 'number' || typeof s.admin !== 'boolean') return null;
    if (s.exp * 1000 <= this.now()) return null;
    return { userId: s.userId, group: typeof s.group === 'string' ? s.group : null, admin: s.admin, exp: s.exp };
  }
}
