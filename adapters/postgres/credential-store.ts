import type { Pool } from './db.ts';
import type { PgListener } from './listener.ts';
import type { ApiKeyRecord, CredentialStore } from '../../core/ports/credential-store.ts';

interface Row {
  id: string;
  name: string;
  kind: ApiKeyRecord['kind'];
  key_hash: string;
  prefix: string;
  account_id: string | null;
  is_active: boolean;
  expires_at: Date | null;
  max_usage: number;
  usage_count: number;
  monthly_quota: number | null;
  created_at: Date;
  revoked_at: Date | null;
  rotated_from: string | null;
}

const toRecord = (r: Row): ApiKeyRecord => ({
  id: r.id,
  name: r.name,
  kind: r.kind,
  keyHash: r.key_hash,
  prefix: r.prefix,
  accountId: r.account_id,
  isActive: r.is_active,
  expiresAt: r.expires_at,
  maxUsage: r.max_usage,
  usageCount: r.usage_count,
  monthlyQuota: r.monthly_quota,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
  rotatedFrom: r.rotated_from,
});

const CACHE_TTL_MS = 60_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CACHE_MAX = 10_000;
/** How long after its last successful read a key still authenticates while the database is unreachable. */
const STALE_IF_ERROR_MS = 10 * 60_000;

export class PostgresCredentialStore implements CredentialStore {
  private readonly pool: Pool;
  private readonly listener: PgListener | null;
  private readonly cache = new Map<string, { rec: ApiKeyRecord; at: number }>();
  /** The last answer of the database per key, kept through notification gaps, for outages only. */
  private readonly lastKnown = new Map<string, { rec: ApiKeyRecord; at: number }>();
  /** Bumped by every change notification: a lookup that raced a change is not cached. */
  private generation = 0;

  /**
   * With a listener, lookups by hash are cached per process and dropped on the `api_keys` change
   * notification (revocation reaches every process at once). Keys with a usage limit are never
   * cached: their counter must be read fresh.
   */
  constructor(pool: Pool, listener: PgListener | null = null) {
    this.pool = pool;
    this.listener = listener;
    if (listener) {
      void listener.on('fitroom_key_changed', (hash) => {
        this.generation++;
        this.cache.delete(hash);
        this.lastKnown.delete(hash);
      });
      listener.onReset(() => {
        this.generation++;
        this.cache.clear();
      });
    }
  }
  async insert(k: ApiKeyRecord) {
    const r = await this.pool.query<Row>(
      `insert into api_keys (id, name, kind, key_hash, prefix, account_id, is_active, expires_at, max_usage, usage_count, monthly_quota, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) returning *`,
      [k.id, k.name, k.kind, k.keyHash, k.prefix, k.accountId, k.isActive, k.expiresAt, k.maxUsage, k.usageCount, k.monthlyQuota, k.createdAt],
    );
    return toRecord(r.rows[0]);
  }
  async get(id: string) {
    // Callers without a key record carry other ids (`ar-session:<account>`): not found, not a uuid cast error.
    if (!UUID.test(id)) return null;
    const r = await this.pool.query<Row>('select * from api_keys where id = $1', [id]);
    return r.rows[0] ? toRecord(r.rows[0]) : null;
  }
  findByHash(hash: string): Promise<ApiKeyRecord | null> {
    const hit = this.cachedByHash(hash);
    return hit ? Promise.resolve(hit) : this.load(hash);
  }
  /** Served only while notifications arrive, so a revocation anywhere has already dropped it. */
  cachedByHash(hash: string): ApiKeyRecord | undefined {
    const hit = this.cache.get(hash);
    return hit && this.listener?.live && Date.now() - hit.at < CACHE_TTL_MS ? hit.rec : undefined;
  }
  private async load(hash: string): Promise<ApiKeyRecord | null> {
    const gen = this.generation;
    let r;
    try {
      r = await this.pool.query<Row>('select * from api_keys where key_hash = $1', [hash]);
    } catch (e) {
      // Stale-if-error: while the database does not answer, a key this process read from it shortly
      // before still authenticates (no revocation can be written meanwhile, except by a process that
      // still reaches the database, for at most STALE_IF_ERROR_MS), so the warm-up and cached answers
      // keep working through an outage. Keys with a usage limit are never served from memory.
      const known = this.lastKnown.get(hash);
      if (known && Date.now() - known.at < STALE_IF_ERROR_MS) return known.rec;
      throw e;
    }
    const rec = r.rows[0] ? toRecord(r.rows[0]) : null;
    if (rec && rec.maxUsage === 0 && rec.isActive) this.remember(hash, rec);
    else this.lastKnown.delete(hash);
    if (rec && rec.maxUsage === 0 && this.listener?.live && gen === this.generation) {
      if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(hash, { rec, at: Date.now() });
    }
    return rec;
  }
  private remember(hash: string, rec: ApiKeyRecord) {
    this.lastKnown.delete(hash);
    if (this.lastKnown.size >= CACHE_MAX) this.lastKnown.delete(this.lastKnown.keys().next().value!);
    this.lastKnown.set(hash, { rec, at: Date.now() });
  }
  async list() {
    const r = await this.pool.query<Row>('select * from api_keys order by created_at');
    return r.rows.map(toRecord);
  }
  async revoke(id: string, at: Date) {
    if (!UUID.test(id)) return null;
    const r = await this.pool.query<Row>('update api_keys set is_active = false, revoked_at = coalesce(revoked_at, $2) where id = $1 returning *', [id, at]);
    if (!r.rows[0]) return null;
    // Other processes drop it on the change notification; this one at once.
    this.generation++;
    this.cache.delete(r.rows[0].key_hash);
    this.lastKnown.delete(r.rows[0].key_hash);
    return toRecord(r.rows[0]);
  }
  async setRotatedFrom(id: string, from: string) {
    await this.pool.query('update api_keys set rotated_from = $2 where id = $1', [id, from]);
  }
  async incrementUsage(id: string, by = 1) {
    await this.pool.query('update api_keys set usage_count = usage_count + $2 where id = $1', [id, by]);
  }
}
