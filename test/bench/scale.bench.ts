/**
 * Throughput that grows with workers: shoe-3d jobs completed per minute with one and with two worker
 * processes (one job at a time each), on one PostgreSQL and one S3-protocol store, behind one API
 * process: the same jobs, measured in the same run, printed as a ratio. Prints figures; asserts nothing.
 */
import type { ChildProcess } from 'node:child_process';
import { startBenchDatabase, printTable } from './lib.ts';
import { startS3Server } from '../support/s3.ts';
import { FAULTS_ADMIN_KEY, startRoleProcess } from '../support/service-process.ts';
import { shoePhotos } from '../plugins/shoe3d/helpers.ts';

const JOBS = Number(process.env.BENCH_SCALE_JOBS ?? 8);
const running = new Set<ChildProcess>();
const db = await startBenchDatabase();
const s3 = await startS3Server('fitroom-bench');
const env = { ...s3.env, DATABASE_URL: db.url, ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8', WORKER_CONCURRENCY: '1', FITROOM_ENV: 'development' };
const api = await startRoleProcess('api', env, running);
const key = ((await (await fetch(`${api.api}/admin/v1/keys`, { method: 'POST', headers: { 'x-admin-key': FAULTS_ADMIN_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench', kind: 'development' }) })).json()) as { key: string }).key;
const photos = await shoePhotos([0, 90], 320);

async function perMinute(workers: number): Promise<{ perMinute: number; seconds: number }> {
  const started = await Promise.all(Array.from({ length: workers }, () => startRoleProcess('worker', env, running)));
  const t0 = Date.now();
  const ids: string[] = [];
  for (let i = 0; i < JOBS; i++) {
    const r = await fetch(`${api.api}/api/v1/shoe-3d`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ images: photos }) });
    ids.push(((await r.json()) as { jobId: string }).jobId);
  }
  for (const id of ids) {
    for (;;) {
      const j = (await (await fetch(`${api.api}/api/v1/jobs/${id}`, { headers: { 'x-api-key': key } })).json()) as { status: string };
      if (j.status === 'completed' || j.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const seconds = (Date.now() - t0) / 1000;
  for (const w of started) {
    w.proc.kill('SIGTERM');
    await w.exited;
  }
  return { perMinute: (JOBS * 60) / seconds, seconds };
}

const one = await perMinute(1);
const two = await perMinute(2);
printTable(`shoe-3d throughput, ${JOBS} jobs, one API process, one PostgreSQL, one S3 store`, ['worker processes', 'jobs/min', 'seconds', 'ratio'], [
  ['1', one.perMinute.toFixed(1), one.seconds.toFixed(1), '1.00'],
  ['2', two.perMinute.toFixed(1), two.seconds.toFixed(1), (two.perMinute / one.perMinute).toFixed(2)],
]);
console.log(`(${process.env.BENCH_CORES ?? 'this machine\'s'} cores are shared by the API, the workers, PostgreSQL and the S3 server)`);
for (const p of running) p.kill('SIGTERM');
await s3.close();
await db.stop();
