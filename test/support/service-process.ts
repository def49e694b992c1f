/**
 * The real service as a child process (`main.ts all`), for fault tests that kill processes and
 * databases: start it on free loopback ports, call it over HTTP, poll until something holds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NODE = path.join(ROOT, 'node_modules/.bin/node');
export const FAULTS_ADMIN_KEY = 'db-faults-admin-key-0123456789';

export interface ServiceProcess {
  proc: ChildProcess;
  api: string;
  output: string[];
  exited: Promise<number | null>;
  /** Everything the service printed so far. */
  log(): string;
  /** The pid of its worker process (`main.ts worker`, a child that a SIGKILL of the service leaves running). */
  workerPid(): number | null;
}

/** Runs `main.ts <role>` with exactly `env` (plus PATH and HOME) until it exits: for starts that must fail. */
export async function runUntilExit(role: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const proc = spawn(NODE, ['connectors/standalone/main.ts', role], { cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const code = await new Promise<number | null>((r) => proc.once('exit', (c) => r(c)));
  return { code, output };
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The hosts a service process bound, from its start line. Children listen on port 0 and say where:
 * a port picked free beforehand can be taken by another test's socket before the child binds it.
 */
export function boundHosts(log: string): { api: string; ar: string } {
  const m = /API host on (http:\/\/[\w.:[\]-]+) \(docs[^)]*\)(?:, AR host on (http:\/\/[\w.:[\]-]+))?/.exec(log);
  if (!m) throw new Error(`no "API host on" line in the service's output:\n${log}`);
  return { api: m[1], ar: m[2] ?? '' };
}

/** Starts `main.ts all` with the test plugin; resolves once its worker runs. */
export async function startServiceProcess(dataDir: string, env: Record<string, string> = {}, running?: Set<ChildProcess>): Promise<ServiceProcess> {
  const proc = spawn(NODE, ['connectors/standalone/main.ts', 'all'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATA_DIR: dataDir,
      PORT: '0',
      AR_PORT: '0',
      HOST: '127.0.0.1',
      ADMIN_KEY: FAULTS_ADMIN_KEY,
      FITROOM_ENV: 'production',
      FITROOM_PLUGINS: './test/support/test-plugin.ts',
      WORKER_DEAD_AFTER_SECONDS: '2',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running?.add(proc);
  const output: string[] = [];
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => (running?.delete(proc), r(code))));
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (/worker running/.test(output.join(''))) resolve();
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`service exited (${code}) during start:\n${output.join('')}`)));
  });
  const workerPid = () => {
    const all = [...output.join('').matchAll(/"pid":(\d+),"name":"fitroom worker"/g)];
    return all.length ? Number(all[all.length - 1][1]) : null;
  };
  return { proc, api: boundHosts(output.join('')).api, output, exited, log: () => output.join(''), workerPid };
}

export async function callService(s: ServiceProcess, method: string, p: string, o: { key?: string; body?: unknown; admin?: boolean } = {}) {
  const headers: Record<string, string> = {};
  if (o.key) headers['x-api-key'] = o.key;
  if (o.admin) headers['x-admin-key'] = FAULTS_ADMIN_KEY;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${s.api}${p}`, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body), signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * Polls `fn` every 100 ms until it returns something truthy (errors count as "not yet"). `ms` is a
 * deadline for a hang, not a measure: make it generous; `what` names the awaited event in the failure.
 */
export async function until<T>(fn: () => Promise<T | undefined | null | false>, ms: number, what = 'the condition'): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() - t0 > ms) throw new Error(`${what}: not reached within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The postmaster's pid from a cluster's data directory. */
export function postmasterPid(clusterDir: string): number {
  return Number(readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** A temporary DATA_DIR that the postgres user can enter (the cluster runs as postgres under root). */
export function tempDataDir(prefix: string): string {
  const d = mkdtempSync(path.join(tmpdir(), prefix));
  chmodSync(d, 0o755);
  return d;
}

/** Asks for health every 100 ms until `stop()`: each answer's status, error code and time. */
export function watchHealth(s: ServiceProcess) {
  const seen: { status: number; code?: string; at: number }[] = [];
  let on = true;
  const done = (async () => {
    while (on) {
      const r = await callService(s, 'GET', '/api/v1/health').catch(() => ({ status: 0, body: undefined }));
      seen.push({ status: r.status, code: r.body?.error?.code, at: Date.now() });
      await new Promise((res) => setTimeout(res, 100));
    }
  })();
  return {
    seen,
    async stop() {
      on = false;
      await done;
    },
  };
}

/** A process of one role (`api` or `worker`) on an external database, as scale-out runs them. */
export interface RoleProcess {
  role: 'api' | 'worker';
  proc: ChildProcess;
  dataDir: string;
  /** The API host (api role). */
  api: string;
  /** The AR host (api role). */
  ar: string;
  exited: Promise<number | null>;
  log(): string;
}

/** Starts `main.ts <role>` with its own DATA_DIR; resolves once it serves (api) or runs jobs (worker). */
export async function startRoleProcess(role: 'api' | 'worker', env: Record<string, string>, running?: Set<ChildProcess>): Promise<RoleProcess> {
  const dataDir = tempDataDir(`fitroom-${role}-`);
  const proc = spawn(NODE, ['connectors/standalone/main.ts', role], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, PORT: '0', AR_PORT: '0', HOST: '127.0.0.1', ADMIN_KEY: FAULTS_ADMIN_KEY, FITROOM_ENV: 'production', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running?.add(proc);
  const output: string[] = [];
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => (running?.delete(proc), r(code))));
  await new Promise<void>((resolve, reject) => {
    const ready = role === 'api' ? /API host on/ : /worker running/;
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (ready.test(output.join(''))) resolve();
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`${role} exited (${code}) during start:\n${output.join('')}`)));
  });
  const hosts = role === 'api' ? boundHosts(output.join('')) : { api: '', ar: '' };
  return { role, proc, dataDir, ...hosts, exited, log: () => output.join('') };
}

/** A worker process started by a test: its output so far, when it is running, and how it ended. */
export interface WorkerChild {
  proc: ChildProcess;
  output: string[];
  ready: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/** Follows a spawned `main.ts worker` (stdout and stderr piped) until it says `worker running`. */
export function watchWorker(proc: ChildProcess): WorkerChild {
  const output: string[] = [];
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    proc.once('exit', (code) => reject(new Error(`worker exited (${code}) before it was ready:\n${output.join('')}`)));
  });
  ready.catch(() => undefined);
  const onData = (chunk: Buffer) => {
    output.push(chunk.toString());
    if (/worker running/.test(chunk.toString())) markReady();
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
  return { proc, output, ready, exited };
}
