import type { Pool } from './db.ts';
import type { UsageAttributionStore } from '../../core/ports/usage-attribution-store.ts';

export class PostgresUsageAttributionStore implements UsageAttributionStore {
  private readonly pool: Pool;
  constructor(pool: Pool) {
    this.pool = pool;
  }

  async record(accountId: string, operationId: string, at: Date): Promise<void> {
    await this.pool.query(
      `insert into usage_attribution (account_id, operation_id, day, count) values ($1, $2, ($3::timestamptz at time zone 'UTC')::date, 1)
       on conflict (account_id, operation_id, day) do update set count = usage_attribution.count + 1`,
      [accountId, operationId, at],
    );
  }

  async list(filter: { accountId?: string; since: string }) {
    const r = await this.pool.query<{ account_id: string; operation_id: string; day: string; count: string }>(
      `select account_id, operation_id, to_char(day, 'YYYY-MM-DD') as day, count from usage_attribution
       where day >= $1::date and ($2::text is null or account_id = $2) order by day desc, account_id, operation_id limit 5000`,
      [filter.since, filter.accountId ?? null],
    );
    return r.rows.map((x) => ({ accountId: x.account_id, operationId: x.operation_id, day: x.day, count: Number(x.count) }));
  }
}
