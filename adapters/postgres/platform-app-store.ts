import { withTransaction, type Pool } from './db.ts';
import type { BillingRecord, DataRequestRecord, PlatformAppStore, UsageCharge } from '../../core/ports/platform-app-store.ts';

interface ExportRow {
  id: string;
  shop: string;
  customer_id: string;
  file_id: string;
  created_at: Date;
  delivered_at: Date | null;
}
const request = (x: ExportRow): DataRequestRecord => ({ id: x.id, shop: x.shop, customerId: x.customer_id, fileId: x.file_id, requestedAt: x.created_at, deliveredAt: x.delivered_at });

interface ChargeRow {
  job_id: string;
  kind: UsageCharge['kind'];
  amount: string;
  status: UsageCharge['status'];
  usage_record_id: string | null;
  error: string | null;
}
const charge = (x: ChargeRow): UsageCharge => ({ jobId: x.job_id, kind: x.kind, amount: Number(x.amount), status: x.status, usageRecordId: x.usage_record_id, error: x.error });

export class PostgresPlatformAppStore implements PlatformAppStore {
  private readonly pool: Pool;
  constructor(pool: Pool) {
    this.pool = pool;
  }

  async delivered(platform: string, webhookId: string) {
    const r = await this.pool.query('select 1 from platform_events where platform = $1 and event_id = $2', [platform, webhookId]);
    return (r.rowCount ?? 0) > 0;
  }

  async recordDelivery(platform: string, webhookId: string, run?: { shop: string; topic: string; rows: number; files: number }) {
    await withTransaction(this.pool, async (c) => {
      await c.query('insert into platform_events (platform, event_id) values ($1, $2) on conflict do nothing', [platform, webhookId]);
      if (run) await c.query('insert into platform_compliance_runs (platform, webhook_id, shop, topic, rows, files) values ($1, $2, $3, $4, $5, $6) on conflict do nothing', [platform, webhookId, run.shop, run.topic, run.rows, run.files]);
    });
  }

  async lastRuns(platform: string, shop: string) {
    const r = await this.pool.query<{ topic: string; ran_at: Date; rows: number; files: number }>(
      'select distinct on (topic) topic, ran_at, rows, files from platform_compliance_runs where platform = $1 and shop = $2 order by topic, ran_at desc',
      [platform, shop],
    );
    return r.rows.map((x) => ({ topic: x.topic, ranAt: x.ran_at, rows: x.rows, files: x.files }));
  }

  async dataRequests(platform: string, shop: string) {
    const r = await this.pool.query<ExportRow>('select * from platform_data_exports where platform = $1 and shop = $2 order by created_at desc limit 500', [platform, shop]);
    return r.rows.map(request);
  }

  async dataRequest(platform: string, shop: string, id: string) {
    const r = await this.pool.query<ExportRow>('select * from platform_data_exports where platform = $1 and shop = $2 and id = $3', [platform, shop, id]);
    return r.rows[0] ? request(r.rows[0]) : null;
  }

  async markDelivered(platform: string, shop: string, id: string) {
    const r = await this.pool.query<ExportRow>('update platform_data_exports set delivered_at = coalesce(delivered_at, now()) where platform = $1 and shop = $2 and id = $3 returning *', [platform, shop, id]);
    return r.rows[0] ? request(r.rows[0]) : null;
  }

  async forgetDataRequests(platform: string, shop: string, customerId?: string) {
    const r = await this.pool.query<{ file_id: string }>('delete from platform_data_exports where platform = $1 and shop = $2 and ($3::text is null or customer_id = $3) returning file_id', [platform, shop, customerId ?? null]);
    return r.rows.map((x) => x.file_id);
  }

  async billing(platform: string, shop: string) {
    const r = await this.pool.query<{ plan: 'free' | 'paid'; subscription_id: string | null; status: string; usage_line_item_id: string | null; balance_used: string; capped_amount: string | null; currency: string | null; test: boolean; since: Date | null }>(
      'select * from platform_billing where platform = $1 and shop = $2',
      [platform, shop],
    );
    const x = r.rows[0];
    return x ? { platform, shop, plan: x.plan, subscriptionId: x.subscription_id, status: x.status, usageLineItemId: x.usage_line_item_id, balanceUsed: Number(x.balance_used), cappedAmount: x.capped_amount === null ? null : Number(x.capped_amount), currency: x.currency, test: x.test, since: x.since } : null;
  }

  async saveBilling(b: BillingRecord) {
    await this.pool.query(
      `insert into platform_billing (platform, shop, plan, subscription_id, status, usage_line_item_id, balance_used, capped_amount, currency, test, since)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       on conflict (platform, shop) do update set plan = $3, subscription_id = $4, status = $5, usage_line_item_id = $6, balance_used = $7, capped_amount = $8, currency = $9, test = $10, since = $11, updated_at = now()`,
      [b.platform, b.shop, b.plan, b.subscriptionId, b.status, b.usageLineItemId, b.balanceUsed, b.cappedAmount, b.currency, b.test, b.since],
    );
  }

  async paidShops(platform: string) {
    const r = await this.pool.query<{ shop: string }>(`select shop from platform_billing where platform = $1 and plan = 'paid' and status = 'ACTIVE' order by shop`, [platform]);
    return r.rows.map((x) => x.shop);
  }

  async unchargedVendorJobs(platform: string, shop: string, accountId: string, since: Date) {
    // try-on and image jobs note the provider that answered; shoe-3d records the reconstructor it used
    const r = await this.pool.query<{ id: string; model3d: boolean }>(
      `select j.id, (j.diagnostics -> 'reconstruction' ->> 'reconstructor') is not null as model3d
         from jobs j
        where j.account_id = $3 and j.status = 'completed' and j.finished_at >= $4
          and (coalesce(j.diagnostics -> 'reconstruction' ->> 'reconstructor', 'builtin') <> 'builtin'
               or exists (select 1 from job_trace t where t.job_id = j.id and t.outcome = 'ok' and coalesce(t.detail ->> 'provider', 'builtin') <> 'builtin'))
          and not exists (select 1 from platform_usage_charges c where c.platform = $1 and c.shop = $2 and c.job_id = j.id and c.status in ('recorded', 'capped'))
        order by j.finished_at limit 200`,
      [platform, shop, accountId, since],
    );
    return r.rows.map((x) => ({ jobId: x.id, kind: (x.model3d ? 'model3d' : 'tryon') as UsageCharge['kind'] }));
  }

  async claimCharge(platform: string, shop: string, c: { jobId: string; kind: UsageCharge['kind']; amount: number }) {
    await this.pool.query(`insert into platform_usage_charges (platform, shop, job_id, kind, amount, status) values ($1, $2, $3, $4, $5, 'pending') on conflict do nothing`, [platform, shop, c.jobId, c.kind, c.amount]);
    const r = await this.pool.query<ChargeRow>('select * from platform_usage_charges where platform = $1 and shop = $2 and job_id = $3', [platform, shop, c.jobId]);
    return charge(r.rows[0]);
  }

  async finishCharge(platform: string, shop: string, jobId: string, p: { status: UsageCharge['status']; usageRecordId?: string | null; error?: string | null }) {
    await this.pool.query('update platform_usage_charges set status = $4, usage_record_id = coalesce($5, usage_record_id), error = $6, updated_at = now() where platform = $1 and shop = $2 and job_id = $3', [platform, shop, jobId, p.status, p.usageRecordId ?? null, p.error ?? null]);
  }

  async charges(platform: string, shop: string) {
    const r = await this.pool.query<ChargeRow>('select * from platform_usage_charges where platform = $1 and shop = $2 order by created_at desc limit 500', [platform, shop]);
    return r.rows.map(charge);
  }

  async forgetShop(platform: string, shop: string) {
    let n = 0;
    for (const table of ['platform_billing', 'platform_usage_charges']) n += (await this.pool.query(`delete from ${table} where platform = $1 and shop = $2`, [platform, shop])).rowCount ?? 0;
    return n;
  }
}
