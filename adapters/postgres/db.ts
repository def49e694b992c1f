import pg from 'pg';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger, runMigrations as runWorkerMigrations } from 'graphile-worker';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

// Dates come back as Date; bigint sizes as numbers (files stay far below 2^53).
pg.types.setTypeParser(20, (v) => Number(v));

/** How long opening a connection may take by default (DATABASE_CONNECT_TIMEOUT_MS). */
const CONNECT_TIMEOUT_MS = 10_000;

export function createPool(connectionString: string, max = 10, opts: { connectTimeoutMs?: number } = {}): Pool {
  // connectionTimeoutMillis: a server that accepts the connection and never answers fails the
  // connect instead of holding it; query_timeout: the same for a server that stops answering queries
  const pool = new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis: opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS, query_timeout: 20_000 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  // (Once the pool is ending, the server shutting down its last connections is expected, not news.)
  pool.on('error', (err) => pool.ending || console.error('[postgres] idle client error:', err.message));
  pool.on('connect', (client) => {
    client.on('error', (err) => pool.ending || console.error('[postgres] client error:', err.message));
    markFailures(client, 'query');
  });
  markFailures(pool, 'query');
  markFailures(pool, 'connect');
  return pool;
}

const FROM_DATABASE = Symbol('fitroom.fromDatabase');

function mark(e: unknown): unknown {
  if (e && typeof e === 'object') {
    try {
      (e as Record<symbol, boolean>)[FROM_DATABASE] = true;
    } catch {
      // a frozen error object stays unmarked
    }
  }
  return e;
}

/**
 * Marks every error a pool or client method fails with as the database's (promise and callback
 * forms), so that a refused or reset connection elsewhere (the blob store, a vendor) is never
 * taken for the database.
 */
function markFailures(target: object, method: 'query' | 'connect'): void {
  const t = target as Record<string, (...args: unknown[]) => unknown>;
  const original = t[method];
  t[method] = function (this: unknown, ...args: unknown[]) {
    const last = args.length - 1;
    if (last >= 0 && typeof args[last] === 'function') {
      const cb = args[last] as (err: unknown, ...rest: unknown[]) => void;
      args[last] = (err: unknown, ...rest: unknown[]) => cb(err ? mark(err) : err, ...rest);
      return original.apply(this, args);
    }
    const out = original.apply(this, args);
    // submittables (cursors) are returned as they are; promises get the mark on rejection
    return out instanceof Promise ? out.catch((e: unknown) => Promise.reject(mark(e))) : out;
  };
}

/** Codes only PostgreSQL itself sends (shutdown, too many connections, connection exceptions). */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300']);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);
const NETWORK_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connect ECONNREFUSED|Query read timeout/i;

/**
 * Whether an error means the database cannot be reached right now (not that a query was wrong).
 * PostgreSQL's own codes say so wherever they appear; network failures (refused, reset, timed out)
 * only when the error came from the database's pool or clients (marked by createPool), in the error
 * or its causes, so that the same failure of another service is not blamed on the database.
 */
export function isDatabaseUnavailable(e: unknown): boolean {
  for (let c = e, depth = 0; c && typeof c === 'object' && depth < 5; c = (c as { cause?: unknown }).cause, depth++) {
    const err = c as { code?: string; message?: string; [FROM_DATABASE]?: boolean };
    if (err.code && (SERVER_CODES.has(err.code) || /^08[0-9A-Z]{3}$/.test(err.code))) return true;
    if (err[FROM_DATABASE] && ((err.code && NETWORK_CODES.has(err.code)) || NETWORK_MESSAGES.test(err.message ?? ''))) return true;
  }
  return false;
}

/** `select 1` with a short timeout, remembered for a second so health checks stay cheap. */
export class PoolHealth {
  private readonly pool: Pool;
  private last: { at: number; result: { ok: boolean; latencyMs: number; error?: string } } | null = null;
  private pending: Promise<{ ok: boolean; latencyMs: number; error?: string }> | null = null;
  constructor(pool: Pool) {
    this.pool = pool;
  }

  check() {
    if (this.last && Date.now() - this.last.at < 1000) return Promise.resolve(this.last.result);
    this.pending ??= this.probe().then((result) => {
      this.last = { at: Date.now(), result };
      this.pending = null;
      return result;
    });
    return this.pending;
  }

  private async probe() {
    const t0 = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.pool.query('select 1'),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('no answer within 1.5 s')), 1500);
        }),
      ]);
      return { ok: true, latencyMs: Math.round((performance.now() - t0) * 10) / 10 };
    } catch (e) {
      return { ok: false, latencyMs: Math.round(performance.now() - t0), error: (e as Error).message };
    } finally {
      clearTimeout(timer);
    }
  }
}

export async function withTransaction<T>(pool: Pool, fn: (c: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const out = await fn(client);
    await client.query('commit');
    return out;
  } catch (e) {
    await client.query('rollback').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}

/**
 * Applies the numbered SQL files in migrations/ that have not run yet, then graphile-worker's own
 * migrations. Serialised across processes with an advisory lock, so many processes can start at once.
 */
export async function migrate(pool: Pool): Promise<string[]> {
  const applied: string[] = [];
  await withTransaction(pool, async (c) => {
    await c.query('select pg_advisory_xact_lock(8435001)');
    await c.query('create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())');
    const done = new Set((await c.query<{ name: string }>('select name from schema_migrations')).rows.map((r) => r.name));
    const files = readdirSync(MIGRATIONS_DIR).filter((f) => /^\d{3}_.+\.sql$/.test(f)).sort();
    for (const f of files) {
      if (done.has(f)) continue;
      await c.query(readFileSync(path.join(MIGRATIONS_DIR, f), 'utf8'));
      await c.query('insert into schema_migrations (name) values ($1)', [f]);
      applied.push(f);
    }
  });
  await runWorkerMigrations({ pgPool: pool, logger: quietLogger() });
  return applied;
}


/** graphile-worker logs at info level by default; keep warnings and errors only. */
export function quietLogger(prefix = '[worker]') {
  return new Logger(() => (level: string, message: string) => {
    if (level === 'error' || level === 'warning') console.error(`${prefix} ${level}: ${message}`);
  });
}
