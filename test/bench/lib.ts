/**
 * Shared pieces of the service benchmarks: an embedded PostgreSQL in a temp dir, the real standalone
 * service on loopback, an autocannon run, percentiles and a plain table printer.
 * Benchmarks print figures; they never assert wall-clock times.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig, type FitroomConfig } from '../../core/config.ts';
import type { KeyKind } from '../../core/credentials.ts';
import type { FitroomPlugin } from '../../core/plugin.ts';
import { TOKENS } from '../../core/tokens.ts';
import { startEmbeddedPostgres } from '../../adapters/postgres/embedded.ts';
import { createFitroom, type Fitroom } from '../../connectors/standalone/compose.ts';
import { standalonePlugins } from '../../connectors/standalone/plugins.ts';

export interface BenchDatabase {
  url: string;
  /** CPU seconds (user + system) used so far by the cluster's processes, NaN off Linux. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/** A throwaway embedded cluster (fsync off) with an empty `fitroom` database. */
export async function startBenchDatabase(): Promise<BenchDatabase> {
  const dir = mkdtempSync(path.join(tmpdir(), 'fitroom-bench-pg-'));
  chmodSync(dir, 0o755); // the cluster runs as the postgres user when this runs as root
  const db = await startEmbeddedPostgres({ dir: path.join(dir, 'db'), persistent: false });
  const admin = new pg.Client(db.adminUrl);
  await admin.connect();
  await admin.query('create database fitroom');
  await admin.end();
  const postmasterPid = Number(readFileSync(path.join(dir, 'db', 'postmaster.pid'), 'utf8').split('\n')[0]);
  return {
    url: db.urlFor('fitroom'),
    cpuSeconds: () => treeCpuSeconds(postmasterPid),
    async stop() {
      // pg's Pool.end() resolves before its sockets close; let the backends go before stopping.
      const admin = new pg.Client(db.adminUrl);
      await admin.connect();
      for (let i = 0; i < 40; i++) {
        const r = await admin.query(`select count(*)::int as n from pg_stat_activity where datname = 'fitroom'`);
        if (r.rows[0].n === 0) break;
        await new Promise((res) => setTimeout(res, 50));
      }
      await admin.end();
      await db.stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** utime + stime of a process and its children (PostgreSQL backends are children of the postmaster). */
function treeCpuSeconds(root: number): number {
  if (process.platform !== 'linux') return NaN;
  const ticks = 100; // USER_HZ on Linux
  let total = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // Fields after the command name (which may hold spaces): state ppid ... utime(14) stime(15).
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(name) === root || Number(f[1]) === root) total += (Number(f[11]) + Number(f[12])) / ticks;
  }
  return total;
}

/** Runs `fn` and reports the CPU time this process and the database used meanwhile. */
export async function withCpu<T>(db: BenchDatabase, fn: () => Promise<T>): Promise<{ value: T; nodeSeconds: number; postgresSeconds: number }> {
  const n0 = process.cpuUsage();
  const p0 = db.cpuSeconds();
  const value = await fn();
  const n = process.cpuUsage(n0);
  return { value, nodeSeconds: (n.user + n.system) / 1e6, postgresSeconds: db.cpuSeconds() - p0 };
}

export interface BenchService {
  api: string;
  fitroom: Fitroom;
  config: FitroomConfig;
  createKey(kind?: KeyKind): Promise<string>;
  close(): Promise<void>;
}

/**
 * The standalone service with the given extra plugins, its API host on a loopback port. Migrates
 * the database on start. `rateMultiplier` raises the development-key limits so a load test measures
 * the request path rather than 429 answers (the limiter still runs on every request).
 */
export async function startBenchService(opts: { databaseUrl: string; plugins?: FitroomPlugin[]; rateMultiplier?: number; env?: Record<string, string> }): Promise<BenchService> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'fitroom-bench-data-'));
  const config = loadConfig({ FITROOM_ENV: 'development', PORT: '0', AR_PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_KEY: 'bench-admin-key-0123456789', ...opts.env });
  if (opts.rateMultiplier) config.devRateMultiplier = opts.rateMultiplier;
  const fitroom = await createFitroom(config, { databaseUrl: opts.databaseUrl, plugins: [...standalonePlugins(), ...(opts.plugins ?? [])] });
  const { apiUrl } = await fitroom.listen();
  const credentials = fitroom.get(TOKENS.credentials);
  return {
    api: apiUrl,
    fitroom,
    config,
    async createKey(kind = 'development') {
      return (await credentials.create({ name: 'bench', kind })).key;
    },
    async close() {
      await fitroom.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface LoadResult {
  requestsPerSecond: number;
  requests: number;
  latencyP50: number;
  latencyP99: number;
  non2xx: number;
  errors: number;
}

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>;
// autocannon ships CommonJS without type declarations.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** One autocannon run: `connections` keep-alive connections for `seconds`, after a warm-up. */
export async function loadTest(url: string, opts: { connections?: number; seconds?: number; warmupSeconds?: number; headers?: Record<string, string>; method?: string } = {}): Promise<LoadResult> {
  const connections = opts.connections ?? 10;
  const r = await autocannon({
    url,
    method: opts.method ?? 'GET',
    headers: opts.headers ?? {},
    connections,
    duration: opts.seconds ?? 5,
    warmup: opts.warmupSeconds ? { connections, duration: opts.warmupSeconds } : undefined,
  });
  return { requestsPerSecond: r.requests.average, requests: r.requests.total, latencyP50: r.latency.p50, latencyP99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

/** Nearest-rank percentile of `values` (p in 0-100). */
export function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** A left-aligned first column and right-aligned figures. */
export function printTable(title: string, header: string[], rows: (string | number)[][]): void {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of cells.slice(1)) console.log(line(r));
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
}

/** Runs `fn` under the inspector's sampling CPU profiler (this process only). */
export async function profiled<T>(fn: () => Promise<T>): Promise<{ value: T; profile: CpuProfile }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 250 });
  await session.post('Profiler.start');
  try {
    const value = await fn();
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
    return { value, profile };
  } finally {
    session.disconnect();
  }
}

/**
 * Writes the profile (for Chrome DevTools) to `file` in the working directory and prints the
 * functions and the files with the most self time, and the functions with the most total time
 * (self plus callees, each sample counted once per function), as wall-clock µs per request.
 */
export function printProfile(title: string, profile: CpuProfile, file: string, requests: number, top = 25): void {
  writeFileSync(file, JSON.stringify(profile));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const where = (n: ProfileNode) => {
    const u = n.callFrame.url.replace(/^file:\/\//, '').replace(process.cwd() + '/', '');
    return u ? u.replace(/^.*node_modules\//, '~/') : '(native)';
  };
  const fnName = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${where(n)}:${n.callFrame.lineNumber + 1}`;
  const self = new Map<string, number>(), files = new Map<string, number>(), total = new Map<string, number>();
  let all = 0;
  for (const n of profile.nodes) {
    const hits = n.hitCount ?? 0;
    if (!hits) continue;
    all += hits;
    self.set(fnName(n), (self.get(fnName(n)) ?? 0) + hits);
    files.set(where(n), (files.get(where(n)) ?? 0) + hits);
    const seen = new Set<string>();
    for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) {
      const k = fnName(byId.get(id)!);
      if (seen.has(k)) continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + hits);
    }
  }
  const perRequest = (profile.endTime - profile.startTime) / all / Math.max(1, requests);
  const us = (v: number) => (v * perRequest).toFixed(1);
  const rows = (m: Map<string, number>, n = top) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => [k, us(v)]);
  printTable(`${title}: self time by function (${all} samples over ${requests} requests, written to ${file})`, ['function', 'µs/req'], rows(self));
  printTable('self time by file', ['file', 'µs/req'], rows(files));
  printTable('total time by function', ['function', 'µs/req'], rows(total, top * 2));
}
