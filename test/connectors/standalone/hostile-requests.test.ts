/**
 * Requests a hostile or broken client sends (issue: hardening, defects 1, 5 and 6): truncated and
 * malformed multipart bodies on every upload route, connections aborted mid-upload, slow senders,
 * wrong content types, extra parts, prototype keys and NUL bytes. Each answers in the error envelope
 * with a 4xx, and the process keeps serving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import net from 'node:net';
import { readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { glbForm, startArService, type ArTestService } from '../../plugins/ar-host/support.ts';
import { makeShoeGlb } from '../../support/shoes.ts';

let svc: ArTestService;
let key: string;
let objectId: string;

beforeAll(async () => {
  svc = await startArService({ worker: false, env: { HTTP_HEADERS_TIMEOUT_MS: '400', HTTP_REQUEST_TIMEOUT_MS: '1500', BOT_VERIFIER: 'off' } });
  ({ key } = await svc.createKey());
  const up = await svc.arCall('POST', '/tryon/api/upload_shoe', { bearer: key, form: glbForm(await makeShoeGlb({ side: 'left' }), { name: 'Target' }) });
  objectId = up.body.id;
});
afterAll(async () => svc?.close());

/**
 * Sends raw bytes on one connection and returns what the server answered (or '' when it closed).
 * The socket is not half-closed: Node's HTTP server drops a request whose client sends FIN first.
 */
function raw(base: string, request: string | Buffer, opts: { endAfterMs?: number } = {}): Promise<string> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(u.port), u.hostname);
    let out = '';
    sock.on('data', (d) => (out += d.toString('latin1')));
    sock.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve(out) : reject(e)));
    sock.on('close', () => resolve(out));
    sock.write(request);
    if (opts.endAfterMs !== undefined) setTimeout(() => sock.destroy(), opts.endAfterMs);
  });
}

function statusOf(response: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);
}

function bodyOf(response: string): any {
  const i = response.indexOf('\r\n\r\n');
  try {
    return JSON.parse(response.slice(i + 4));
  } catch {
    return null;
  }
}

function truncatedMultipart(pathname: string, host: string, auth: Record<string, string>): string {
  const body = '--b\r\nContent-Disposition: form-data; name="file"; filename="a.glb"\r\nContent-Type: model/gltf-binary\r\n\r\nglTF';
  const headers = { Host: host, 'Content-Type': 'multipart/form-data; boundary=b', 'Content-Length': String(body.length), Connection: 'close', ...auth };
  return `POST ${pathname} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n${body}`;
}

async function alive() {
  const h = await svc.call('GET', '/api/v1/health');
  expect(h.status).toBe(200);
}

function uploadsLeft(): string[] {
  const dir = path.join(svc.dataDir, 'blobs', 'uploads');
  return existsSync(dir) ? readdirSync(dir) : [];
}

describe('multipart bodies that end without their closing boundary', () => {
  const routes: [string, 'api' | 'ar', () => string][] = [
    ['/api/v1/files/upload', 'api', () => '/api/v1/files/upload'],
    ['/tryon/api/upload_shoe', 'ar', () => '/tryon/api/upload_shoe'],
    ['/api/upload_mesh', 'ar', () => '/api/upload_mesh'],
    ['/api/upload_textures', 'ar', () => `/api/upload_textures?id=${objectId}`],
    ['/api/replace_mesh', 'ar', () => `/api/replace_mesh?id=${objectId}`],
  ];
  for (const [name, host, target] of routes) {
    it(`${name}: 400 in the envelope, with and without credentials, and the service lives on`, async () => {
      const base = host === 'api' ? svc.api : svc.ar;
      const u = new URL(base);
      const auths: Record<string, string>[] = host === 'api' ? [{ 'X-API-Key': key }, {}] : [{ Authorization: `Bearer ${key}` }, {}];
      for (const auth of auths) {
        const res = await raw(base, truncatedMultipart(target(), u.host, auth));
        const status = statusOf(res);
        expect(status, res.slice(0, 300)).toBeGreaterThanOrEqual(400);
        expect(status).toBeLessThan(500);
        expect(bodyOf(res)?.success).toBe(false);
      }
      await alive();
    });
  }

  it('a connection closed in the middle of a file leaves no partial upload and the service serving', async () => {
    const before = new Set(uploadsLeft());
    const u = new URL(svc.api);
    const head = `POST /api/v1/files/upload HTTP/1.1\r\nHost: ${u.host}\r\nX-API-Key: ${key}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 5000000\r\n\r\n--b\r\nContent-Disposition: form-data; name="file"; filename="a.glb"\r\n\r\n`;
    await raw(svc.api, Buffer.concat([Buffer.from(head), Buffer.alloc(200_000, 7)]), { endAfterMs: 150 });
    await alive();
    // nothing new is left behind once the server has noticed the close and cleaned up (earlier tests'
    // cleanups may still remove their own files)
    await expect.poll(() => uploadsLeft().filter((f) => f.endsWith('.tmp') || !before.has(f)), { timeout: 90_000 }).toEqual([]);
  });

  it('garbage, a missing boundary, a wrong content type and extra parts are told apart', async () => {
    const form = new FormData();
    form.append('note', 'x');
    form.append('other', new Blob([new Uint8Array(10)]), 'other.bin');
    form.append('file', new Blob([(await makeShoeGlb({ side: 'left' })) as Uint8Array<ArrayBuffer>]), 'shoe.glb');
    form.append('file', new Blob([new Uint8Array(10)]), 'second.glb');
    const extra = await fetch(`${svc.api}/api/v1/files/upload`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
    expect(extra.status).toBe(200);

    const noBoundary = await svc.call('POST', '/api/v1/files/upload', { key, body: 'abc', headers: { 'content-type': 'multipart/form-data' } });
    expect(noBoundary.status).toBe(400);
    expect(noBoundary.body.error.code).toBe('VALIDATION_ERROR');
    const garbage = await svc.call('POST', '/api/v1/files/upload', { key, body: '\u0000\u0001garbage', headers: { 'content-type': 'multipart/form-data; boundary=zz' } });
    expect(garbage.status).toBe(400);
    const json = await svc.call('POST', '/api/v1/files/upload', { key, body: { file: 'x' } });
    expect(json.status).toBe(415);
    expect(json.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    await alive();
  });
});

describe('slow senders', () => {
  it('a client that never finishes its headers is cut off; others are served meanwhile', async () => {
    const u = new URL(svc.api);
    const pending = raw(svc.api, `GET /api/v1/health HTTP/1.1\r\nHost: ${u.host}\r\nX-Slow: `);
    await alive();
    // the server ends it (never finished, it would wait for the test's timeout)
    const answer = await pending;
    expect(answer === '' || statusOf(answer) === 408).toBe(true);
  });

  it('a body that trickles in beyond the request timeout is cut off', async () => {
    const u = new URL(svc.api);
    const pending = raw(svc.api, `POST /api/v1/virtual-fitting HTTP/1.1\r\nHost: ${u.host}\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":`);
    const answer = await pending;
    expect(answer === '' || statusOf(answer) === 408 || statusOf(answer) === 400).toBe(true);
    await alive();
  });
});

describe('large JSON bodies (over 256 KB: read into shared memory as they arrive, parsed on a pool thread)', () => {
  const filler = 'x'.repeat(600 * 1024);

  it('a valid one is parsed and validated as a small one is', async () => {
    const r = await svc.call('POST', '/api/v1/generate', { key, body: JSON.stringify({ prompt: 'x', inputImages: [filler] }) });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('VALIDATION_ERROR');
    expect(r.body.error.details.map((d: { field: string }) => d.field).join(' ')).toContain('inputImages');
  });

  it('malformed JSON, invalid UTF-8 and prototype keys answer 400 in the envelope', async () => {
    const cut = await svc.call('POST', '/api/v1/generate', { key, body: `{"prompt":"x","inputImages":["${filler}` });
    expect(cut.status).toBe(400);
    expect(cut.body.error.details).toEqual([{ field: '(body)', message: 'is not valid JSON' }]);
    const bytes = Buffer.concat([Buffer.from('{"prompt":"'), Buffer.alloc(600 * 1024, 0xff), Buffer.from('"}')]);
    const notUtf8 = await fetch(`${svc.api}/api/v1/generate`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: bytes });
    expect(notUtf8.status).toBe(400);
    expect(((await notUtf8.json()) as any).error.code).toBe('VALIDATION_ERROR');
    const proto = await svc.call('POST', '/api/v1/generate', { key, body: `{"prompt":"x","pad":"${filler}","__proto__":{"admin":true}}` });
    expect(proto.status).toBe(400);
    expect(proto.body.error.details).toEqual([{ field: '__proto__', message: 'is a reserved key' }]);
  });

  it('one that ends before its Content-Length leaves the service serving', async () => {
    const u = new URL(svc.api);
    const head = `POST /api/v1/generate HTTP/1.1\r\nHost: ${u.host}\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n{"prompt":"`;
    await raw(svc.api, Buffer.concat([Buffer.from(head), Buffer.alloc(400_000, 0x61)]), { endAfterMs: 150 });
    await alive();
  });
});

describe('prototype keys and NUL bytes', () => {
  it('__proto__, constructor and prototype keys are refused with VALIDATION_ERROR at any depth', async () => {
    const bodies = ['{"__proto__":{"admin":true},"prompt":"x"}', '{"prompt":"x","options":{"constructor":{"prototype":{"y":1}}}}', '{"inputImages":[{"__proto__":1}],"prompt":"x"}'];
    for (const b of bodies) {
      const r = await svc.call('POST', '/api/v1/generate', { key, body: b });
      expect(r.status, b).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
    }
    const admin = await svc.call('POST', '/admin/v1/keys', { headers: { 'x-admin-key': 'test-admin-key-0123456789' }, body: '{"name":"k","__proto__":{"kind":"service"}}' });
    expect(admin.status).toBe(400);
  });

  it('NUL and control bytes in paths and queries answer 400, never 500', async () => {
    const paths = ['/tryonapi/get_object_properties/%00', '/tryonapi/get_materials/a%00b', '/api/get_object_properties/%00', '/api/get_materials/%00', '/api/get_gltf/%00', '/api/get_usdz/%00', `/tryon/api/autofit_status?id=%00`];
    for (const p of paths) {
      const r = await svc.arCall('GET', p);
      expect(r.status, p).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
    }
    for (const p of ['/api/v1/jobs/%00', '/api/v1/jobs/%FF%FE', '/api/v1/files/%C0%AF', '/api/v1/digital-twin/%00']) {
      const r = await svc.call('GET', p, { key });
      expect(r.status, p).toBeGreaterThanOrEqual(400);
      expect(r.status, p).toBeLessThan(500);
    }
    await alive();
  });
});

describe('the AR host try-on shortcuts', () => {
  it('answer with a status URL on the API host that works for the same key', async () => {
    const { images } = await import('../../plugins/tryon/helpers.ts');
    const img = await images();
    const r = await svc.arCall('POST', '/tryon/api/garment_fit_on', { bearer: key, body: { image: img.face, garment: img.top } });
    expect(r.status, r.text).toBe(202);
    expect(r.body.statusUrl).toBe(`${svc.api}/api/v1/jobs/${r.body.jobId}`);
    const polled = await fetch(r.body.statusUrl, { headers: { 'x-api-key': key } });
    expect(polled.status).toBe(200);
  });
});
