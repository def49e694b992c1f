/**
 * "Database unreachable" is decided by where an error came from (issue 28, defect 5): a refused
 * connection of the database's own pool is, the same refusal from another service is not.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { createPool, isDatabaseUnavailable } from '../../../adapters/postgres/db.ts';
import { ConfigError, loadConfig } from '../../../core/config.ts';
import { startTestService } from '../../support/harness.ts';

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

describe('isDatabaseUnavailable', () => {
  it('takes a refused connection of the pool for the database, in the promise and callback forms', async () => {
    const pool = createPool(`postgres://x:y@127.0.0.1:${await closedPort()}/db`, 1);
    try {
      const viaQuery = await pool.query('select 1').then(() => null, (e: unknown) => e);
      expect((viaQuery as { code?: string }).code).toBe('ECONNREFUSED');
      expect(isDatabaseUnavailable(viaQuery)).toBe(true);
      const viaConnect = await pool.connect().then(() => null, (e: unknown) => e);
      expect(isDatabaseUnavailable(viaConnect)).toBe(true);
      const viaCallback = await new Promise((resolve) => pool.query('select 1', (err: unknown) => resolve(err)));
      expect(isDatabaseUnavailable(viaCallback)).toBe(true);
      // wrapped by a caller, the cause still tells
      expect(isDatabaseUnavailable(new Error('could not record', { cause: viaQuery }))).toBe(true);
    } finally {
      await pool.end();
    }
  });

  it('does not take the same refusal from another service for the database', async () => {
    const port = await closedPort();
    const refused = await new Promise<Error>((resolve) => net.connect(port, '127.0.0.1').on('error', resolve));
    expect((refused as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    expect(refused.message).toMatch(/connect ECONNREFUSED/);
    expect(isDatabaseUnavailable(refused)).toBe(false);
    expect(isDatabaseUnavailable(new Error('the S3 store failed to read', { cause: refused }))).toBe(false);
    // PostgreSQL's own codes are the database's wherever they appear
    expect(isDatabaseUnavailable(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('syntax error'), { code: '42601' }))).toBe(false);
  });
});

/** A server that accepts connections and never answers (a frozen or half-partitioned database). */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const srv = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return {
    port: (srv.address() as net.AddressInfo).port,
    close: () => new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      srv.close(() => r());
    }),
  };
}

describe('DATABASE_CONNECT_TIMEOUT_MS', () => {
  it('is 10 s unless set, and refuses a value that is not a whole number of milliseconds in range', () => {
    expect(loadConfig({}).databaseConnectTimeoutMs).toBe(10_000);
    expect(loadConfig({ DATABASE_CONNECT_TIMEOUT_MS: '2500' }).databaseConnectTimeoutMs).toBe(2500);
    for (const bad of ['abc', '1.5', '50', '600001']) {
      expect(() => loadConfig({ DATABASE_CONNECT_TIMEOUT_MS: bad })).toThrow(ConfigError);
    }
    expect(() => loadConfig({ DATABASE_CONNECT_TIMEOUT_MS: 'soon' })).toThrow(/DATABASE_CONNECT_TIMEOUT_MS must be an integer between 100 and 600000/);
  });

  it('bounds a connect to a server that never answers, as a database failure', async () => {
    const silent = await silentServer();
    const pool = createPool(`postgres://x:y@127.0.0.1:${silent.port}/db`, 1, { connectTimeoutMs: 200 });
    try {
      expect(pool.options.connectionTimeoutMillis).toBe(200);
      const e = await pool.query('select 1').then(() => null, (err: unknown) => err as Error);
      expect(e?.message).toMatch(/timeout/i);
      expect(isDatabaseUnavailable(e)).toBe(true);
    } finally {
      await pool.end();
      await silent.close();
    }
  });

  it("reaches the service's pool from the configuration", async () => {
    const svc = await startTestService({ worker: false, env: { DATABASE_CONNECT_TIMEOUT_MS: '4321' } });
    try {
      expect(svc.fitroom.pool.options.connectionTimeoutMillis).toBe(4321);
      expect((await svc.call('GET', '/api/v1/health')).status).toBe(200);
    } finally {
      await svc.close();
    }
  });
});
