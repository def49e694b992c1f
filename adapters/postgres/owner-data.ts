import type { Pool } from './db.ts';
import type { BlobStore } from '../../core/ports/blob-store.ts';
import type { OwnerData, OwnerDataCounts, OwnerDataSummary } from '../../core/ports/owner-data.ts';

/** Data subject requests over every table keyed by owner hash, in one transaction; blobs after commit. */
export class PostgresOwnerData implements OwnerData {
  private readonly pool: Pool;
  private readonly blobs: BlobStore;
  constructor(pool: Pool, blobs: BlobStore) {
    this.pool = pool;
    this.blobs = blobs;
  }

  async summarize(owners: string[]): Promise<OwnerDataSummary> {
    const [jobs, files, twins, results] = await Promise.all([
      this.pool.query<{ id: string; kind: string; status: string; created_at: Date; owner_hash: string }>('select id, kind, status, created_at, owner_hash from jobs where owner_hash = any($1::text[]) order by created_at', [owners]),
      this.pool.query<{ id: string; content_type: string; created_at: Date; expires_at: Date | null }>('select id, content_type, created_at, expires_at from files where owner_hash = any($1::text[]) order by created_at', [owners]),
      this.pool.query<{ id: string; mode: string; created_at: Date }>('select id, mode, created_at from twins where owner_hash = any($1::text[]) order by created_at', [owners]),
      this.pool.query<{ n: string }>('select count(*) as n from tryon_results where owner_hash = any($1::text[])', [owners]),
    ]);
    return {
      jobs: jobs.rows.map((r) => ({ id: r.id, kind: r.kind, status: r.status, createdAt: r.created_at.toISOString(), ownerHash: r.owner_hash })),
      files: files.rows.map((r) => ({ id: r.id, contentType: r.content_type, createdAt: r.created_at.toISOString(), expiresAt: r.expires_at?.toISOString() ?? null })),
      twins: twins.rows.map((r) => ({ id: r.id, mode: r.mode, createdAt: r.created_at.toISOString() })),
      tryOnResults: Number(results.rows[0].n),
    };
  }

  erase(owners: string[]): Promise<OwnerDataCounts> {
    return this.#erase(owners, null);
  }

  eraseBefore(owners: string[], before: Date): Promise<OwnerDataCounts> {
    return this.#erase(owners, before);
  }

  /** `before` null: everything; else rows created before it (`$2`, null matches every row). */
  async #erase(owners: string[], before: Date | null): Promise<OwnerDataCounts> {
    const c = await this.pool.connect();
    const AT = '($2::timestamptz is null or created_at < $2)';
    let blobKeys: string[];
    let counts: OwnerDataCounts;
    try {
      await c.query('begin');
      const p = [owners, before];
      await c.query(`delete from webhook_deliveries where job_id in (select id from jobs where owner_hash = any($1::text[]) and ${AT})`, p);
      // batches own their batch.completed deliveries; their item jobs are the owner's jobs (below)
      await c.query(`delete from webhook_deliveries where id in (select delivery_id from batches where owner_hash = any($1::text[]) and ${AT})`, p);
      const jobs = await c.query(`delete from jobs where owner_hash = any($1::text[]) and ${AT}`, p);
      await c.query(`delete from batches where owner_hash = any($1::text[]) and ${AT}`, p);
      const results = await c.query(`delete from tryon_results where owner_hash = any($1::text[]) and ${AT}`, p);
      const twins = await c.query(`delete from twins where owner_hash = any($1::text[]) and ${AT}`, p);
      const files = await c.query<{ blob_key: string }>(`delete from files where owner_hash = any($1::text[]) and ${AT} returning blob_key`, p);
      await c.query('commit');
      blobKeys = files.rows.map((r) => r.blob_key);
      counts = { jobs: jobs.rowCount ?? 0, files: files.rowCount ?? 0, twins: twins.rowCount ?? 0, tryOnResults: results.rowCount ?? 0 };
    } catch (e) {
      await c.query('rollback').catch(() => undefined);
      throw e;
    } finally {
      c.release();
    }
    for (const k of blobKeys) await this.blobs.delete(k).catch(() => undefined);
    return counts;
  }
}
