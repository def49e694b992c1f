/**
 * Issue 28, defect 3: a tenant's slow webhook receiver must not delay another tenant's jobs.
 * Real servers on loopback: an HTTPS receiver that accepts each delivery and never answers, 20
 * submissions of tenant A pointing at it, and tenant B's job measured idle and then under that load
 * (same run, compared as a ratio). Then the receiver's circuit breaker: after WEBHOOK_BREAKER_THRESHOLD
 * timeouts in a row the receiver is paused, and deliveries to it are recorded as paused attempts and
 * queued for the end of the pause instead of connecting again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../../../core/tokens.ts';
import type { StoredDelivery } from '../../../core/ports/webhook-store.ts';
import { startTestService, waitForJob, type TestService } from '../../support/harness.ts';
import { testPlugin } from '../../support/test-plugin.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../support/tls.ts';

let svc: TestService;
let receiver: HttpsReceiver;
let keyA: string;
let keyB: string;

const THRESHOLD = 3;

beforeAll(async () => {
  // Loopback receivers are reachable only because the harness allows 127.0.0.0/8 (ALLOWED_PRIVATE_NETWORKS).
  svc = await startTestService({ plugins: [testPlugin], concurrency: 2, env: { WEBHOOK_TIMEOUT_MS: '3000', WEBHOOK_CONNECT_TIMEOUT_MS: '1000', WEBHOOK_CONCURRENCY: '4', WEBHOOK_BREAKER_THRESHOLD: String(THRESHOLD), WEBHOOK_BREAKER_PAUSE_MS: '600000' } });
  keyA = (await svc.createKey({ accountId: 'tenant-a' })).key;
  keyB = (await svc.createKey({ accountId: 'tenant-b' })).key;
  receiver = await startHttpsReceiver();
  receiver.setResponder(() => 'hang');
});
afterAll(async () => {
  await receiver?.close();
  await svc?.close();
});

async function submit(key: string, body: Record<string, unknown>): Promise<string> {
  const r = await svc.call('POST', '/api/v1/test-jobs', { key, body });
  expect(r.status, r.text).toBe(202);
  return r.body.jobId;
}

/** Queue wait plus run time of a finished job, as the database recorded it. */
async function jobSeconds(jobId: string): Promise<number> {
  const r = await svc.fitroom.pool.query<{ s: number }>('select extract(epoch from updated_at - created_at)::float8 as s from jobs where id = $1', [jobId]);
  return r.rows[0].s;
}

async function deliveriesOf(jobIds: string[]): Promise<StoredDelivery[]> {
  const store = svc.fitroom.get(TOKENS.webhookStore);
  return (await Promise.all(jobIds.map((id) => store.listForJob(id)))).flat();
}

describe('webhook isolation', () => {
  let hungJobs: string[] = [];

  it('another tenant\'s job finishes within 1.5x its idle time while 20 deliveries hang on a slow receiver', async () => {
    // B's job alone (twice: the first warms the code paths up; the second is the reference).
    await waitForJob(svc, keyB, await submit(keyB, { mode: 'wait', waitMs: 2000 }));
    const idleJob = await submit(keyB, { mode: 'wait', waitMs: 2000 });
    expect((await waitForJob(svc, keyB, idleJob)).status).toBe('completed');
    const idle = await jobSeconds(idleJob);

    // A's 20 cheap jobs, every one with a webhook to the receiver that never answers.
    hungJobs = await Promise.all(Array.from({ length: 20 }, () => submit(keyA, { mode: 'complete', webhookUrl: `${receiver.url}/slow` })));
    for (const id of hungJobs) expect((await waitForJob(svc, keyA, id, undefined, 120_000)).status).toBe('completed');
    await receiver.waitFor(2, () => true, 30_000);

    const busyJob = await submit(keyB, { mode: 'wait', waitMs: 2000 });
    expect((await waitForJob(svc, keyB, busyJob, undefined, 120_000)).status).toBe('completed');
    const busy = await jobSeconds(busyJob);
    console.log(`tenant B job: idle ${idle.toFixed(2)} s, with 20 hung webhooks ${busy.toFixed(2)} s (${(busy / idle).toFixed(2)}x)`);
    expect(busy / idle).toBeLessThanOrEqual(1.5);
  }, 240_000);

  it('pauses the receiver after its timeouts and records the paused deliveries with their retry time', async () => {
    // Every delivery either timed out or was paused; wait until each has a record.
    const t0 = Date.now();
    let ds: StoredDelivery[];
    for (;;) {
      ds = await deliveriesOf(hungJobs);
      if (ds.length === 20 && ds.every((d) => d.attempts.length > 0) && ds.filter((d) => d.attempts.some((a) => a.paused)).length >= 20 - 4) break;
      if (Date.now() - t0 > 60_000) throw new Error(`deliveries not paused: ${JSON.stringify(ds.map((d) => d.attempts))}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const timeouts = ds.flatMap((d) => d.attempts.filter((a) => !a.paused));
    for (const a of timeouts) {
      expect(a.status).toBeNull();
      expect(a.error).toMatch(/timed out/);
      // cut at WEBHOOK_TIMEOUT_MS (3 s), not held longer
      expect(a.durationMs).toBeLessThan(10_000);
    }
    expect(timeouts.length).toBeGreaterThanOrEqual(THRESHOLD);
    const paused = ds.flatMap((d) => d.attempts.filter((a) => a.paused));
    for (const a of paused) {
      expect(a.error).toMatch(/paused until .* after 3 timeouts in a row/);
      expect(a.retryAt!.getTime()).toBeGreaterThan(a.at.getTime() + 60_000);
    }
    // Paused deliveries stay pending (retried after the pause) without using up their attempts.
    for (const d of ds) expect(d.state).toBe('pending');
    const queued = await svc.fitroom.pool.query<{ n: number }>(
      `select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
        where t.identifier = 'fitroom_webhook' and j.run_at > now() + interval '60 seconds'`,
    );
    expect(queued.rows[0].n).toBeGreaterThanOrEqual(20 - 4);
    // The receiver was not hammered: at most the concurrent first attempts reached it.
    expect(receiver.deliveries.length).toBeLessThan(20);
  }, 90_000);

  it('a paused receiver does not pause another receiver', async () => {
    const fine = await startHttpsReceiver();
    try {
      const jobId = await submit(keyB, { mode: 'complete', webhookUrl: `${fine.url}/ok` });
      await fine.waitFor(1, () => true, 30_000);
      const t0 = Date.now();
      for (;;) {
        const [d] = await deliveriesOf([jobId]);
        if (d?.state === 'delivered') {
          expect(d.attempts).toHaveLength(1);
          expect(d.attempts[0]).toMatchObject({ attempt: 1, status: 200, error: null });
          break;
        }
        if (Date.now() - t0 > 20_000) throw new Error(`not delivered: ${JSON.stringify(d)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await fine.close();
    }
  });
});
