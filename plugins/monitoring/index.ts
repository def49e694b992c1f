import { definePlugin, type OperationContext } from '../../core/plugin.ts';
import { TOKENS } from '../../core/tokens.ts';
import { validationError } from '../../core/errors.ts';
import { MONITORING_STORE } from '../../core/ports/monitoring-store.ts';
import { RefusalRecorder } from './refusals.ts';
import { SUMMARY_SCHEMA, summarize } from './summary.ts';
import { MONITORING_PAGE_HEADERS, renderMonitoringPage } from './page.ts';
import { METRICS_WINDOW_HOURS, MonitoringMetrics } from './metrics.ts';

/** The summary of a small day, built by the same code as the real answers (published as the OpenAPI example). */
const HOUR = '2026-11-24T19:00:00.000Z';
const EXAMPLE_SUMMARY = summarize(
  {
    queues: [{ queue: 'fitroom_job', waiting: 2, running: 1, failed: 0 }],
    jobs: [{ hour: HOUR, kind: 'tryon', status: 'completed', count: 40 }, { hour: HOUR, kind: 'shoe-3d', status: 'failed', count: 1 }],
    stages: [{ stage: 'generate', runs: 40, p50Ms: 1000, p95Ms: 1800 }],
    failures: [{ kind: 'shoe-3d', reason: 'IMAGE_INVALID', count: 1 }],
    webhooks: { delivered: 12, failed: 0, pending: 1, attempts: 13 },
    refusals: [{ hour: HOUR, category: 'submission', count: 3 }],
  },
  new Date('2026-11-23T19:30:00.000Z'),
  24,
  new Date('2026-11-24T19:30:00.000Z'),
);

const MAX_HOURS = 168;
const HOURS_QUERY = { hours: { schema: { type: 'string', pattern: '^[0-9]{1,3}$' }, description: `Hours to cover, 1 to ${MAX_HOURS} (default 24)` } };
const ACCESS = 'Answers only clients whose address is in `MONITORING_ALLOWED_IPS` (CIDRs; unset = nobody, 403 `FORBIDDEN`); no `X-API-Key`. Behind a reverse proxy set `TRUST_PROXY` so the address comes from `X-Forwarded-For`.';
const FORBIDDEN = { description: 'The client address is not in MONITORING_ALLOWED_IPS', schema: 'ErrorEnvelope' };

function windowOf(ctx: OperationContext): { hours: number; since: Date } {
  const hours = ctx.query.hours === undefined ? 24 : Number(ctx.query.hours);
  if (!Number.isInteger(hours) || hours < 1 || hours > MAX_HOURS) throw validationError([{ field: 'hours', message: `must be an integer from 1 to ${MAX_HOURS}` }]);
  return { hours, since: new Date(Date.now() - hours * 3_600_000) };
}

/**
 * Operator monitoring (issue 12.4): a page with charts, the same as JSON, and a Prometheus
 * exposition, all behind the IP allowlist. Rate-limit refusals are counted by wrapping the bound
 * rate limiter.
 */
export const monitoringPlugin = definePlugin({
  name: 'monitoring',
  setup(api) {
    const store = api.get(MONITORING_STORE);
    const metrics = new MonitoringMetrics();
    const recorder = new RefusalRecorder(store);
    recorder.onRefusal = (category) => metrics.refusals.inc({ category });
    api.provide(TOKENS.rateLimiter, recorder.wrap(api.get(TOKENS.rateLimiter)));
    api.onClose(() => recorder.flush());
    api.cron({ task: 'fitroom_purge_monitoring', pattern: '17 * * * *', run: async () => void (await store.purgeRefusals(new Date(Date.now() - (MAX_HOURS + 24) * 3_600_000))) });

    const snapshotSince = async (since: Date) => {
      await recorder.flush();
      return store.snapshot(since);
    };
    api.schema('MonitoringSummary', SUMMARY_SCHEMA);

    api.operation({
      id: 'monitoringPage',
      method: 'GET',
      path: '/monitoring',
      summary: 'Monitoring dashboard',
      description: `Charts of queue depth per queue, jobs per status and kind per hour, p50/p95 duration per stage, failure reasons, webhook delivery success and rate-limit refusals. A page without scripts that reloads every minute. ${ACCESS}`,
      tags: ['Monitoring'],
      auth: ['ipAllowlist'],
      query: HOURS_QUERY,
      responses: { 200: { description: 'HTML page', contentType: 'text/html' }, 400: { description: 'Invalid hours', schema: 'ErrorEnvelope' }, 403: FORBIDDEN },
      async handler(ctx) {
        const w = windowOf(ctx);
        const summary = summarize(await snapshotSince(w.since), w.since, w.hours);
        return { text: { contentType: 'text/html; charset=utf-8', body: renderMonitoringPage(summary) }, headers: MONITORING_PAGE_HEADERS };
      },
    });

    api.operation({
      id: 'monitoringSummary',
      method: 'GET',
      path: '/monitoring/summary',
      summary: 'Monitoring figures as JSON',
      description: `What the dashboard draws. ${ACCESS}`,
      tags: ['Monitoring'],
      auth: ['ipAllowlist'],
      query: HOURS_QUERY,
      responses: { 200: { description: 'The figures', schema: 'MonitoringSummary', example: EXAMPLE_SUMMARY }, 400: { description: 'Invalid hours', schema: 'ErrorEnvelope' }, 403: FORBIDDEN },
      async handler(ctx) {
        const w = windowOf(ctx);
        return { body: summarize(await snapshotSince(w.since), w.since, w.hours), headers: { 'Cache-Control': 'no-store' } };
      },
    });

    api.operation({
      id: 'monitoringMetrics',
      method: 'GET',
      path: '/monitoring/metrics',
      summary: 'Prometheus metrics',
      description: `The Prometheus text format (prom-client) for Prometheus and Grafana: \`fitroom_queue_jobs{queue,state}\`, \`fitroom_jobs_24h{kind,status}\`, \`fitroom_stage_duration_seconds_24h{stage,quantile}\`, \`fitroom_stage_runs_24h{stage}\`, \`fitroom_job_failures_24h{kind,reason}\`, \`fitroom_webhook_deliveries_24h{state}\`, \`fitroom_rate_limit_refusals_24h{category}\` (all processes, from the database), \`fitroom_rate_limit_refusals_total{category}\` (this process) and the Node process metrics (\`fitroom_process_*\`, \`fitroom_nodejs_*\`). ${ACCESS}`,
      tags: ['Monitoring'],
      auth: ['ipAllowlist'],
      responses: { 200: { description: 'Prometheus text exposition format 0.0.4', contentType: 'text/plain', example: '# HELP fitroom_jobs_24h Jobs submitted in the last 24 hours, by kind and current status\n# TYPE fitroom_jobs_24h gauge\nfitroom_jobs_24h{kind="virtual-fitting",status="completed"} 12\n' }, 403: FORBIDDEN },
      async handler() {
        const out = await metrics.render(() => snapshotSince(new Date(Date.now() - METRICS_WINDOW_HOURS * 3_600_000)));
        return { text: { contentType: out.contentType, body: out.body }, headers: { 'Cache-Control': 'no-store' } };
      },
    });
  },
});
