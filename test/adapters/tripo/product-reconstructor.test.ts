import { beforeAll, describe, expect, it } from 'vitest';
import nock from 'nock';
import { Readable } from 'node:stream';
import { TripoProductReconstructor, assignSlots } from '../../../adapters/tripo/product-reconstructor.ts';
import { ProviderError } from '../../../core/ports/image-model.ts';
import type { ReconstructionRequest, ReconstructionView } from '../../../core/ports/product-reconstructor.ts';
import { FAST_POLL, productView, tinyGlb, useNock } from '../vendor-helpers.ts';

const KEY = 'tsk_test_key';
const API = 'https://api.tripo3d.ai';
const CDN = 'https://tripo-data.rg1.data.tripo3d.com';

let glb: Uint8Array;
const views: ReconstructionView[] = [];

function request(over: Partial<ReconstructionRequest> = {}): ReconstructionRequest {
  return { views, productType: 'shoe', quality: 'default', signal: new AbortController().signal, ...over };
}
const fast = { apiKey: KEY, ...FAST_POLL };

/** Upload interceptor: checks the multipart part and hands out tokens named after the view's shade. */
function uploads(count: number, seen: string[]) {
  return nock(API, { reqheaders: { authorization: `Bearer ${KEY}` } })
    .post('/v2/openapi/upload', (raw: string) => {
      // nock hands over binary bodies hex-encoded.
      const body = /^[0-9a-f]+$/.test(raw) ? Buffer.from(raw, 'hex').toString('latin1') : raw;
      seen.push(body);
      return /name="file"; filename="view\.png"/.test(body) && /Content-Type: image\/png/i.test(body);
    })
    .times(count)
    .reply(200, () => ({ code: 0, data: { image_token: `tok-${seen.length}` } }));
}

useNock();
beforeAll(async () => {
  glb = await tinyGlb('upper', [0.9, 0.9, 0.9, 1], 0.6);
  // 0 = side view (Tripo's front), then 90, 180, 270 given out of order.
  const shaded = (angle: number, shade: number) => productView(angle, [shade, 10, 10]);
  views.push(await shaded(0, 10), await shaded(180, 20), await shaded(90, 30), await shaded(270, 40));
});

describe('TripoProductReconstructor', () => {
  it('refuses to start without a key', () => {
    expect(() => new TripoProductReconstructor({ apiKey: '' })).toThrow(/TRIPO_API_KEY/);
  });

  it('uploads each view, creates a multiview_to_model task with the tokens in front/left/back/right slots, polls and downloads the PBR GLB', async () => {
    const parts: string[] = [];
    const up = uploads(4, parts);
    let task: any;
    const api = nock(API, { reqheaders: { authorization: `Bearer ${KEY}` } })
      .post('/v2/openapi/task', (b) => ((task = b), true))
      .reply(200, { code: 0, data: { task_id: 'tk-1' } })
      .get('/v2/openapi/task/tk-1')
      .reply(200, { code: 0, data: { task_id: 'tk-1', status: 'queued', progress: 0 } })
      .get('/v2/openapi/task/tk-1')
      .reply(200, { code: 0, data: { task_id: 'tk-1', status: 'running', progress: 50 } })
      .get('/v2/openapi/task/tk-1')
      .reply(200, { code: 0, data: { task_id: 'tk-1', status: 'success', progress: 100, output: { model: `${CDN}/m.glb`, pbr_model: `${CDN}/pbr.glb` } } });
    const cdn = nock(CDN, { badheaders: ['authorization'] }).get('/pbr.glb').reply(200, Buffer.from(glb));
    const progress: number[] = [];
    const result = await new TripoProductReconstructor(fast).reconstruct(request({ quality: 'high', onProgress: (f) => progress.push(f) }));
    expect(up.isDone() && api.isDone() && cdn.isDone()).toBe(true);
    expect(parts).toHaveLength(4);
    // Uploads happen in slot order (front, left, back, right); the views' bytes are in the parts.
    expect(parts[1]).toContain(Buffer.from(views[2].encoded.bytes).toString('latin1'));
    expect(parts[1]).not.toContain(Buffer.from(views[1].encoded.bytes).toString('latin1'));
    expect(task).toEqual({
      type: 'multiview_to_model',
      files: [
        { type: 'png', file_token: 'tok-1' },
        { type: 'png', file_token: 'tok-2' },
        { type: 'png', file_token: 'tok-3' },
        { type: 'png', file_token: 'tok-4' },
      ],
      model_version: 'v2.5-20250123',
      texture: true,
      pbr: true,
      texture_quality: 'detailed',
    });
    expect(Buffer.from(result.glb).equals(Buffer.from(glb))).toBe(true);
    expect(progress.map((p) => Math.round(p * 1000) / 1000)).toEqual([0, 0, 0.45, 1]);
    expect(result.notes.join('\n')).toMatch(/task tk-1 \(multiview_to_model, slots front\/left\/back\/right\)/);
  });

  it('leaves missing slots empty and sends a single view as image_to_model', async () => {
    const parts: string[] = [];
    uploads(2, parts);
    let task: any;
    nock(API)
      .post('/v2/openapi/task', (b) => ((task = b), true))
      .reply(200, { code: 0, data: { task_id: 'tk-2' } })
      .get('/v2/openapi/task/tk-2')
      .reply(200, { code: 0, data: { status: 'success', output: { model: `${CDN}/two.glb` } } });
    nock(CDN).get('/two.glb').reply(200, Buffer.from(glb));
    await new TripoProductReconstructor(fast).reconstruct(request({ views: [views[0], views[1]] }));
    expect(task.files).toEqual([{ type: 'png', file_token: 'tok-1' }, {}, { type: 'png', file_token: 'tok-2' }, {}]);
    expect(task.texture_quality).toBe('standard');

    uploads(1, []);
    nock(API)
      .post('/v2/openapi/task', (b) => ((task = b), true))
      .reply(200, { code: 0, data: { task_id: 'tk-3' } })
      .get('/v2/openapi/task/tk-3')
      .reply(200, { code: 0, data: { status: 'success', output: { pbr_model: `${CDN}/one.glb` } } });
    nock(CDN).get('/one.glb').reply(200, Buffer.from(glb));
    const single = await new TripoProductReconstructor(fast).reconstruct(request({ views: [views[0]] }));
    expect(task.type).toBe('image_to_model');
    expect(task.file).toEqual({ type: 'png', file_token: 'tok-1' });
    expect(single.notes).toContain('tripo: one view only, sent as image_to_model');
  });

  it('reports a failed task as not retryable', async () => {
    uploads(4, []);
    nock(API)
      .post('/v2/openapi/task')
      .reply(200, { code: 0, data: { task_id: 'tk-4' } })
      .get('/v2/openapi/task/tk-4')
      .reply(200, { code: 0, data: { status: 'failed', progress: 0 } });
    const err = await new TripoProductReconstructor(fast).reconstruct(request()).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/task tk-4 failed/);
  });

  it('maps error envelopes: 429 retryable, 400 not, with the message and suggestion', async () => {
    nock(API).post('/v2/openapi/upload').reply(429, { code: 2000, message: 'You have exceeded the limit of generation.', suggestion: 'Please retry later.' });
    const limited = await new TripoProductReconstructor(fast).reconstruct(request()).catch((e) => e);
    expect(limited.retryable).toBe(true);
    expect(limited.status).toBe(429);
    expect(limited.message).toMatch(/code 2000: You have exceeded the limit of generation\. \(Please retry later\.\)/);
    expect(limited.message).not.toContain(KEY);

    uploads(4, []);
    nock(API).post('/v2/openapi/task').reply(400, { code: 2002, message: 'Unsupported task type', suggestion: 'Check the type' });
    const bad = await new TripoProductReconstructor(fast).reconstruct(request()).catch((e) => e);
    expect(bad.retryable).toBe(false);
  });

  it('stops polling when the caller aborts', async () => {
    uploads(4, []);
    nock(API)
      .post('/v2/openapi/task')
      .reply(200, { code: 0, data: { task_id: 'tk-5' } })
      .get('/v2/openapi/task/tk-5')
      .times(1000)
      .reply(200, { code: 0, data: { status: 'running', progress: 5 } });
    const ac = new AbortController();
    const reason = new Error('deadline');
    setTimeout(() => ac.abort(reason), 120);
    const err = await new TripoProductReconstructor(fast).reconstruct(request({ signal: ac.signal })).catch((e) => e);
    expect(err).toBe(reason);
  });

  it('times out a slow request as retryable', async () => {
    nock(API)
      .post('/v2/openapi/upload')
      .reply(() => new Promise((r) => setTimeout(() => r([200, { code: 0, data: { image_token: 'x' } }]), 3_000)));
    const err = await new TripoProductReconstructor({ ...fast, timeoutMs: 200 }).reconstruct(request()).catch((e) => e);
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/timed out after 200 ms/);
  });

  it('refuses a model above maxGlbBytes, declared or streamed, as not retryable', async () => {
    const succeeded = (id: string, file: string) => {
      uploads(4, []);
      nock(API)
        .post('/v2/openapi/task')
        .reply(200, { code: 0, data: { task_id: id } })
        .get(`/v2/openapi/task/${id}`)
        .reply(200, { code: 0, data: { status: 'success', output: { pbr_model: `${CDN}/${file}` } } });
    };
    const small = { ...fast, maxGlbBytes: glb.byteLength - 1 };

    succeeded('tk-6', 'declared.glb');
    nock(CDN).get('/declared.glb').reply(200, Buffer.from(glb), { 'content-length': String(glb.byteLength) });
    const declared = await new TripoProductReconstructor(small).reconstruct(request()).catch((e) => e);
    expect(declared).toBeInstanceOf(ProviderError);
    expect(declared.retryable).toBe(false);
    expect(declared.message).toMatch(/model is larger than/);

    succeeded('tk-7', 'streamed.glb');
    // No content-length: the cap must hold while the body streams in.
    nock(CDN).get('/streamed.glb').reply(200, () => Readable.from([Buffer.from(glb.subarray(0, 64)), Buffer.from(glb.subarray(64))]));
    const streamed = await new TripoProductReconstructor(small).reconstruct(request()).catch((e) => e);
    expect(streamed.retryable).toBe(false);
    expect(streamed.message).toMatch(/model is larger than/);

    succeeded('tk-8', 'exact.glb');
    nock(CDN).get('/exact.glb').reply(200, () => Readable.from([Buffer.from(glb)]));
    const fits = await new TripoProductReconstructor({ ...fast, maxGlbBytes: glb.byteLength }).reconstruct(request());
    expect(fits.glb.byteLength).toBe(glb.byteLength);
  });
});

describe('assignSlots', () => {
  const v = (a?: number) => ({ angleDeg: a }) as ReconstructionView;
  const angles = (slots: (ReconstructionView | undefined)[]) => slots.map((s) => s?.angleDeg ?? null);
  it('places views by azimuth, nearest first, within 45 degrees', () => {
    expect(angles(assignSlots([v(0), v(180), v(90), v(270)]))).toEqual([0, 90, 180, 270]);
    expect(angles(assignSlots([v(0), v(60), v(120), v(180), v(240), v(300)]))).toEqual([0, 60, 180, 240]);
    expect(angles(assignSlots([v(10), v(350), v(200)]))).toEqual([10, null, 200, null]);
  });
  it('fills slots in order without angles and always has a front', () => {
    expect(assignSlots([v(), v(), v(), v(), v()]).filter(Boolean)).toHaveLength(4);
    expect(angles(assignSlots([v(90), v(180)]))).toEqual([90, null, 180, null]);
  });
});
