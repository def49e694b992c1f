import { beforeAll, describe, expect, it } from 'vitest';

/*
 * Fixtures follow Meshy's API reference as of 2026-11: `POST /openapi/v1/multi-image-to-3d` (image_urls as
 * URLs or data URIs, ai_model `meshy-5` | `meshy-6` | `latest`, which resolves to Meshy 6 since the
 * 2026-01-26 changelog) → `{result: id}`; `GET .../{id}` PENDING / IN_PROGRESS / SUCCEEDED / FAILED with
 * model_urls.glb; `DELETE .../{id}` deletes a task (200); `GET /openapi/v1/balance` → `{balance}`; errors
 * `{message}` with 400, 401, 402, 403, 404, 429 and 5xx (docs.meshy.ai/en/api/errors). Meshy documents no
 * idempotency key and no cancel other than the delete.
 */
import nock from 'nock';
import { NodeIO } from '@gltf-transform/core';
import { MeshyProductReconstructor, pickSpread } from '../../../adapters/meshy/product-reconstructor.ts';
import { ProviderError } from '../../../core/ports/image-model.ts';
import type { ReconstructionRequest, ReconstructionView, VendorTask } from '../../../core/ports/product-reconstructor.ts';
import { FAST_POLL, productView, tinyGlb, useNock } from '../vendor-helpers.ts';

const KEY = 'msy-test-key';
const API = 'https://api.meshy.ai';
const ASSETS = 'https://assets.meshy.ai';

let glb: Uint8Array;
const views: ReconstructionView[] = [];

function request(over: Partial<ReconstructionRequest> = {}): ReconstructionRequest {
  return { views: views.slice(0, 4), productType: 'shoe', quality: 'default', signal: new AbortController().signal, ...over };
}
const fast = { apiKey: KEY, ...FAST_POLL };
const dataUri = (v: ReconstructionView) => `data:image/png;base64,${Buffer.from(v.encoded.bytes).toString('base64')}`;

useNock();
beforeAll(async () => {
  glb = await tinyGlb('leather', [0.5, 0.3, 0.2, 1], 0.8);
  for (let i = 0; i < 6; i++) views.push(await productView(i * 60, [40 * i, 80, 40]));
});

describe('MeshyProductReconstructor', () => {
  it('refuses to start without a key', () => {
    expect(() => new MeshyProductReconstructor({ apiKey: '' })).toThrow(/MESHY_API_KEY/);
  });

  it('creates a multi-image task from data URIs, reports progress and downloads the GLB without the key', async () => {
    let body: any;
    const api = nock(API, { reqheaders: { authorization: `Bearer ${KEY}` } })
      .post('/openapi/v1/multi-image-to-3d', (b) => ((body = b), true))
      .reply(202, { result: 'task-1' })
      .get('/openapi/v1/multi-image-to-3d/task-1')
      .reply(200, { id: 'task-1', status: 'PENDING', progress: 0 })
      .get('/openapi/v1/multi-image-to-3d/task-1')
      .reply(200, { id: 'task-1', status: 'IN_PROGRESS', progress: 40 })
      .get('/openapi/v1/multi-image-to-3d/task-1')
      .reply(200, { id: 'task-1', status: 'IN_PROGRESS', progress: 85 })
      .get('/openapi/v1/multi-image-to-3d/task-1')
      .reply(200, { id: 'task-1', status: 'SUCCEEDED', progress: 100, model_urls: { glb: `${ASSETS}/task-1/model.glb?Expires=1` } });
    const cdn = nock(ASSETS, { badheaders: ['authorization'] }).get('/task-1/model.glb').query(true).reply(200, Buffer.from(glb), { 'content-type': 'model/gltf-binary' });
    const progress: number[] = [];
    const noted: string[] = [];
    const result = await new MeshyProductReconstructor(fast).reconstruct(request({ onProgress: (f) => progress.push(f), note: (m) => noted.push(m) }));
    expect(api.isDone() && cdn.isDone()).toBe(true);
    expect(body.image_urls).toEqual(views.slice(0, 4).map(dataUri));
    // a pinned model: `latest` would change which model runs without notice
    expect(body).toMatchObject({ ai_model: 'meshy-6', should_texture: true, enable_pbr: true, topology: 'triangle', target_polycount: 30_000 });
    expect(Buffer.from(result.glb).equals(Buffer.from(glb))).toBe(true);
    expect(progress).toHaveLength(5);
    [0, 0, 0.36, 0.765, 1].forEach((f, i) => expect(progress[i]).toBeCloseTo(f, 9));
    expect(result.notes).toContain('meshy: task task-1');
    expect(noted).toEqual(result.notes);
    const parsed = await new NodeIO().readBinary(result.glb);
    expect(parsed.getRoot().listMeshes()).toHaveLength(1);
  });

  it('sends at most 4 views, spread around the object', async () => {
    let body: any;
    nock(API)
      .post('/openapi/v1/multi-image-to-3d', (b) => ((body = b), true))
      .reply(202, { result: 't6' })
      .get('/openapi/v1/multi-image-to-3d/t6')
      .reply(200, { status: 'SUCCEEDED', progress: 100, model_urls: { glb: `${ASSETS}/t6.glb` } });
    nock(ASSETS).get('/t6.glb').reply(200, Buffer.from(glb));
    const result = await new MeshyProductReconstructor(fast).reconstruct(request({ views, quality: 'high' }));
    // 0, 60, ..., 300 degrees: 0 first, then 180 (farthest), then 60, then 240 (opposite 60) rather than 120.
    const sent = body.image_urls as string[];
    expect(sent).toHaveLength(4);
    const angles = views.filter((v) => sent.includes(dataUri(v))).map((v) => v.angleDeg);
    expect(angles).toEqual([0, 60, 180, 240]);
    expect(body.target_polycount).toBe(100_000);
    expect(result.notes[0]).toMatch(/used 4 of 6 views/);
  });

  it('reports a FAILED task with its task_error message, not retryable', async () => {
    nock(API)
      .post('/openapi/v1/multi-image-to-3d')
      .reply(202, { result: 't2' })
      .get('/openapi/v1/multi-image-to-3d/t2')
      .reply(200, { status: 'FAILED', progress: 0, task_error: { message: 'The images could not be processed.' } });
    const err = await new MeshyProductReconstructor(fast).reconstruct(request()).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/task t2 failed: The images could not be processed/);
  });

  it('maps 429 on creation to a retryable error and 400 to a non-retryable one', async () => {
    nock(API).post('/openapi/v1/multi-image-to-3d').reply(429, { message: 'Too many requests' }, { 'retry-after': '3' });
    const limited = await new MeshyProductReconstructor(fast).reconstruct(request()).catch((e) => e);
    expect(limited.retryable).toBe(true);
    expect(limited.status).toBe(429);
    expect(limited.message).toMatch(/Too many requests/);
    expect(limited.message).not.toContain(KEY);

    nock(API).post('/openapi/v1/multi-image-to-3d').reply(400, { message: 'Invalid image_urls' });
    const bad = await new MeshyProductReconstructor(fast).reconstruct(request()).catch((e) => e);
    expect(bad.retryable).toBe(false);
  });

  it('never retries the account: 401 key, 402 no credits, 403 forbidden (PROVIDER_ACCOUNT)', async () => {
    // Meshy API reference, "Errors": 401 invalid key, 402 insufficient credits, 403 forbidden.
    for (const [status, message] of [[401, 'Invalid API key'], [402, 'Insufficient funds'], [403, 'Forbidden']] as const) {
      nock(API).post('/openapi/v1/multi-image-to-3d').reply(status, { message });
      const err = await new MeshyProductReconstructor(fast).reconstruct(request()).catch((e) => e);
      expect(err.retryable, String(status)).toBe(false);
      expect(err.code).toBe('PROVIDER_ACCOUNT');
      expect(err.message).toContain(message);
    }
  });

  it('stops waiting for a task after its own maximum', async () => {
    nock(API).post('/openapi/v1/multi-image-to-3d').reply(202, { result: 'slow' }).get('/openapi/v1/multi-image-to-3d/slow').times(100).reply(200, { id: 'slow', status: 'IN_PROGRESS', progress: 10 });
    const err = await new MeshyProductReconstructor({ ...fast, taskTimeoutMs: 150 }).reconstruct(request()).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.message).toMatch(/still queued after 1[0-5]\d ms/);
  });

  it('checks the key live and reports the credits', async () => {
    const ac = new AbortController();
    nock(API, { reqheaders: { authorization: `Bearer ${KEY}` } }).get('/openapi/v1/balance').reply(200, { balance: 1200 });
    expect(await new MeshyProductReconstructor(fast).check(ac.signal)).toMatchObject({ provider: 'meshy', status: 'ok', balance: 1200, models: [{ id: 'meshy-6', available: true }] });
    nock(API).get('/openapi/v1/balance').reply(401, { message: 'Invalid API key' });
    expect((await new MeshyProductReconstructor(fast).check(ac.signal)).status).toBe('account_refused');
  });

  it('rides out transient status errors while the task runs', async () => {
    nock(API)
      .post('/openapi/v1/multi-image-to-3d')
      .reply(202, { result: 't3' })
      .get('/openapi/v1/multi-image-to-3d/t3')
      .reply(503, { message: 'Service Unavailable' })
      .get('/openapi/v1/multi-image-to-3d/t3')
      .reply(429, { message: 'slow down' }, { 'retry-after': '0' })
      .get('/openapi/v1/multi-image-to-3d/t3')
      .reply(200, { status: 'SUCCEEDED', progress: 100, model_urls: { glb: `${ASSETS}/t3.glb` } });
    nock(ASSETS).get('/t3.glb').reply(200, Buffer.from(glb));
    const result = await new MeshyProductReconstructor(fast).reconstruct(request());
    expect(result.glb.byteLength).toBe(glb.byteLength);
  });

  it('rejects a download that is not a GLB', async () => {
    nock(API)
      .post('/openapi/v1/multi-image-to-3d')
      .reply(202, { result: 't4' })
      .get('/openapi/v1/multi-image-to-3d/t4')
      .reply(200, { status: 'SUCCEEDED', model_urls: { glb: `${ASSETS}/t4.glb` } });
    nock(ASSETS).get('/t4.glb').reply(200, '<html>Access denied</html>');
    const err = await new MeshyProductReconstructor(fast).reconstruct(request()).catch((e) => e);
    expect(err.message).toMatch(/not a GLB/);
  });

  it('times out a slow request and stops polling when the caller aborts', async () => {
    nock(API)
      .post('/openapi/v1/multi-image-to-3d')
      .reply(() => new Promise((r) => setTimeout(() => r([202, { result: 'late' }]), 3_000)));
    const slow = await new MeshyProductReconstructor({ ...fast, timeoutMs: 200 }).reconstruct(request()).catch((e) => e);
    expect(slow.retryable).toBe(true);
    expect(slow.message).toMatch(/timed out after 200 ms/);

    nock(API)
      .post('/openapi/v1/multi-image-to-3d')
      .reply(202, { result: 't5' })
      .get('/openapi/v1/multi-image-to-3d/t5')
      .times(1000)
      .reply(200, { status: 'IN_PROGRESS', progress: 10 });
    const ac = new AbortController();
    const reason = new Error('deadline');
    setTimeout(() => ac.abort(reason), 120);
    const err = await new MeshyProductReconstructor(fast).reconstruct(request({ signal: ac.signal })).catch((e) => e);
    expect(err).toBe(reason);
  });
});

describe('MeshyProductReconstructor: surviving retries, restarts and cancellation', () => {
  it('stores the task (onTask) before the first status read', async () => {
    const events: string[] = [];
    nock(API)
      .post('/openapi/v1/multi-image-to-3d')
      .reply(202, () => (events.push('create'), { result: 'kept' }))
      .get('/openapi/v1/multi-image-to-3d/kept')
      .reply(200, () => (events.push('poll'), { status: 'SUCCEEDED', model_urls: { glb: `${ASSETS}/kept.glb` } }));
    nock(ASSETS).get('/kept.glb').reply(200, Buffer.from(glb));
    const stored: VendorTask[] = [];
    await new MeshyProductReconstructor(fast).reconstruct(request({ onTask: async (t) => void (events.push('stored'), stored.push(t)) }));
    expect(events).toEqual(['create', 'stored', 'poll']);
    expect(stored.map((t) => t.id)).toEqual(['kept']);
  });

  it('resumes a stored task without creating another', async () => {
    let creates = 0;
    nock(API).post('/openapi/v1/multi-image-to-3d').times(5).reply(202, () => (creates++, { result: 'second' }));
    nock(API)
      .get('/openapi/v1/multi-image-to-3d/first')
      .reply(200, { status: 'IN_PROGRESS', progress: 60 })
      .get('/openapi/v1/multi-image-to-3d/first')
      .reply(200, { status: 'SUCCEEDED', progress: 100, model_urls: { glb: `${ASSETS}/first.glb` } });
    nock(ASSETS).get('/first.glb').reply(200, Buffer.from(glb));
    const result = await new MeshyProductReconstructor(fast).reconstruct(request({ resume: { id: 'first', createdAt: new Date().toISOString() } }));
    expect(creates).toBe(0);
    expect(result.notes[0]).toMatch(/resuming task first/);
  });

  it('cancels a task by deleting it (404: already gone); a failed delete resolves false', async () => {
    const del = nock(API, { reqheaders: { authorization: `Bearer ${KEY}` } }).delete('/openapi/v1/multi-image-to-3d/t-del').reply(200, {});
    const task = { id: 't-del', createdAt: new Date().toISOString() };
    expect(await new MeshyProductReconstructor(fast).cancel(task, new AbortController().signal)).toBe(true);
    expect(del.isDone()).toBe(true);
    nock(API).delete('/openapi/v1/multi-image-to-3d/t-del').reply(404, { message: 'Not found' });
    expect(await new MeshyProductReconstructor(fast).cancel(task, new AbortController().signal)).toBe(true);
    nock(API).delete('/openapi/v1/multi-image-to-3d/t-del').reply(500, { message: 'Internal error' });
    expect(await new MeshyProductReconstructor(fast).cancel(task, new AbortController().signal)).toBe(false);
  });

  it('a task that is not found (404) is final: read once, not retried', async () => {
    let reads = 0;
    nock(API).get('/openapi/v1/multi-image-to-3d/gone').times(5).reply(404, () => (reads++, { message: 'Task not found' }));
    const err = await new MeshyProductReconstructor(fast).reconstruct(request({ resume: { id: 'gone', createdAt: new Date().toISOString() } })).catch((e) => e);
    expect(reads).toBe(1);
    expect(err.retryable).toBe(false);
    expect(err.status).toBe(404);
  });

  it('rate limit keeps the Retry-After it asked for; a 5xx on creation is retryable and sent once', async () => {
    nock(API).post('/openapi/v1/multi-image-to-3d').reply(429, { message: 'Too many requests' }, { 'retry-after': '12' });
    const limited = await new MeshyProductReconstructor(fast).reconstruct(request()).catch((e) => e);
    expect(limited.retryAfterMs).toBe(12_000);
    const create = nock(API).post('/openapi/v1/multi-image-to-3d').once().reply(500, { message: 'Internal Server Error' });
    const server = await new MeshyProductReconstructor(fast).reconstruct(request()).catch((e) => e);
    expect(create.isDone()).toBe(true);
    expect(server.retryable).toBe(true);
    expect(server.status).toBe(500);
  });

  it('gives up on a resumed task whose budget is spent, counted from its creation', async () => {
    nock(API).get('/openapi/v1/multi-image-to-3d/old').times(100).reply(200, { status: 'IN_PROGRESS', progress: 10 });
    const err = await new MeshyProductReconstructor({ ...fast, taskTimeoutMs: 60_000 }).reconstruct(request({ resume: { id: 'old', createdAt: new Date(Date.now() - 120_000).toISOString() } })).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.message).toMatch(/still queued after/);
  });
});

describe('pickSpread', () => {
  it('keeps all views when they fit and spreads them otherwise', async () => {
    expect(pickSpread(views.slice(0, 3), 4)).toHaveLength(3);
    const unangled: ReconstructionView[] = views.map((v) => ({ ...v, angleDeg: undefined }));
    expect(pickSpread(unangled, 4).map((v) => unangled.indexOf(v))).toEqual([0, 1, 3, 4]);
  });
});
