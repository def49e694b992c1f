import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { FitroomError } from './errors.ts';
import { sha256Hex, type Caller, type CredentialService } from './credentials.ts';
import type { ApiKeyRecord } from './ports/credential-store.ts';

/**
 * Signed tokens that stand for an account (spec, Authentication 2-4):
 * - storefront `wfs1.`: minted for a shop's shoppers, sent in X-API-Key by storefront pages;
 * - account `wfa1.`: sent in X-Service-Account beside a service key, ownership `account:<id>`;
 * - usage `wfu1.`: sent in X-Service-Usage-Account beside a service key, analytics attribution only.
 *
 * Format: `<prefix><base64url(JSON claims)>.<base64url(HMAC-SHA256)>`. The claims name the key id
 * (`kid`) of the secret that signed them, so secrets rotate: the first configured secret signs, every
 * configured one verifies. Usage tokens are signed with a key derived from their own handshake secret.
 * A token lives while its minting API key does: revoking or expiring that key ends its tokens.
 */
export type TokenType = 'storefront' | 'account' | 'usage';

export const TOKEN_PREFIX: Record<TokenType, string> = { storefront: 'wfs1.', account: 'wfa1.', usage: 'wfu1.' };

export interface TokenClaims {
  typ: TokenType;
  kid: string;
  /** The account the token stands for (`accountId` of the minting key, or `key:<id>` for keys without one). */
  acc: string;
  /** Id of the API key that minted it. */
  key: string;
  iat: number;
  exp: number;
  /** Random, so two tokens minted in the same second differ. */
  n: string;
  /** Storefront tokens of a service key only: the holder forwards each shopper's identity. */
  fwd?: 1;
}

export interface MintedToken {
  token: string;
  tokenType: TokenType;
  accountId: string;
  expiresAt: string;
  expiresIn: number;
}

/** The account a key acts for: its accountId, or its own namespace when it belongs to no account. */
export function accountOf(rec: Pick<ApiKeyRecord, 'id' | 'accountId'>): string {
  return rec.accountId ?? `key:${rec.id}`;
}

/** The handshake a usage-token minter signs: `t=<unix seconds>,sig=<hex HMAC-SHA256(secret, "<t>.<accountId>")>`. */
export function usageHandshake(secret: string, accountId: string, at: Date = new Date()): string {
  const t = Math.floor(at.getTime() / 1000);
  return `t=${t},sig=${createHmac('sha256', secret).update(`${t}.${accountId}`).digest('hex')}`;
}

const HANDSHAKE_WINDOW_SECONDS = 300;

export class AccountTokens {
  readonly #secrets: { kid: string; key: Buffer }[];
  readonly #usageSecret: string | null;
  readonly #usageKey: Buffer | null;
  readonly #credentials: CredentialService;
  readonly #now: () => Date;

  constructor(opts: { secrets: { kid: string; secret: string }[]; derivedFrom: string; usageHandshakeSecret: string | null; credentials: CredentialService; now?: () => Date }) {
    const configured = opts.secrets.map((s) => ({ kid: s.kid, key: Buffer.from(s.secret, 'utf8') }));
    // Without TOKEN_SECRETS, one key derived from the deployment's signing secret (shared by all processes).
    this.#secrets = configured.length ? configured : [{ kid: 'd1', key: createHmac('sha256', opts.derivedFrom).update('fitroom account tokens v1').digest() }];
    this.#usageSecret = opts.usageHandshakeSecret;
    this.#usageKey = opts.usageHandshakeSecret ? createHmac('sha256', opts.usageHandshakeSecret).update('fitroom usage tokens v1').digest() : null;
    this.#credentials = opts.credentials;
    this.#now = opts.now ?? (() => new Date());
  }

  get usageEnabled(): boolean {
    return this.#usageKey !== null;
  }

  mint(type: TokenType, minter: ApiKeyRecord, ttlSeconds: number, accountId = accountOf(minter), opts: { forwardsShoppers?: boolean } = {}): MintedToken {
    const now = Math.floor(this.#now().getTime() / 1000);
    const key = type === 'usage' ? this.#usageKey : this.#secrets[0].key;
    if (!key) throw new FitroomError('SERVICE_UNAVAILABLE', 'Usage tokens are disabled on this deployment: set USAGE_TOKEN_HANDSHAKE_SECRET');
    const claims: TokenClaims = { typ: type, kid: type === 'usage' ? 'u1' : this.#secrets[0].kid, acc: accountId, key: minter.id, iat: now, exp: now + ttlSeconds, n: randomBytes(6).toString('base64url'), ...(opts.forwardsShoppers ? { fwd: 1 as const } : {}) };
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    const token = `${TOKEN_PREFIX[type]}${payload}.${sign(key, TOKEN_PREFIX[type] + payload)}`;
    return { token, tokenType: type, accountId, expiresAt: new Date(claims.exp * 1000).toISOString(), expiresIn: ttlSeconds };
  }

  /** The claims of a well-formed, correctly signed, unexpired token of this type; null otherwise. */
  parse(type: TokenType, token: string): TokenClaims | null {
    const prefix = TOKEN_PREFIX[type];
    if (!token.startsWith(prefix) || token.length > 2048) return null;
    const [payload, sig, extra] = token.slice(prefix.length).split('.');
    if (!payload || !sig || extra !== undefined) return null;
    let claims: TokenClaims;
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as TokenClaims;
    } catch {
      return null;
    }
    if (!claims || typeof claims !== 'object' || claims.typ !== type || typeof claims.acc !== 'string' || typeof claims.key !== 'string' || !Number.isInteger(claims.exp)) return null;
    const key = type === 'usage' ? this.#usageKey : this.#secrets.find((s) => s.kid === claims.kid)?.key;
    if (!key || !safeEqual(sig, sign(key, prefix + payload))) return null;
    if (claims.exp * 1000 <= this.#now().getTime()) return null;
    return claims;
  }

  /** A token whose signature and expiry hold and whose minting key is still active. */
  async verify(type: TokenType, token: string): Promise<TokenClaims | null> {
    const claims = this.parse(type, token);
    if (!claims) return null;
    const rec = await this.#credentials.active(claims.key);
    // storefront and account tokens stand for their minting key's account; usage tokens name any partner account
    return rec && (type === 'usage' || accountOf(rec) === claims.acc) ? claims : null;
  }

  /** Checks a usage-token handshake header against the handshake secret (5-minute window, constant time). */
  checkHandshake(header: string | undefined, accountId: string): void {
    if (!this.#usageSecret) throw new FitroomError('SERVICE_UNAVAILABLE', 'Usage tokens are disabled on this deployment: set USAGE_TOKEN_HANDSHAKE_SECRET');
    const m = /^t=(\d{1,12}),sig=([0-9a-f]{64})$/.exec(header ?? '');
    const refuse = () => new FitroomError('HTTP_ERROR', 'Minting a usage token needs a valid X-Usage-Handshake header (t=<unix seconds>,sig=<hex HMAC-SHA256 of "<t>.<accountId>" with the handshake secret>)');
    if (!m) throw refuse();
    const t = Number(m[1]);
    if (Math.abs(Math.floor(this.#now().getTime() / 1000) - t) > HANDSHAKE_WINDOW_SECONDS) throw refuse();
    if (!safeEqual(m[2], createHmac('sha256', this.#usageSecret).update(`${t}.${accountId}`).digest('hex'))) throw refuse();
  }
}

/** The caller a storefront token stands for: the account's shopper namespace, the AI quota counted. */
export function storefrontCaller(c: TokenClaims): Caller {
  return { kind: 'storefront', credentialId: c.key, ownerHash: sha256Hex(`storefront:${c.acc}`), accountId: c.acc, development: false, countsKeyUsage: false, countsAiQuota: true, ...(c.fwd === 1 ? { forwardsShoppers: true } : {}) };
}

/** The caller of a service key acting for an account: ownership `account:<id>`, the AI quota counted. */
export function accountCaller(c: TokenClaims): Caller {
  return { kind: 'account', credentialId: c.key, ownerHash: sha256Hex(`account:${c.acc}`), accountId: c.acc, development: false, countsKeyUsage: false, countsAiQuota: true };
}

function sign(key: Buffer, data: string): string {
  return createHmac('sha256', key).update(data).digest('base64url');
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
