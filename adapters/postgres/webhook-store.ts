import type { Pool, PoolClient } from './db.ts';
import type { WebhookDelivery } from '../../core/webhooks.ts';
import type { DeliveryAttempt, StoredDelivery, WebhookStore } from '../../core/ports/webhook-store.ts';

export const WEBHOOK_TASK = 'fitroom_webhook';

/** Inserts a delivery and queues its send task using the caller's transaction. */
export async function enqueueDelivery(c: PoolClient | Pool, d: WebhookDelivery, maxAttempts: number): Promise<void> {
  await c.query('insert into webhook_deliveries (id, job_id, event, url, body, signature, timestamp) values ($1, $2, $3, $4, $5, $6, $7)', [d.id, d.jobId, d.event, d.url, d.body, d.signature, d.timestamp]);
  await c.query('select graphile_worker.add_job($1, json_build_object($2::text, $3::text), max_attempts => $4)', [WEBHOOK_TASK, 'deliveryId', d.id, d.event === 'batch.completed' ? 1 : maxAttempts]);
}

interface Row {
  id: string;
  job_id: string | null;
  event: WebhookDelivery['event'];
  url: string;
  body: string;
  signature: string;
  timestamp: string;
  state: StoredDelivery['state'];
  attempts: (Omit<DeliveryAttempt, 'at' | 'retryAt'> & { at: string; retryAt?: string })[];
}

const toDelivery = (r: Row): StoredDelivery => ({
  id: r.id,
  jobId: r.job_id,
  event: r.event,
  url: r.url,
  body: r.body,
  signature: r.signature,
  timestamp: r.timestamp,
  state: r.state,
  attempts: r.attempts.map(({ retryAt, ...a }) => ({ ...a, at: new Date(a.at), ...(retryAt ? { retryAt: new Date(retryAt) } : {}) })),
});

export class PostgresWebhookStore implements WebhookStore {
  private readonly pool: Pool;
  private readonly maxAttempts: number;
  constructor(pool: Pool, maxAttempts: number) {
    this.pool = pool;
    this.maxAttempts = maxAttempts;
  }
  async enqueue(d: WebhookDelivery) {
    const c = await this.pool.connect();
    try {
      await c.query('begin');
      await enqueueDelivery(c, d, this.maxAttempts);
      await c.query('commit');
    } catch (e) {
      await c.query('rollback').catch(() => undefined);
      throw e;
    } finally {
      c.release();
    }
  }
  async get(id: string) {
    const r = await this.pool.query<Row>('select * from webhook_deliveries where id = $1', [id]);
    return r.rows[0] ? toDelivery(r.rows[0]) : null;
  }
  async recordAttempt(id: string, a: DeliveryAttempt, state: StoredDelivery['state']) {
    await this.pool.query('update webhook_deliveries set attempts = attempts || $2::jsonb, state = $3 where id = $1', [id, JSON.stringify([{ ...a, at: a.at.toISOString(), ...(a.retryAt ? { retryAt: a.retryAt.toISOString() } : {}) }]), state]);
  }
  async retryAt(id: string, at: Date, attemptsLeft: number) {
    await this.pool.query('select graphile_worker.add_job($1, json_build_object($2::text, $3::text), run_at => $4, max_attempts => $5)', [WEBHOOK_TASK, 'deliveryId', id, at, Math.max(1, attemptsLeft)]);
  }
  async receiverPausedUntil(receiver: string, probeMs: number) {
    const r = await this.pool.query<{ paused_until: Date | null; over: boolean }>('select paused_until, paused_until <= now() as over from webhook_receivers where receiver = $1', [receiver]);
    const row = r.rows[0];
    if (!row || row.paused_until === null) return null;
    if (!row.over) return row.paused_until;
    // The pause is over: one delivery probes the receiver; the others wait for its outcome.
    const probe = await this.pool.query<{ paused_until: Date }>(
      `update webhook_receivers set paused_until = now() + make_interval(secs => $2::double precision / 1000), updated_at = now()
        where receiver = $1 and paused_until <= now() returning paused_until`,
      [receiver, probeMs],
    );
    if (probe.rowCount) return null;
    const again = await this.pool.query<{ paused_until: Date | null }>('select paused_until from webhook_receivers where receiver = $1', [receiver]);
    return again.rows[0]?.paused_until ?? null;
  }
  async recordReceiver(receiver: string, outcome: 'answered' | 'timeout', breaker: { threshold: number; pauseMs: number }) {
    if (outcome === 'answered') {
      await this.pool.query('delete from webhook_receivers where receiver = $1', [receiver]);
      return;
    }
    await this.pool.query(
      `insert into webhook_receivers as w (receiver, timeouts, paused_until) values ($1, 1, case when $2::int <= 1 then now() + make_interval(secs => $3::double precision / 1000) end)
       on conflict (receiver) do update set timeouts = w.timeouts + 1, updated_at = now(),
         paused_until = case when w.timeouts + 1 >= $2::int then now() + make_interval(secs => $3::double precision / 1000) else w.paused_until end`,
      [receiver, breaker.threshold, breaker.pauseMs],
    );
  }
  async listForJob(jobId: string) {
    const r = await this.pool.query<Row>('select * from webhook_deliveries where job_id = $1 order by created_at', [jobId]);
    return r.rows.map(toDelivery);
  }
}
