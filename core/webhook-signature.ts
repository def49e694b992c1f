import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Fitroom's webhook signing scheme and verifier (spec, Events). Depends on node:crypto only: Fitroom
 * signs with it (core/webhooks.ts), and packages/webhooks publishes it as plain JavaScript with types
 * (`@fitroom/webhooks`) for receivers that load it from node_modules, where Node does not strip types.
 */

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

