import type { Pool } from './db.ts';
import type { DiscoveryStore, VendorDiscovery } from '../../core/ports/vendor-catalog.ts';

/** NOTIFY channel: another process stored new discovery results (each process reloads them). */
export const DISCOVERY_CHANNEL = 'fitroom_vendor_discovery';

/** Discovery results in PostgreSQL (migration 090): one row a vendor, the newest answer wins. */
export class PostgresDiscoveryStore implements DiscoveryStore {
  private readonly pool: Pool;
  constructor(pool: Pool) {
    this.pool = pool;
  }

  async load(): Promise<VendorDiscovery[]> {
    const r = await this.pool.query<{ result: VendorDiscovery }>('select result from vendor_discovery order by provider');
    return r.rows.map((row) => row.result);
  }

  async save(results: readonly VendorDiscovery[]): Promise<void> {
    if (!results.length) return;
    await this.pool.query(
      `insert into vendor_discovery (provider, discovered_at, result)
         select x->>'provider', (x->>'discoveredAt')::timestamptz, x from jsonb_array_elements($1::jsonb) as x
       on conflict (provider) do update set discovered_at = excluded.discovered_at, result = excluded.result
         where vendor_discovery.discovered_at <= excluded.discovered_at`,
      [JSON.stringify(results)],
    );
    await this.pool.query('select pg_notify($1, $2)', [DISCOVERY_CHANNEL, results.map((r) => r.provider).join(',')]);
  }

  async claim(staleMs: number): Promise<boolean> {
    const r = await this.pool.query(
      `insert into vendor_discovery_claim (id, claimed_at) values (1, now())
       on conflict (id) do update set claimed_at = now()
         where vendor_discovery_claim.claimed_at < now() - make_interval(secs => $1::float8 / 1000)
       returning id`,
      [staleMs],
    );
    return r.rowCount === 1;
  }
}
