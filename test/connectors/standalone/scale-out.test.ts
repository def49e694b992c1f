import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestService, waitForJob, type TestService } from '../../support/harness.ts';
import { testPlugin } from '../../support/test-plugin.ts';

// Two API processes' worth of service on one database: A also runs the worker, B only serves.
let a: TestService;
let b: TestService;

beforeAll(async () => {
  a = await startTestService({ plugins: [testPlugin] });
  b = await startTestService({ plugins: [testPlugin], shareDatabaseWith: a, worker: false });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 3000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() - t0 > timeoutMs) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('several API processes on one database', () => {
  it('a key revoked through one process is refused by the other at once, though it had cached it', async () => {
    const { key, id } = await a.createKey();
    expect((await b.call('GET', '/api/v1/warmup', { key })).status).toBe(200);
    expect((await b.call('POST', '/api/v1/queue/warmup', { key })).status).toBe(200);
    const revoke = await a.call('DELETE', `/admin/v1/keys/${id}`, { headers: { 'x-admin-key': ADMIN_KEY } });
    expect(revoke.status).toBe(200);
    // the change notification reaches B well before its cache's 60 s lifetime would have dropped the key
    const refused = await eventually(() => b.call('POST', '/api/v1/queue/warmup', { key }), (r) => r.status === 401, 20_000);
    expect(refused.status).toBe(401);
    expect(refused.body.error.message).toMatch(/revoked/);
  });

  it('a job submitted to one process and run by the worker shows its progress through the other', async () => {
    const { key } = await a.createKey();
    const sub = await b.call('POST', '/api/v1/test-jobs', { key, body: { mode: 'wait', waitMs: 300 } });
    expect(sub.status).toBe(202);
    const queued = await b.call('GET', `/api/v1/jobs/${sub.body.jobId}`, { key });
    expect(['queued', 'validating', 'processing']).toContain(queued.body.status);
    const done = await waitForJob(b, key, sub.body.jobId);
    expect(done.status).toBe('completed');
    expect(done.results).toHaveLength(1);
  });

  it('shares rate-limit counters: a key spending its budget on one process is limited on the other', async () => {
    const { key } = await a.createKey();
    for (let i = 0; i < 50; i++) {
      const r = await (i % 2 ? a : b).call('POST', '/api/v1/test-jobs', { key, body: { mode: 'invalid' } });
      expect(r.status).toBe(400);
    }
    // Each process writes its points back within its flush interval (100 ms): wait until the database
    // holds all 50 (this test's key is the file's only one with that many). A count older than the
    // interval is read again at the next decision, so both processes then agree.
    const stored = async () => (await a.fitroom.pool.query<{ n: number }>(`select coalesce(max(points), 0)::int as n from rate_limits where key like '%submission:%'`)).rows[0].n;
    await expect.poll(stored, { timeout: 90_000 }).toBeGreaterThanOrEqual(50);
    await new Promise((r) => setTimeout(r, 150)); // a lower bound (the read-back interval): load only lengthens it
    expect((await a.call('POST', '/api/v1/test-jobs', { key, body: { mode: 'invalid' } })).status).toBe(429);
    expect((await b.call('POST', '/api/v1/test-jobs', { key, body: { mode: 'invalid' } })).status).toBe(429);
  });
});
