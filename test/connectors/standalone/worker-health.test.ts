/**
 * The worker container's health check (compose.yaml): healthy while a worker on this host beats its
 * heartbeat, unhealthy (exit 1 with the reason) when none does or the database is out of reach.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/harness.ts';
import { createTestDatabase } from '../../support/database.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const check = (databaseUrl: string) =>
  promisify(execFile)(process.execPath, ['connectors/standalone/worker-health.ts'], { cwd: ROOT, env: { PATH: process.env.PATH!, DATABASE_URL: databaseUrl }, timeout: 90_000 }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
  );

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
}, 60_000);
afterAll(async () => {
  await svc?.close();
});

describe('worker health check', () => {
  it('is healthy while a worker on this host beats', async () => {
    // the worker writes its first heartbeat as it starts
    await expect.poll(async () => (await svc.fitroom.pool.query('select count(*)::int as n from worker_heartbeats')).rows[0].n, { timeout: 60_000 }).toBeGreaterThan(0);
    expect(await check(svc.dbUrl)).toMatchObject({ code: 0, out: expect.stringMatching(/^worker health: ok/) });
  });

  it('is unhealthy with no worker heartbeat, or no database', async () => {
    const empty = await createTestDatabase();
    try {
      expect(await check(empty.url)).toMatchObject({ code: 1, out: expect.stringMatching(/no heartbeat from a worker on /) });
    } finally {
      await empty.drop();
    }
    expect(await check('postgres://fitroom:fitroom@127.0.0.1:1/fitroom')).toMatchObject({ code: 1, out: expect.stringMatching(/^worker health: /) });
  });
});
