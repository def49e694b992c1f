import type { Pool, PoolClient } from './db.ts';
import { withTransaction } from './db.ts';
import { WEBHOOK_TASK, enqueueDelivery } from './webhook-store.ts';
import type { PgListener } from './listener.ts';
import type { JobPatch, JobStore, NewJob, QueueOptions } from '../../core/ports/job-store.ts';
import type { JobRecord, JobStatus, TraceEntry } from '../../core/jobs.ts';
import type { WebhookDelivery } from '../../core/webhooks.ts';
import type pg from 'pg';

export const JOB_TASK = 'fitroom_job';
const CANCEL_CHANNEL = 'fitroom_job_cancel';

export interface JobRow {
  id: string;
  kind: string;
  owner_hash: string;
  account_id: string | null;
  credential_id: string;
  status: JobStatus;
  progress: number | null;
  stage: string | null;
  input: unknown;
  result: Record<string, unknown> | null;
  results: JobRecord['results'];
  error: string | null;
  error_code: string | null;
  webhook_url: string | null;
  base_url: string;
  diagnostics: Record<string, unknown>;
  charged: boolean;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export const toJob = (r: JobRow): JobRecord => ({
  id: r.id,
  kind: r.kind,
  ownerHash: r.owner_hash,
  accountId: r.account_id,
  credentialId: r.credential_id,
  status: r.status,
  progress: r.progress,
  stage: r.stage,
  input: r.input,
  result: r.result,
  results: r.results,
  error: r.error,
  errorCode: r.error_code,
  webhookUrl: r.webhook_url,
  baseUrl: r.base_url,
  diagnostics: r.diagnostics,
  charged: r.charged,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
});

/** Inserts a queued job and its queue task in the caller's transaction (batches write many at once). */
export async function insertJob(c: PoolClient, job: NewJob, q: QueueOptions, batch?: { id: string; index: number }): Promise<JobRecord> {
  const r = await c.query<JobRow>(
    `insert into jobs (id, kind, owner_hash, account_id, credential_id, status, input, webhook_url, base_url, charged, batch_id, batch_index)
     values ($1, $2, $3, $4, $5, 'queued', $6, $7, $8, $9, $10, $11) returning *`,
    [job.id, job.kind, job.ownerHash, job.accountId, job.credentialId, JSON.stringify(job.input), job.webhookUrl, job.baseUrl, job.charged, batch?.id ?? null, batch?.index ?? null],
  );
  // the request id rides in the task's payload (the worker's log lines name it); it is not stored on the job
  await c.query("select graphile_worker.add_job($1, json_build_object('jobId', $2::text, 'requestId', $3::text), queue_name => $4, max_attempts => $5, priority => $6)", [JOB_TASK, job.id, job.requestId ?? null, q.queue ?? null, q.maxAttempts, q.priority ?? 0]);
  return toJob(r.rows[0]);
}

const READ_CACHE_MAX = 20_000;
const READ_CACHE_TTL_MS = 5 * 60_000;

export class PostgresJobStore implements JobStore {
  private readonly pool: Pool;
  private readonly webhookAttempts: number;
  private readonly listener: PgListener | null;
  private readonly readCache = new Map<string, { job: JobRecord; at: number }>();
  private generation = 0;

  /**
   * With a listener, status reads are served from a per-process cache that the `jobs` change
   * notification (a trigger on every update) invalidates, so polling a job that has not changed
   * costs no query. Writers and workers always read fresh with `get`.
   */
  constructor(pool: Pool, webhookAttempts: number, listener: PgListener | null = null) {
    this.pool = pool;
    this.webhookAttempts = webhookAttempts;
    this.listener = listener;
    if (listener) {
      void listener.on('fitroom_job_changed', (id) => {
        this.generation++;
        this.readCache.delete(id);
      });
      listener.onReset(() => {
        this.generation++;
        this.readCache.clear();
      });
    }
  }

  read(id: string): Promise<JobRecord | null> {
    const hit = this.cachedRead(id);
    return hit ? Promise.resolve(hit) : this.load(id);
  }
  /** Served only while notifications arrive, so any change to the job has already dropped it. */
  cachedRead(id: string): JobRecord | undefined {
    const hit = this.readCache.get(id);
    return hit && this.listener?.live && Date.now() - hit.at < READ_CACHE_TTL_MS ? hit.job : undefined;
  }
  private async load(id: string): Promise<JobRecord | null> {
    const gen = this.generation;
    const job = await this.get(id);
    if (job && this.listener?.live && gen === this.generation) {
      if (this.readCache.size >= READ_CACHE_MAX) this.readCache.delete(this.readCache.keys().next().value!);
      this.readCache.set(id, { job, at: Date.now() });
    }
    return job;
  }

  create(job: NewJob, q: QueueOptions): Promise<JobRecord> {
    return withTransaction(this.pool, (c) => insertJob(c, job, q));
  }

  /**
   * A job recorded as completed at once (a cache hit), with its webhook delivery and the delivery's
   * queue task when it has a receiver: one statement, so one round trip, atomic by itself (the
   * delivery rows are written only with the job, in data-modifying CTEs).
   */
  async createCompleted(job: NewJob, outcome: { result: unknown; results: JobRecord['results'] }, delivery: WebhookDelivery | null): Promise<JobRecord> {
    const values = [job.id, job.kind, job.ownerHash, job.accountId, job.credentialId, JSON.stringify(job.input), outcome.result === null || outcome.result === undefined ? null : JSON.stringify(outcome.result), outcome.results ? JSON.stringify(outcome.results) : null, job.webhookUrl, job.baseUrl, job.charged];
    const insertJob = `insert into jobs (id, kind, owner_hash, account_id, credential_id, status, progress, stage, input, result, results, webhook_url, base_url, charged, started_at, finished_at)
         values ($1, $2, $3, $4, $5, 'completed', 100, 'completed', $6, $7, $8, $9, $10, $11, now(), now()) returning *`;
    if (!delivery) return toJob((await this.pool.query<JobRow>(insertJob, values)).rows[0]);
    const r = await this.pool.query<JobRow>(
      `with j as (${insertJob}),
         d as (insert into webhook_deliveries (id, job_id, event, url, body, signature, timestamp)
               select $12::uuid, j.id, $13::text, $14::text, $15::text, $16::text, $17::text from j returning id),
         q as (select graphile_worker.add_job($18::text, json_build_object('deliveryId', d.id::text), max_attempts => $19::int) from d)
       select j.* from j cross join q`,
      [...values, delivery.id, delivery.event, delivery.url, delivery.body, delivery.signature, delivery.timestamp, WEBHOOK_TASK, this.webhookAttempts],
    );
    return toJob(r.rows[0]);
  }

  async get(id: string) {
    const r = await this.pool.query<JobRow>('select * from jobs where id = $1', [id]);
    return r.rows[0] ? toJob(r.rows[0]) : null;
  }

  transition(id: string, to: JobStatus, from: readonly JobStatus[], patch: JobPatch, delivery?: WebhookDelivery | null): Promise<JobRecord | null> {
    return withTransaction(this.pool, async (c) => {
      const terminal = to === 'completed' || to === 'failed' || to === 'cancelled';
      const r = await c.query<JobRow>(
        `update jobs set
           status = $2,
           progress = case when $3::boolean then greatest(coalesce(progress, 0), $4::integer) else progress end,
           stage = case when $5::boolean then $6 else stage end,
           result = case when $7::boolean then $8::jsonb else result end,
           results = case when $9::boolean then $10::jsonb else results end,
           error = case when $11::boolean then $12 else error end,
           error_code = case when $13::boolean then $14 else error_code end,
           started_at = case when started_at is null and $2 <> 'queued' then now() else started_at end,
           finished_at = case when $15::boolean then now() else finished_at end,
           updated_at = now()
         where id = $1 and status = any($16::text[])
         returning *`,
        [
          id,
          to,
          patch.progress !== undefined && patch.progress !== null,
          patch.progress ?? 0,
          patch.stage !== undefined,
          patch.stage ?? null,
          patch.result !== undefined,
          patch.result === undefined ? null : JSON.stringify(patch.result),
          patch.results !== undefined,
          patch.results === undefined ? null : JSON.stringify(patch.results),
          patch.error !== undefined,
          patch.error ?? null,
          patch.errorCode !== undefined,
          patch.errorCode ?? null,
          terminal,
          from,
        ],
      );
      const row = r.rows[0];
      // This process's own readers see its writes at once; others wait for the notification.
      this.generation++;
      this.readCache.delete(id);
      if (!row) return null;
      if (delivery) await enqueueDelivery(c, delivery, this.webhookAttempts);
      return toJob(row);
    });
  }

  async mergeDiagnostics(id: string, patch: Record<string, unknown>) {
    await this.pool.query('update jobs set diagnostics = diagnostics || $2::jsonb, updated_at = now() where id = $1', [id, JSON.stringify(patch)]);
  }

  async startTrace(id: string, e: Omit<TraceEntry, 'endedAt' | 'outcome' | 'durationMs'>) {
    const r = await this.pool.query<{ seq: number }>(
      `insert into job_trace (job_id, seq, stage, status, attempt, started_at)
       values ($1, (select coalesce(max(seq), 0) + 1 from job_trace where job_id = $1), $2, $3, $4, $5) returning seq`,
      [id, e.stage, e.status, e.attempt, e.startedAt],
    );
    return r.rows[0].seq;
  }

  async endTrace(id: string, seq: number, outcome: TraceEntry['outcome'], detail?: Record<string, unknown>) {
    await this.pool.query('update job_trace set ended_at = now(), outcome = $3, detail = $4 where job_id = $1 and seq = $2', [id, seq, outcome, detail && Object.keys(detail).length ? JSON.stringify(detail) : null]);
  }

  async trace(id: string): Promise<TraceEntry[]> {
    const r = await this.pool.query<{ seq: number; stage: string; status: JobStatus; attempt: number; started_at: Date; ended_at: Date | null; outcome: TraceEntry['outcome']; detail: Record<string, unknown> | null }>(
      'select * from job_trace where job_id = $1 order by seq',
      [id],
    );
    return r.rows.map((t) => ({
      seq: t.seq,
      stage: t.stage,
      status: t.status,
      attempt: t.attempt,
      startedAt: t.started_at.toISOString(),
      endedAt: t.ended_at?.toISOString() ?? null,
      durationMs: t.ended_at ? t.ended_at.getTime() - t.started_at.getTime() : null,
      outcome: t.outcome,
      ...(t.detail ? { detail: t.detail } : {}),
    }));
  }

  async interruptOpenTrace(id: string) {
    await this.pool.query(`update job_trace set ended_at = now(), outcome = 'interrupted' where job_id = $1 and outcome = 'running'`, [id]);
  }

  async signalCancel(id: string) {
    await this.pool.query('select pg_notify($1, $2)', [CANCEL_CHANNEL, id]);
  }

  async onCancel(listener: (jobId: string) => void) {
    const client = await this.pool.connect();
    const handler = (msg: pg.Notification) => {
      if (msg.channel === CANCEL_CHANNEL && msg.payload) listener(msg.payload);
    };
    client.on('notification', handler);
    await client.query(`listen ${CANCEL_CHANNEL}`);
    return async () => {
      client.off('notification', handler);
      await client.query(`unlisten ${CANCEL_CHANNEL}`).catch(() => undefined);
      client.release();
    };
  }

  async markUncharged(id: string) {
    const r = await this.pool.query('update jobs set charged = false where id = $1 and charged returning credential_id', [id]);
    if (!r.rowCount) return false;
    // Refund the key usage counted at submission: failed or cancelled jobs are not charged.
    await this.pool.query('update api_keys set usage_count = greatest(usage_count - 1, 0) where id::text = $1', [r.rows[0].credential_id]);
    return true;
  }
}
