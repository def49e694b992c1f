/**
 * Batch priority: how long a single shoe-3d waits for a worker slot (job start minus submission)
 * while a 100-item digitization batch runs, as a ratio to the same wait on an idle system, measured
 * in the same run. With FIFO order it would wait for every item queued before it; the figure for
 * that is estimated from the measured item duration. Run with the default (priority only) and with
 * BATCH_LANES=1 (batch items capped to one slot). Prints figures; asserts nothing.
 */
import { percentile, printTable, startBenchDatabase, startBenchService } from './lib.ts';
import { shoePhotos } from '../plugins/shoe3d/helpers.ts';

const ITEMS = Number(process.env.BENCH_BATCH_ITEMS ?? 100);
const SAMPLES = 5;
const CONCURRENCY = 2;

const photos = await shoePhotos([0, 90], 240);
const db = await startBenchDatabase();

async function measure(lanes: number) {
  const svc = await startBenchService({ databaseUrl: db.url, rateMultiplier: 1000, env: { BATCH_LANES: String(lanes) } });
  await svc.fitroom.startWorker({ concurrency: CONCURRENCY, pollInterval: 1000 });
  const key = await svc.createKey();
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${svc.api}${p}`, { method, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
    return (await res.json()) as Record<string, any>;
  };
  const times = async (jobId: string) => (await svc.fitroom.pool.query<{ created_at: Date; started_at: Date | null; finished_at: Date | null }>('select created_at, started_at, finished_at from jobs where id = $1', [jobId])).rows[0];
  /** Submits a single shoe-3d, waits for it to finish, returns its wait for a slot in ms. */
  const singleWait = async (): Promise<number> => {
    const sub = await call('POST', '/api/v1/shoe-3d', { images: photos });
    for (;;) {
      const t = await times(sub.jobId);
      if (t.finished_at) return t.started_at!.getTime() - t.created_at.getTime();
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const idle: number[] = [];
  for (let i = 0; i < SAMPLES; i++) idle.push(await singleWait());
  const batch = await call('POST', '/api/v1/digitization/batches', { items: Array.from({ length: ITEMS }, () => ({ images: photos })) });
  // let the batch take the slots it may take first
  for (;;) {
    const b = await call('GET', `/api/v1/digitization/batches/${batch.batchId}`);
    if (b.counts.processing + b.counts.validating + b.counts.uploading + b.counts.completed >= Math.min(CONCURRENCY, lanes || CONCURRENCY)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const t0 = Date.now();
  const busy: number[] = [];
  for (let i = 0; i < SAMPLES; i++) busy.push(await singleWait());
  const elapsed = Date.now() - t0;
  const during = await call('GET', `/api/v1/digitization/batches/${batch.batchId}`);
  const done = await svc.fitroom.pool.query<{ ms: number }>(`select extract(epoch from finished_at - started_at) * 1000 as ms from jobs where batch_id = $1 and status = 'completed'`, [batch.batchId]);
  await call('DELETE', `/api/v1/digitization/batches/${batch.batchId}`);
  await svc.close();
  return { idle, busy, queuedAhead: during.counts.queued, itemsDone: done.rows.length, itemsPerMinute: (done.rows.length / (elapsed / 60_000)), itemMs: percentile(done.rows.map((r) => Number(r.ms)), 50) };
}

const rows: (string | number)[][] = [];
for (const lanes of [0, 1]) {
  const m = await measure(lanes);
  const idleP50 = Math.max(percentile(m.idle, 50), 1);
  const label = lanes ? `batch running, BATCH_LANES=${lanes}` : 'batch running, priority only (default)';
  if (!lanes) rows.push(['idle', Math.round(idleP50), Math.round(Math.max(...m.idle)), '1.0', '']);
  const busy = percentile(m.busy, 50);
  rows.push([label, Math.round(busy), Math.round(Math.max(...m.busy)), (busy / idleP50).toFixed(1), m.itemsPerMinute.toFixed(1)]);
  if (!lanes) {
    const fifo = (m.queuedAhead * m.itemMs) / CONCURRENCY;
    rows.push([`FIFO estimate (${m.queuedAhead} items ahead x ${Math.round(m.itemMs)} ms / ${CONCURRENCY})`, Math.round(fifo), '', (fifo / idleP50).toFixed(0), '']);
  }
}
printTable(`Single shoe-3d wait for a worker slot (${CONCURRENCY} slots, ${ITEMS}-item batch, ${SAMPLES} samples each)`, ['system', 'p50 wait ms', 'max wait ms', 'ratio to idle', 'batch items/min meanwhile'], rows);
console.log('Priority only: a single job waits for one running item to finish, never for the queued ones. BATCH_LANES keeps slots free for it, at the cost of batch throughput.');
await db.stop();
