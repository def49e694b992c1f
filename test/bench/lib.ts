/**
 * Shared pieces of the service benchmarks: an embedded PostgreSQL in a temp dir, the real standalone
 * service on loopback, an autocannon run, percentiles and a plain table printer.
 * Benchmarks print figures; they never assert wall-clock times.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
