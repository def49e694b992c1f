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

export function createPool(connectionString: string, max = 10): Pool {
  const pool = new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 10_000 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', (err) => console.error('[postgres] idle client error:', err.message));
  pool.on('connect', (client) => client.on('error', (err) => console.error('[postgres] client error:', err.message)));
  return pool;
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
