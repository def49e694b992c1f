import type { Pool } from './db.ts';
import type { FootClient, FootMeasurementStore, FootScan } from '../../core/ports/foot-measurement-store.ts';

interface ClientRow {
  id: string;
  name: string;
  created_at: Date;
  revoked_at: Date | null;
}
interface ScanRow {
  id: string;
  client_id: string;
  feet: FootScan['feet'];
  device: Record<string, unknown> | null;
  sizes: Record<string, unknown>;
  created_at: Date;
  expires_at: Date;
}

const client = (r: ClientRow): FootClient => ({ id: r.id, name: r.name, createdAt: r.created_at, revokedAt: r.revoked_at });
const scan = (r: ScanRow): FootScan => ({ id: r.id, clientId: r.client_id, feet: r.feet, device: r.device, sizes: r.sizes, createdAt: r.created_at, expiresAt: r.expires_at });

export class PostgresFootMeasurementStore implements FootMeasurementStore {
  private readonly pool: Pool;
  constructor(pool: Pool) {
    this.pool = pool;
  }

  async createClient(c: { id: string; name: string }): Promise<FootClient> {
    const r = await this.pool.query<ClientRow>('insert into foot_clients (id, name) values ($1, $2) returning *', [c.id, c.name]);
    return client(r.rows[0]);
  }

  async client(id: string): Promise<FootClient | null> {
    const r = await this.pool.query<ClientRow>('select * from foot_clients where id = $1', [id]);
    return r.rows[0] ? client(r.rows[0]) : null;
  }

  async listClients(): Promise<FootClient[]> {
    const r = await this.pool.query<ClientRow>('select * from foot_clients order by created_at desc, id limit 1000');
    return r.rows.map(client);
  }

  async revokeClient(id: string, at: Date): Promise<boolean> {
    const r = await this.pool.query('update foot_clients set revoked_at = $2 where id = $1 and revoked_at is null', [id, at]);
    return (r.rowCount ?? 0) > 0;
  }

  async saveScan(s: FootScan): Promise<void> {
    await this.pool.query('insert into foot_scans (id, client_id, feet, device, sizes, created_at, expires_at) values ($1, $2, $3, $4, $5, $6, $7)', [
      s.id,
      s.clientId,
      JSON.stringify(s.feet),
      s.device === null ? null : JSON.stringify(s.device),
      JSON.stringify(s.sizes),
      s.createdAt,
      s.expiresAt,
    ]);
  }

  async recent(opts: { limit: number; clientId?: string; now: Date }): Promise<FootScan[]> {
    const r = await this.pool.query<ScanRow>(
      'select * from foot_scans where expires_at > $1 and ($2::text is null or client_id = $2) order by created_at desc, id limit $3',
      [opts.now, opts.clientId ?? null, opts.limit],
    );
    return r.rows.map(scan);
  }

  async deleteScan(id: string, now: Date): Promise<boolean> {
    const r = await this.pool.query('delete from foot_scans where id = $1 and expires_at > $2', [id, now]);
    return (r.rowCount ?? 0) > 0;
  }

  async purgeExpired(now: Date): Promise<number> {
    const r = await this.pool.query('delete from foot_scans where expires_at <= $1', [now]);
    return r.rowCount ?? 0;
  }
}
