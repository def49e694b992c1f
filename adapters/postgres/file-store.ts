import type { Pool } from './db.ts';
import type { FileStore } from '../../core/ports/file-store.ts';
import type { FileRecord } from '../../core/files.ts';

export interface FileRow {
  id: string;
  owner_hash: string;
  blob_key: string;
  content_type: string;
  size: number;
  filename: string | null;
  internal: boolean;
  expires_at: Date | null;
  created_at: Date;
}

export const toFile = (r: FileRow): FileRecord => ({
  id: r.id,
  ownerHash: r.owner_hash,
  blobKey: r.blob_key,
  contentType: r.content_type,
  size: r.size,
  filename: r.filename,
  internal: r.internal,
  expiresAt: r.expires_at,
  createdAt: r.created_at,
});

export class PostgresFileStore implements FileStore {
  private readonly pool: Pool;
  constructor(pool: Pool) {
    this.pool = pool;
  }
  async insert(f: FileRecord) {
    await this.pool.query(
      'insert into files (id, owner_hash, blob_key, content_type, size, filename, internal, expires_at, created_at) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
      [f.id, f.ownerHash, f.blobKey, f.contentType, f.size, f.filename, f.internal, f.expiresAt, f.createdAt],
    );
  }
  async get(id: string) {
    const r = await this.pool.query<FileRow>('select * from files where id = $1', [id]);
    return r.rows[0] ? toFile(r.rows[0]) : null;
  }
  async expired(before: Date, limit: number) {
    const r = await this.pool.query<FileRow>('select * from files where expires_at is not null and expires_at <= $1 order by expires_at limit $2', [before, limit]);
    return r.rows.map(toFile);
  }
  async delete(id: string) {
    await this.pool.query('delete from files where id = $1', [id]);
  }
}
