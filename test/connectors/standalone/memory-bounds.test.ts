/**
 * Heavy input against the all-in-one service as `npm start` runs it (hardening: defect 4): a
 * shoe-3d job with 12 large photos runs in the worker process, whose peak RSS stays under 1.5 GB,
 * while the API keeps answering health checks. (`npm run bench` runs the full 12 x 6300² twice.)
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { boundHosts } from '../../support/service-process.ts';
import { shoePhotos } from '../../plugins/shoe3d/helpers.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const ADMIN = 'memory-bounds-admin-key-01234567';
let proc: ChildProcess | null = null;
let dir = '';

afterAll(async () => {
  if (proc && proc.exitCode === null) {
    const exited = new Promise((r) => proc!.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a heavy shoe-3d job in the all-in-one service', () => {
  it('runs in the worker process under 1.5 GB while health keeps answering', async () => {
    const side = 4096;
    const small = await shoePhotos(Array.from({ length: 12 }, (_, i) => i * 30), 768);
    const photos = await Promise.all(
      small.map(async (d) => {
        const pad = (side - 768) / 2;
        const big = await sharp(Buffer.from(d.slice(d.indexOf(',') + 1), 'base64')).flatten({ background: '#ffffff' }).extend({ top: pad, bottom: pad, left: pad, right: pad, background: '#ffffff' }).png().toBuffer();
        return `data:image/png;base64,${big.toString('base64')}`;
      }),
    );
    dir = mkdtempSync(path.join(tmpdir(), 'fitroom-memory-'));
    chmodSync(dir, 0o755);
    proc = spawn(path.join(ROOT, 'node_modules/.bin/node'), ['connectors/standalone/main.ts', 'all'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dir, PORT: '0', AR_PORT: '0', HOST: '127.0.0.1', ADMIN_KEY: ADMIN, FITROOM_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const on = (c: Buffer) => {
        output.push(c.toString());
        if (/worker process \d+ running/.test(output.join(''))) resolve();
      };
      proc!.stdout!.on('data', on);
      proc!.stderr!.on('data', on);
      proc!.once('exit', (code) => reject(new Error(`exited ${code}: ${output.join('')}`)));
    });
    const { api } = boundHosts(output.join(''));
    const workerPid = Number(/worker process (\d+) running/.exec(output.join(''))![1]);
    const key = ((await (await fetch(`${api}/admin/v1/keys`, { method: 'POST', headers: { 'x-admin-key': ADMIN, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'memory' }) })).json()) as { key: string }).key;
    const sub = await fetch(`${api}/api/v1/shoe-3d`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ images: photos }) });
    expect(sub.status).toBe(202);
    const { jobId } = (await sub.json()) as { jobId: string };

    const health: number[] = [];
    let job: { status: string; error?: string } = { status: 'queued' };
    const t0 = Date.now();
    while (job.status !== 'completed' && job.status !== 'failed' && Date.now() - t0 < 240_000) {
      health.push((await fetch(`${api}/api/v1/health`)).status);
      job = (await (await fetch(`${api}/api/v1/jobs/${jobId}`, { headers: { 'x-api-key': key } })).json()) as typeof job;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(job.status, job.error).toBe('completed');
    expect(health.length).toBeGreaterThan(3);
    expect(health.every((s) => s === 200)).toBe(true);
    const hwm = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${workerPid}/status`, 'utf8'))![1]) / 1024;
    expect(hwm).toBeLessThan(1536);
    // the API process never decoded a photo
    const apiHwm = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'))![1]) / 1024;
    expect(apiHwm).toBeLessThan(hwm);
  }, 300_000);
});
