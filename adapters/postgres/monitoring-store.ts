import type { Pool } from './db.ts';
import type { MonitoringSnapshot, MonitoringStore } from '../../core/ports/monitoring-store.ts';

const iso = (d: Date | string) => new Date(d).toISOString();

/** Aggregates for the monitoring routes, read from the kernel's tables and graphile-worker's jobs view. */
export class PostgresMonitoringStore implements MonitoringStore {
  private readonly pool: Pool;
  constructor(pool: Pool) {
    this.pool = pool;
  }

  async snapshot(since: Date): Promise<MonitoringSnapshot> {
    const q = <R extends Record<string, unknown>>(sql: string, args: unknown[] = [since]) => this.pool.query<R>(sql, args).then((r) => r.rows);
    const [queues, jobs, stages, failures, webhooks, refusals] = await Promise.all([
      // A job without a named queue is listed under its task (fitroom_job, fitroom_webhook, ...).
      q<{ queue: string; waiting: string; running: string; failed: string }>(
        `select coalesce(queue_name, task_identifier) as queue,
                count(*) filter (where locked_at is null and attempts < max_attempts) as waiting,
                count(*) filter (where locked_at is not null) as running,
                count(*) filter (where locked_at is null and attempts >= max_attempts) as failed
           from graphile_worker.jobs group by 1 order by 1`,
        [],
      ),
      q<{ hour: Date; kind: string; status: string; count: string }>(
        `select date_trunc('hour', created_at) as hour, kind, status, count(*) as count from jobs
          where created_at >= $1 group by 1, 2, 3 order by 1, 2, 3`,
      ),
      q<{ stage: string; runs: string; p50: number; p95: number }>(
        `select stage, count(*) as runs,
                percentile_cont(0.5) within group (order by extract(epoch from ended_at - started_at) * 1000) as p50,
                percentile_cont(0.95) within group (order by extract(epoch from ended_at - started_at) * 1000) as p95
           from job_trace where started_at >= $1 and ended_at is not null group by stage order by stage`,
      ),
      q<{ kind: string; reason: string; count: string }>(
        `select kind, coalesce(error_code, 'UNKNOWN') as reason, count(*) as count from jobs
          where status = 'failed' and finished_at >= $1 group by 1, 2 order by 3 desc, 1, 2`,
      ),
      // attempts actually sent: entries recorded while the receiver's breaker paused it are not
      q<{ delivered: string; failed: string; pending: string; attempts: string }>(
        `select count(*) filter (where state = 'delivered') as delivered, count(*) filter (where state = 'failed') as failed,
                count(*) filter (where state = 'pending') as pending, coalesce(sum((select count(*) from jsonb_array_elements(attempts) a where not coalesce((a ->> 'paused')::boolean, false))), 0) as attempts
           from webhook_deliveries where created_at >= $1`,
      ),
      q<{ hour: Date; category: string; count: string }>(
        `select date_trunc('hour', minute) as hour, category, sum(count) as count from monitoring_rate_refusals
          where minute >= date_trunc('minute', $1::timestamptz) group by 1, 2 order by 1, 2`,
      ),
    ]);
    const w = webhooks[0];
    return {
      queues: queues.map((r) => ({ queue: r.queue, waiting: Number(r.waiting), running: Number(r.running), failed: Number(r.failed) })),
      jobs: jobs.map((r) => ({ hour: iso(r.hour), kind: r.kind, status: r.status, count: Number(r.count) })),
      stages: stages.map((r) => ({ stage: r.stage, runs: Number(r.runs), p50Ms: Math.round(Number(r.p50)), p95Ms: Math.round(Number(r.p95)) })),
      failures: failures.map((r) => ({ kind: r.kind, reason: r.reason, count: Number(r.count) })),
      webhooks: { delivered: Number(w.delivered), failed: Number(w.failed), pending: Number(w.pending), attempts: Number(w.attempts) },
      refusals: refusals.map((r) => ({ hour: iso(r.hour), category: r.category, count: Number(r.count) })),
    };
  }

  async recordRefusals(items: { category: string; minute: Date; count: number }[]): Promise<void> {
    if (!items.length) return;
    await this.pool.query(
      `insert into monitoring_rate_refusals (category, minute, count)
       select * from unnest($1::text[], $2::timestamptz[], $3::int[])
       on conflict (category, minute) do update set count = monitoring_rate_refusals.count + excluded.count`,
      [items.map((i) => i.category), items.map((i) => i.minute), items.map((i) => i.count)],
    );
  }

  async purgeRefusals(before: Date): Promise<number> {
    const r = await this.pool.query('delete from monitoring_rate_refusals where minute < $1', [before]);
    return r.rowCount ?? 0;
  }
}
