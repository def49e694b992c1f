/**
 * Heavy jobs against the HTTP event loop, in the all-in-one service (`main.ts all`, what `npm start`
 * runs): `GET /api/v1/health` p50/p99 while two shoe-3d jobs with 12 photos of 6300 x 6300 each run,
 * as a ratio to idle, with the jobs in the supervised worker process (the default) and, as the
 * baseline of the same run, in the API's own process (FITROOM_WORKER=inline); and the peak RSS of
 * the process that ran the jobs. Prints figures; asserts nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { freePort } from '../../adapters/postgres/embedded.ts';
import { shoePhotos } from '../plugins/shoe3d/helpers.ts';
import { percentile, printTable } from './lib.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SIDE = Number(process.env.BENCH_HEAVY_SIDE ?? 6300);
const PHOTOS = 12;

/** 12 packshots: the generated shoe rendered from 12 sides, centred on a white 6300² canvas. */
async function largePhotos(): Promise<string[]> {
  const angles = Array.from({ length: PHOTOS }, (_, i) => (i * 360) / PHOTOS);
  const small = await shoePhotos(angles, 1024);
  return Promise.all(
    small.map(async (d) => {
      const png = Buffer.from(d.slice(d.indexOf(',') + 1), 'base64');
      const pad = Math.floor((SIDE - 1024) / 2);
      const big = await sharp(png).flatten({ background: '#ffffff' }).extend({ top: pad, bottom: SIDE - 1024 - pad, left: pad, right: SIDE - 1024 - pad, background: '#ffffff' }).png({ compressionLevel: 9 }).toBuffer();
      return `data:image/png;base64,${big.toString('base64')}`;
    }),
  );
}

interface Running {
  proc: ChildProcess;
  api: string;
  output: string[];
  dir: string;
}

async function start(inline: boolean): Promise<Running> {
  const dir = mkdtempSync(path.join(tmpdir(), 'fitroom-heavy-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  const proc = spawn(path.join(ROOT, 'node_modules/.bin/node'), ['connectors/standalone/main.ts', 'all'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dir, PORT: String(port), AR_PORT: String(await freePort()), HOST: '127.0.0.1', ADMIN_KEY: 'heavy-bench-admin-key-0123456', FITROOM_ENV: 'development', ...(inline ? { FITROOM_WORKER: 'inline' } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const on = (c: Buffer) => {
      output.push(c.toString());
      if (/worker (process \d+ running|running)/.test(output.join(''))) resolve();
    };
    proc.stdout!.on('data', on);
    proc.stderr!.on('data', on);
    proc.once('exit', (code) => reject(new Error(`service exited ${code}: ${output.join('')}`)));
  });
  return { proc, api: `http://127.0.0.1:${port}`, output, dir };
}

async function stop(r: Running) {
  const exited = new Promise((res) => r.proc.once('exit', res));
  r.proc.kill('SIGTERM');
  await exited;
  rmSync(r.dir, { recursive: true, force: true });
}

function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

async function healthSample(api: string, until: () => boolean, max = Infinity): Promise<number[]> {
  const out: number[] = [];
  while (!until() && out.length < max) {
    const t0 = performance.now();
    await fetch(`${api}/api/v1/health`).then((r) => r.arrayBuffer());
    out.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 20));
  }
  return out;
}

async function run(inline: boolean, photos: string[]) {
  const s = await start(inline);
  try {
    const key = ((await (await fetch(`${s.api}/admin/v1/keys`, { method: 'POST', headers: { 'x-admin-key': 'heavy-bench-admin-key-0123456', 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench', kind: 'development' }) })).json()) as { key: string }).key;
    const idle = await healthSample(s.api, () => false, 200);
    const jobs = await Promise.all(
      [0, 1].map(async () => {
        const r = await fetch(`${s.api}/api/v1/shoe-3d`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ images: photos }) });
        return ((await r.json()) as { jobId: string }).jobId;
      }),
    );
    let done = false;
    const statuses: string[] = [];
    const watcher = (async () => {
      const t0 = Date.now();
      while (!done) {
        const states = await Promise.all(jobs.map(async (id) => ((await (await fetch(`${s.api}/api/v1/jobs/${id}`, { headers: { 'x-api-key': key } })).json()) as { status: string; error?: string })));
        if (states.every((j) => j.status === 'completed' || j.status === 'failed') || Date.now() - t0 > 600_000) {
          statuses.push(...states.map((j) => j.status + (j.error ? ` (${j.error})` : '')));
          done = true;
        }
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    const busy = await healthSample(s.api, () => done);
    await watcher;
    const workerPid = inline ? s.proc.pid! : Number(/worker process (\d+) running/.exec(s.output.join(''))?.[1]);
    return { idle, busy, rss: peakRssMb(workerPid), statuses };
  } finally {
    await stop(s);
  }
}

const photos = await largePhotos();
const requestMb = photos.reduce((n, p) => n + p.length, 0) / 1048576;
console.log(`\nHeavy jobs and the HTTP event loop: 2 shoe-3d jobs x ${PHOTOS} photos of ${SIDE}x${SIDE} (${requestMb.toFixed(1)} MB request each)\n`);
const rows = [];
for (const inline of [true, false]) {
  const r = await run(inline, photos);
  const [ip50, ip99, bp50, bp99] = [percentile(r.idle, 50), percentile(r.idle, 99), percentile(r.busy, 50), percentile(r.busy, 99)];
  rows.push([inline ? 'jobs in the API process (baseline)' : 'jobs in the worker process (default)', `${ip50.toFixed(1)} / ${ip99.toFixed(1)}`, `${bp50.toFixed(1)} / ${bp99.toFixed(1)}`, `${(bp50 / ip50).toFixed(1)}x / ${(bp99 / ip99).toFixed(1)}x`, String(r.busy.length), `${r.rss} MB`, r.statuses.join(', ')]);
}
printTable('GET /api/v1/health while two heavy shoe-3d jobs run', ['mode', 'health idle p50/p99 ms', 'health busy p50/p99 ms', 'busy/idle', 'samples', 'job process peak RSS', 'jobs'], rows);
console.log('\nTargets: health p99 <= 50 ms while the jobs run; peak RSS of the process running the jobs <= 1.5 GB.');
