/**
 * The all-in-one service (`main.ts all`, embedded PostgreSQL) killed and starved for real
 * (hardening: defects 2 and 3): SIGKILL mid-job, then a start on the same DATA_DIR recovers the
 * orphaned cluster and finishes the job with keys and earlier results intact; a frozen database
 * answers health 503 DATABASE_UNAVAILABLE and comes back; a killed database is restarted and a job
 * accepted before completes exactly once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../../adapters/postgres/embedded.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const ADMIN = 'db-faults-admin-key-0123456789';
const dirs: string[] = [];
const running = new Set<ChildProcess>();

interface Service {
  proc: ChildProcess;
  api: string;
  output: string[];
  exited: Promise<number | null>;
}

async function start(dataDir: string): Promise<Service> {
  const port = await freePort();
  const proc = spawn(NODE, ['connectors/standalone/main.ts', 'all'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, PORT: String(port), AR_PORT: String(await freePort()), HOST: '127.0.0.1', ADMIN_KEY: ADMIN, FITROOM_ENV: 'production', FITROOM_PLUGINS: './test/support/test-plugin.ts', WORKER_DEAD_AFTER_SECONDS: '2' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(proc);
  const output: string[] = [];
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => (running.delete(proc), r(code))));
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (/worker running/.test(output.join(''))) resolve();
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`service exited (${code}) during start:\n${output.join('')}`)));
  });
  return { proc, api: `http://127.0.0.1:${port}`, output, exited };
}

async function call(s: Service, method: string, p: string, o: { key?: string; body?: unknown; admin?: boolean } = {}) {
  const headers: Record<string, string> = {};
  if (o.key) headers['x-api-key'] = o.key;
  if (o.admin) headers['x-admin-key'] = ADMIN;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${s.api}${p}`, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body), signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function until<T>(fn: () => Promise<T | undefined | null | false>, ms: number): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

function postgresPid(dataDir: string): number {
  return Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

afterAll(async () => {
  for (const p of running) p.kill('SIGKILL');
  for (const d of dirs) {
    try {
      process.kill(postgresPid(d), 'SIGINT');
    } catch {
      // not running
    }
  }
  await new Promise((r) => setTimeout(r, 500));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function dataDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'fitroom-faults-'));
  chmodSync(d, 0o755); // the cluster runs as the postgres user when tests run as root
  dirs.push(d);
  return d;
}

describe('the embedded database under faults', () => {
  it('SIGKILL mid-job: the next start on the same DATA_DIR recovers the cluster, finishes the job, keeps keys and results', async () => {
    const dir = dataDir();
    const first = await start(dir);
    const key = (await call(first, 'POST', '/admin/v1/keys', { admin: true, body: { name: 'faults' } })).body.key as string;
    const done = (await call(first, 'POST', '/api/v1/test-jobs', { key, body: { mode: 'complete', text: 'before' } })).body.jobId as string;
    const before = await until(async () => {
      const j = (await call(first, 'GET', `/api/v1/jobs/${done}`, { key })).body;
      return j.status === 'completed' ? j : null;
    }, 20_000);
    const inFlight = (await call(first, 'POST', '/api/v1/test-jobs', { key, body: { mode: 'wait', waitMs: 4000 } })).body.jobId as string;
    await until(async () => (await call(first, 'GET', `/api/v1/jobs/${inFlight}`, { key })).body.status === 'processing', 20_000);
    const orphan = postgresPid(dir);
    first.proc.kill('SIGKILL');
    await first.exited;
    expect(() => process.kill(orphan, 0)).not.toThrow(); // the cluster outlived its parent

    const second = await start(dir);
    expect(second.output.join('')).toMatch(/left running by a previous process .* shutting it down/);
    expect(second.output.join('')).not.toMatch(/undefined/);
    const finished = await until(async () => {
      const j = (await call(second, 'GET', `/api/v1/jobs/${inFlight}`, { key })).body;
      return j.status === 'completed' || j.status === 'failed' ? j : null;
    }, 60_000);
    expect(finished.status).toBe('completed');
    const again = (await call(second, 'GET', `/api/v1/jobs/${done}`, { key })).body;
    expect(again.results).toEqual(before.results);
    const download = await fetch(before.results[0].url.replace(/^http:\/\/[^/]+/, second.api));
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('before');
    second.proc.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 120_000);

  it('a frozen database answers health 503 DATABASE_UNAVAILABLE; a killed one is restarted and the job accepted before completes once', async () => {
    const dir = dataDir();
    const s = await start(dir);
    const key = (await call(s, 'POST', '/admin/v1/keys', { admin: true, body: { name: 'faults' } })).body.key as string;
    expect((await call(s, 'GET', '/api/v1/health')).status).toBe(200);

    // freeze the postmaster and every backend (each backend is a session of its own)
    const pg = postgresPid(dir);
    const freeze = (signal: 'STOP' | 'CONT') => execFileSync('sh', ['-c', `kill -${signal} ${pg}; pkill -${signal} -P ${pg} || true`]);
    freeze('STOP');
    try {
      const down = await until(async () => {
        const h = await call(s, 'GET', '/api/v1/health');
        return h.status === 503 ? h : null;
      }, 15_000);
      expect(down.body.error.code).toBe('DATABASE_UNAVAILABLE');
    } finally {
      freeze('CONT');
    }
    await until(async () => (await call(s, 'GET', '/api/v1/health')).status === 200, 15_000);

    const job = (await call(s, 'POST', '/api/v1/test-jobs', { key, body: { mode: 'wait', waitMs: 3000 } })).body.jobId as string;
    await until(async () => (await call(s, 'GET', `/api/v1/jobs/${job}`, { key })).body.status === 'processing', 20_000);
    process.kill(postgresPid(dir), 'SIGKILL');
    const statuses: number[] = [];
    const final = await until(async () => {
      const r = await call(s, 'GET', `/api/v1/jobs/${job}`, { key });
      statuses.push(r.status);
      if (r.status >= 500) expect(r.body.error.code).toBe('DATABASE_UNAVAILABLE');
      return r.status === 200 && (r.body.status === 'completed' || r.body.status === 'failed') ? r.body : null;
    }, 90_000);
    expect(final.status).toBe('completed');
    expect(statuses.every((x) => x === 200 || x === 503)).toBe(true);
    expect(s.output.join('')).toMatch(/embedded PostgreSQL restarted/);
    const trace = (await call(s, 'GET', `/api/v1/jobs/${job}/trace`, { key })).body;
    expect(trace.timeline.filter((st: { stage: string; outcome: string }) => st.stage === 'store' && st.outcome === 'ok')).toHaveLength(1);
    s.proc.kill('SIGTERM');
    expect(await s.exited).toBe(0);
  }, 150_000);
});
