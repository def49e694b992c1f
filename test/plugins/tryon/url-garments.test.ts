/**
 * Result-cache hits for garments sent as product image URLs, as shops send them: the cache key is the
 * images' content, so a URL serving the same bytes as a data URL hits the same entry; the images'
 * hashes are reused while their origin says the response is fresh (no request to it), revalidated
 * with a conditional request once stale (304: still a hit), and a changed image misses. On a miss the
 * images are fetched again and the key is made from what was fetched. Real PostgreSQL, real loopback
 * origins (the harness allows 127.0.0.0/8).
 */
import http from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, waitForJob, type TestService } from '../../support/harness.ts';
import { tryOnCacheKey } from '../../../core/tryon/cache-key.ts';
import { images, makeTwin, type Images } from './helpers.ts';

/** A shop's image origin: `cacheControl` and an ETag on every answer, 304 to a matching If-None-Match; counts what it answered. */
async function origin(cacheControl: string) {
  const files = new Map<string, Buffer>();
  const log: ('full' | '304')[] = [];
  const server = http.createServer((req, res) => {
    const bytes = files.get(req.url ?? '');
    if (!bytes) return res.writeHead(404).end();
    const etag = `"${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}"`;
    const headers = { 'cache-control': cacheControl, etag, date: new Date().toUTCString() };
    if (req.headers['if-none-match'] === etag) {
      log.push('304');
      return res.writeHead(304, headers).end();
    }
    log.push('full');
    res.writeHead(200, { ...headers, 'content-type': 'image/png', 'content-length': bytes.length }).end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, files, log, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const bytesOf = (dataUrl: string) => Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let svc: TestService;
let db: pg.Client;
let img: Images;
let key: string;
let twinId: string;
let resultPath: string;
let cdn: Awaited<ReturnType<typeof origin>>;
let strict: Awaited<ReturnType<typeof origin>>;

beforeAll(async () => {
  svc = await startTestService();
  db = new pg.Client({ connectionString: svc.dbUrl });
  await db.connect();
  img = await images();
  ({ key } = await svc.createKey());
  twinId = await makeTwin(svc, key, img.face);
  cdn = await origin('public, max-age=600');
  strict = await origin('no-cache');
  for (const o of [cdn, strict]) {
    o.files.set('/top.png', bytesOf(img.top));
    o.files.set('/bottom.png', bytesOf(img.bottom));
  }
  // the cache filled from data URLs
  const r = await svc.call('POST', '/api/v1/virtual-fitting', { key, body: { digitalTwinId: twinId, topGarment: img.top, bottomGarment: img.bottom } });
  expect(r.status, r.text).toBe(202);
  const job = await waitForJob(svc, key, r.body.jobId, undefined, 90_000);
  expect(job.status, JSON.stringify(job)).toBe('completed');
  resultPath = new URL(job.results[0].url).pathname;
}, 180_000);

afterAll(async () => {
  await cdn?.close();
  await strict?.close();
  await db?.end();
  await svc?.close();
});

const fitting = (base: string, options?: Record<string, unknown>) =>
  svc.call('POST', '/api/v1/virtual-fitting', { key, body: { digitalTwinId: twinId, topGarment: `${base}/top.png`, bottomGarment: `${base}/bottom.png`, ...(options ? { options } : {}) } });

describe('virtual fitting with product image URLs', () => {
  it('hits the entry the same images made as data URLs, and while the origin says they are fresh asks it nothing', async () => {
    const first = await fitting(cdn.base);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ status: 'completed', digitalTwinId: twinId });
    expect(new URL(first.body.results[0].url).pathname).toBe(resultPath);
    expect(cdn.log).toEqual(['full', 'full']);

    const again = await fitting(cdn.base);
    expect(again.status, again.text).toBe(200);
    expect(new URL(again.body.results[0].url).pathname).toBe(resultPath);
    expect(cdn.log).toEqual(['full', 'full']);
  });

  it('revalidates stale hashes with a conditional request (304: a hit), and misses once an image changed', async () => {
    expect((await fitting(strict.base)).status).toBe(200);
    expect(strict.log).toEqual(['full', 'full']);
    const hit = await fitting(strict.base);
    expect(hit.status, hit.text).toBe(200);
    expect(new URL(hit.body.results[0].url).pathname).toBe(resultPath);
    expect(strict.log).toEqual(['full', 'full', '304', '304']);

    // the shop replaced the top at the same URL: a new result
    strict.files.set('/top.png', bytesOf(img.top2));
    const miss = await fitting(strict.base);
    expect(miss.status, miss.text).toBe(202);
    // the bottom confirmed (304), the top changed (full); the miss then fetches the bottom's bytes for its job
    expect(strict.log.slice(4).sort()).toEqual(['304', 'full', 'full']);
    await svc.call('DELETE', `/api/v1/jobs/${miss.body.jobId}`, { key });
  });

  it('on a miss keyed on known hashes, fetches the images again and keys the job on what it fetched', async () => {
    // within max-age the origin replaced the top; a request the cache cannot answer (draft) fetches both again
    cdn.files.set('/top.png', bytesOf(img.top2));
    const before = cdn.log.length;
    const miss = await fitting(cdn.base, { quality: 'draft' });
    expect(miss.status, miss.text).toBe(202);
    expect(cdn.log.slice(before)).toEqual(['full', 'full']);
    const { rows } = await db.query('select input from jobs where id = $1', [miss.body.jobId]);
    const expected = tryOnCacheKey({
      task: 'tryon',
      identity: `twin:${twinId}`,
      garments: { topGarment: [sha(bytesOf(img.top2))], bottomGarment: [sha(bytesOf(img.bottom))] },
      product: null,
      options: { quality: 'draft', preserveBackground: true, promptPreset: 'clothing-1' },
    });
    expect(rows[0].input.cacheKey).toBe(expected);
    await svc.call('DELETE', `/api/v1/jobs/${miss.body.jobId}`, { key });
  });

  it('keys a large fetched image (hashed on a pool thread) on its exact bytes', async () => {
    // over 256 KB: a PNG with 400 KB of padding after its end, hashed off the event loop
    const large = Buffer.concat([bytesOf(img.top), Buffer.alloc(400_000, 7)]);
    cdn.files.set('/top.png', large);
    const miss = await fitting(cdn.base, { quality: 'high' });
    expect(miss.status, miss.text).toBe(202);
    const { rows } = await db.query('select input from jobs where id = $1', [miss.body.jobId]);
    const expected = tryOnCacheKey({
      task: 'tryon',
      identity: `twin:${twinId}`,
      garments: { topGarment: [sha(large)], bottomGarment: [sha(bytesOf(img.bottom))] },
      product: null,
      options: { quality: 'high', preserveBackground: true, promptPreset: 'clothing-1' },
    });
    expect(rows[0].input.cacheKey).toBe(expected);
    await svc.call('DELETE', `/api/v1/jobs/${miss.body.jobId}`, { key });
  });
});
