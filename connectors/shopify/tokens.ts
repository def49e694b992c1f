import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { HttpResponseError, Session } from '@shopify/shopify-api';
import { FitroomError } from '../../core/errors.ts';
import type { PlatformStore } from '../../core/ports/platform-store.ts';
import type { TokenKey } from './settings.ts';

/**
 * Shopify tokens at rest: the access and refresh tokens of a stored session are sealed with
 * AES-256-GCM (node:crypto), each as `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url), with the
 * session id as associated data so that a sealed token copied into another row does not open.
 * The first configured key seals; every configured key opens (rotation: put the new key first,
 * restart, the start-up pass reseals the rows of older keys, then drop the old key).
 */
export class TokenVault {
  private readonly keys: TokenKey[];
  constructor(keys: TokenKey[]) {
    if (!keys.length) throw new Error('TokenVault needs at least one key');
    this.keys = keys;
  }

  get currentKeyId(): string {
    return this.keys[0].id;
  }

  seal(plain: string, sessionId: string): string {
    const k = this.keys[0];
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', k.key, iv);
    cipher.setAAD(Buffer.from(sessionId, 'utf8'));
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', k.id, iv.toString('base64url'), ct.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  open(sealed: string, sessionId: string): string {
    const [v, kid, iv, ct, tag] = sealed.split('.');
    const k = this.keys.find((x) => x.id === kid);
    if (v !== 'v1' || !k || !iv || !ct || !tag) throw new FitroomError('PLATFORM_REAUTH_REQUIRED', `A stored Shopify token was sealed with key "${kid ?? '?'}", which SHOPIFY_TOKEN_KEYS no longer lists: add it back, or open the app from the Shopify admin to authorize it again`);
    try {
      const d = createDecipheriv('aes-256-gcm', k.key, Buffer.from(iv, 'base64url'));
      d.setAAD(Buffer.from(sessionId, 'utf8'));
      d.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]).toString('utf8');
    } catch {
      throw new FitroomError('PLATFORM_REAUTH_REQUIRED', 'A stored Shopify token does not open with its key (altered or moved): open the app from the Shopify admin to authorize it again');
    }
  }

  /** The row a session becomes: its library object with both tokens sealed. */
  sealSession(session: Session): { data: Record<string, unknown>; keyId: string; expiresAt: Date | null } {
    const o = session.toObject() as Record<string, unknown>;
    const data: Record<string, unknown> = { ...o, accessToken: undefined, refreshToken: undefined, sealed: {} };
    const sealed = data.sealed as Record<string, string>;
    if (session.accessToken) sealed.accessToken = this.seal(session.accessToken, session.id);
    if (session.refreshToken) sealed.refreshToken = this.seal(session.refreshToken, session.id);
    delete data.accessToken;
    delete data.refreshToken;
    return { data, keyId: this.currentKeyId, expiresAt: session.expires ?? null };
  }

  /** A stored row back to a Session: sealed rows are opened; plain rows (before 091) are read as they are. */
  openSession(data: Record<string, unknown>): { session: Session; plain: boolean; keyId: string | null } {
    const sealed = data.sealed as { accessToken?: string; refreshToken?: string } | undefined;
    const { sealed: _s, ...rest } = data;
    const id = String(rest.id);
    const params: Record<string, unknown> = { ...rest };
    for (const k of ['expires', 'refreshTokenExpires']) if (typeof params[k] === 'string' || typeof params[k] === 'number') params[k] = new Date(params[k] as string);
    if (!sealed) return { session: new Session(params as ConstructorParameters<typeof Session>[0]), plain: Boolean(rest.accessToken || rest.refreshToken), keyId: null };
    if (sealed.accessToken) params.accessToken = this.open(sealed.accessToken, id);
    if (sealed.refreshToken) params.refreshToken = this.open(sealed.refreshToken, id);
    return { session: new Session(params as ConstructorParameters<typeof Session>[0]), plain: false, keyId: sealed.accessToken?.split('.')[1] ?? null };
  }
}

/** Refresh this long before the access token expires (Shopify's expiring offline tokens last about an hour). */
export const REFRESH_MARGIN_MS = 5 * 60_000;

export interface TokenDeps {
  vault: TokenVault;
  store: PlatformStore;
  platform: string;
  offlineId(shop: string): string;
  refresh(shop: string, refreshToken: string): Promise<Session>;
  /** One non-expiring offline token exchanged for an expiring one (Shopify's migration grant). */
  migrate(shop: string, token: string): Promise<Session>;
  markReauth(shop: string): Promise<void>;
}

/**
 * The shop's offline session, kept fresh: refreshed when it expires within REFRESH_MARGIN_MS (or when
 * `force`, after Shopify answered 401), a non-expiring token from before expiring tokens migrated to an
 * expiring one at first use. One refresh at a time per shop in this process; the row is read again
 * once the lock is held, so a refresh done meanwhile (here or by another process) is reused.
 */
export class OfflineTokens {
  private readonly d: TokenDeps;
  private readonly inflight = new Map<string, Promise<Session>>();
  private readonly unmigrated = new Set<string>();
  constructor(d: TokenDeps) {
    this.d = d;
  }

  async load(shop: string): Promise<Session | null> {
    const data = await this.d.store.getSession(this.d.platform, this.d.offlineId(shop));
    if (!data) return null;
    const { session, plain, keyId } = this.d.vault.openSession(data as Record<string, unknown>);
    // a row from before encryption, or sealed with an older key: sealed again with the current one
    if (plain || (keyId && keyId !== this.d.vault.currentKeyId)) await this.save(session);
    return session;
  }

  async save(session: Session): Promise<void> {
    const row = this.d.vault.sealSession(session);
    await this.d.store.putSession(this.d.platform, session.id, session.shop, row.data, { keyId: row.keyId, expiresAt: row.expiresAt });
  }

  async get(shop: string, opts: { force?: boolean; staleToken?: string } = {}): Promise<Session> {
    const s = await this.load(shop);
    if (!s?.accessToken) throw new FitroomError('PLATFORM_REAUTH_REQUIRED', `No access token is stored for ${shop}: open the Fitroom app from the Shopify admin to authorize it`);
    if (!opts.force && (!needsRefresh(s) || this.unmigrated.has(shop))) return s;
    const running = this.inflight.get(shop);
    if (running) return running;
    const p = this.renew(shop, opts.staleToken).finally(() => this.inflight.delete(shop));
    this.inflight.set(shop, p);
    return p;
  }

  private async renew(shop: string, staleToken?: string): Promise<Session> {
    const s = await this.load(shop);
    if (!s?.accessToken) throw new FitroomError('PLATFORM_REAUTH_REQUIRED', `No access token is stored for ${shop}: open the Fitroom app from the Shopify admin to authorize it`);
    // someone else refreshed since the caller's token was refused
    if (staleToken && s.accessToken !== staleToken && !needsRefresh(s)) return s;
    if (!staleToken && !needsRefresh(s)) return s;
    let next: Session;
    try {
      if (!s.expires && !s.refreshToken) {
        if (this.unmigrated.has(shop)) return s;
        try {
          next = await this.d.migrate(shop, s.accessToken);
        } catch {
          // the non-expiring token still works; the migration is tried again after a restart
          this.unmigrated.add(shop);
          return s;
        }
      } else if (s.refreshToken && !(s.refreshTokenExpires && s.refreshTokenExpires.getTime() <= Date.now())) next = await this.d.refresh(shop, s.refreshToken);
      else {
        await this.d.markReauth(shop);
        throw new FitroomError('PLATFORM_REAUTH_REQUIRED', `The access token of ${shop} expired and its refresh token too: open the Fitroom app from the Shopify admin to re-authorize it`);
      }
    } catch (e) {
      if (e instanceof HttpResponseError && e.response.code >= 400 && e.response.code < 500) {
        // another process may have used the same refresh token a moment ago: its new token is in the row
        const again = await this.load(shop);
        if (again?.accessToken && again.accessToken !== s.accessToken && !needsRefresh(again)) return again;
        await this.d.markReauth(shop);
        throw new FitroomError('PLATFORM_REAUTH_REQUIRED', `Shopify refused to renew the access token of ${shop} (HTTP ${e.response.code}): open the Fitroom app from the Shopify admin to re-authorize it`);
      }
      if (e instanceof HttpResponseError) throw new FitroomError('PLATFORM_ERROR', `Shopify could not renew the access token of ${shop} (HTTP ${e.response.code}); retry later`, { retryable: true });
      throw e;
    }
    await this.save(next);
    return next;
  }
}

function needsRefresh(s: Session): boolean {
  // no expiry at all: a non-expiring token from before expiring tokens, migrated at first use
  if (!s.expires) return !s.refreshToken;
  return s.expires.getTime() - REFRESH_MARGIN_MS <= Date.now();
}

/**
 * Start-up pass: every stored Shopify session that is plain (stored before migration 091) or sealed
 * with an older key is sealed with the current key. Rows that do not open are left as they are (their
 * shop re-authorizes); returns how many rows were sealed.
 */
export async function sealStoredSessions(store: PlatformStore, platform: string, vault: TokenVault): Promise<number> {
  let n = 0;
  for (const row of await store.sessionsToSeal(platform, vault.currentKeyId)) {
    let session: Session;
    try {
      session = vault.openSession(row.data as Record<string, unknown>).session;
    } catch {
      continue;
    }
    const sealed = vault.sealSession(session);
    await store.putSession(platform, row.id, row.shop, sealed.data, { keyId: sealed.keyId, expiresAt: sealed.expiresAt });
    n++;
  }
  return n;
}
