/**
 * Defects an OpenAPI-driven fuzzer and a hostile client found (hardening, second round): request
 * bodies that are not what their Content-Encoding says, bodies nested thousands deep, a valid JSON
 * body with a `__proto__` key, anonymous uploads that reached the store before the 401, a solved
 * challenge used up by a request that then failed validation, and the warm-up during a database
 * outage. Each answers in the error envelope with the status the document declares.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import net from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { solveChallenge } from 'altcha-lib/v1';
import { startArService, type ArTestService } from '../../plugins/ar-host/support.ts';
import { startTestService, type TestService } from '../../support/harness.ts';
import { proxiedDatabaseUrl, type TcpProxy } from '../../support/tcp-proxy.ts';
import { PASS_COOKIE } from '../../../core/bot-verification.ts';
import { MAX_JSON_DEPTH } from '../../../core/pipeline.ts';

let svc: ArTestService;
let key: string;

beforeAll(async () => {
  svc = await startArService({ worker: false });
  ({ key } = await svc.createKey());
}, 120_000);
afterAll(async () => svc?.close());

async function post(base: string, path: string, body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), headers: res.headers };
}

describe('request bodies', () => {
  const sizeFitting = (body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string>) => post(svc.api, '/api/v1/size-fitting', body, { 'x-api-key': key, ...headers });

  it.each(['gzip', 'deflate', 'br'])('a body that is not %s data under that Content-Encoding answers 400, not 500', async (encoding) => {
    const r = await sizeFitting('{"digitalTwinId": "not compressed at all"}', { 'content-encoding': encoding });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('VALIDATION_ERROR');
    expect(r.body.error.details).toEqual([{ field: '(body)', message: `is not valid ${encoding} data` }]);
  });

  it('a well-formed gzip or brotli body is read; an unknown encoding answers 415', async () => {
    for (const [encoding, bytes] of [['gzip', new Uint8Array(gzipSync('{}'))], ['br', new Uint8Array(brotliCompressSync('{}'))]] as const) {
      const r = await sizeFitting(bytes, { 'content-encoding': encoding });
      expect(r.status).toBe(400);
      expect(r.body.error.details.map((d: { field: string }) => d.field)).toEqual(['digitalTwinId', 'products']);
    }
    const zstd = await sizeFitting('{}', { 'content-encoding': 'zstd' });
    expect(zstd.status).toBe(415);
    expect(zstd.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('a valid JSON body with a __proto__ key is refused as a reserved key, not as malformed JSON', async () => {
    const r = await sizeFitting('{"__proto__": {"admin": true}}', {});
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual([{ field: '__proto__', message: 'is a reserved key' }]);
  });

  it('an anonymous bug report nested 5000 deep answers 400 naming the depth; one at the limit is stored', async () => {
    const nest = (n: number) => {
      let v = '1';
      for (let i = 0; i < n; i++) v = `{"a":${v}}`;
      return v;
    };
    const deep = await post(svc.ar, '/tryon/api/report_bug', `{"message":"deep","context":${nest(5000)}}`);
    expect(deep.status).toBe(400);
    expect(deep.body.error.message).toBe('The request body is nested too deeply');
    expect(deep.body.error.details[0].message).toBe(`is nested deeper than ${MAX_JSON_DEPTH} levels`);
    const ok = await post(svc.ar, '/tryon/api/report_bug', `{"message":"at the limit","context":${nest(MAX_JSON_DEPTH - 1)}}`);
    expect(ok.status).toBe(201);
  });
});

describe('anonymous uploads', () => {
  /** Sends the headers and the first part of a 30 MB multipart upload, then waits for an answer without sending the rest. */
  function partialUpload(fields: string): Promise<string> {
    const u = new URL(svc.ar);
    const head = `--b\r\n${fields}Content-Disposition: form-data; name="file"; filename="big.glb"\r\nContent-Type: model/gltf-binary\r\n\r\n`;
    const total = head.length + 30 * 1024 * 1024 - 4096;
    return new Promise((resolve, reject) => {
      const sock = net.connect(Number(u.port), u.hostname);
      let out = '';
      sock.on('data', (d) => {
        out += d.toString('latin1');
        if (out.includes('\r\n\r\n') && out.includes('}')) {
          sock.destroy();
          resolve(out);
        }
      });
      sock.on('error', reject);
      sock.write(`POST /tryon/api/upload_shoe HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: ${total}\r\n\r\n${head}`);
      sock.write(Buffer.alloc(1024 * 1024, 7)); // 1 MB of the file; the rest never comes
    });
  }

  it('are refused with 401 as the file part starts, before the body has arrived and before any byte is stored', async () => {
    const none = await partialUpload('');
    expect(none).toMatch(/^HTTP\/1\.1 401/);
    expect(none).toContain('"code":"unauthorized"');
    const wrong = await partialUpload('Content-Disposition: form-data; name="token"\r\n\r\nfr_live_not-a-real-key-000000000000\r\n--b\r\n');
    expect(wrong).toMatch(/^HTTP\/1\.1 401/);
    expect(wrong).toContain('"code":"invalid_api_key"');
  });

  it('with a valid form token before the file are stored as before', async () => {
    const { makeShoeGlb } = await import('../../support/shoes.ts');
    const form = new FormData();
    form.append('token', key);
    form.append('file', new Blob([new Uint8Array(await makeShoeGlb({ side: 'left' }))]), 'shoe.glb');
    const r = await svc.arCall('POST', '/tryon/api/upload_shoe', { form });
    expect(r.status, r.text).toBe(200);
    expect(r.body.id).toMatch(/^[0-9a-f]+$/);
  });
});

describe('bot verification', () => {
  let guarded: TestService;
  beforeAll(async () => {
    guarded = await startTestService({ worker: false });
  }, 120_000);
  afterAll(async () => guarded?.close());

  it('a solved challenge on a request that then fails validation still sets the pass, which then works', async () => {
    const { key: shopKey } = await guarded.createKey({ accountId: 'challenge-shop' });
    const token = (await guarded.call('POST', '/api/v1/storefront/tokens', { key: shopKey, body: {} })).body.token;
    const c = (await guarded.call('GET', '/api/v1/challenge')).body.challenge;
    const s = await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise;
    const challenge = Buffer.from(JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number: s!.number, salt: c.salt, signature: c.signature })).toString('base64');
    const invalid = await guarded.call('POST', '/api/v1/virtual-fitting', { key: token, body: { topGarment: 42 }, headers: { 'x-challenge-token': challenge } });
    expect(invalid.status).toBe(400);
    const cookie = invalid.headers.getSetCookie().find((v) => v.startsWith(`${PASS_COOKIE}=`));
    expect(cookie, 'the pass minted by the used-up challenge').toBeDefined();
    expect(invalid.headers.get('x-service-verification-ttl')).toBe('3600');
    const again = await guarded.call('POST', '/api/v1/virtual-fitting', { key: token, body: { topGarment: 42 }, headers: { cookie: cookie!.split(';')[0] } });
    expect(again.status, 'the pass is accepted: validation, not bot verification, answers').toBe(400);
  });
});

describe('the warm-up during a database outage', () => {
  let proxied: TestService;
  let proxy: TcpProxy;
  beforeAll(async () => {
    proxied = await startTestService({
      worker: false,
      wrapDatabaseUrl: async (url) => {
        const p = await proxiedDatabaseUrl(url);
        proxy = p.proxy;
        return p.url;
      },
    });
  }, 120_000);
  afterAll(async () => {
    proxy?.restore();
    await proxied?.close();
    await proxy?.close();
  });

  it('answers 200 with database.reachable false (as the README promises), and health 503', async () => {
    const { key: k } = await proxied.createKey();
    const before = await proxied.call('GET', '/api/v1/warmup', { key: k });
    expect(before.status).toBe(200);
    expect(before.body.database.reachable).toBe(true);
    proxy.cut();
    const during = await proxied.call('GET', '/api/v1/warmup', { key: k });
    expect(during.status, during.text).toBe(200);
    expect(during.body.status).toBe('degraded');
    expect(during.body.database.reachable).toBe(false);
    expect(during.body.queue.warm).toBe(false);
    const health = await proxied.call('GET', '/api/v1/health');
    expect(health.status).toBe(503);
    proxy.restore();
  });
});
