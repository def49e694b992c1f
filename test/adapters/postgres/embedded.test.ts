import { createServer, type Server } from 'node:net';
import { rmSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startEmbeddedPostgres } from '../../../adapters/postgres/embedded.ts';
import { tempDataDir } from '../../support/service-process.ts';

/**
 * The embedded cluster's port: a port picked free can be taken by another socket before PostgreSQL
 * binds it (initdb alone takes seconds). A taken port is replaced by another; a port the operator
 * set is never replaced.
 */
const dirs: string[] = [];
const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers) await new Promise((r) => s.close(r));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function occupiedPort(): Promise<number> {
  const s = createServer();
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return (s.address() as { port: number }).port;
}

function clusterDir(): string {
  const d = tempDataDir('fitroom-embedded-');
  dirs.push(d);
  return path.join(d, 'db');
}

describe('the embedded cluster', () => {
  it('starts on another free port when the one picked is taken before it binds, and serves there', async () => {
    const taken = await occupiedPort();
    const picked: number[] = [];
    const db = await startEmbeddedPostgres({
      dir: clusterDir(),
      persistent: false,
      pickPort: async () => {
        const p = picked.length ? await freePort() : taken;
        picked.push(p);
        return p;
      },
    });
    try {
      expect(picked[0]).toBe(taken);
      expect(picked).toHaveLength(2);
      expect(db.port).toBe(picked[1]);
      const client = new pg.Client({ connectionString: db.adminUrl });
      await client.connect();
      expect((await client.query<{ one: number }>('select 1 as one')).rows[0].one).toBe(1);
      await client.end();
    } finally {
      await db.stop();
    }
  }, 120_000);

  it('refuses to start on a port it was given that is in use, saying so', async () => {
    const taken = await occupiedPort();
    await expect(startEmbeddedPostgres({ dir: clusterDir(), port: taken, persistent: false })).rejects.toThrow(/Address already in use/);
  }, 120_000);
});
