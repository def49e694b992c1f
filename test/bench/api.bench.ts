/**
 * API throughput and job pickup latency of the standalone service.
 *
 *   npm run bench
 *
 * One process: an embedded PostgreSQL in a temp dir, a bare Koa hello-world server, the real service
 * (all kernel operations plus a small bench plugin) with its worker, and autocannon as the client.
 * See test/bench/README.md for what each figure means. Nothing here asserts a time.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { definePlugin } from '../../core/plugin.ts';
import { TOKENS } from '../../core/tokens.ts';
import type { JobKind } from '../../core/jobs.ts';
import type { Pool } from '../../adapters/postgres/db.ts';
import { loadTest, percentile, printProfile, printTable, profiled, startBenchDatabase, startBenchService, withCpu, type LoadResult } from './lib.ts';

const CONNECTIONS = 10;
const SECONDS = 5;
const WARMUP_SECONDS = 1;
/** `--profile`: (a) and (b) run under the inspector's CPU profiler; their top functions are printed. */
const PROFILE = process.argv.includes('--profile');
const PICKUP_JOBS = 50;
const PICKUP_WARMUP_JOBS = 5;
/** The worker's fallback poll; pickup itself rides on LISTEN/NOTIFY (this is the production default). */
const POLL_INTERVAL_MS = 2000;

/** Handler start times (performance.now()) by job id, and waiters for them. */
const started = new Map<string, number>();
const waiters = new Map<string, (t: number) => void>();

function handlerStart(jobId: string): Promise<number> {
  const t = started.get(jobId);
  if (t !== undefined) return Promise.resolve(t);
  return new Promise((resolve) => waiters.set(jobId, resolve));
}

/** A job kind whose handler notes when it starts and then finishes at once. */
const benchPlugin = definePlugin({
  name: 'bench',
  setup(api) {
    const jobs = api.get(TOKENS.jobs);
    api.schema('BenchJobRequest', { type: 'object', additionalProperties: false, properties: { n: { type: 'integer' } } });
    const kind: JobKind<{ n?: number }> = {
      name: 'bench-start',
      progress: 'stage',
      stages: [{ name: 'noop', status: 'processing' }],
      estimatedSeconds: 1,
      async run(job) {
        const t = performance.now();
        started.set(job.id, t);
        waiters.get(job.id)?.(t);
        await job.stage('noop', async () => undefined);
        return { result: { n: job.input.n ?? 0 } };
      },
    };
    api.jobKind(kind);
    api.operation({
      id: 'submitBenchJob',
      method: 'POST',
      path: '/api/v1/bench-jobs',
      summary: 'Submit a no-op job (benchmark only)',
      tags: ['Bench'],
      auth: ['apiKey'],
      rateLimit: 'submission',
      body: 'BenchJobRequest',
      responses: { 202: { description: 'Queued', schema: 'JobSubmitted' } },
      async handler(ctx) {
        const job = await jobs.submit({ kind: 'bench-start', input: ctx.body ?? {}, caller: ctx.caller!, links: ctx.links });
        return { status: 202, body: { jobId: job.id, status: 'queued', statusUrl: `${ctx.baseUrl}/api/v1/jobs/${job.id}` } };
      },
    });
  },
});

async function startBareKoa(): Promise<{ url: string; close(): Promise<void> }> {
  const app = new Koa();
  app.use((ctx) => {
    ctx.body = { hello: 'world' };
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((r) => { server.close(() => r()); server.closeAllConnections(); }),
  };
}

async function submit(api: string, key: string, n: number): Promise<{ jobId: string; sentAt: number; answeredAt: number }> {
  const sentAt = performance.now();
  const res = await fetch(`${api}/api/v1/bench-jobs`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ n }) });
  const body = (await res.json()) as { jobId?: string };
  const answeredAt = performance.now();
  if (res.status !== 202 || !body.jobId) throw new Error(`submission failed: ${res.status} ${JSON.stringify(body)}`);
  return { jobId: body.jobId, sentAt, answeredAt };
}

async function waitFinished(pool: Pool) {
  for (let i = 0; i < 200; i++) {
    const r = await pool.query<{ n: number }>(`select count(*)::int as n from jobs where status not in ('completed', 'failed', 'cancelled')`);
    if (r.rows[0].n === 0) return;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error('bench jobs did not finish');
}

const ms = (v: number) => v.toFixed(2);

async function main() {
  console.log(`Fitroom API benchmark (Node ${process.version}, ${CONNECTIONS} connections, ${SECONDS} s after a ${WARMUP_SECONDS} s warm-up)`);
  const db = await startBenchDatabase();
  const svc = await startBenchService({ databaseUrl: db.url, plugins: [benchPlugin], rateMultiplier: 100_000 });
  const bare = await startBareKoa();
  try {
    await svc.fitroom.startWorker({ pollInterval: POLL_INTERVAL_MS });
    const key = await svc.createKey('development');

    // A completed job of this key: the read is the full ownership-checked path of a real poll.
    const first = await submit(svc.api, key, 0);
    await handlerStart(first.jobId);
    await waitFinished(svc.fitroom.pool);

    // (a) and (b): same client, connections and duration; CPU of this process and of PostgreSQL meanwhile.
    const measure = async (name: string, url: string, headers: Record<string, string> = {}) => {
      await loadTest(url, { connections: CONNECTIONS, seconds: WARMUP_SECONDS, headers }); // warm-up, not counted
      const run = () => withCpu(db, () => loadTest(url, { connections: CONNECTIONS, seconds: SECONDS, headers }));
      if (!PROFILE) return run();
      const { value, profile } = await profiled(run);
      printProfile(`${name} under the CPU profiler (the throughput figures below include it)`, profile, `api-bench-${name.slice(1, 2)}.cpuprofile`, value.value.requests);
      return value;
    };
    const bareRun = await measure('(a)', bare.url);
    const jobRun = await measure('(b)', `${svc.api}/api/v1/jobs/${first.jobId}`, { 'x-api-key': key });
    const perRequest = (seconds: number, r: LoadResult) => Math.round((seconds * 1e6) / Math.max(1, r.requests));
    const row = (name: string, m: { value: LoadResult; nodeSeconds: number; postgresSeconds: number }) => {
      const r = m.value;
      return [name, Math.round(r.requestsPerSecond), r.requests, r.latencyP50, r.latencyP99, r.non2xx + r.errors, perRequest(m.nodeSeconds, r), perRequest(m.postgresSeconds, r)];
    };
    printTable('HTTP throughput (autocannon in this process, keep-alive)', ['case', 'req/s', 'requests', 'p50 ms', 'p99 ms', 'non-2xx+errors', 'node µs/req', 'postgres µs/req'], [
      row('(a) bare Koa hello-world JSON', bareRun),
      row('(b) GET /api/v1/jobs/{id}, API key', jobRun),
    ]);
    const ratio = jobRun.value.requestsPerSecond / bareRun.value.requestsPerSecond;
    console.log(`ratio (b)/(a): ${ratio.toFixed(2)} (target >= 0.8)`);
    if (jobRun.value.non2xx + jobRun.value.errors > 0) console.log('warning: (b) had non-2xx answers or errors; its figure does not measure the successful path');

    // (c) pickup latency: one job at a time, so no job waits behind another.
    for (let i = 0; i < PICKUP_WARMUP_JOBS; i++) await handlerStart((await submit(svc.api, key, i)).jobId);
    const fromResponse: number[] = [];
    const fromRequest: number[] = [];
    for (let i = 0; i < PICKUP_JOBS; i++) {
      const s = await submit(svc.api, key, i);
      const t = await handlerStart(s.jobId);
      fromResponse.push(t - s.answeredAt);
      fromRequest.push(t - s.sentAt);
      await new Promise((r) => setTimeout(r, 20));
    }
    await waitFinished(svc.fitroom.pool);
    printTable(`Submission to handler start (${PICKUP_JOBS} jobs, one at a time, LISTEN/NOTIFY, pollInterval ${POLL_INTERVAL_MS} ms)`, ['measured from', 'p50 ms', 'p99 ms', 'max ms'], [
      ['(c) submission response received', ms(percentile(fromResponse, 50)), ms(percentile(fromResponse, 99)), ms(Math.max(...fromResponse))],
      ['    submission request sent', ms(percentile(fromRequest, 50)), ms(percentile(fromRequest, 99)), ms(Math.max(...fromRequest))],
    ]);
    console.log('target: (c) p50 <= 10 ms; negative values mean the handler started before the 202 reached the client');
  } finally {
    await bare.close();
    await svc.close();
    await db.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
