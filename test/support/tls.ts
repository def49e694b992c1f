import https from 'node:https';
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inject } from 'vitest';

/** One request as the receiver saw it: the raw body bytes, before any parsing. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Date.now() when the body had been read. */
  at: number;
}

/** How to answer: a status (and body), or `'hang'` to never answer (until the receiver closes). */
export type Responder = (req: ReceivedRequest) => { status: number; body?: string } | 'hang';

export interface HttpsReceiver {
  /** `https://<host>:<port>`, no trailing slash. */
  url: string;
  deliveries: ReceivedRequest[];
  /** TCP connections accepted so far (a refused-before-connect request never shows up here). */
  connections(): number;
  setResponder(fn: Responder): void;
  /** Resolves once `count` requests matching `where` have arrived. */
  waitFor(count: number, where?: (r: ReceivedRequest) => boolean, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** TLS options for servers in tests: the certificate made by global-setup (SAN localhost, 127.0.0.1, ::1). */
export function testTlsOptions(): { key: Buffer; cert: Buffer } {
  return { key: readFileSync(inject('tlsKeyPath')), cert: readFileSync(inject('tlsCertPath')) };
}

/**
 * An HTTPS server on loopback that records every request. Its certificate is signed by the test CA,
 * which every test process trusts through NODE_EXTRA_CA_CERTS, so no client needs special options.
 */
export async function startHttpsReceiver(opts: { host?: string } = {}): Promise<HttpsReceiver> {
  const host = opts.host ?? '127.0.0.1';
  const deliveries: ReceivedRequest[] = [];
  let connections = 0;
  let responder: Responder = () => ({ status: 200, body: 'ok' });
  const server = https.createServer(testTlsOptions(), (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks), at: Date.now() };
      deliveries.push(r);
      const answer = responder(r);
      if (answer === 'hang') return;
      res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body ?? '');
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    deliveries,
    connections: () => connections,
    setResponder(fn) {
      responder = fn;
    },
    async waitFor(count, where = () => true, timeoutMs = 60_000) {
      const t0 = Date.now();
      for (;;) {
        const found = deliveries.filter(where);
        if (found.length >= count) return found;
        if (Date.now() - t0 > timeoutMs) throw new Error(`expected ${count} requests, got ${found.length}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
