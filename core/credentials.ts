import { hash, randomBytes, randomUUID } from 'node:crypto';
import { FitroomError } from './errors.ts';
import type { ApiKeyRecord, CredentialStore } from './ports/credential-store.ts';

/**
 * Credential kinds. API keys are `user`, `service` or `development`; storefront (`wfs1.`) and
 * account (`wfa1.`) tokens resolve to callers of kind `storefront` / `account` with an owner hash
 * of their stable namespace, so job ownership and webhook signing work the same for all of them.
 */
export type KeyKind = 'user' | 'service' | 'development';
export const KEY_KINDS: readonly KeyKind[] = ['user', 'service', 'development'];
export type CallerKind = KeyKind | 'storefront' | 'account';

/** The authenticated party behind a request. */
export interface Caller {
  kind: CallerKind;
  /** Id of the API key or token record. */
  credentialId: string;
  /** sha256 hex of the API key, or of the token's namespace (`storefront:<userId>`). Owns jobs; keys webhooks. */
  ownerHash: string;
  accountId: string | null;
  development: boolean;
  /** Submissions count toward the key's usage counter. */
  countsKeyUsage: boolean;
  /** Submissions count toward the account's monthly AI quota. */
  countsAiQuota: boolean;
  /** Analytics attribution from a usage token (X-Service-Usage-Account); changes nothing else. */
  usageAccountId?: string;
  /**
   * The rate-limit buckets this caller's requests count against, in order, instead of its owner hash:
   * each allows `factor` times the category's limit (a platform's shopper, then the shop's total).
   */
  rateBuckets?: { key: string; factor: number }[];
  /**
   * A storefront token minted by a service key with `forwardsShoppers`: held by the merchant's server,
   * which names each shopper (X-Fitroom-Shopper, X-Fitroom-Shopper-IP) so limits and passes are theirs.
   */
  forwardsShoppers?: boolean;
}

/** One-shot hashing: no Hash object per call (every authenticated request hashes its key). */
export function sha256Hex(input: string | Uint8Array): string {
  return hash('sha256', input, 'hex');
}

/** Keys are shown once; only their SHA-256 is stored. The prefix says the kind at a glance. */
export function generateApiKey(kind: KeyKind): string {
  const tag = kind === 'development' ? 'dev' : kind === 'service' ? 'svc' : 'live';
  return `fr_${tag}_${randomBytes(24).toString('base64url')}`;
}

export interface CreateKeyInput {
  name: string;
  kind: KeyKind;
  accountId?: string | null;
  expiresAt?: Date | null;
  maxUsage?: number;
  monthlyQuota?: number | null;
}

/** Why a key was refused; the HTTP answer is the same 401 for all, the reason goes to logs and AR codes. */
export type KeyRefusal = 'missing' | 'not_found' | 'inactive' | 'expired' | 'over_limit';

export class CredentialService {
  private readonly store: CredentialStore;
  private readonly now: () => Date;
  constructor(store: CredentialStore, now: () => Date = () => new Date()) {
    this.store = store;
    this.now = now;
  }

  /** Checks a key and returns its record, or the reason it is refused. */
  async check(key: string | undefined | null, keyHash?: string): Promise<{ record: ApiKeyRecord } | { refusal: KeyRefusal }> {
    if (!key) return { refusal: 'missing' };
    const record = await this.store.findByHash(keyHash ?? sha256Hex(key));
    const refusal = this.#refusal(record);
    return refusal ? { refusal } : { record: record! };
  }

  #refusal(record: ApiKeyRecord | null): KeyRefusal | null {
    if (!record) return 'not_found';
    if (!record.isActive) return 'inactive';
    if (record.expiresAt && record.expiresAt.getTime() <= this.now().getTime()) return 'expired';
    if (record.maxUsage > 0 && record.usageCount >= record.maxUsage) return 'over_limit';
    return null;
  }

  /** A key record that may still be used (active, unexpired, under its limit), or null. */
  async active(id: string): Promise<ApiKeyRecord | null> {
    const rec = await this.store.get(id);
    if (!rec || !rec.isActive || (rec.expiresAt && rec.expiresAt.getTime() <= this.now().getTime()) || (rec.maxUsage > 0 && rec.usageCount >= rec.maxUsage)) return null;
    return rec;
  }

  /** The first usable key of an account (the admin API mints account tokens in its name). */
  async activeKeyOfAccount(accountId: string): Promise<ApiKeyRecord | null> {
    const now = this.now().getTime();
    return (await this.store.list()).find((r) => r.accountId === accountId && r.isActive && (!r.expiresAt || r.expiresAt.getTime() > now) && !(r.maxUsage > 0 && r.usageCount >= r.maxUsage)) ?? null;
  }

  /** Resolves `X-API-Key` to a caller or throws 401 HTTP_ERROR. */
  async resolveApiKey(key: string | undefined | null): Promise<Caller> {
    return callerFromKey(await this.resolveRecord(key));
  }

  /**
   * The record behind `X-API-Key`, or 401 HTTP_ERROR. A usable key the store holds in its cache is
   * answered in this turn (the record itself, not a promise): every authenticated request asks.
   */
  resolveRecord(key: string | undefined | null): ApiKeyRecord | Promise<ApiKeyRecord> {
    const hash = key ? sha256Hex(key) : undefined;
    const cached = hash ? this.store.cachedByHash?.(hash) : undefined;
    if (cached && !this.#refusal(cached)) return cached;
    return this.check(key, hash).then((checked) => {
      if ('refusal' in checked) throw new FitroomError('HTTP_ERROR', REFUSAL_MESSAGES[checked.refusal]);
      return checked.record;
    });
  }

  async create(input: CreateKeyInput): Promise<{ key: string; record: ApiKeyRecord }> {
    const key = generateApiKey(input.kind);
    const record = await this.store.insert({
      id: randomUUID(),
      name: input.name,
      kind: input.kind,
      keyHash: sha256Hex(key),
      prefix: key.slice(0, 11),
      accountId: input.accountId ?? null,
      isActive: true,
      expiresAt: input.expiresAt ?? null,
      maxUsage: input.maxUsage ?? 0,
      usageCount: 0,
      monthlyQuota: input.monthlyQuota ?? null,
      createdAt: this.now(),
      revokedAt: null,
      rotatedFrom: null,
    });
    return { key, record };
  }

  list(): Promise<ApiKeyRecord[]> {
    return this.store.list();
  }

  async revoke(id: string): Promise<ApiKeyRecord> {
    const rec = await this.store.revoke(id, this.now());
    if (!rec) throw new FitroomError('NOT_FOUND', `No API key with id ${id}`);
    return rec;
  }

  /** Issues a new key with the same settings and revokes the old one. Jobs of the old key stay with it. */
  async rotate(id: string): Promise<{ key: string; record: ApiKeyRecord }> {
    const old = await this.store.get(id);
    if (!old) throw new FitroomError('NOT_FOUND', `No API key with id ${id}`);
    if (!old.isActive) throw new FitroomError('CONFLICT', 'A revoked key cannot be rotated');
    const created = await this.create({ name: old.name, kind: old.kind, accountId: old.accountId, expiresAt: old.expiresAt, maxUsage: old.maxUsage, monthlyQuota: old.monthlyQuota });
    await this.store.revoke(id, this.now());
    await this.store.setRotatedFrom(created.record.id, id);
    return { key: created.key, record: { ...created.record, rotatedFrom: id } };
  }

  /** Counts successful uses of a key (submissions, AR requests; a batch counts its items). */
  countUsage(caller: Caller, units = 1): Promise<void> {
    if (!caller.countsKeyUsage || units <= 0) return Promise.resolve();
    return this.store.incrementUsage(caller.credentialId, units);
  }
}

const REFUSAL_MESSAGES: Record<KeyRefusal, string> = {
  missing: 'Missing API key: send it in the X-API-Key header',
  not_found: 'Invalid API key',
  inactive: 'This API key has been revoked',
  expired: 'This API key has expired',
  over_limit: 'This API key has reached its usage limit',
};

/**
 * The monthly AI quota that applies to a caller (null: none). A caller backed by a key record (a key,
 * or a token minted with one) has that key's quota. A caller with no key record behind it (a dashboard
 * session, named by its account) has its account's: the smallest quota among the account's usable
 * keys, so a session never allows more than the account's own keys would.
 */
export async function monthlyQuotaOf(store: CredentialStore, caller: Caller, now = new Date()): Promise<number | null> {
  const key = await store.get(caller.credentialId);
  if (key) return key.monthlyQuota;
  if (caller.accountId === null) return null;
  const t = now.getTime();
  const quotas = (await store.list())
    .filter((r) => r.accountId === caller.accountId && r.isActive && (!r.expiresAt || r.expiresAt.getTime() > t) && r.monthlyQuota !== null)
    .map((r) => r.monthlyQuota!);
  return quotas.length ? Math.min(...quotas) : null;
}

export function refusalMessage(r: KeyRefusal): string {
  return REFUSAL_MESSAGES[r];
}

export function callerFromKey(record: ApiKeyRecord): Caller {
  return {
    kind: record.kind,
    credentialId: record.id,
    ownerHash: record.keyHash,
    accountId: record.accountId,
    development: record.kind === 'development',
    // Service keys are uncounted unless paired with an account token (spec, credential kinds).
    countsKeyUsage: record.kind !== 'service',
    countsAiQuota: record.kind !== 'service',
  };
}

/** Public view of a key record (never the hash). */
export function keyView(r: ApiKeyRecord) {
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    prefix: r.prefix,
    accountId: r.accountId,
    isActive: r.isActive,
    expiresAt: r.expiresAt?.toISOString() ?? null,
    maxUsage: r.maxUsage,
    usageCount: r.usageCount,
    monthlyQuota: r.monthlyQuota,
    createdAt: r.createdAt.toISOString(),
    revokedAt: r.revokedAt?.toISOString() ?? null,
    rotatedFrom: r.rotatedFrom,
  };
}
