import type { Pool } from './db.ts';
import { withTransaction } from './db.ts';
import type { TwinRecord, TwinStore } from '../../core/ports/twin-store.ts';

interface Row {
  id: string;
  mode: TwinRecord['mode'];
  pose: TwinRecord['pose'];
  gender: TwinRecord['gender'];
  profile: TwinRecord['profile'];
  render: TwinRecord['render'];
  image_file_id: string;
  buffers_file_id: string;
  owner_hash: string;
  scope: string;
  created_at: Date;
  expires_at: Date;
}

const toTwin = (r: Row): TwinRecord => ({
  id: r.id,
  mode: r.mode,
  pose: r.pose,
  gender: r.gender,
  profile: r.profile,
  render: r.render,
  imageFileId: r.image_file_id,
  buffersFileId: r.buffers_file_id,
  ownerHash: r.owner_hash,
  scope: r.scope,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

/** TwinStore on the `twins` table (migration 010). */
export class PostgresTwinStore implements TwinStore {
  private readonly pool: Pool;
  constructor(pool: Pool) {
    this.pool = pool;
  }

  async get(id: string) {
    const r = await this.pool.query<Row>('select * from twins where id = $1', [id]);
    return r.rows[0] ? toTwin(r.rows[0]) : null;
  }

  put(t: TwinRecord) {
    return withTransaction(this.pool, async (c) => {
      const old = await c.query<Row>('select * from twins where id = $1 for update', [t.id]);
      await c.query(
        `insert into twins (id, mode, pose, gender, profile, render, image_file_id, buffers_file_id, owner_hash, created_at, expires_at, scope)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
         on conflict (id) do update set mode = excluded.mode, pose = excluded.pose, gender = excluded.gender, profile = excluded.profile,
           render = excluded.render, image_file_id = excluded.image_file_id, buffers_file_id = excluded.buffers_file_id,
           owner_hash = excluded.owner_hash, created_at = excluded.created_at, expires_at = excluded.expires_at, scope = excluded.scope`,
        [t.id, t.mode, t.pose, t.gender, t.profile === null ? null : JSON.stringify(t.profile), JSON.stringify(t.render), t.imageFileId, t.buffersFileId, t.ownerHash, t.createdAt, t.expiresAt, t.scope],
      );
      return old.rows[0] ? toTwin(old.rows[0]) : null;
    });
  }

  async expired(before: Date, limit: number) {
    const r = await this.pool.query<Row>('select * from twins where expires_at <= $1 order by expires_at limit $2', [before, limit]);
    return r.rows.map(toTwin);
  }

  async deleteExpired(id: string, before: Date) {
    const r = await this.pool.query('delete from twins where id = $1 and expires_at <= $2', [id, before]);
    return (r.rowCount ?? 0) > 0;
  }
}
