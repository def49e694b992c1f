import net from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createHash } from 'node:crypto';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { signWebhook, verifyWebhook } from '../../../core/webhooks.ts';
import { TOKENS } from '../../../core/tokens.ts';
import type { StoredDelivery } from '../../../core/ports/webhook-store.ts';
import { startTestService, waitForJob, type TestService } from '../../support/harness.ts';
import { testPlugin } from '../../support/test-plugin.ts';
import { startExample } from '../../support/examples.ts';
import { startHttpsReceiver, type HttpsReceiver, type ReceivedRequest } from '../../support/tls.ts';

// Only 127.0.0.1 is reachable for this service: a receiver on 127.0.0.2 stands for a blocked target
// that would answer if the address check let a request through.
const ALLOWED = '127.0.0.1/32,::1/128';

let svc: TestService;
let key: string;
let receiver: HttpsReceiver;
let blockedReceiver: HttpsReceiver;

/** Written here, independently of core's canonicalJson: sorted keys at every depth, arrays in order, compact. */
function canonical(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return JSON.stringify(sort(value));
}

const sha256Hex = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/** Reverses key order at every depth: same JSON value, different bytes. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .reverse()
        .map((k) => [k, reordered((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

async function submit(body: Record<string, unknown>, k = key): Promise<string> {
  const r = await svc.call('POST', '/api/v1/test-jobs', { key: k, body });
  expect(r.status, r.text).toBe(202);
  return r.body.jobId;
}

async function deliveriesFor(jobId: string): Promise<StoredDelivery[]> {
  return svc.fitroom.get(TOKENS.webhookStore).listForJob(jobId);
}

async function waitForDelivery(jobId: string, until: (d: StoredDelivery) => boolean, timeoutMs = 90_000): Promise<StoredDelivery> {
  const t0 = Date.now();
  for (;;) {
    const [d] = await deliveriesFor(jobId);
    if (d && until(d)) return d;
    if (Date.now() - t0 > timeoutMs) throw new Error(`delivery for ${jobId} not as expected: ${JSON.stringify(d)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Queue entries of the webhook task for a delivery that may still run again. */
async function queuedRetries(deliveryId: string): Promise<number> {
  const q = await svc.fitroom.pool.query(
    `select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
      where t.identifier = 'fitroom_webhook' and j.payload->>'deliveryId' = $1 and j.attempts < j.max_attempts`,
    [deliveryId],
  );
  return q.rows[0].n;
}

const forJob = (jobId: string) => (r: ReceivedRequest) => r.path.includes(jobId) || JSON.parse(r.body.toString('utf8')).jobId === jobId;

beforeAll(async () => {
  svc = await startTestService({ plugins: [testPlugin], env: { ALLOWED_PRIVATE_NETWORKS: ALLOWED } });
  key = (await svc.createKey()).key;
  receiver = await startHttpsReceiver();
  blockedReceiver = await startHttpsReceiver({ host: '127.0.0.2' });
});
afterAll(async () => {
  await receiver?.close();
  await blockedReceiver?.close();
  await svc?.close();
});

describe('webhooks through the HTTP API', () => {
  // The retry scenarios wait for graphile-worker's backoff (about 2.7 s, then 7.4 s); they are started
  // first and checked by the last tests, so their waiting overlaps the others.
  let retryJob: string;
  let recoverJob: string;
  let blockedJob: string;
  let downJob: string;

  beforeAll(async () => {
    receiver.setResponder((r) => {
      if (r.path.startsWith('/always-500')) return { status: 500, body: 'down' };
      if (r.path.startsWith('/recover')) {
        const n = receiver.deliveries.filter((d) => d.path === r.path).length;
        return n === 1 ? { status: 500, body: 'down' } : n === 2 ? 'hang' : { status: 204 };
      }
      return { status: 200, body: 'ok' };
    });
    retryJob = await submit({ mode: 'complete', webhookUrl: `${receiver.url}/always-500` });
    recoverJob = await submit({ mode: 'complete', webhookUrl: `${receiver.url}/recover` });
    blockedJob = await submit({ mode: 'complete', webhookUrl: `${blockedReceiver.url}/hook` });
    // a receiver that is down: nothing listens on this port (a listener opened and closed at once)
    const closed = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const port = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(port));
      });
    });
    downJob = await submit({ mode: 'complete', webhookUrl: `https://127.0.0.1:${closed}/hook` });
  });

  it('delivers job.completed signed with sha256=<lowercase hex> over the canonical JSON, keyed by SHA-256 of the API key', async () => {
    const jobId = await submit({ mode: 'complete', text: 'signed', webhookUrl: `${receiver.url}/hooks/completed?job=x` });
    const [req] = await receiver.waitFor(1, (r) => r.path.startsWith('/hooks/completed') && JSON.parse(r.body.toString()).jobId === jobId);
    expect(req.method).toBe('POST');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['x-webhook-event']).toBe('job.completed');
    const signature = String(req.headers['x-webhook-signature']);
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);

    const raw = req.body.toString('utf8');
    const payload = JSON.parse(raw);
    expect(payload).toMatchObject({ event: 'job.completed', jobId, kind: 'test-job', status: 'completed' });
    expect(req.headers['x-webhook-timestamp']).toBe(payload.timestamp);
    expect(Math.abs(Date.parse(payload.timestamp) - Date.now())).toBeLessThan(60_000);
    expect(payload.results).toHaveLength(1);
    expect(await (await fetch(payload.results[0].url)).text()).toBe('signed');

    // An independent verifier (GitHub's scheme) with our own canonical form and secret derivation.
    const secret = sha256Hex(key);
    expect(await octokitVerify(secret, canonical(payload), signature)).toBe(true);
    expect(await octokitVerify(sha256Hex(key + 'x'), canonical(payload), signature)).toBe(false);
    expect(await octokitVerify(key, canonical(payload), signature)).toBe(false); // the key itself is not the secret
    expect(await octokitVerify(secret, canonical({ ...payload, status: 'failed' }), signature)).toBe(false);
    // The signed bytes are the sorted form, not whatever key order a body happens to have.
    expect(await octokitVerify(secret, JSON.stringify(reordered(payload)), signature)).toBe(false);

    // The job read reports the same completion the webhook announced.
    const job = await waitForJob(svc, key, jobId);
    expect(job.status).toBe('completed');
    expect(job.results[0].url).toBe(payload.results[0].url);

    // core's verifyWebhook, as a receiver would call it.
    const timestamp = String(req.headers['x-webhook-timestamp']);
    const at = new Date(Date.parse(timestamp) + 1000);
    const ok = verifyWebhook({ body: raw, signature, timestamp, secret, now: at });
    expect(ok).toEqual({ ok: true, payload });
    expect(verifyWebhook({ body: req.body, signature, timestamp, secret, now: at }).ok).toBe(true);
    expect(verifyWebhook({ body: JSON.stringify(reordered(payload)), signature, timestamp, secret, now: at }).ok).toBe(true);
    expect(verifyWebhook({ body: raw.replace('"completed"', '"failed"'), signature, timestamp, secret, now: at })).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyWebhook({ body: raw, signature, timestamp, secret: sha256Hex('another key'), now: at })).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyWebhook({ body: raw, signature: signature.toUpperCase(), timestamp, secret, now: at })).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyWebhook({ body: raw, signature: 'sha256=' + signature.slice(7).toUpperCase(), timestamp, secret, now: at })).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyWebhook({ body: raw, signature: undefined, timestamp, secret, now: at })).toEqual({ ok: false, reason: 'missing_signature' });
    expect(verifyWebhook({ body: 'not json', signature, timestamp, secret, now: at })).toEqual({ ok: false, reason: 'bad_payload' });
    // Deeply nested JSON from anyone is refused, not thrown (it overflowed the stack while canonicalising).
    const deep = '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000);
    expect(verifyWebhook({ body: deep, signature, timestamp, secret, now: at })).toEqual({ ok: false, reason: 'bad_payload' });
    expect(verifyWebhook({ body: '['.repeat(20_000) + ']'.repeat(20_000), signature, timestamp, secret, now: at })).toEqual({ ok: false, reason: 'bad_payload' });
    const laterHeader = new Date(Date.parse(timestamp) + 1000).toISOString();
    expect(verifyWebhook({ body: raw, signature, timestamp: laterHeader, secret, now: at })).toEqual({ ok: false, reason: 'timestamp_mismatch' });
    const past = new Date(Date.parse(timestamp) + 301_000);
    const future = new Date(Date.parse(timestamp) - 301_000);
    expect(verifyWebhook({ body: raw, signature, timestamp, secret, now: past })).toEqual({ ok: false, reason: 'stale' });
    expect(verifyWebhook({ body: raw, signature, timestamp, secret, now: future })).toEqual({ ok: false, reason: 'stale' });
    expect(verifyWebhook({ body: raw, signature, timestamp, secret, now: past, toleranceSeconds: 600 }).ok).toBe(true);

    // One attempt, recorded as delivered with the receiver's status.
    const d = await waitForDelivery(jobId, (x) => x.state === 'delivered');
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0]).toMatchObject({ attempt: 1, status: 200, error: null });
    expect(d.signature).toBe(signature);
    expect(d.body).toBe(raw);
  });

  it('delivers job.failed with the error, signed the same way', async () => {
    const jobId = await submit({ mode: 'fail', webhookUrl: `${receiver.url}/hooks/failed` });
    const [req] = await receiver.waitFor(1, (r) => r.path === '/hooks/failed' && JSON.parse(r.body.toString()).jobId === jobId);
    const raw = req.body.toString('utf8');
    const payload = JSON.parse(raw);
    expect(payload).toEqual({ event: 'job.failed', jobId, kind: 'test-job', status: 'failed', error: 'The test input asked to fail', errorCode: 'VALIDATION_ERROR', timestamp: payload.timestamp });
    expect(req.headers['x-webhook-event']).toBe('job.failed');
    expect(req.headers['x-webhook-timestamp']).toBe(payload.timestamp);
    const signature = String(req.headers['x-webhook-signature']);
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(await octokitVerify(sha256Hex(key), canonical(payload), signature)).toBe(true);
    expect(verifyWebhook({ body: raw, signature, timestamp: payload.timestamp, secret: sha256Hex(key) }).ok).toBe(true);
    expect((await waitForJob(svc, key, jobId)).status).toBe('failed');
  });

  it('delivers job.failed with cancelled: true when the submitter cancels a running job', async () => {
    const jobId = await submit({ mode: 'wait', waitMs: 20_000, webhookUrl: `${receiver.url}/hooks/cancelled` });
    await waitForJob(svc, key, jobId, (j) => j.status === 'processing');
    expect((await svc.call('DELETE', `/api/v1/jobs/${jobId}`, { key })).status).toBe(200);
    const [req] = await receiver.waitFor(1, (r) => r.path === '/hooks/cancelled' && JSON.parse(r.body.toString()).jobId === jobId);
    const payload = JSON.parse(req.body.toString('utf8'));
    expect(payload).toEqual({ event: 'job.failed', jobId, kind: 'test-job', status: 'failed', error: 'The job was cancelled', errorCode: 'CANCELLED', cancelled: true, timestamp: payload.timestamp });
    expect(await octokitVerify(sha256Hex(key), canonical(payload), String(req.headers['x-webhook-signature']))).toBe(true);
  });

  it('signs with the submitting key: another key of the service gets its own secret', async () => {
    const other = (await svc.createKey()).key;
    const jobId = await submit({ mode: 'complete', webhookUrl: `${receiver.url}/hooks/other` }, other);
    const [req] = await receiver.waitFor(1, (r) => r.path === '/hooks/other' && JSON.parse(r.body.toString()).jobId === jobId);
    const payload = JSON.parse(req.body.toString());
    const signature = String(req.headers['x-webhook-signature']);
    expect(await octokitVerify(sha256Hex(other), canonical(payload), signature)).toBe(true);
    expect(await octokitVerify(sha256Hex(key), canonical(payload), signature)).toBe(false);
  });

  it('refuses a non-HTTPS webhookUrl at submission with VALIDATION_ERROR on webhookUrl', async () => {
    for (const webhookUrl of [`http://127.0.0.1:9/hook`, 'ftp://example.com/hook', 'not a url', `${receiver.url.replace('https', 'HTTP')}/x`]) {
      const r = await svc.call('POST', '/api/v1/test-jobs', { key, body: { mode: 'complete', webhookUrl } });
      expect(r.status, webhookUrl).toBe(400);
      expect(r.body.success).toBe(false);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
      expect(r.body.error.details.map((d: { field: string }) => d.field)).toContain('webhookUrl');
    }
    const plain = await svc.call('POST', '/api/v1/test-jobs', { key, body: { mode: 'complete', webhookUrl: 'http://example.com/hook' } });
    expect(plain.body.error.details.find((d: { field: string }) => d.field === 'webhookUrl').message).toMatch(/https/);
  });

  it('is accepted once by the example receiver, which refuses replays, tampering and stale signatures', async () => {
    // run as its README says (TLS terminated by the receiver itself), on the Node a newcomer's shell finds
    const example = await startExample(['examples/webhook-receiver/server.mjs'], { FITROOM_API_KEY: key, TLS_CERT: inject('tlsCertPath'), TLS_KEY: inject('tlsKeyPath'), PORT: '0' }, /^listening on https:/);
    const url = `https://127.0.0.1:${example.port}/fitroom`;
    const events = () => example.lines.filter((l) => /^(job|batch)\./.test(l));
    try {
      const jobId = await submit({ mode: 'complete', webhookUrl: url });
      const d = await waitForDelivery(jobId, (x) => x.state !== 'pending');
      expect(d.state).toBe('delivered');
      await example.waitForLine(/^job\.completed /);
      expect(events()).toEqual([`job.completed ${jobId}: completed`]);

      const send = (body: string, headers: Record<string, string>) => fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
      const signed = { 'x-webhook-signature': d.signature, 'x-webhook-timestamp': d.timestamp };
      const replay = await send(d.body, signed);
      expect([replay.status, await replay.json()]).toEqual([200, { received: true, duplicate: true }]);
      const tampered = await send(d.body.replace('"completed"', '"failed"'), signed);
      expect([tampered.status, await tampered.json()]).toEqual([401, { error: 'bad_signature' }]);
      const otherKey = await send(d.body, { ...signed, 'x-webhook-signature': signWebhook(sha256Hex('someone else'), d.body) });
      expect(otherKey.status).toBe(401);
      const old = new Date(Date.now() - 3_600_000).toISOString();
      const stalePayload = canonical({ ...JSON.parse(d.body), jobId: '00000000-0000-4000-8000-000000000001', timestamp: old });
      const stale = await send(stalePayload, { 'x-webhook-signature': signWebhook(sha256Hex(key), stalePayload), 'x-webhook-timestamp': old });
      expect([stale.status, await stale.json()]).toEqual([401, { error: 'stale' }]);
      const deep = await send('['.repeat(20_000) + ']'.repeat(20_000), signed);
      expect([deep.status, await deep.json()]).toEqual([400, { error: 'bad_payload' }]);
      // A different event for the same job is a new event, not a duplicate.
      const now = new Date().toISOString();
      const failedPayload = canonical({ event: 'job.failed', jobId, kind: 'test-job', status: 'failed', error: 'x', timestamp: now });
      const failed = await send(failedPayload, { 'x-webhook-signature': signWebhook(sha256Hex(key), failedPayload), 'x-webhook-timestamp': now });
      expect(failed.status).toBe(200);
      await example.waitForLine(/^job\.failed /);
      expect(events()).toEqual([`job.completed ${jobId}: completed`, `job.failed ${jobId}: failed x`]);
      // a batch callback is signed over the exact bytes it was sent with
      const batchBody = `{"timestamp":"${now}", "event":"batch.completed","batchId":"b-1"}`;
      const batch = await send(batchBody, { 'x-webhook-signature': signWebhook(sha256Hex(key), batchBody), 'x-webhook-timestamp': now });
      expect(batch.status).toBe(200);
    } finally {
      await example.stop();
    }
  });

  it('records a webhook target at a blocked address as a failed attempt and never connects to it', async () => {
    const job = await waitForJob(svc, key, blockedJob);
    expect(job.status).toBe('completed');
    const d = await waitForDelivery(blockedJob, (x) => x.attempts.length >= 1);
    expect(d.attempts[0]).toMatchObject({ attempt: 1, status: null });
    expect(d.attempts[0].error).toMatch(/127\.0\.0\.2 is not a public address/);
    // Still pending after a blocked attempt, the target is checked again at each later attempt.
    if (d.state === 'pending') expect(await queuedRetries(d.id)).toBe(1);
    expect(blockedReceiver.connections()).toBe(0);
    expect(blockedReceiver.deliveries).toHaveLength(0);
  });

  it('records each attempt at a receiver that is down (connection refused), 3 in all, and the job stays completed', async () => {
    const d = await waitForDelivery(downJob, (x) => x.state === 'failed', 90_000);
    expect(d.attempts).toHaveLength(3);
    for (const a of d.attempts) expect(a.error).toMatch(/ECONNREFUSED|refused|connect/i);
    expect((await waitForJob(svc, key, downJob)).status).toBe('completed');
    expect((await svc.call('GET', '/api/v1/health')).status).toBe(200);
  });

  it('retries a receiver answering 500: exactly 3 recorded attempts with backoff, and the job stays completed', async () => {
    const reqs = await receiver.waitFor(3, (r) => r.path === '/always-500', 90_000);
    const d = await waitForDelivery(retryJob, (x) => x.state === 'failed', 90_000);
    expect(d.attempts.map((a) => [a.attempt, a.status, a.error])).toEqual([
      [1, 500, 'receiver answered HTTP 500'],
      [2, 500, 'receiver answered HTTP 500'],
      [3, 500, 'receiver answered HTTP 500'],
    ]);
    // graphile-worker's backoff: about exp(1) s, then exp(2) s.
    const gaps = [d.attempts[1].at.getTime() - d.attempts[0].at.getTime(), d.attempts[2].at.getTime() - d.attempts[1].at.getTime()];
    expect(gaps[0]).toBeGreaterThan(2000);
    expect(gaps[1]).toBeGreaterThan(6000);
    expect(gaps[1]).toBeGreaterThan(gaps[0]);
    // Every attempt carried the same signed delivery.
    expect(new Set(reqs.map((r) => r.headers['x-webhook-id'])).size).toBe(1);
    expect(new Set(reqs.map((r) => r.body.toString())).size).toBe(1);
    // No fourth attempt is scheduled: the queue holds no retryable entry for this delivery.
    expect(await queuedRetries(d.id)).toBe(0);
    expect(receiver.deliveries.filter((r) => r.path === '/always-500')).toHaveLength(3);
    // A delivery never changes the job.
    const job = await waitForJob(svc, key, retryJob);
    expect(job.status).toBe('completed');
    expect(job.error).toBeUndefined();
  });

  it('recovers after a 500 and a hung receiver: the third attempt is delivered', async () => {
    const d = await waitForDelivery(recoverJob, (x) => x.state !== 'pending', 90_000);
    expect(d.state).toBe('delivered');
    expect(d.attempts.map((a) => [a.attempt, a.status])).toEqual([
      [1, 500],
      [2, null],
      [3, 204],
    ]);
    expect(d.attempts[1].error).toMatch(/timed out/);
    // The hung attempt was cut by WEBHOOK_TIMEOUT_MS (3 s in tests; the error above), not left open.
    expect(d.attempts[1].durationMs).toBeGreaterThanOrEqual(2900);
    expect((await waitForJob(svc, key, recoverJob)).status).toBe('completed');
    expect(receiver.deliveries.filter(forJob(recoverJob))).toHaveLength(3);
  });
});
