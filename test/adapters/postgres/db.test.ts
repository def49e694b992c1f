/**
 * "Database unreachable" is decided by where an error came from (issue 28, defect 5): a refused
 * connection of the database's own pool is, the same refusal from another service is not.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { createPool, isDatabaseUnavailable } from '../../../adapters/postgres/db.ts';

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
