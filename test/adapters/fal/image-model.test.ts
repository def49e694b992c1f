import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import nock from 'nock';
import { FalImageModel } from '../../../adapters/fal/image-model.ts';
import { ProviderError } from '../../../core/ports/image-model.ts';
import type { ModelCall } from '../../../core/ports/image-model.ts';
import { FAST_POLL, late, tryonCall, tryonImages, useNock } from '../vendor-helpers.ts';

const KEY = 'fal-key-id:fal-key-secret';
const QUEUE = 'https://queue.fal.run';
const CDN = 'https://v3.fal.media';

const STORAGE = 'https://rest.fal.ai';
const PRESIGNED = 'https://storage.googleapis.com';

/*
 * Fixtures follow fal's documentation as of 2026-11 and its SDK (@fal-ai/client 1.10.1): the queue API
 * (`POST queue.fal.run/{model}` → request_id, status_url, response_url, cancel_url; `GET .../status`
 * IN_QUEUE / IN_PROGRESS / COMPLETED; `GET .../requests/{id}` for the result, where a validation error
 * arrives as 422 `{detail: [{loc, msg, type}]}`), storage uploads as the SDK makes them
 * (src/storage.js: `POST rest.fal.ai/storage/upload/initiate?storage_type=fal-cdn-v3` with
 * `{content_type, file_name}` → `{upload_url, file_url}`, then PUT to upload_url), and the platform
 * API's model search (`GET api.fal.ai/v1/models?endpoint_id=...` → `{models: [{endpoint_id, metadata:
 * {display_name, status}}], next_cursor, has_more}`).
 */

/** Every reference goes to fal storage first: what was initiated and what was PUT, in order. */
let uploads: { name: string; type: string; put?: { type: string | undefined; bytes: number } }[] = [];
function storage() {
  uploads = [];
  nock(STORAGE, { reqheaders: { authorization: `Key ${KEY}` } })
    .persist()
    .post('/storage/upload/initiate', (b) => (uploads.push({ name: b.file_name, type: b.content_type }), true))
    .query({ storage_type: 'fal-cdn-v3' })
    .reply(() => {
      const n = uploads.length;
      return [200, { upload_url: `${PRESIGNED}/fal-uploads/ref-${n}?X-Goog-Signature=s${n}`, file_url: `${CDN}/files/ref-${n}.png` }];
    });
  nock(PRESIGNED, { badheaders: ['authorization'] })
    .persist()
    .put(/\/fal-uploads\/ref-\d+/)
    .query(true)
    .reply(async (req: Request) => {
      const n = Number(/ref-(\d+)/.exec(req.url)![1]);
      uploads[n - 1].put = { type: req.headers.get('content-type') ?? undefined, bytes: (await req.arrayBuffer()).byteLength };
      return [200, ''];
    });
}
const fileUrl = (n: number) => `${CDN}/files/ref-${n}.png`;

let person: Uint8Array;
let garment: Uint8Array;
let output: Uint8Array;

function call(over: Partial<ModelCall> = {}): ModelCall {
  return tryonCall({ person, garment }, { model: 'fal-ai/bytedance/seedream/v4/edit', prompt: 'Dress the person in Figure 1 with the garment in Figure 2.' }, over);
}

const fast = { apiKey: KEY, ...FAST_POLL };

/** The documented queue round trip for a model whose status URLs drop its sub-path. */
function queue(app: string, model: string, id: string, onBody: (b: any) => void, result: object) {
  const status = nock(QUEUE, { reqheaders: { authorization: `Key ${KEY}` } });
  status
    .post(`/${model}`, (b) => (onBody(b), true))
    .reply(200, { request_id: id, status_url: `${QUEUE}/${app}/requests/${id}/status`, response_url: `${QUEUE}/${app}/requests/${id}`, cancel_url: `${QUEUE}/${app}/requests/${id}/cancel` })
    .get(`/${app}/requests/${id}/status`)
    .reply(202, { status: 'IN_QUEUE', queue_position: 2 })
    .get(`/${app}/requests/${id}/status`)
    .reply(202, { status: 'IN_PROGRESS', logs: [] })
    .get(`/${app}/requests/${id}/status`)
    .reply(200, { status: 'COMPLETED', response_url: `${QUEUE}/${app}/requests/${id}` })
    .get(`/${app}/requests/${id}`)
    .reply(200, result);
  return status;
}

useNock();
beforeAll(async () => ({ person, garment, output } = await tryonImages()));
beforeEach(() => storage());

describe('FalImageModel', () => {
  it('refuses to start without a key', () => {
    expect(() => new FalImageModel({ apiKey: ' ' })).toThrow(/FAL_KEY/);
    expect(() => new FalImageModel({ apiKey: KEY, pollIntervalMs: -1 })).toThrow(/pollIntervalMs/);
  });

  it('submits Seedream with image_urls, polls IN_QUEUE → IN_PROGRESS → COMPLETED, fetches the result and downloads the image without the key', async () => {
    let body: any;
    const q = queue('fal-ai/bytedance', 'fal-ai/bytedance/seedream/v4/edit', 'req-1', (b) => (body = b), {
      images: [{ url: `${CDN}/files/out.png`, content_type: 'image/png', width: 24, height: 32 }],
      seed: 42,
    });
    const cdn = nock(CDN, { badheaders: ['authorization'] }).get('/files/out.png').reply(200, Buffer.from(output), { 'content-type': 'image/png' });
    const images = await new FalImageModel(fast).run(call());
    expect(q.isDone()).toBe(true);
    expect(cdn.isDone()).toBe(true);
    expect(body.prompt).toBe('Dress the person in Figure 1 with the garment in Figure 2.');
    // the references went to fal storage (as its SDK sends files) and travel as file URLs
    expect(body.image_urls).toEqual([fileUrl(1), fileUrl(2)]);
    expect(uploads.map((u) => [u.name, u.type])).toEqual([['reference-1.png', 'image/png'], ['reference-2.png', 'image/png']]);
    expect(uploads.map((u) => u.put)).toEqual([{ type: 'image/png', bytes: person.byteLength }, { type: 'image/png', bytes: garment.byteLength }]);
    expect(JSON.stringify(body)).not.toContain('base64');
    expect(body.image_url).toBeUndefined();
    expect(body.image_size).toBe('auto_2K');
    expect(body.num_images).toBe(1);
    expect(images).toHaveLength(1);
    expect(images[0].contentType).toBe('image/png');
    expect(Buffer.from(images[0].bytes).equals(Buffer.from(output))).toBe(true);
  });

  it('sends a single-slot model its one reference as image_url', async () => {
    let body: any;
    queue('fal-ai/flux-pro', 'fal-ai/flux-pro/kontext', 'req-2', (b) => (body = b), { images: [{ url: `${CDN}/files/k.jpg`, content_type: 'image/jpeg' }] });
    nock(CDN).get('/files/k.jpg').reply(200, Buffer.from(output), { 'content-type': 'image/jpeg' });
    const images = await new FalImageModel(fast).run(call({ model: 'fal-ai/flux-pro/kontext', quality: 'draft', references: [{ role: 'input', image: { bytes: person, contentType: 'image/png' } }] }));
    expect(body.image_url).toBe(fileUrl(1));
    expect(body.image_urls).toBeUndefined();
    expect(body.output_format).toBe('jpeg');
    expect(images[0].contentType).toBe('image/jpeg');
  });

  it('reads a validation error from the result URL, where the queue delivers it', async () => {
    const app = 'fal-ai/bytedance';
    nock(QUEUE)
      .post('/fal-ai/bytedance/seedream/v4/edit')
      .reply(200, { request_id: 'r12', status_url: `${QUEUE}/${app}/requests/r12/status`, response_url: `${QUEUE}/${app}/requests/r12` })
      .get(`/${app}/requests/r12/status`)
      .reply(200, { status: 'COMPLETED' })
      .get(`/${app}/requests/r12`)
      .reply(422, { detail: [{ loc: ['body', 'image_urls', 0], msg: 'Image dimensions are too small. Minimum is 300x300.', type: 'image_too_small', input: fileUrl(1) }] });
    const err = await new FalImageModel(fast).run(call()).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.retryable).toBe(false);
    expect(err.status).toBe(422);
    expect(err.message).toMatch(/body\.image_urls\.0: Image dimensions are too small/);
  });

  it('reports a rejected key at upload as PROVIDER_ACCOUNT, and a storage failure as retryable', async () => {
    nock.cleanAll();
    nock(STORAGE).post('/storage/upload/initiate').query(true).reply(401, { detail: 'No user found for Key ID and Secret' });
    const key = await new FalImageModel(fast).run(call()).catch((e) => e);
    expect(key.code).toBe('PROVIDER_ACCOUNT');
    expect(key.retryable).toBe(false);
    nock(STORAGE).post('/storage/upload/initiate').query(true).reply(200, { upload_url: `${PRESIGNED}/fal-uploads/x?sig=1`, file_url: fileUrl(9) });
    nock(PRESIGNED).put('/fal-uploads/x').query(true).reply(503, 'Service Unavailable');
    const put = await new FalImageModel(fast).run(call()).catch((e) => e);
    expect(put.retryable).toBe(true);
    expect(put.status).toBe(503);
  });

  it('checks the key and the endpoints live', async () => {
    const ac = new AbortController();
    nock('https://api.fal.ai', { reqheaders: { authorization: `Key ${KEY}` } })
      .get('/v1/models')
      .query({ endpoint_id: ['fal-ai/bytedance/seedream/v4/edit', 'fal-ai/flux-pro/kontext', 'fal-ai/old-model'] })
      .reply(200, {
        models: [
          { endpoint_id: 'fal-ai/bytedance/seedream/v4/edit', metadata: { display_name: 'Bytedance Seedream v4 Edit', category: 'image-to-image', status: 'active' } },
          { endpoint_id: 'fal-ai/flux-pro/kontext', metadata: { display_name: 'FLUX.1 Kontext [pro]', category: 'image-to-image', status: 'deprecated' } },
        ],
        next_cursor: null,
        has_more: false,
      });
    const report = await new FalImageModel(fast).check(['fal-ai/bytedance/seedream/v4/edit', 'fal-ai/flux-pro/kontext', 'fal-ai/old-model'], ac.signal);
    expect(report.status).toBe('model_missing');
    expect(report.models!.map((m) => [m.id, m.available])).toEqual([['fal-ai/bytedance/seedream/v4/edit', true], ['fal-ai/flux-pro/kontext', false], ['fal-ai/old-model', false]]);
    nock.cleanAll();
    nock(STORAGE).post('/storage/upload/initiate').query(true).reply(401, { detail: 'Unauthorized' });
    expect((await new FalImageModel(fast).check(['fal-ai/flux-pro/kontext'], ac.signal)).status).toBe('account_refused');
  });

  it('maps a 422 validation error to a non-retryable error with the field', async () => {
    nock(QUEUE)
      .post('/fal-ai/bytedance/seedream/v4/edit')
      .reply(422, { detail: [{ loc: ['body', 'image_urls'], msg: 'Could not download image', type: 'value_error' }] });
    const err = await new FalImageModel(fast).run(call()).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.retryable).toBe(false);
    expect(err.status).toBe(422);
    expect(err.message).toMatch(/body\.image_urls: Could not download image/);
  });

  it('treats 429 and 5xx as retryable and keeps the key out of messages', async () => {
    nock(QUEUE).post('/fal-ai/bytedance/seedream/v4/edit').reply(429, { detail: 'Rate limit exceeded' });
    const limited = await new FalImageModel(fast).run(call()).catch((e) => e);
    expect(limited.retryable).toBe(true);
    expect(limited.status).toBe(429);
    expect(limited.message).toMatch(/Rate limit exceeded/);
    expect(limited.message).not.toContain('fal-key-secret');

    nock(QUEUE).post('/fal-ai/bytedance/seedream/v4/edit').reply(502, 'Bad gateway');
    const down = await new FalImageModel(fast).run(call()).catch((e) => e);
    expect(down.retryable).toBe(true);
  });

  it('rides out one failed status read while the request is queued', async () => {
    const app = 'fal-ai/bytedance';
    nock(QUEUE)
      .post('/fal-ai/bytedance/seedream/v4/edit')
      .reply(200, { request_id: 'r8', status_url: `${QUEUE}/${app}/requests/r8/status`, response_url: `${QUEUE}/${app}/requests/r8` })
      .get(`/${app}/requests/r8/status`)
      .reply(503, 'upstream connect error')
      .get(`/${app}/requests/r8/status`)
      .reply(200, { status: 'COMPLETED' })
      .get(`/${app}/requests/r8`)
      .reply(200, { images: [{ url: `${CDN}/files/r8.png` }] });
    nock(CDN).get('/files/r8.png').reply(200, Buffer.from(output), { 'content-type': 'image/png' });
    const images = await new FalImageModel(fast).run(call());
    expect(images[0].bytes.byteLength).toBe(output.byteLength);
  });

  it('surfaces a failed runner from the result request', async () => {
    const app = 'fal-ai/bytedance';
    nock(QUEUE)
      .post('/fal-ai/bytedance/seedream/v4/edit')
      .reply(200, { request_id: 'r3', status_url: `${QUEUE}/${app}/requests/r3/status`, response_url: `${QUEUE}/${app}/requests/r3` })
      .get(`/${app}/requests/r3/status`)
      .reply(200, { status: 'COMPLETED' })
      .get(`/${app}/requests/r3`)
      .reply(500, { detail: 'Internal error in the runner' });
    const err = await new FalImageModel(fast).run(call()).catch((e) => e);
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/Internal error in the runner/);
  });

  it('reports an output flagged by the safety checker as not retryable', async () => {
    queue('fal-ai/flux-pro', 'fal-ai/flux-pro/kontext', 'r4', () => undefined, { images: [{ url: `${CDN}/files/black.png` }], has_nsfw_concepts: [true] });
    const err = await new FalImageModel(fast).run(call({ model: 'fal-ai/flux-pro/kontext', references: [{ role: 'input', image: { bytes: person, contentType: 'image/png' } }] })).catch((e) => e);
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/safety checker/);
  });

  it('stops polling when the caller aborts and asks fal to cancel the request', async () => {
    const app = 'fal-ai/bytedance';
    nock(QUEUE)
      .post('/fal-ai/bytedance/seedream/v4/edit')
      .reply(200, { request_id: 'r5', status_url: `${QUEUE}/${app}/requests/r5/status`, response_url: `${QUEUE}/${app}/requests/r5`, cancel_url: `${QUEUE}/${app}/requests/r5/cancel` })
      .get(`/${app}/requests/r5/status`)
      .times(1000)
      .reply(202, { status: 'IN_QUEUE', queue_position: 9 });
    // the cancel is sent after the run has given up: the test waits for that request itself
    let cancelled!: () => void;
    const cancelSent = new Promise<void>((resolve) => (cancelled = resolve));
    nock(QUEUE)
      .put(`/${app}/requests/r5/cancel`)
      .reply(() => (cancelled(), [202, { status: 'CANCELLATION_REQUESTED' }]));
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('attempt timed out')), 150);
    const err = await new FalImageModel(fast).run(call({ signal: ac.signal })).catch((e) => e);
    expect(err.message).toBe('attempt timed out');
    await cancelSent;
  });

  it('times out slow status reads as retryable', async () => {
    const app = 'fal-ai/bytedance';
    nock(QUEUE)
      .post('/fal-ai/bytedance/seedream/v4/edit')
      .reply(200, { request_id: 'r6', status_url: `${QUEUE}/${app}/requests/r6/status`, response_url: `${QUEUE}/${app}/requests/r6` })
      .get(`/${app}/requests/r6/status`)
      .times(3) // the first read and the two tolerated retries
      .reply(late(3_000, [200, { status: 'COMPLETED' }]));
    nock(QUEUE).put(`/${app}/requests/r6/cancel`).reply(202, {});
    const err = await new FalImageModel({ ...fast, timeoutMs: 200 }).run(call()).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/timed out after 200 ms/);
  });

  it('refuses result URLs that are not https and status URLs on another host', async () => {
    let statusHits = 0;
    nock(QUEUE)
      .post('/fal-ai/bytedance/seedream/v4/edit')
      // A status_url off the queue host would receive the key: ignored in favour of the documented path.
      .reply(200, { request_id: 'r7', status_url: 'https://evil.example/steal', response_url: 'https://evil.example/steal' })
      .get('/fal-ai/bytedance/requests/r7/status')
      .reply(() => (statusHits++, [200, { status: 'COMPLETED' }]))
      .get('/fal-ai/bytedance/requests/r7')
      .reply(200, { images: [{ url: 'http://v3.fal.media/files/plain.png' }] });
    const err = await new FalImageModel(fast).run(call()).catch((e) => e);
    expect(statusHits).toBe(1);
    expect(err.message).toMatch(/not https/);
  });

  it('waits as long as Retry-After asks before reading a throttled status again', async () => {
    const app = 'fal-ai/bytedance';
    const reads: number[] = [];
    nock(QUEUE)
      .post('/fal-ai/bytedance/seedream/v4/edit')
      .reply(200, { request_id: 'r9', status_url: `${QUEUE}/${app}/requests/r9/status`, response_url: `${QUEUE}/${app}/requests/r9` })
      .get(`/${app}/requests/r9/status`)
      .reply(() => (reads.push(Date.now()), [429, { detail: 'slow down' }, { 'retry-after': '1' }]))
      .get(`/${app}/requests/r9/status`)
      .reply(() => (reads.push(Date.now()), [200, { status: 'COMPLETED' }]))
      .get(`/${app}/requests/r9`)
      .reply(200, { images: [{ url: `${CDN}/files/r9.png` }] });
    nock(CDN).get('/files/r9.png').reply(200, Buffer.from(output), { 'content-type': 'image/png' });
    const images = await new FalImageModel(fast).run(call());
    expect(images).toHaveLength(1);
    // The poll interval is 10 ms; only the header explains a second-long pause.
    expect(reads[1] - reads[0]).toBeGreaterThanOrEqual(950);
  });

  it('refuses an output image above maxImageBytes and reports a failed CDN download as retryable', async () => {
    queue('fal-ai/flux-pro', 'fal-ai/flux-pro/kontext', 'r10', () => undefined, { images: [{ url: `${CDN}/files/big.png` }] });
    nock(CDN).get('/files/big.png').reply(200, Buffer.from(output), { 'content-type': 'image/png' });
    const single = call({ model: 'fal-ai/flux-pro/kontext', references: [{ role: 'input', image: { bytes: person, contentType: 'image/png' } }] });
    const big = await new FalImageModel({ ...fast, maxImageBytes: output.byteLength - 1 }).run(single).catch((e) => e);
    expect(big).toBeInstanceOf(ProviderError);
    expect(big.retryable).toBe(false);
    expect(big.message).toMatch(new RegExp(`larger than ${output.byteLength - 1} bytes`));

    queue('fal-ai/flux-pro', 'fal-ai/flux-pro/kontext', 'r11', () => undefined, { images: [{ url: `${CDN}/files/gone.png` }] });
    nock(CDN).get('/files/gone.png').reply(500, 'storage error');
    const gone = await new FalImageModel(fast).run({ ...single, signal: new AbortController().signal }).catch((e) => e);
    expect(gone.retryable).toBe(true);
    expect(gone.status).toBe(500);
    expect(gone.message).toMatch(/download failed: HTTP 500/);
  });
});
