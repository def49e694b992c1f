import type { Pool } from './db.ts';
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

export class PostgresCredentialStore implements CredentialStore {
  private readonly pool: Pool;
  constructor(pool: Pool) {
    this.pool = pool;
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
    const r = await this.pool.query<Row>('select * from api_keys where id = $1', [id]);
    return r.rows[0] ? toRecord(r.rows[0]) : null;
  }
  async findByHash(hash: string) {
    const r = await this.pool.query<Row>('select * from api_keys where key_hash = $1', [hash]);
    return r.rows[0] ? toRecord(r.rows[0]) : null;
  }
  async list() {
    const r = await this.pool.query<Row>('select * from api_keys order by created_at');
    return r.rows.map(toRecord);
  }
  async revoke(id: string, at: Date) {
    const r = await this.pool.query<Row>('update api_keys set is_active = false, revoked_at = coalesce(revoked_at, $2) where id = $1 returning *', [id, at]);
    return r.rows[0] ? toRecord(r.rows[0]) : null;
  }
  async setRotatedFrom(id: string, from: string) {
    await this.pool.query('update api_keys set rotated_from = $2 where id = $1', [id, from]);
  }
  async incrementUsage(id: string) {
    await this.pool.query('update api_keys set usage_count = usage_count + 1 where id = $1', [id]);
  }
}
