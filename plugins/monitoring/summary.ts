import type { JobCount, MonitoringSnapshot, QueueDepth, StageDuration, FailureCount } from '../../core/ports/monitoring-store.ts';

export interface MonitoringSummary {
  generatedAt: string;
  windowHours: number;
  since: string;
  queues: QueueDepth[];
  jobs: { total: number; byStatus: Record<string, number>; byKind: { kind: string; status: string; count: number }[]; hourly: JobCount[] };
  stages: StageDuration[];
  failures: FailureCount[];
  webhooks: { delivered: number; failed: number; pending: number; attempts: number; successRate: number | null };
  rateLimitRefusals: { total: number; byCategory: { category: string; count: number }[]; hourly: { hour: string; category: string; count: number }[] };
}

function sumBy<T>(rows: T[], key: (r: T) => string, value: (r: T) => number): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of rows) m.set(key(r), (m.get(key(r)) ?? 0) + value(r));
  return m;
}

/** The JSON the summary route answers and the page draws. */
export function summarize(s: MonitoringSnapshot, since: Date, windowHours: number, now = new Date()): MonitoringSummary {
  const byKind = [...sumBy(s.jobs, (j) => `${j.kind}\u0000${j.status}`, (j) => j.count)].map(([k, count]) => {
    const [kind, status] = k.split('\u0000');
    return { kind, status, count };
  });
  const settled = s.webhooks.delivered + s.webhooks.failed;
  return {
    generatedAt: now.toISOString(),
    windowHours,
    since: since.toISOString(),
    queues: s.queues,
    jobs: { total: s.jobs.reduce((a, j) => a + j.count, 0), byStatus: Object.fromEntries(sumBy(s.jobs, (j) => j.status, (j) => j.count)), byKind, hourly: s.jobs },
    stages: s.stages,
    failures: s.failures,
    webhooks: { ...s.webhooks, successRate: settled ? Math.round((s.webhooks.delivered / settled) * 1000) / 1000 : null },
    rateLimitRefusals: {
      total: s.refusals.reduce((a, r) => a + r.count, 0),
      byCategory: [...sumBy(s.refusals, (r) => r.category, (r) => r.count)].map(([category, count]) => ({ category, count })),
      hourly: s.refusals,
    },
  };
}

export const SUMMARY_SCHEMA = {
  type: 'object',
  required: ['generatedAt', 'windowHours', 'since', 'queues', 'jobs', 'stages', 'failures', 'webhooks', 'rateLimitRefusals'],
  properties: {
    generatedAt: { type: 'string', format: 'date-time' },
    windowHours: { type: 'integer', description: 'Hours covered by the counts (query `hours`)' },
    since: { type: 'string', format: 'date-time' },
    queues: {
      type: 'array',
      description: 'The job queue right now, per named queue (or per task for entries without one)',
      items: { type: 'object', required: ['queue', 'waiting', 'running', 'failed'], properties: { queue: { type: 'string' }, waiting: { type: 'integer' }, running: { type: 'integer' }, failed: { type: 'integer', description: 'Entries that used up their attempts' } } },
    },
    jobs: {
      type: 'object',
      description: 'Jobs submitted in the window, by their current status',
      required: ['total', 'byStatus', 'byKind', 'hourly'],
      properties: {
        total: { type: 'integer' },
        byStatus: { type: 'object', additionalProperties: { type: 'integer' } },
        byKind: { type: 'array', items: { type: 'object', properties: { kind: { type: 'string' }, status: { type: 'string' }, count: { type: 'integer' } } } },
        hourly: { type: 'array', items: { type: 'object', properties: { hour: { type: 'string', format: 'date-time' }, kind: { type: 'string' }, status: { type: 'string' }, count: { type: 'integer' } } } },
      },
    },
    stages: {
      type: 'array',
      description: 'Duration of the job stages that ended in the window',
      items: { type: 'object', properties: { stage: { type: 'string' }, runs: { type: 'integer' }, p50Ms: { type: 'integer' }, p95Ms: { type: 'integer' } } },
    },
    failures: { type: 'array', description: 'Jobs that failed in the window, per kind and error code', items: { type: 'object', properties: { kind: { type: 'string' }, reason: { type: 'string' }, count: { type: 'integer' } } } },
    webhooks: {
      type: 'object',
      description: 'Webhook deliveries created in the window; successRate = delivered / (delivered + failed), null when none settled',
      properties: { delivered: { type: 'integer' }, failed: { type: 'integer' }, pending: { type: 'integer' }, attempts: { type: 'integer' }, successRate: { type: ['number', 'null'] } },
    },
    rateLimitRefusals: {
      type: 'object',
      description: 'Requests refused with 429 RATE_LIMITED, per rate-limit category',
      properties: {
        total: { type: 'integer' },
        byCategory: { type: 'array', items: { type: 'object', properties: { category: { type: 'string' }, count: { type: 'integer' } } } },
        hourly: { type: 'array', items: { type: 'object', properties: { hour: { type: 'string', format: 'date-time' }, category: { type: 'string' }, count: { type: 'integer' } } } },
      },
    },
  },
};
