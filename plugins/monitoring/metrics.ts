import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { MonitoringSnapshot } from '../../core/ports/monitoring-store.ts';

/** Hours the `_24h` gauges cover. */
export const METRICS_WINDOW_HOURS = 24;

/**
 * The Prometheus exposition (prom-client): gauges set from the shared database aggregates at each
 * scrape (identical whichever process answers), this process's refusal counter and Node's own
 * process metrics. Its own registry, so two services in one process never share metrics.
 */
export class MonitoringMetrics {
  readonly registry = new Registry();
  readonly #queue = new Gauge({ name: 'fitroom_queue_jobs', help: 'Entries in the job queue now, per queue and state (waiting, running, failed = attempts used up)', labelNames: ['queue', 'state'], registers: [this.registry] });
  readonly #jobs = new Gauge({ name: 'fitroom_jobs_24h', help: 'Jobs submitted in the last 24 hours, by kind and current status', labelNames: ['kind', 'status'], registers: [this.registry] });
  readonly #stage = new Gauge({ name: 'fitroom_stage_duration_seconds_24h', help: 'Duration of job stages that ended in the last 24 hours, p50 and p95', labelNames: ['stage', 'quantile'], registers: [this.registry] });
  readonly #stageRuns = new Gauge({ name: 'fitroom_stage_runs_24h', help: 'Job stage runs that ended in the last 24 hours', labelNames: ['stage'], registers: [this.registry] });
  readonly #failures = new Gauge({ name: 'fitroom_job_failures_24h', help: 'Jobs failed in the last 24 hours, by kind and error code', labelNames: ['kind', 'reason'], registers: [this.registry] });
  readonly #webhooks = new Gauge({ name: 'fitroom_webhook_deliveries_24h', help: 'Webhook deliveries created in the last 24 hours, by state', labelNames: ['state'], registers: [this.registry] });
  readonly #refusals24 = new Gauge({ name: 'fitroom_rate_limit_refusals_24h', help: 'Requests refused with 429 in the last 24 hours (all processes), by category', labelNames: ['category'], registers: [this.registry] });
  readonly refusals = new Counter({ name: 'fitroom_rate_limit_refusals_total', help: 'Requests this process refused with 429, by rate-limit category', labelNames: ['category'], registers: [this.registry] });
  #chain: Promise<unknown> = Promise.resolve();

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'fitroom_' });
  }

  /** The text exposition with the gauges set from `snapshot`; scrapes are answered one at a time. */
  render(snapshot: () => Promise<MonitoringSnapshot>): Promise<{ contentType: string; body: string }> {
    const run = this.#chain.then(async () => {
      this.#set(await snapshot());
      return { contentType: this.registry.contentType, body: await this.registry.metrics() };
    });
    this.#chain = run.catch(() => undefined);
    return run;
  }

  #set(s: MonitoringSnapshot) {
    for (const g of [this.#queue, this.#jobs, this.#stage, this.#stageRuns, this.#failures, this.#webhooks, this.#refusals24]) g.reset();
    for (const q of s.queues) {
      this.#queue.set({ queue: q.queue, state: 'waiting' }, q.waiting);
      this.#queue.set({ queue: q.queue, state: 'running' }, q.running);
      this.#queue.set({ queue: q.queue, state: 'failed' }, q.failed);
    }
    for (const j of s.jobs) this.#jobs.inc({ kind: j.kind, status: j.status }, j.count);
    for (const st of s.stages) {
      this.#stage.set({ stage: st.stage, quantile: '0.5' }, st.p50Ms / 1000);
      this.#stage.set({ stage: st.stage, quantile: '0.95' }, st.p95Ms / 1000);
      this.#stageRuns.set({ stage: st.stage }, st.runs);
    }
    for (const f of s.failures) this.#failures.set({ kind: f.kind, reason: f.reason }, f.count);
    this.#webhooks.set({ state: 'delivered' }, s.webhooks.delivered);
    this.#webhooks.set({ state: 'failed' }, s.webhooks.failed);
    this.#webhooks.set({ state: 'pending' }, s.webhooks.pending);
    for (const r of s.refusals) this.#refusals24.inc({ category: r.category }, r.count);
  }
}
