import type { Pool } from './db.ts';
import { withTransaction } from './db.ts';
import { insertJob, toJob, type JobRow } from './job-store.ts';
import { enqueueDelivery } from './webhook-store.ts';
import type { BatchRecord, BatchStore, NewBatch } from '../../core/ports/batch-store.ts';
import type { NewJob, QueueOptions } from '../../core/ports/job-store.ts';
import type { JobRecord } from '../../core/jobs.ts';
import type { WebhookDelivery } from '../../core/webhooks.ts';

interface BatchRow {
  id: string;
  owner_hash: string;
  account_id: string | null;
  credential_id: string;
  item_count: number;
  webhook_url: string | null;
  base_url: string;
  delivery_id: string | null;
  created_at: Date;
  completed_at: Date | null;
  expires_at: Date | null;
}

const toBatch = (r: BatchRow): BatchRecord => ({
  id: r.id,
  ownerHash: r.owner_hash,
  accountId: r.account_id,
  credentialId: r.credential_id,
  itemCount: r.item_count,
  webhookUrl: r.webhook_url,
  baseUrl: r.base_url,
  deliveryId: r.delivery_id,
  createdAt: r.created_at,
  completedAt: r.completed_at,
  expiresAt: r.expires_at,
});

const TERMINAL = ['completed', 'failed', 'cancelled'];

export class PostgresBatchStore implements BatchStore {
  private readonly pool: Pool;
  private readonly webhookAttempts: number;
  constructor(pool: Pool, webhookAttempts: number) {
    this.pool = pool;
    this.webhookAttempts = webhookAttempts;
  }

  create(b: NewBatch, items: NewJob[], q: QueueOptions): Promise<BatchRecord> {
    return withTransaction(this.pool, async (c) => {
      const r = await c.query<BatchRow>(
        `insert into batches (id, owner_hash, account_id, credential_id, item_count, webhook_url, base_url)
         values ($1, $2, $3, $4, $5, $6, $7) returning *`,
        [b.id, b.ownerHash, b.accountId, b.credentialId, items.length, b.webhookUrl, b.baseUrl],
      );
      for (let i = 0; i < items.length; i++) await insertJob(c, items[i], q, { id: b.id, index: i });
      return toBatch(r.rows[0]);
    });
  }

  async get(id: string) {
    const r = await this.pool.query<BatchRow>('select * from batches where id = $1', [id]);
    return r.rows[0] ? toBatch(r.rows[0]) : null;
  }

  async items(id: string): Promise<JobRecord[]> {
    const r = await this.pool.query<JobRow>('select * from jobs where batch_id = $1 order by batch_index', [id]);
    return r.rows.map(toJob);
  }

  async completeFinished(ttlSeconds: number, build: (batch: BatchRecord, items: JobRecord[]) => WebhookDelivery | null): Promise<BatchRecord[]> {
    const ready = await this.pool.query<{ id: string }>(
      `select b.id from batches b
        where b.completed_at is null
          and not exists (select 1 from jobs j where j.batch_id = b.id and j.status <> all($1::text[]))
        order by b.created_at limit 100`,
      [TERMINAL],
    );
    const done: BatchRecord[] = [];
    for (const { id } of ready.rows) {
      const completed = await withTransaction(this.pool, async (c) => {
        // The row lock and the open check make completion happen once, whichever worker gets here first.
        const r = await c.query<BatchRow>(
          `update batches set completed_at = now(), expires_at = now() + make_interval(secs => $2)
            where id = $1 and completed_at is null
              and not exists (select 1 from jobs j where j.batch_id = $1 and j.status <> all($3::text[]))
            returning *`,
          [id, ttlSeconds, TERMINAL],
        );
        if (!r.rows[0]) return null;
        const batch = toBatch(r.rows[0]);
        const items = (await c.query<JobRow>('select * from jobs where batch_id = $1 order by batch_index', [id])).rows.map(toJob);
        const delivery = build(batch, items);
        if (delivery) {
          await enqueueDelivery(c, delivery, this.webhookAttempts);
          await c.query('update batches set delivery_id = $2 where id = $1', [id, delivery.id]);
          batch.deliveryId = delivery.id;
        }
        return batch;
      });
      if (completed) done.push(completed);
    }
    return done;
  }

  async purgeExpired(now: Date) {
    // Item jobs and their traces go with the batch (cascade); so does its recorded delivery. Item files
    // expire on their own (their TTL is the batch retention, counted from each item's completion).
    const r = await this.pool.query<{ n: string }>(
      `with gone as (delete from batches where expires_at is not null and expires_at < $1 returning delivery_id),
            deliveries as (delete from webhook_deliveries where id in (select delivery_id from gone where delivery_id is not null))
       select count(*) as n from gone`,
      [now],
    );
    return Number(r.rows[0].n);
  }

  async delivery(batch: BatchRecord) {
    if (!batch.deliveryId) return null;
    const r = await this.pool.query<{ state: string; attempts: { attempt: number; at: string; status: number | null; error: string | null }[] }>('select state, attempts from webhook_deliveries where id = $1', [batch.deliveryId]);
    const row = r.rows[0];
    return row ? { state: row.state, attempts: row.attempts.map((a) => ({ attempt: a.attempt, at: new Date(a.at), status: a.status, error: a.error })) } : null;
  }
}
