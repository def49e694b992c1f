/**
 * Issue 28, defect 3: a tenant's slow webhook receiver must not delay another tenant's jobs.
 * Real servers on loopback: an HTTPS receiver that accepts each delivery and never answers, 20
 * submissions of tenant A pointing at it, and tenant B's job run to the end while every webhook slot
 * is held by one of those deliveries (no timing compared: the slots stay held until the test lets go).
 * Then the receiver's circuit breaker: after WEBHOOK_BREAKER_THRESHOLD timeouts in a row the receiver
 * is paused, and deliveries to it are recorded as paused attempts and queued for the end of the pause
 * instead of connecting again.
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

async function submit(key: string, body: Record<string, unknown>, on: TestService = svc): Promise<string> {
  const r = await on.call('POST', '/api/v1/test-jobs', { key, body });
  expect(r.status, r.text).toBe(202);
  return r.body.jobId;
}

async function deliveriesOf(jobIds: string[], on: TestService = svc): Promise<StoredDelivery[]> {
  const store = on.fitroom.get(TOKENS.webhookStore);
  return (await Promise.all(jobIds.map((id) => store.listForJob(id)))).flat();
}

describe('webhook isolation', () => {
  let hungJobs: string[] = [];

  it("another tenant's job runs to the end while every webhook slot hangs on a slow receiver", async () => {
    // A service of its own whose deliveries wait the longest allowed (60 s) and never trip the breaker,
    // so that the slots stay held for the whole check, however slowly the machine runs.
    const slots = 4;
    const held = await startTestService({ plugins: [testPlugin], concurrency: 2, env: { WEBHOOK_TIMEOUT_MS: '60000', WEBHOOK_CONCURRENCY: String(slots), WEBHOOK_BREAKER_THRESHOLD: '1000' } });
    const slow = await startHttpsReceiver();
    slow.setResponder(() => 'hang');
    try {
      const a = (await held.createKey({ accountId: 'tenant-a' })).key;
      const b = (await held.createKey({ accountId: 'tenant-b' })).key;
      const jobsA = await Promise.all(Array.from({ length: 20 }, () => submit(a, { mode: 'complete', webhookUrl: `${slow.url}/slow` }, held)));
      for (const id of jobsA) expect((await waitForJob(held, a, id, undefined, 120_000)).status).toBe('completed');
      // every webhook slot is taken by a delivery the receiver never answers
      await slow.waitFor(slots, () => true, 60_000);

      const jobB = await submit(b, { mode: 'wait', waitMs: 500 }, held);
      expect((await waitForJob(held, b, jobB, undefined, 120_000)).status).toBe('completed');
      // ...and all of them were still held when B's job ended: none finished, none started after them
      expect(slow.deliveries).toHaveLength(slots);
      expect((await deliveriesOf(jobsA, held)).flatMap((d) => d.attempts)).toEqual([]);
    } finally {
      await slow.close();
      await held.close();
    }
  }, 240_000);

  it('pauses the receiver after its timeouts and records the paused deliveries with their retry time', async () => {
    // A's 20 cheap jobs, every one with a webhook to the receiver that never answers.
    hungJobs = await Promise.all(Array.from({ length: 20 }, () => submit(keyA, { mode: 'complete', webhookUrl: `${receiver.url}/slow` })));
    // Every delivery either timed out or was paused; wait until each has a record.
    const t0 = Date.now();
    let ds: StoredDelivery[];
    for (;;) {
      ds = await deliveriesOf(hungJobs);
      if (ds.length === 20 && ds.every((d) => d.attempts.length > 0) && ds.filter((d) => d.attempts.some((a) => a.paused)).length >= 20 - 4) break;
      if (Date.now() - t0 > 150_000) throw new Error(`deliveries not paused: ${JSON.stringify(ds.map((d) => d.attempts))}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const timeouts = ds.flatMap((d) => d.attempts.filter((a) => !a.paused));
    for (const a of timeouts) {
      expect(a.status).toBeNull();
      // cut by WEBHOOK_TIMEOUT_MS (3 s), not held open
      expect(a.error).toMatch(/timed out/);
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
  }, 240_000);

  it('a paused receiver does not pause another receiver', async () => {
    const fine = await startHttpsReceiver();
    try {
      const jobId = await submit(keyB, { mode: 'complete', webhookUrl: `${fine.url}/ok` });
      await fine.waitFor(1, () => true, 60_000);
      const t0 = Date.now();
      for (;;) {
        const [d] = await deliveriesOf([jobId]);
        if (d?.state === 'delivered') {
          expect(d.attempts).toHaveLength(1);
          expect(d.attempts[0]).toMatchObject({ attempt: 1, status: 200, error: null });
          break;
        }
        if (Date.now() - t0 > 60_000) throw new Error(`not delivered: ${JSON.stringify(d)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await fine.close();
    }
  });
});
