import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import ipaddr from 'ipaddr.js';
import { SafeHttp, responseCaching, type SafeHttpOptions } from '../../../adapters/http/safe-http.ts';
import { OutboundError, type OutboundFailure } from '../../../core/ports/outbound-http.ts';
import { testTlsOptions } from '../../support/tls.ts';

// Every server here listens on 127.0.0.0/8; nothing is ever sent anywhere else. Targets outside
// loopback appear only in tests that must be refused before connecting, and each is first checked
// to be a disallowed address, with connect and request timeouts as a second guard (seconds, not
// less: a loopback call on a loaded machine must not time out; the timeout tests set their own).

interface TestServer {
  port: number;
  /** `http(s)://<host>:<port>` */
  url: string;
  connections(): number;
  requests(): number;
  close(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

async function listen(server: http.Server | https.Server, host: string, scheme: 'http' | 'https'): Promise<TestServer> {
  let connections = 0;
  let requests = 0;
  server.on('connection', () => connections++);
  server.on('request', () => requests++);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`,
    connections: () => connections,
    requests: () => requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const startHttp = (handler: Handler, host = '127.0.0.1') => listen(http.createServer(handler), host, 'http');
const startHttps = (handler: Handler, host = '127.0.0.1') => listen(https.createServer(testTlsOptions(), handler), host, 'https');

const safe = (o: Partial<SafeHttpOptions> = {}) => new SafeHttp({ allowedPrivateNetworks: [], maxBytes: 1 << 20, timeoutMs: 15_000, maxRedirects: 3, connectTimeoutMs: 5_000, ...o });

async function failure(p: Promise<unknown>): Promise<OutboundError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(OutboundError);
    return e as OutboundError;
  }
  throw new Error('expected the request to be refused');
}

async function expectRefused(p: Promise<unknown>, reason: OutboundFailure, label = ''): Promise<void> {
  const e = await failure(p);
  expect(e.reason, `${label}: ${e.message}`).toBe(reason);
}

/** A name besides `localhost` that /etc/hosts maps to a loopback address, to exercise the DNS lookup path. */
function loopbackAlias(): string | null {
  let hosts: string;
  try {
    hosts = readFileSync('/etc/hosts', 'utf8');
  } catch {
    return null;
  }
  for (const line of hosts.split('\n')) {
    const [addr, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (addr !== '127.0.0.1') continue;
    const name = names.find((n) => n && !/(^|\.)localhost(\.localdomain)?$/i.test(n) && /^[a-z0-9.-]+$/i.test(n));
    if (name) return name;
  }
  return null;
}
const ALIAS = loopbackAlias();

/** Answers by path: /ok, /redirect?to=..&status=.., /chain/<n>, /big?len=..&declare=0|1, /stream, /drip, /hang, /status/<n>, /type/<media type>. */
function routes(opts: { streamed?: Streamed } = {}): Handler {
  return (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const p = u.pathname;
    if (p === '/ok') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(`ok ${req.method}`);
    if (p === '/redirect') return void res.writeHead(Number(u.searchParams.get('status') ?? 302), { location: u.searchParams.get('to') ?? '/ok' }).end();
    if (p.startsWith('/chain/')) {
      const n = Number(p.slice(7));
      if (n > 0) return void res.writeHead(302, { location: `/chain/${n - 1}` }).end();
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end('end of chain');
    }
    if (p === '/loop') return void res.writeHead(301, { location: '/loop' }).end();
    if (p === '/big') {
      const len = Number(u.searchParams.get('len'));
      const body = Buffer.alloc(len, 0x61);
      const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/octet-stream' };
      if (u.searchParams.get('declare') !== '0') headers['content-length'] = len;
      res.writeHead(200, headers);
      return void res.end(body);
    }
    if (p === '/stream') {
      // Chunked, no Content-Length, never ends on its own.
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(4096, 0x62);
      const timer = setInterval(() => {
        if (opts.streamed) opts.streamed.bytes += chunk.length;
        res.write(chunk);
      }, 2);
      res.on('close', () => {
        clearInterval(timer);
        opts.streamed?.onClose();
      });
      return;
    }
    if (p === '/drip') {
      // Headers at once, then one byte every 100 ms: never idle long, never done in time.
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('x'), 100);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (p === '/stall') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 100 });
      return void res.write('only part');
    }
    if (p === '/hang') return; // never answers
    if (p.startsWith('/status/')) return void res.writeHead(Number(p.slice(8))).end('status');
    if (p.startsWith('/type/')) return void res.writeHead(200, { 'content-type': decodeURIComponent(p.slice(6)) }).end('typed');
    res.writeHead(404).end();
  };
}

let loop: TestServer; // 127.0.0.1
let loop2: TestServer; // 127.0.0.2: blocked when only 127.0.0.1/32 is allowed
let loop6: TestServer | null = null; // ::1, when the machine has it
let tlsServer: TestServer;
/** What the endless /stream route sent, and a promise for its connection's close (reset per test). */
interface Streamed {
  bytes: number;
  closed: Promise<void>;
  onClose(): void;
}
const streamed: Streamed = { bytes: 0, closed: Promise.resolve(), onClose: () => undefined };

beforeAll(async () => {
  loop = await startHttp(routes({ streamed }));
  loop2 = await startHttp(routes(), '127.0.0.2');
  tlsServer = await startHttps(routes());
  loop6 = await startHttp(routes(), '::1').catch(() => null);
});
afterAll(async () => {
  await Promise.all([loop, loop2, tlsServer, loop6].map((s) => s?.close()));
});

describe('SafeHttp with no private networks allowed', () => {
  const client = safe();
  afterAll(() => client.close());

  it('refuses every spelling of a loopback target before connecting', async () => {
    const port = loop.port;
    const hosts = [
      '127.0.0.1',
      '127.1',
      '0x7f.1',
      '0x7f.0.0.1',
      '0x7f000001',
      '017700000001',
      '0177.0.0.1',
      '0177.1',
      '2130706433',
      '0',
      '0.0.0.0',
      '0x0',
      '[::]',
      '[::1]',
      '[0:0:0:0:0:0:0:1]',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[0:0:0:0:0:ffff:127.0.0.1]',
      '[::127.0.0.1]',
      'localhost',
      'LOCALHOST',
      'api.localhost',
    ];
    for (const h of hosts) {
      const normalised = new URL(`http://${h}/`).hostname.replace(/^\[|\]$/g, '');
      if (ipaddr.isValid(normalised)) expect(client.isAllowedAddress(normalised), `${h} → ${normalised}`).toBe(false);
      await expectRefused(client.fetch(`http://${h}:${port}/ok`), 'blocked_address', h);
      await expectRefused(client.post(`http://${h}:${port}/ok`, '{}', {}), 'blocked_address', `POST ${h}`);
    }
    if (loop6) await expectRefused(client.fetch(`${loop6.url}/ok`), 'blocked_address', '::1');
    // The fully qualified spelling goes through the lookup; here the resolver does not know it, elsewhere
    // it resolves to loopback and the lookup refuses it. Either way nothing connects.
    const fq = await failure(client.fetch(`http://localhost.:${port}/ok`));
    expect(['blocked_address', 'network']).toContain(fq.reason);
    expect(loop.connections()).toBe(0);
    expect(loop6?.connections() ?? 0).toBe(0);
  });

  it.skipIf(!ALIAS)('refuses a host name that resolves to loopback inside the connect-time lookup', async () => {
    await expectRefused(client.fetch(`http://${ALIAS}:${loop.port}/ok`), 'blocked_address', ALIAS!);
    await expectRefused(client.post(`http://${ALIAS}:${loop.port}/ok`, '{}', {}), 'blocked_address', ALIAS!);
    expect(loop.connections()).toBe(0);
    // The same name is reachable once loopback is allowed, so the refusal above came from the address check.
    const open = safe({ allowedPrivateNetworks: ['127.0.0.0/8'] });
    const r = await open.fetch(`http://${ALIAS}:${loop.port}/ok`);
    expect(new TextDecoder().decode(r.bytes)).toBe('ok GET');
    await open.close();
  });

  it('refuses private, link-local, metadata and other special ranges, however spelled', async () => {
    const hosts = [
      '012.1.2.3', // octal: 10.1.2.3
      '012.0.0.1',
      '10.0.0.1',
      '167772161', // 10.0.0.1
      '172.16.0.1',
      '172.31.255.254',
      '0xac.0x10.0.1',
      '192.168.1.1',
      '0300.0250.1.1', // 192.168.1.1
      '169.254.169.254',
      '0xa9.0xfe.0xa9.0xfe',
      '2852039166', // 169.254.169.254
      '100.64.0.1',
      '198.18.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '[fc00::1]',
      '[fd12:3456:789a::1]',
      '[fe80::1]',
      '[febf:ffff::1]',
      '[fec0::1]',
      '[ff02::1]',
      '[::ffff:10.0.0.1]',
      '[::ffff:169.254.169.254]',
      '[::ffff:a9fe:a9fe]',
      '[64:ff9b::7f00:1]',
      '[2002:7f00:1::1]',
      '[::a9fe:a9fe]',
    ];
    for (const h of hosts) {
      const url = `http://${h}/latest/meta-data/`;
      const normalised = new URL(url).hostname.replace(/^\[|\]$/g, '');
      expect(ipaddr.isValid(normalised), h).toBe(true);
      expect(client.isAllowedAddress(normalised), `${h} → ${normalised}`).toBe(false);
      await expectRefused(client.fetch(url), 'blocked_address', h);
      await expectRefused(client.post(`https://${h}/hook`, '{}', {}), 'blocked_address', `POST ${h}`);
    }
  });

  it('judges IPv4-mapped IPv6 as the IPv4 address it carries and passes public unicast', () => {
    expect(client.isAllowedAddress('::ffff:127.0.0.1')).toBe(false);
    // IPv4-compatible (::a.b.c.d): ipaddr.js classifies these as unicast, SafeHttp must not.
    expect(client.isAllowedAddress('::7f00:1')).toBe(false);
    expect(client.isAllowedAddress('::a9fe:a9fe')).toBe(false);
    expect(client.isAllowedAddress('::808:808')).toBe(false);
    expect(client.isAllowedAddress('::ffff:8.8.8.8')).toBe(true);
    expect(client.isAllowedAddress('8.8.8.8')).toBe(true);
    expect(client.isAllowedAddress('2606:4700::1111')).toBe(true);
    expect(client.isAllowedAddress('not an address')).toBe(false);
  });

  it('refuses schemes other than http(s) and URLs with credentials', async () => {
    const before = loop.connections();
    for (const url of ['file:///etc/passwd', `ftp://127.0.0.1:${loop.port}/`, `gopher://127.0.0.1:${loop.port}/_GET`, `ws://127.0.0.1:${loop.port}/`, 'javascript:alert(1)', 'FILE:///etc/hosts']) {
      await expectRefused(client.fetch(url), 'unsupported_scheme', url);
      await expectRefused(client.post(url, '{}', {}), 'unsupported_scheme', `POST ${url}`);
    }
    const open = safe({ allowedPrivateNetworks: ['127.0.0.0/8'] });
    for (const url of [`http://user:pass@127.0.0.1:${loop.port}/ok`, `http://user@127.0.0.1:${loop.port}/ok`, `http://:pass@127.0.0.1:${loop.port}/ok`]) {
      await expectRefused(open.fetch(url), 'invalid_url', url);
      await expectRefused(open.post(url, '{}', {}), 'invalid_url', `POST ${url}`);
    }
    for (const url of ['not a url', 'http://', '//127.0.0.1/ok', '']) await expectRefused(open.fetch(url), 'invalid_url', url);
    await open.close();
    expect(loop.connections()).toBe(before);
  });
});

describe('SafeHttp redirects', () => {
  // Only 127.0.0.1 may be reached; 127.0.0.2 stands for a blocked address that would answer.
  const client = safe({ allowedPrivateNetworks: ['127.0.0.1/32'] });
  afterAll(() => client.close());
  const via = (to: string, status = 302) => `${loop.url}/redirect?status=${status}&to=${encodeURIComponent(to)}`;

  it('follows a redirect between allowed addresses and reports the final URL', async () => {
    const r = await client.fetch(via('/chain/1'));
    expect(new TextDecoder().decode(r.bytes)).toBe('end of chain');
    expect(r.finalUrl).toBe(`${loop.url}/chain/0`);
  });

  it('refuses a redirect from an allowed server to a blocked address', async () => {
    const before = loop.requests();
    const targets = [`${loop2.url}/ok`, `http://0x7f.0.0.2:${loop2.port}/ok`, `http://[::ffff:127.0.0.2]:${loop2.port}/ok`, `http://[::1]:${loop.port}/ok`, 'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/', 'http://[fd00::1]/'];
    for (const to of targets) {
      for (const status of [301, 302, 303, 307, 308]) await expectRefused(client.fetch(via(to, status)), 'blocked_address', `${status} → ${to}`);
    }
    expect(loop.requests()).toBe(before + targets.length * 5);
    expect(loop2.connections()).toBe(0);
  });

  it.skipIf(!ALIAS)('refuses a redirect to a host name that resolves to a blocked address', async () => {
    // Here 127.0.0.2 is allowed and 127.0.0.1 (what the alias resolves to) is not.
    const only2 = safe({ allowedPrivateNetworks: ['127.0.0.2/32'] });
    const before = loop.connections();
    const asked = loop2.requests();
    await expectRefused(only2.fetch(`${loop2.url}/redirect?to=${encodeURIComponent(`http://${ALIAS}:${loop.port}/ok`)}`), 'blocked_address', ALIAS!);
    expect(loop2.requests()).toBe(asked + 1);
    expect(loop.connections()).toBe(before);
    await only2.close();
  });

  it('refuses a redirect chain longer than maxRedirects, and a loop', async () => {
    const r = await client.fetch(`${loop.url}/chain/3`);
    expect(new TextDecoder().decode(r.bytes)).toBe('end of chain');
    await expectRefused(client.fetch(`${loop.url}/chain/4`), 'too_many_redirects');
    await expectRefused(client.fetch(`${loop.url}/loop`), 'too_many_redirects');
    const strict = safe({ allowedPrivateNetworks: ['127.0.0.1/32'], maxRedirects: 0 });
    await expectRefused(strict.fetch(`${loop.url}/chain/1`), 'too_many_redirects');
    await strict.close();
  });

  it('follows https (the test CA is trusted) and refuses an https → http downgrade', async () => {
    const ok = await client.fetch(`${tlsServer.url}/ok`);
    expect(new TextDecoder().decode(ok.bytes)).toBe('ok GET');
    const viaName = await client.fetch(`https://localhost:${tlsServer.port}/chain/1`);
    expect(new TextDecoder().decode(viaName.bytes)).toBe('end of chain');
    // http → https is an upgrade and is followed.
    const up = await client.fetch(via(`${tlsServer.url}/ok`));
    expect(up.finalUrl).toBe(`${tlsServer.url}/ok`);
    const before = loop.requests();
    await expectRefused(client.fetch(`${tlsServer.url}/redirect?to=${encodeURIComponent(`${loop.url}/ok`)}`), 'unsupported_scheme', 'https → http');
    expect(loop.requests()).toBe(before);
  });

  it('refuses redirects to other schemes, to data: URLs and to URLs with credentials', async () => {
    await expectRefused(client.fetch(via('file:///etc/passwd')), 'unsupported_scheme');
    await expectRefused(client.fetch(via(`gopher://127.0.0.1:${loop.port}/_x`)), 'unsupported_scheme');
    await expectRefused(client.fetch(via('data:image/png;base64,iVBORw0KGgo=')), 'unsupported_scheme');
    await expectRefused(client.fetch(via(`http://user:pw@127.0.0.1:${loop.port}/ok`)), 'invalid_url');
  });
});

describe('SafeHttp bounds, with loopback allowed', () => {
  // A generous limit for the calls that must succeed on a loaded machine; the timeout test sets its own.
  const client = safe({ allowedPrivateNetworks: ['127.0.0.0/8', '::1/128'], maxBytes: 10_000, timeoutMs: 20_000 });
  afterAll(() => client.close());

  it('fetches and posts within bounds', async () => {
    const r = await client.fetch(`${loop.url}/big?len=10000`);
    expect(r.bytes.length).toBe(10_000);
    expect(r.contentType).toBe('application/octet-stream');
    expect(await client.post(`${loop.url}/ok`, '{"a":1}', { 'content-type': 'application/json' })).toEqual({ status: 200 });
    expect(await client.post(`${loop.url}/status/500`, '{}', {})).toEqual({ status: 500 });
  });

  it('caps the size by Content-Length before reading the body', async () => {
    await expectRefused(client.fetch(`${loop.url}/big?len=10001`), 'too_large');
    await expectRefused(client.fetch(`${loop.url}/big?len=5000`, { maxBytes: 4999 }), 'too_large');
    expect((await client.fetch(`${loop.url}/big?len=5000`, { maxBytes: 5000 })).bytes.length).toBe(5000);
  });

  it('caps the size by streamed bytes when there is no Content-Length, and drops the connection', async () => {
    await expectRefused(client.fetch(`${loop.url}/big?len=10001&declare=0`), 'too_large');
    expect((await client.fetch(`${loop.url}/big?len=10000&declare=0`)).bytes.length).toBe(10_000);
    streamed.bytes = 0;
    streamed.closed = new Promise((resolve) => (streamed.onClose = resolve));
    await expectRefused(client.fetch(`${loop.url}/stream`, { timeoutMs: 30_000 }), 'too_large');
    // the client dropped the connection: the server sees it close (the test's timeout if never)
    await streamed.closed;
    // The endless stream stopped soon after the cap, not after the timeout.
    expect(streamed.bytes).toBeLessThan(2_000_000);
  });

  it('times out on a server that never answers, that stalls mid-body, or that drips bytes forever', async () => {
    // Each would never end on its own: the answer itself shows the limit cut it.
    for (const p of ['/hang', '/stall', '/drip']) await expectRefused(client.fetch(`${loop.url}${p}`, { timeoutMs: 500 }), 'timeout', p);
    await expectRefused(client.fetch(`${loop.url}/hang`, { timeoutMs: 200 }), 'timeout');
    await expectRefused(client.post(`${loop.url}/hang`, '{}', {}, { timeoutMs: 200 }), 'timeout');
  });

  it('reports HTTP errors and unexpected media types', async () => {
    const e = await failure(client.fetch(`${loop.url}/status/404`));
    expect([e.reason, e.status]).toEqual(['http_status', 404]);
    await expectRefused(client.fetch(`${loop.url}/type/text%2Fhtml`, { accept: ['image/'] }), 'unsupported_type');
    const img = await client.fetch(`${loop.url}/type/image%2Fpng%3B%20q%3D1`, { accept: ['image/'] });
    expect(img.contentType).toBe('image/png');
  });

  it.skipIf(!ALIAS)('connects to an allowed host name through the checked lookup', async () => {
    const r = await client.fetch(`http://${ALIAS}:${loop.port}/ok`);
    expect(new TextDecoder().decode(r.bytes)).toBe('ok GET');
  });
});

describe('SafeHttp data: URLs', () => {
  const client = safe({ maxBytes: 300 });
  afterAll(() => client.close());
  const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 37) & 0xff);
  const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

  it('decodes base64 data URLs of the accepted image formats', async () => {
    for (const type of ['image/png', 'image/jpeg', 'image/jpg', 'image/gif', 'image/webp', 'image/svg+xml']) {
      const r = await client.fetch(`data:${type};base64,${b64(bytes)}`, { accept: ['image/'] });
      expect(r.contentType).toBe(type);
      expect(Buffer.from(r.bytes).equals(Buffer.from(bytes))).toBe(true);
    }
    const upper = await client.fetch(`DATA:IMAGE/PNG;base64,${b64(bytes.subarray(0, 10))}`);
    expect(upper.contentType).toBe('image/png');
    expect(upper.bytes).toEqual(bytes.subarray(0, 10));
    const withParam = await client.fetch(`data:image/svg+xml;charset=utf-8;base64,${b64(bytes.subarray(0, 3))}`);
    expect(withParam.bytes).toEqual(bytes.subarray(0, 3));
  });

  it('refuses a wrong media type and non-base64 or malformed data URLs', async () => {
    await expectRefused(client.fetch(`data:text/html;base64,${b64(bytes)}`, { accept: ['image/'] }), 'unsupported_type');
    await expectRefused(client.fetch(`data:application/octet-stream;base64,${b64(bytes)}`, { accept: ['image/'] }), 'unsupported_type');
    await expectRefused(client.fetch('data:image/png,raw-bytes'), 'invalid_url');
    await expectRefused(client.fetch('data:;base64,AAAA'), 'invalid_url');
    await expectRefused(client.fetch('data:base64,AAAA'), 'invalid_url');
  });

  it('caps the size before decoding', async () => {
    const over = new Uint8Array(301);
    await expectRefused(client.fetch(`data:image/png;base64,${b64(over)}`), 'too_large');
    await expectRefused(client.fetch(`data:image/png;base64,${b64(bytes)}`, { maxBytes: 299 }), 'too_large');
    // A payload far over the cap is refused on its length alone: it is never base64-decoded.
    const huge = `data:image/png;base64,${'A'.repeat(4_000_000)}`;
    const from = vi.spyOn(Buffer, 'from');
    try {
      await expectRefused(client.fetch(huge), 'too_large');
      expect(from.mock.calls.some((c: unknown[]) => c[1] === 'base64')).toBe(false);
      // The spy does see decoding when it happens.
      await client.fetch(`data:image/png;base64,${b64(bytes)}`);
      expect(from.mock.calls.some((c: unknown[]) => c[1] === 'base64')).toBe(true);
    } finally {
      from.mockRestore();
    }
  });
});

describe('SafeHttp conditional requests and caching headers', () => {
  const client = safe({ allowedPrivateNetworks: ['127.0.0.0/8', '::1/128'], timeoutMs: 20_000 });
  let origin: TestServer;
  const seen: http.IncomingHttpHeaders[] = [];
  beforeAll(async () => {
    origin = await startHttp((req, res) => {
      seen.push(req.headers);
      if (req.url === '/moved') return res.writeHead(302, { location: '/img' }).end();
      const headers = { 'cache-control': 'public, max-age=600', etag: '"v1"', 'last-modified': 'Tue, 01 Sep 2026 10:00:00 GMT' };
      if (req.headers['if-none-match'] === '"v1"') return res.writeHead(304, headers).end();
      res.writeHead(200, { ...headers, 'content-type': 'image/png' }).end('png bytes');
    });
  });
  afterAll(async () => {
    await client.close();
    await origin.close();
  });

  it('reports the response\'s freshness and validators, sends validators, and answers a 304 as notModified without bytes', async () => {
    const full = await client.fetch(`${origin.url}/img`, { accept: ['image/'] });
    expect(full.notModified).toBeUndefined();
    expect(full.caching).toMatchObject({ storable: true, etag: '"v1"', lastModified: 'Tue, 01 Sep 2026 10:00:00 GMT' });
    expect(full.caching!.freshForMs).toBeGreaterThan(0);
    expect(full.caching!.freshForMs).toBeLessThanOrEqual(600_000);

    const again = await client.fetch(`${origin.url}/img`, { accept: ['image/'], validators: { etag: '"v1"', lastModified: 'Tue, 01 Sep 2026 10:00:00 GMT' } });
    expect(seen.at(-1)).toMatchObject({ 'if-none-match': '"v1"', 'if-modified-since': 'Tue, 01 Sep 2026 10:00:00 GMT' });
    expect(again.notModified).toBe(true);
    expect(again.bytes.length).toBe(0);
    expect(again.caching).toMatchObject({ storable: true, etag: '"v1"' });

    // a changed image (another validator): the full answer
    const changed = await client.fetch(`${origin.url}/img`, { validators: { etag: '"v0"' } });
    expect(changed.notModified).toBeUndefined();
    expect(new TextDecoder().decode(changed.bytes)).toBe('png bytes');
    // no validators, no conditional headers
    await client.fetch(`${origin.url}/img`);
    expect(seen.at(-1)!['if-none-match']).toBeUndefined();
  });

  it('gives no caching for a response reached through a redirect (the redirect\'s lifetime is unknown)', async () => {
    const r = await client.fetch(`${origin.url}/moved`);
    expect(new TextDecoder().decode(r.bytes)).toBe('png bytes');
    expect(r.caching).toBeUndefined();
  });

  it('reads freshness as a shared cache would (RFC 9111 4.2), never guessing a lifetime', () => {
    const now = Date.parse('2026-11-27T10:00:00Z');
    const date = new Date(now).toUTCString();
    expect(responseCaching({ 'cache-control': 'max-age=60', date }, now)).toEqual({ storable: true, freshForMs: 60_000 });
    // s-maxage wins for a shared cache; Age and an old Date count against the lifetime
    expect(responseCaching({ 'cache-control': 'max-age=60, s-maxage=120', age: '20', date }, now).freshForMs).toBe(100_000);
    expect(responseCaching({ 'cache-control': 'max-age=60', date: new Date(now - 50_000).toUTCString() }, now).freshForMs).toBe(10_000);
    expect(responseCaching({ 'cache-control': 'max-age=60', age: '90', date }, now).freshForMs).toBe(0);
    // Expires relative to Date; an invalid Expires is already expired
    expect(responseCaching({ expires: new Date(now + 30_000).toUTCString(), date }, now).freshForMs).toBe(30_000);
    expect(responseCaching({ expires: '0', date }, now).freshForMs).toBe(0);
    // no-cache: kept but revalidated on each use; no-store and private: not kept
    expect(responseCaching({ 'cache-control': 'no-cache, max-age=600', etag: '"a"', date }, now)).toEqual({ storable: true, freshForMs: 0, etag: '"a"' });
    expect(responseCaching({ 'cache-control': 'no-store', date }, now).storable).toBe(false);
    expect(responseCaching({ 'cache-control': 'private, max-age=600', date }, now).storable).toBe(false);
    // nothing said: no lifetime (no heuristic), the validator alone
    expect(responseCaching({ 'last-modified': 'Tue, 01 Sep 2026 10:00:00 GMT' }, now)).toEqual({ storable: true, freshForMs: 0, lastModified: 'Tue, 01 Sep 2026 10:00:00 GMT' });
    expect(responseCaching({ 'cache-control': 'max-age=abc', date }, now).freshForMs).toBe(0);
  });
});
