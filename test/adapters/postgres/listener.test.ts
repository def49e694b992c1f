/**
 * The LISTEN connection is lost (its backend terminated, as a database restart or failover does):
 * it reconnects by itself, flushes the caches that rely on it when lost and again once it listens,
 * and delivers notifications again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { PgListener } from '../../../adapters/postgres/listener.ts';
import { freePort } from '../../../adapters/postgres/embedded.ts';
import { createTestDatabase } from '../../support/database.ts';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

async function until(fn: () => boolean | Promise<boolean>, ms = 60_000) {
  const t0 = Date.now();
  while (!(await fn())) {
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('PgListener', () => {
  it('reconnects after its connection is terminated, flushes caches and receives notifications again', async () => {
    const listener = new PgListener(db.url);
    const got: string[] = [];
    let resets = 0;
    listener.onReset(() => resets++);
    await listener.on('fitroom_test_channel', (p) => got.push(p));
    expect(listener.live).toBe(true);
    await pool.query(`select pg_notify('fitroom_test_channel', 'one')`);
    await until(() => got.includes('one'));

    const killed = await pool.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and query ilike 'listen %'`, [db.name]);
    expect(killed.rowCount).toBe(1);
    await until(() => resets >= 1); // lost: caches forget
    await until(() => listener.live);
    expect(resets).toBe(2); // and once more when listening again: a read that straddled the gap is not kept

    // the channel is listened to again on the new connection
    await until(async () => {
      await pool.query(`select pg_notify('fitroom_test_channel', 'two')`);
      await new Promise((r) => setTimeout(r, 50));
      return got.includes('two');
    });
    await listener.close();
    expect(listener.live).toBe(false);
  });

  it('starts while the database cannot be reached and listens once it can', async () => {
    const port = new URL(db.url).port;
    // the same database through a port where nothing listens yet: a TCP proxy started later
    const { createServer, connect } = await import('node:net');
    const proxy = createServer((sock) => {
      const up = connect(Number(port), '127.0.0.1');
      sock.pipe(up).pipe(sock);
      sock.on('error', () => up.destroy());
      up.on('error', () => sock.destroy());
    });
    const free = await freePort();
    const url = new URL(db.url);
    url.port = String(free);
    const listener = new PgListener(url.toString());
    const got: string[] = [];
    let resets = 0;
    listener.onReset(() => resets++);
    await listener.on('fitroom_test_late', (p) => got.push(p)); // does not throw while unreachable
    expect(listener.live).toBe(false);
    await new Promise<void>((r) => proxy.listen(free, '127.0.0.1', () => r()));
    try {
      await until(() => listener.live);
      expect(resets).toBe(1);
      await until(async () => {
        await pool.query(`select pg_notify('fitroom_test_late', 'late')`);
        await new Promise((r) => setTimeout(r, 50));
        return got.includes('late');
      });
    } finally {
      await listener.close();
      await new Promise((r) => proxy.close(r));
    }
  });
});
