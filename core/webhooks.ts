import { randomUUID } from 'node:crypto';
import type { JobRecord, JobKind } from './jobs.ts';
import { canonicalJson, signWebhook } from './webhook-signature.ts';

// The receiver's side (signing scheme and verifier) lives in webhook-signature.ts, which depends on
// node:crypto only and is also published as plain JavaScript: the package @fitroom/webhooks.
export { canonicalJson, signWebhook, verifyWebhook, webhookSecretForKey } from './webhook-signature.ts';
export type { VerifyWebhookInput, VerifyWebhookResult } from './webhook-signature.ts';

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
