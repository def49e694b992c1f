import type { Pool } from './db.ts';
import { toFile, type FileRow } from './file-store.ts';
import type { CachedTryOnHit, CachedTryOnResult, QuotaSubject, TryOnStore } from '../../core/tryon/tryon-store.ts';

interface Row {
  key: string;
  owner_hash: string;
  file_id: string;
  digital_twin_id: string | null;
  created_at: Date;
  expires_at: Date;
}

const toEntry = (r: Row): CachedTryOnResult => ({
  key: r.key,
  ownerHash: r.owner_hash,
  fileId: r.file_id,
  digitalTwinId: r.digital_twin_id,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

/** TryOnStore on the `tryon_results` table and the `jobs` table (migration 020). */
export class PostgresTryOnStore implements TryOnStore {
  private readonly pool: Pool;
  constructor(pool: Pool) {
    this.pool = pool;
  }

  async getCached(key: string, ownerHash: string, now: Date): Promise<CachedTryOnHit | null> {
    // the entry and its result file in one round trip (a hit is answered from these alone)
    const r = await this.pool.query<Row & { file: FileRow }>(
      `select t.*, row_to_json(f) as file from tryon_results t join files f on f.id = t.file_id
        where t.key = $1 and t.owner_hash = $2 and t.expires_at > $3 and (f.expires_at is null or f.expires_at > $3)`,
      [key, ownerHash, now],
    );
    const row = r.rows[0];
    if (!row) return null;
    const f = row.file;
    // row_to_json gives timestamps as text
    const file = toFile({ ...f, expires_at: f.expires_at === null ? null : new Date(f.expires_at), created_at: new Date(f.created_at) });
    return { entry: toEntry(row), file };
  }

  async putCached(e: CachedTryOnResult) {
    await this.pool.query(
      `insert into tryon_results (key, owner_hash, file_id, digital_twin_id, created_at, expires_at) values ($1, $2, $3, $4, $5, $6)
       on conflict (key, owner_hash) do update set file_id = excluded.file_id, digital_twin_id = excluded.digital_twin_id,
         created_at = excluded.created_at, expires_at = excluded.expires_at`,
      [e.key, e.ownerHash, e.fileId, e.digitalTwinId, e.createdAt, e.expiresAt],
    );
  }

  async purgeExpired(now: Date, limit: number) {
    const r = await this.pool.query(
      'delete from tryon_results where ctid in (select ctid from tryon_results where expires_at <= $1 order by expires_at limit $2)',
      [now, limit],
    );
    return r.rowCount ?? 0;
  }

  async aiCallsSince(subject: QuotaSubject, since: Date, kinds: readonly string[]) {
    const bySubject = subject.accountId === null ? 'credential_id = $1' : 'account_id = $1';
    const r = await this.pool.query<{ n: string }>(
      `select count(*) as n from jobs where ${bySubject} and created_at >= $2 and kind = any($3)
         and (input ->> 'aiQuota') = 'true' and status not in ('failed', 'cancelled')`,
      [subject.accountId ?? subject.credentialId, since, kinds],
    );
    return Number(r.rows[0].n);
  }
}
