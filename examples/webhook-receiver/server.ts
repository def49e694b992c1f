import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { verifyWebhook, webhookSecretForKey } from 'fitroom/webhooks';

/**
 * A minimal Fitroom webhook receiver: verifies the signature and the signed timestamp, enforces a
 * replay window, and acknowledges each job (or batch) event once. Delivery is at least once, so a
 * repeated delivery is answered 200 without being processed again.
 */

export interface ReceiverOptions {
  /** Your API key; the signing secret is the lowercase hex SHA-256 of it (webhookSecretForKey). */
  apiKey: string;
  /** Called once per verified, new event. Throw to answer 500 and let Fitroom retry. */
  onEvent(payload: Record<string, unknown>): void | Promise<void>;
  /** Replay window around the signed timestamp, seconds. */
  toleranceSeconds?: number;
  maxBodyBytes?: number;
}

export function createReceiver(opts: ReceiverOptions): http.RequestListener {
  const secret = webhookSecretForKey(opts.apiKey);
  const tolerance = opts.toleranceSeconds ?? 300;
  const maxBody = opts.maxBodyBytes ?? 1 << 20;
  // jobId|batchId + event -> when it was first seen. Entries older than the replay window can go:
  // a replay that old fails the timestamp check anyway.
  const seen = new Map<string, number>();

  return (req, res) => {
    const reply = (status: number, body: Record<string, unknown>) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.method !== 'POST') return reply(405, { error: 'POST only' });
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBody) {
        reply(413, { error: 'body too large' });
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', async () => {
      if (size > maxBody) return;
      const raw = Buffer.concat(chunks);
      // Job callbacks are signed over the canonical JSON, batch callbacks over the raw bytes.
      let kind: 'job' | 'batch' = 'job';
      try {
        if (JSON.parse(raw.toString('utf8'))?.event === 'batch.completed') kind = 'batch';
      } catch {
        return reply(400, { error: 'bad_payload' });
      }
      const result = verifyWebhook({
        body: raw,
        signature: req.headers['x-webhook-signature'] as string | undefined,
        timestamp: req.headers['x-webhook-timestamp'] as string | undefined,
        secret,
        kind,
        toleranceSeconds: tolerance,
      });
      if (!result.ok) return reply(result.reason === 'bad_payload' ? 400 : 401, { error: result.reason });
      const { payload } = result;

      const now = Date.now();
      for (const [k, at] of seen) if (now - at > 2 * tolerance * 1000) seen.delete(k);
      const id = `${payload.jobId ?? payload.batchId}|${payload.event}`;
      if (seen.has(id)) return reply(200, { received: true, duplicate: true });
      seen.set(id, now);
      try {
        await opts.onEvent(payload);
      } catch {
        seen.delete(id); // not processed: accept the retry
        return reply(500, { error: 'handler failed' });
      }
      reply(200, { received: true });
    });
  };
}

// Run directly: FITROOM_API_KEY=... [TLS_CERT=cert.pem TLS_KEY=key.pem] [PORT=8443] node examples/webhook-receiver/server.ts
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
  server.listen(port, () => console.log(`listening on ${TLS_CERT ? 'https' : 'http'}://0.0.0.0:${port}`));
}
