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
/** Each round runs (a) and (b) for this long, one after the other; the order alternates. */
const SECONDS = 2;
const ROUNDS = 7;
/** Each server's warm-up (JIT, caches) before the first round; not counted. */
const WARMUP_SECONDS = 2;
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
type Measured = { value: LoadResult; nodeSeconds: number; postgresSeconds: number };

async function main() {
  console.log(`Fitroom API benchmark (Node ${process.version}, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s per case after a ${WARMUP_SECONDS} s warm-up each)`);
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

    // (a) and (b): same client, connections and round length, in interleaved rounds (a b, b a, a b, ...)
    // so that a change in the machine's load falls on both; CPU of this process and of PostgreSQL meanwhile.
    const cases = [
      { name: '(a) bare Koa hello-world JSON', url: bare.url, headers: {} as Record<string, string>, runs: [] as Measured[] },
      { name: '(b) GET /api/v1/jobs/{id}, API key', url: `${svc.api}/api/v1/jobs/${first.jobId}`, headers: { 'x-api-key': key }, runs: [] as Measured[] },
    ];
    for (const c of cases) await loadTest(c.url, { connections: CONNECTIONS, seconds: WARMUP_SECONDS, headers: c.headers }); // warm-up, not counted
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of round % 2 ? [...cases].reverse() : cases) {
        const run = () => withCpu(db, () => loadTest(c.url, { connections: CONNECTIONS, seconds: SECONDS, headers: c.headers }));
        if (!PROFILE || round > 0) {
          c.runs.push(await run());
          continue;
        }
        const { value, profile } = await profiled(run);
        printProfile(`${c.name.slice(0, 3)} under the CPU profiler (its first round; the figures below include it)`, profile, `api-bench-${c.name.slice(1, 2)}.cpuprofile`, value.value.requests);
        c.runs.push(value);
      }
    }
    const perRequest = (seconds: number, r: LoadResult) => (seconds * 1e6) / Math.max(1, r.requests);
    const median = (values: number[]) => percentile(values, 50);
    printTable(`HTTP throughput (autocannon in this process, keep-alive; median of ${ROUNDS} interleaved rounds of ${SECONDS} s)`, ['case', 'req/s', 'requests', 'p50 ms', 'p99 ms', 'non-2xx+errors', 'node µs/req', 'postgres µs/req'], cases.map((c) => [
      c.name,
      Math.round(median(c.runs.map((m) => m.value.requestsPerSecond))),
      c.runs.reduce((n, m) => n + m.value.requests, 0),
      median(c.runs.map((m) => m.value.latencyP50)),
      median(c.runs.map((m) => m.value.latencyP99)),
      c.runs.reduce((n, m) => n + m.value.non2xx + m.value.errors, 0),
      Math.round(median(c.runs.map((m) => perRequest(m.nodeSeconds, m.value)))),
      Math.round(median(c.runs.map((m) => perRequest(m.postgresSeconds, m.value)))),
    ]));
    // each round's ratio compares two runs next to each other in time
    const ratios = cases[1].runs.map((m, i) => m.value.requestsPerSecond / cases[0].runs[i].value.requestsPerSecond);
    console.log(`ratio (b)/(a) by round: ${ratios.map((r) => r.toFixed(2)).join(', ')}`);
    console.log(`ratio (b)/(a): ${median(ratios).toFixed(2)} (median of the rounds; target >= 0.8)`);
    // the same comparison in CPU time per request (this process: server and client), steadier under load
    const cpuRatios = cases[1].runs.map((m, i) => perRequest(cases[0].runs[i].nodeSeconds, cases[0].runs[i].value) / perRequest(m.nodeSeconds, m.value));
    console.log(`node CPU per request, (a)/(b): ${median(cpuRatios).toFixed(2)} (median of the rounds)`);
    if (cases[1].runs.some((m) => m.value.non2xx + m.value.errors > 0)) console.log('warning: (b) had non-2xx answers or errors; its figure does not measure the successful path');

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
