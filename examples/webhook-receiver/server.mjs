/* global process, console, Buffer */
// A minimal Fitroom webhook receiver: verifies the signature and the signed timestamp, enforces a
// replay window, and acknowledges each job (or batch) event once. Delivery is at least once, so a
// repeated delivery is answered 200 without being processed again.
// Plain Node (20+), no dependencies: `node examples/webhook-receiver/server.mjs`.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The signing secret: the lowercase hex SHA-256 of the API key, used as UTF-8 text. */
export const webhookSecretForKey = (apiKey) => createHash('sha256').update(apiKey, 'utf8').digest('hex');

const sortKeys = (v) =>
  Array.isArray(v) ? v.map(sortKeys) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])])) : v;

/**
 * Checks one delivery. Job callbacks are signed over the canonical JSON (keys sorted recursively,
 * compact), batch callbacks over the exact body bytes. Returns { ok: true, payload } or
 * { ok: false, reason } with reason missing_signature, bad_payload, bad_signature, timestamp_mismatch or stale.
 */
export function verifyWebhook({ body, signature, timestamp, secret, toleranceSeconds = 300, now = Date.now() }) {
  if (!signature || !timestamp) return { ok: false, reason: 'missing_signature' };
  const raw = Buffer.from(body).toString('utf8');
  let payload;
  let signed;
  try {
    payload = JSON.parse(raw);
    // inside the try: sorting deeply nested (unauthenticated) JSON can overflow the stack
    signed = payload?.event === 'batch.completed' ? raw : JSON.stringify(sortKeys(payload));
  } catch {
    return { ok: false, reason: 'bad_payload' };
  }
  const expected = Buffer.from('sha256=' + createHmac('sha256', Buffer.from(secret, 'utf8')).update(signed).digest('hex'), 'utf8');
  const given = Buffer.from(signature, 'utf8');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: 'bad_signature' };
  // the header alone is not signed: it must equal the signed payload's timestamp
  if (payload.timestamp !== timestamp) return { ok: false, reason: 'timestamp_mismatch' };
  const t = Date.parse(timestamp);
  if (!Number.isFinite(t) || Math.abs(now - t) > toleranceSeconds * 1000) return { ok: false, reason: 'stale' };
  return { ok: true, payload };
}

/**
 * A plain (req, res) listener for any Node HTTP server. `onEvent(payload)` is called once per verified,
 * new event; throw to answer 500 and let Fitroom retry.
 */
export function createReceiver({ apiKey, onEvent, toleranceSeconds = 300, maxBodyBytes = 1 << 20 }) {
  const secret = webhookSecretForKey(apiKey);
  // jobId|batchId + event -> when it was first seen. Entries older than the replay window can go:
  // a replay that old fails the timestamp check anyway.
  const seen = new Map();

  return (req, res) => {
    const reply = (status, body) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.method !== 'POST') return reply(405, { error: 'POST only' });
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > maxBodyBytes) {
        reply(413, { error: 'body too large' });
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', async () => {
      if (size > maxBodyBytes) return;
      const result = verifyWebhook({ body: Buffer.concat(chunks), signature: req.headers['x-webhook-signature'], timestamp: req.headers['x-webhook-timestamp'], secret, toleranceSeconds });
      if (!result.ok) return reply(result.reason === 'bad_payload' ? 400 : 401, { error: result.reason });
      const { payload } = result;

      const now = Date.now();
      for (const [k, at] of seen) if (now - at > 2 * toleranceSeconds * 1000) seen.delete(k);
      const id = `${payload.jobId ?? payload.batchId}|${payload.event}`;
      if (seen.has(id)) return reply(200, { received: true, duplicate: true });
      seen.set(id, now);
      try {
        await onEvent(payload);
      } catch {
        seen.delete(id); // not processed: accept the retry
        return reply(500, { error: 'handler failed' });
      }
      reply(200, { received: true });
    });
  };
}

// Run directly: FITROOM_API_KEY=... [TLS_CERT=cert.pem TLS_KEY=key.pem] [PORT=8443] node examples/webhook-receiver/server.mjs
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const apiKey = process.env.FITROOM_API_KEY;
  if (!apiKey) {
    console.error('Set FITROOM_API_KEY to the key you submit jobs with.');
    process.exit(1);
  }
  const listener = createReceiver({
    apiKey,
    onEvent: (p) => console.log(`${p.event} ${p.jobId ?? p.batchId}: ${p.status ?? ''} ${p.error ?? ''}`.trim()),
  });
  const { TLS_CERT, TLS_KEY } = process.env;
  // Fitroom only calls https URLs: terminate TLS here, or run plain HTTP behind a TLS proxy.
  const server = TLS_CERT && TLS_KEY ? https.createServer({ cert: readFileSync(TLS_CERT), key: readFileSync(TLS_KEY) }, listener) : http.createServer(listener);
  const port = Number(process.env.PORT ?? (TLS_CERT ? 8443 : 8080));
  server.listen(port, () => console.log(`listening on ${TLS_CERT ? 'https' : 'http'}://0.0.0.0:${server.address().port}`));
}
