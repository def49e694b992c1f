/**
 * Virtual fitting with the builtin engine: end-to-end time of a fresh fitting at standard quality
 * (submission to completed job, the client polling every 25 ms) and the response time of a
 * submission answered from the result cache.
 *
 *   npm exec -- node test/bench/tryon.bench.ts
 *
 * One process: a throwaway embedded PostgreSQL, the standalone service with its worker, a
 * measurements twin made through the twins API. Nothing here asserts a time.
 */
import { drawBottom, drawTop } from '../support/garments.ts';
import { pngDataUrl, syntheticFace } from '../support/images.ts';
import { percentile, printTable, startBenchDatabase, startBenchService } from './lib.ts';

const FRESH_RUNS = 7;
const HIT_RUNS = 40;

async function call(api: string, key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${api}${path}`, { method, headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  return { status: res.status, body: (await res.json()) as any };
}

async function completed(api: string, key: string, jobId: string) {
  for (;;) {
    const r = await call(api, key, 'GET', `/api/v1/jobs/${jobId}`);
    if (r.body.status === 'completed') return r.body;
    if (r.body.status === 'failed') throw new Error(`job failed: ${r.body.error}`);
    await new Promise((res) => setTimeout(res, 25));
  }
}

async function main() {
  console.log(`Fitroom try-on benchmark (Node ${process.version}); builtin engine, standard quality (1024 px)`);
  const db = await startBenchDatabase();
  const svc = await startBenchService({ databaseUrl: db.url, rateMultiplier: 100_000 });
  try {
    await svc.fitroom.startWorker({ pollInterval: 2000 });
    const key = await svc.createKey('development');
    const [face, top, bottom] = await Promise.all([pngDataUrl(syntheticFace(256, 320).image), pngDataUrl(drawTop()), pngDataUrl(drawBottom())]);
    const twin = await call(svc.api, key, 'POST', '/api/v1/digital-twin', { faceImage: face, bodyMeasurements: { height: 178, chest: 100, waist: 86 }, gender: 'male', poseId: 'man_pose' });
    const twinId = twin.body.digitalTwinId ?? (await completed(svc.api, key, twin.body.jobId)).result.digitalTwinId;
    const body = { digitalTwinId: twinId, topGarment: top, bottomGarment: bottom };

    // (a) fresh fittings: the cache is skipped so every run renders (one warm-up run first)
    const fresh: number[] = [];
    for (let i = 0; i <= FRESH_RUNS; i++) {
      const t0 = performance.now();
      const r = await call(svc.api, key, 'POST', '/api/v1/virtual-fitting', { ...body, options: { skipResultCache: true } });
      if (r.status !== 202) throw new Error(`unexpected ${r.status}: ${JSON.stringify(r.body)}`);
      await completed(svc.api, key, r.body.jobId);
      if (i > 0) fresh.push(performance.now() - t0);
    }

    // (b) cache hits: fill the cache once, then identical submissions answer completed at once
    const fill = await call(svc.api, key, 'POST', '/api/v1/virtual-fitting', body);
    if (fill.status === 202) await completed(svc.api, key, fill.body.jobId);
    const hits: number[] = [];
    for (let i = 0; i < HIT_RUNS + 3; i++) {
      const t0 = performance.now();
      const r = await call(svc.api, key, 'POST', '/api/v1/virtual-fitting', body);
      if (r.status !== 200 || r.body.status !== 'completed') throw new Error(`expected a cache hit, got ${r.status}`);
      if (i >= 3) hits.push(performance.now() - t0);
    }

    const f = (v: number) => v.toFixed(1);
    printTable('POST /api/v1/virtual-fitting, twin + top + bottom garment (data URLs, about 0.2 MB each)', ['case', 'runs', 'p50 ms', 'p90 ms', 'max ms'], [
      ['(a) builtin fitting, submission to completed', fresh.length, f(percentile(fresh, 50)), f(percentile(fresh, 90)), f(Math.max(...fresh))],
      ['(b) cache hit, response time', hits.length, f(percentile(hits, 50)), f(percentile(hits, 90)), f(Math.max(...hits))],
    ]);
    console.log('(b) includes fetching and hashing the request images, the cache lookup and the completed job with its webhook row.');
  } finally {
    await svc.close();
    await db.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
