import type { Pool } from './db.ts';
import type { PlatformMetric, PlatformUsage } from '../../core/ports/platform-usage.ts';

/** The UTC calendar month of the timestamp in parameter $n. */
const month = (n: number) => `date_trunc('month', $${n}::timestamptz at time zone 'UTC')::date`;

export class PostgresPlatformUsage implements PlatformUsage {
  private readonly pool: Pool;
  constructor(pool: Pool) {
    this.pool = pool;
  }

  async count(platform: string, shop: string, metric: PlatformMetric, at = new Date()): Promise<void> {
    await this.pool.query(
      `insert into platform_usage (platform, shop, metric, month, count) values ($1, $2, $3, ${month(4)}, 1)
       on conflict (platform, shop, month, metric) do update set count = platform_usage.count + 1`,
      [platform, shop, metric, at],
    );
  }

  async month(platform: string, shop: string, at: Date): Promise<Record<PlatformMetric, number>> {
    const r = await this.pool.query<{ metric: PlatformMetric; count: string }>(
      `select metric, count from platform_usage where platform = $1 and shop = $2 and month = ${month(3)}`,
      [platform, shop, at],
    );
    const out: Record<PlatformMetric, number> = { tryon: 0, size_recommendation: 0, size_chart: 0 };
    for (const row of r.rows) out[row.metric] = Number(row.count);
    return out;
  }

  async total(platform: string, shop: string, metric: PlatformMetric): Promise<number> {
    const r = await this.pool.query<{ n: string | null }>('select sum(count) as n from platform_usage where platform = $1 and shop = $2 and metric = $3', [platform, shop, metric]);
    return Number(r.rows[0]?.n ?? 0);
  }
}
