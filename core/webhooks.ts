import { createHmac, randomUUID, timingSafeEqual, createHash } from 'node:crypto';
import type { JobRecord, JobKind } from './jobs.ts';

/**
 * Webhooks (spec, Events). Job callbacks are signed over the canonical form of the JSON payload:
 * keys sorted recursively, arrays in order, compact JSON.stringify output, UTF-8. Batch callbacks are
 * signed over the exact body bytes. The HMAC-SHA256 key is the UTF-8 text of the lowercase hex SHA-256
 * of the submitting API key (or of `account:<id>` / `storefront:<id>` for tokens): the job's owner hash.
 */

export type WebhookEvent = 'job.completed' | 'job.failed' | 'batch.completed';

export interface WebhookDelivery {
  id: string;
  jobId: string | null;
  event: WebhookEvent;
  url: string;
  /** The exact body to send. */
  body: string;
  /** The signature header value, computed when the delivery is created. */
  signature: string;
  timestamp: string;
}

/** Recursively sorts object keys; arrays keep their order. Matches JSON.stringify semantics otherwise. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(JSON.parse(JSON.stringify(value ?? null))));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v as object).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

/** The signing secret for a key: the lowercase hex SHA-256 of the key, used as UTF-8 text. */
export function webhookSecretForKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

/** Returns `sha256=<lowercase hex HMAC-SHA256>` of the bytes under the secret (UTF-8 text). */
export function signWebhook(secret: string, bytes: string | Uint8Array): string {
  return 'sha256=' + createHmac('sha256', Buffer.from(secret, 'utf8')).update(bytes).digest('hex');
}

export interface VerifyWebhookInput {
  /** The raw request body as received. */
  body: string | Uint8Array;
  signature: string | undefined | null;
  timestamp: string | undefined | null;
  /** The lowercase hex SHA-256 of your API key (see webhookSecretForKey). */
  secret: string;
  /** `job` callbacks are signed over the canonical JSON; `batch` callbacks over the raw body. */
  kind?: 'job' | 'batch';
  /** Replay window in seconds (default 300) around the signed timestamp. */
  toleranceSeconds?: number;
  now?: Date;
}

export type VerifyWebhookResult = { ok: true; payload: Record<string, unknown> } | { ok: false; reason: 'missing_signature' | 'bad_signature' | 'bad_payload' | 'timestamp_mismatch' | 'stale' };

/**
 * For receivers: verifies signature (constant time), that the header timestamp equals the signed
 * payload's timestamp, and that it lies within the replay window. Deduplicate by jobId + event yourself.
 */
export function verifyWebhook(input: VerifyWebhookInput): VerifyWebhookResult {
  if (!input.signature || !input.timestamp) return { ok: false, reason: 'missing_signature' };
  const raw = typeof input.body === 'string' ? input.body : Buffer.from(input.body).toString('utf8');
  let payload: Record<string, unknown>;
  let signed: string;
  try {
    payload = JSON.parse(raw);
    // Inside the try: canonicalising deeply nested (unauthenticated) JSON can overflow the stack.
    signed = input.kind === 'batch' ? raw : canonicalJson(payload);
  } catch {
    return { ok: false, reason: 'bad_payload' };
  }
  const expected = Buffer.from(signWebhook(input.secret, signed), 'utf8');
  const given = Buffer.from(input.signature, 'utf8');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: 'bad_signature' };
  if (payload.timestamp !== input.timestamp) return { ok: false, reason: 'timestamp_mismatch' };
  const t = Date.parse(input.timestamp);
  const now = (input.now ?? new Date()).getTime();
  if (!Number.isFinite(t) || Math.abs(now - t) > (input.toleranceSeconds ?? 300) * 1000) return { ok: false, reason: 'stale' };
  return { ok: true, payload };
}

/** Builds the signed delivery for a job reaching a terminal status. */
export function buildJobDelivery(job: JobRecord, event: 'job.completed' | 'job.failed', extra: { result?: unknown; results?: unknown; error?: string; errorCode?: string; cancelled?: boolean }, kind: Pick<JobKind, 'name'> | undefined, now = new Date()): WebhookDelivery {
  const timestamp = now.toISOString();
  const payload: Record<string, unknown> = {
    event,
    jobId: job.id,
    kind: kind?.name ?? job.kind,
    status: event === 'job.completed' ? 'completed' : 'failed',
    timestamp,
  };
  if (extra.result !== undefined && extra.result !== null) payload.result = extra.result;
  if (extra.results !== undefined && extra.results !== null) payload.results = extra.results;
  if (extra.error) payload.error = extra.error;
  if (extra.errorCode) payload.errorCode = extra.errorCode;
  if (extra.cancelled) payload.cancelled = true;
  const digitalTwinId = (extra.results as { digitalTwinId?: string }[] | undefined)?.[0]?.digitalTwinId ?? (extra.result as { digitalTwinId?: string } | undefined)?.digitalTwinId;
  if (digitalTwinId) payload.digitalTwinId = digitalTwinId;
  const body = canonicalJson(payload);
  return { id: randomUUID(), jobId: job.id, event, url: job.webhookUrl!, body, signature: signWebhook(job.ownerHash, body), timestamp };
}

/** Builds a batch delivery: signed over the exact body bytes. */
export function buildBatchDelivery(batchId: string, ownerHash: string, url: string, payload: Record<string, unknown>, now = new Date()): WebhookDelivery {
  const timestamp = now.toISOString();
  const body = JSON.stringify({ ...payload, event: 'batch.completed', batchId, timestamp });
  return { id: randomUUID(), jobId: null, event: 'batch.completed', url, body, signature: signWebhook(ownerHash, body), timestamp };
}

import type { WebhookStore } from './ports/webhook-store.ts';
import type { OutboundHttp } from './ports/outbound-http.ts';
import { OutboundError } from './ports/outbound-http.ts';

export interface WebhookSenderOptions {
  /** The whole attempt (connect, send, answer); the connect bound lives in the sender's OutboundHttp. */
  timeoutMs: number;
  /** Timeouts in a row after which a receiver is paused, and for how long. */
  breaker: { threshold: number; pauseMs: number };
}

/**
 * Sends one recorded delivery; throws while attempts remain so the queue retries with backoff.
 * Deliveries run in their own worker runner (never in job slots), each attempt bounded in time. A
 * receiver (host and port) that keeps timing out is paused by its circuit breaker: deliveries to it
 * are not sent but recorded as paused attempts and queued again for the end of the pause, without
 * using up an attempt; then one delivery probes it, and its outcome closes or reopens the breaker.
 */
export class WebhookSender {
  private readonly store: WebhookStore;
  private readonly http: OutboundHttp;
  private readonly opts: WebhookSenderOptions;
  constructor(store: WebhookStore, http: OutboundHttp, opts: WebhookSenderOptions) {
    this.store = store;
    this.http = http;
    this.opts = opts;
  }

  async deliver(id: string, attempt: number, maxAttempts: number): Promise<void> {
    const d = await this.store.get(id);
    if (!d || d.state !== 'pending') return;
    // Paused entries are not attempts: the number counts deliveries actually tried.
    const number = d.attempts.filter((a) => !a.paused).length + 1;
    const started = Date.now();
    let status: number | null = null;
    let error: string | null = null;
    let timedOut = false;
    if (!d.url.startsWith('https://')) {
      error = 'webhook URLs must use https';
    } else {
      const receiver = new URL(d.url).host;
      const pausedUntil = await this.store.receiverPausedUntil(receiver, this.opts.timeoutMs + 5000);
      if (pausedUntil) {
        const message = `receiver ${receiver} paused until ${pausedUntil.toISOString()} after ${this.opts.breaker.threshold} timeouts in a row; retried then`;
        await this.store.recordAttempt(id, { attempt: number, at: new Date(started), status: null, error: message, durationMs: 0, paused: true, retryAt: pausedUntil }, 'pending');
        await this.store.retryAt(id, pausedUntil, maxAttempts - attempt + 1);
        return;
      }
      try {
        const res = await this.http.post(d.url, d.body, {
          'content-type': 'application/json',
          'user-agent': 'Fitroom-Webhooks/1.2',
          'x-webhook-signature': d.signature,
          'x-webhook-timestamp': d.timestamp,
          'x-webhook-event': d.event,
          'x-webhook-id': d.id,
        }, { timeoutMs: this.opts.timeoutMs });
        status = res.status;
        if (status < 200 || status >= 300) error = `receiver answered HTTP ${status}`;
      } catch (e) {
        error = (e as Error).message || 'delivery failed';
        timedOut = isTimeout(e);
      }
      if (status !== null || timedOut) await this.store.recordReceiver(receiver, timedOut ? 'timeout' : 'answered', this.opts.breaker);
    }
    const ok = error === null;
    const last = attempt >= maxAttempts || d.url.startsWith('https://') === false;
    await this.store.recordAttempt(id, { attempt: number, at: new Date(started), status, error, durationMs: Date.now() - started }, ok ? 'delivered' : last ? 'failed' : 'pending');
    if (!ok && !last) throw new Error(`Webhook delivery ${id} attempt ${number} failed: ${error}`);
  }
}

/** Whether an outbound failure was a timeout (the breaker counts only those). */
export function isTimeout(e: unknown): boolean {
  return e instanceof OutboundError && e.reason === 'timeout';
}
