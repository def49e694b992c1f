import { beforeAll, describe, expect, it } from 'vitest';
import nock from 'nock';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { renderProductViews, type ProductMesh } from '../../support/products.ts';
import { TripoProductReconstructor, assignSlots } from '../../../adapters/tripo/product-reconstructor.ts';
import { ProviderError } from '../../../core/ports/image-model.ts';
import type { ReconstructionRequest, ReconstructionView } from '../../../core/ports/product-reconstructor.ts';
import { FAST_POLL, productView, tinyGlb, useNock } from '../vendor-helpers.ts';

/*
 * Fixtures follow Tripo's API documentation (v2 openapi) as of 2026-11 and its Python SDK
 * (VAST-AI-Research/tripo-python-sdk, tripo3d/client.py): `POST /upload/sts` (multipart `file` →
 * `{code: 0, data: {image_token}}`), `POST /task` (`multiview_to_model` with `files` in the order
 * [front, left, back, right], or `image_to_model`), `GET /task/{id}`, `GET /user/balance`; error
 * envelopes `{code, message, suggestion}`: 2000 (429, rate), 2002 (400), 2010 (403, needs credits),
 * 2015 (400, deprecated model_version).
 */

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
    .post('/v2/openapi/upload/sts', (raw: string) => {
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
    nock(API).post('/v2/openapi/upload/sts').reply(429, { code: 2000, message: 'You have exceeded the limit of generation.', suggestion: 'Please retry later.' });
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

  it('never retries the account (403 code 2010, needs credits) and reports a deprecated version as MODEL_UNAVAILABLE', async () => {
    uploads(4, []);
    nock(API).post('/v2/openapi/task').reply(403, { code: 2010, message: 'You need more credits to start a new task.', suggestion: 'Please reivew your usage at Billing and purchase more credits.' });
    const credits = await new TripoProductReconstructor(fast).reconstruct(request()).catch((e) => e);
    expect(credits.retryable).toBe(false);
    expect(credits.code).toBe('PROVIDER_ACCOUNT');
    expect(credits.message).toMatch(/code 2010/);
    uploads(4, []);
    nock(API).post('/v2/openapi/task').reply(400, { code: 2015, message: 'The version has been deprecated, please try higher version.', suggestion: 'Try higher version please.' });
    const old = await new TripoProductReconstructor({ ...fast, modelVersion: 'v1.3-20240522' }).reconstruct(request()).catch((e) => e);
    expect(old.code).toBe('MODEL_UNAVAILABLE');
    expect(old.retryable).toBe(false);
  });

  it('checks the key live (GET /user/balance) and reports the credits', async () => {
    const ac = new AbortController();
    nock(API, { reqheaders: { authorization: `Bearer ${KEY}` } }).get('/v2/openapi/user/balance').reply(200, { code: 0, data: { balance: 300, frozen: 0 } });
    expect(await new TripoProductReconstructor(fast).check(ac.signal)).toMatchObject({ provider: 'tripo', status: 'ok', balance: 300, models: [{ id: 'v2.5-20250123', available: true }] });
    nock(API).get('/v2/openapi/user/balance').reply(401, { code: 1002, message: 'Authentication failed' });
    expect((await new TripoProductReconstructor(fast).check(ac.signal)).status).toBe('account_refused');
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
      .post('/v2/openapi/upload/sts')
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

describe('Tripo slot orientation', () => {
  /**
   * A cube whose faces are coloured by the side they are on. The subject faces the camera of the
   * 0 degree view (+z). Facing +z with +y up, its left hand is on +x (a person facing you has their
   * left on your right). Tripo's slots are [front, left, back, right] of the subject, so the view of
   * the +x face belongs in `left`, -z in `back`, -x in `right`. Views are rendered by the same
   * orthographic renderer as the reconstruction's (azimuth 0 = side view), then sent through the
   * adapter: each uploaded file is decoded and its dominant colour must be its slot's face colour.
   */
  const PLUS_Z: [number, number, number] = [1, 0, 0];
  const PLUS_X: [number, number, number] = [0, 1, 0];
  const MINUS_Z: [number, number, number] = [0, 0, 1];
  const MINUS_X: [number, number, number] = [1, 1, 0];
  /** What each slot must show: the subject faces +z, its left is +x. */
  const EXPECTED: Record<string, [number, number, number]> = { front: PLUS_Z, left: PLUS_X, back: MINUS_Z, right: MINUS_X };
  function colouredCube(): ProductMesh {
    const faces: { n: [number, number, number]; c: [number, number, number] }[] = [
      { n: [0, 0, 1], c: PLUS_Z },
      { n: [1, 0, 0], c: PLUS_X },
      { n: [0, 0, -1], c: MINUS_Z },
      { n: [-1, 0, 0], c: MINUS_X },
      { n: [0, 1, 0], c: [0.5, 0.5, 0.5] },
      { n: [0, -1, 0], c: [0.5, 0.5, 0.5] },
    ];
    const positions: number[] = [];
    const colors: number[] = [];
    const indices: number[] = [];
    for (const { n, c } of faces) {
      // two axes spanning the face, ordered so the triangles wind outwards
      const a = n[0] !== 0 ? [0, 1, 0] : [1, 0, 0];
      const b = [n[1] * a[2] - n[2] * a[1], n[2] * a[0] - n[0] * a[2], n[0] * a[1] - n[1] * a[0]];
      const base = positions.length / 3;
      for (const [s, t] of [[-1, -1], [1, -1], [1, 1], [-1, 1]]) {
        positions.push(0.1 * (n[0] + s * a[0] + t * b[0]), 0.1 * (n[1] + s * a[1] + t * b[1]), 0.1 * (n[2] + s * a[2] + t * b[2]));
        colors.push(...c);
      }
      indices.push(base, base + 1, base + 2, base, base + 2, base + 3);
    }
    return { positions: new Float32Array(positions), indices: new Uint32Array(indices), colors: new Float32Array(colors) };
  }

  it('puts the view of the subject\'s left side in the left slot (azimuth grows front → left → back → right)', async () => {
    const rendered = renderProductViews(colouredCube(), [0, 90, 180, 270], { size: 96 });
    const cubeViews: ReconstructionView[] = [];
    // out of order, as photos arrive
    for (const i of [2, 0, 3, 1]) {
      const r = rendered[i];
      const bytes = new Uint8Array(await sharp(Buffer.from(r.image.data), { raw: { width: r.image.width, height: r.image.height, channels: 4 } }).png().toBuffer());
      cubeViews.push({ image: r.cutout, encoded: { bytes, contentType: 'image/png' }, angleDeg: r.angleDeg });
    }
    const files: Buffer[] = [];
    nock(API)
      .post('/v2/openapi/upload/sts', (raw: string) => {
        const body = Buffer.from(raw, /^[0-9a-f]+$/.test(raw) ? 'hex' : 'latin1');
        const start = body.indexOf(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
        files.push(body.subarray(start));
        return true;
      })
      .times(4)
      .reply(200, () => ({ code: 0, data: { image_token: `tok-${files.length}` } }));
    let task: any;
    nock(API)
      .post('/v2/openapi/task', (b) => ((task = b), true))
      .reply(200, { code: 0, data: { task_id: 'orient' } })
      .get('/v2/openapi/task/orient')
      .reply(200, { code: 0, data: { task_id: 'orient', status: 'success', output: { pbr_model: `${CDN}/o.glb` } } });
    nock(CDN).get('/o.glb').reply(200, Buffer.from(glb));
    await new TripoProductReconstructor(fast).reconstruct(request({ views: cubeViews }));
    expect(task.type).toBe('multiview_to_model');
    const slotNames = ['front', 'left', 'back', 'right'];
    for (const [slot, file] of (task.files as { file_token: string }[]).entries()) {
      const upload = files[Number(file.file_token.slice(4)) - 1];
      const { data, info } = await sharp(upload).raw().toBuffer({ resolveWithObject: true });
      // mean colour of the pixels that are not the white background
      const sum = [0, 0, 0];
      let n = 0;
      for (let i = 0; i < data.length; i += info.channels) {
        if (data[i] > 240 && data[i + 1] > 240 && data[i + 2] > 240) continue;
        sum[0] += data[i]; sum[1] += data[i + 1]; sum[2] += data[i + 2]; n++;
      }
      const mean = sum.map((s) => s / n / 255);
      const want = EXPECTED[slotNames[slot]];
      const dist = Math.hypot(mean[0] - want[0] * mean.reduce((a, b) => Math.max(a, b), 0), mean[1] - want[1] * Math.max(...mean), mean[2] - want[2] * Math.max(...mean));
      expect(dist, `${slotNames[slot]} slot has mean colour ${mean.map((m) => m.toFixed(2))}`).toBeLessThan(0.25);
    }
  });
});
