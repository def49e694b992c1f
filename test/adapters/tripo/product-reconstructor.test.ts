import { beforeAll, describe, expect, it } from 'vitest';
import nock from 'nock';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { renderProductViews, type ProductMesh } from '../../support/products.ts';
import { TRIPO_DEFAULT_MODEL, TripoProductReconstructor, assignSlots } from '../../../adapters/tripo/product-reconstructor.ts';
import { ProviderError } from '../../../core/ports/image-model.ts';
import type { ReconstructionRequest, ReconstructionView, VendorTask } from '../../../core/ports/product-reconstructor.ts';
import { FAST_POLL, late, productView, tinyGlb, useNock } from '../vendor-helpers.ts';

/*
 * Fixtures follow Tripo's v3 API as its official Go SDK (VAST-AI-Research/tripo-go-sdk, 2026) calls it:
 * client.go (`POST /files` multipart `file` → `{code: 0, data: {file_token}}`; `GET /tasks/{id}`;
 * `GET /account/balance` → `{balance, frozen}`), generation.go (`POST /generation/multiview-to-model`
 * with `inputs` [front, left, back, right], an empty string skipping a view; `POST
 * /generation/image-to-model` with `input`; both → `{task_id}`), types.go (the task: status, progress,
 * `output.model_url`, `error_code`, `error_message`), constants.go (statuses queued, running, success,
 * failed, cancelled, unknown, banned, expired; model v3.1-20260211), client_test.go (code 2010 under
 * HTTP 200) and http.go (task creation never retried; Retry-After honoured). Error envelopes
 * `{code, message, suggestion}` and their HTTP statuses from docs.tripo3d.ai "Errors" (error code list):
 * 1001 (500), 1002 (401), 1004 (400), 2000 (429, Retry-After), 2001 (404), 2008 (400, content policy),
 * 2010 (403), 2015 (400, deprecated version).
 */

const KEY = 'tsk_test_key';
const API = 'https://openapi.tripo3d.ai';
const CDN = 'https://tripo-data.rg1.data.tripo3d.com';

let glb: Uint8Array;
const views: ReconstructionView[] = [];

function request(over: Partial<ReconstructionRequest> = {}): ReconstructionRequest {
  return { views, productType: 'shoe', quality: 'default', signal: new AbortController().signal, ...over };
}
const fast = { apiKey: KEY, ...FAST_POLL };
const ok = (data: unknown) => ({ code: 0, data });

/** Upload interceptor: checks the multipart part and hands out tokens in upload order. */
function uploads(count: number, seen: string[]) {
  return nock(API, { reqheaders: { authorization: `Bearer ${KEY}` } })
    .post('/v3/files', (raw: string) => {
      // nock hands over binary bodies hex-encoded.
      const body = /^[0-9a-f]+$/.test(raw) ? Buffer.from(raw, 'hex').toString('latin1') : raw;
      seen.push(body);
      return /name="file"; filename="view\.png"/.test(body) && /Content-Type: image\/png/i.test(body);
    })
    .times(count)
    .reply(200, () => ok({ file_token: `tok-${seen.length}` }));
}

/** A multiview task that succeeds at once with the GLB at `file`. */
function succeeded(id: string, file: string) {
  uploads(4, []);
  nock(API)
    .post('/v3/generation/multiview-to-model')
    .reply(200, ok({ task_id: id }))
    .get(`/v3/tasks/${id}`)
    .reply(200, ok({ task_id: id, status: 'success', progress: 100, output: { model_url: `${CDN}/${file}` } }));
}

useNock();
beforeAll(async () => {
  glb = await tinyGlb('upper', [0.9, 0.9, 0.9, 1], 0.6);
  // 0 = side view (Tripo's front), then 90, 180, 270 given out of order.
  const shaded = (angle: number, shade: number) => productView(angle, [shade, 10, 10]);
  views.push(await shaded(0, 10), await shaded(180, 20), await shaded(90, 30), await shaded(270, 40));
});

describe('TripoProductReconstructor (v3)', () => {
  it('refuses to start without a key and defaults to the v3 base, model v3.1 and a 10 minute task budget', () => {
    expect(() => new TripoProductReconstructor({ apiKey: '' })).toThrow(/TRIPO_API_KEY/);
    expect(TRIPO_DEFAULT_MODEL).toBe('v3.1-20260211');
    expect(new TripoProductReconstructor({ apiKey: KEY }).taskTimeoutMs).toBe(600_000);
  });

  it('uploads each view, creates a multiview task with the file tokens in front/left/back/right, stores the task before polling, downloads model_url at once', async () => {
    const events: string[] = [];
    const parts: string[] = [];
    const up = uploads(4, parts);
    let task: any;
    const api = nock(API, { reqheaders: { authorization: `Bearer ${KEY}` } })
      .post('/v3/generation/multiview-to-model', (b) => ((task = b), events.push('create'), true))
      .reply(200, ok({ task_id: 'tk-1' }))
      .get('/v3/tasks/tk-1')
      .reply(200, () => (events.push('poll'), ok({ task_id: 'tk-1', type: 'multiview_to_model', status: 'queued', progress: 0 })))
      .get('/v3/tasks/tk-1')
      .reply(200, ok({ task_id: 'tk-1', status: 'running', progress: 50 }))
      .get('/v3/tasks/tk-1')
      .reply(200, ok({ task_id: 'tk-1', status: 'success', progress: 100, output: { model_url: `${CDN}/m.glb`, pbr_model: `${CDN}/other.glb` } }));
    const cdn = nock(CDN, { badheaders: ['authorization'] }).get('/m.glb').reply(200, Buffer.from(glb));
    const progress: number[] = [];
    const stored: VendorTask[] = [];
    const result = await new TripoProductReconstructor(fast).reconstruct(request({
      quality: 'high',
      onProgress: (f) => progress.push(f),
      onTask: async (t) => {
        events.push('stored');
        stored.push(t);
      },
    }));
    expect(up.isDone() && api.isDone() && cdn.isDone()).toBe(true);
    expect(events).toEqual(['create', 'stored', 'poll']);
    expect(stored).toHaveLength(1);
    expect(stored[0].id).toBe('tk-1');
    expect(Number.isNaN(Date.parse(stored[0].createdAt))).toBe(false);
    expect(parts).toHaveLength(4);
    // Uploads happen in slot order (front, left, back, right); the views' bytes are in the parts.
    expect(parts[1]).toContain(Buffer.from(views[2].encoded.bytes).toString('latin1'));
    expect(parts[1]).not.toContain(Buffer.from(views[1].encoded.bytes).toString('latin1'));
    expect(task).toEqual({ inputs: ['tok-1', 'tok-2', 'tok-3', 'tok-4'], model: 'v3.1-20260211', texture: true, pbr: true, texture_quality: 'detailed' });
    expect(Buffer.from(result.glb).equals(Buffer.from(glb))).toBe(true);
    expect(progress.map((p) => Math.round(p * 1000) / 1000)).toEqual([0, 0, 0.45, 1]);
    expect(result.notes.join('\n')).toMatch(/task tk-1 \(multiview-to-model, slots front\/left\/back\/right\)/);
  });

  it('leaves missing slots as empty strings and sends a single view to image-to-model as `input`', async () => {
    uploads(2, []);
    let task: any;
    nock(API)
      .post('/v3/generation/multiview-to-model', (b) => ((task = b), true))
      .reply(200, ok({ task_id: 'tk-2' }))
      .get('/v3/tasks/tk-2')
      .reply(200, ok({ status: 'success', output: { model_url: `${CDN}/two.glb` } }));
    nock(CDN).get('/two.glb').reply(200, Buffer.from(glb));
    await new TripoProductReconstructor(fast).reconstruct(request({ views: [views[0], views[1]] }));
    expect(task.inputs).toEqual(['tok-1', '', 'tok-2', '']);
    expect(task.texture_quality).toBe('standard');

    uploads(1, []);
    nock(API)
      .post('/v3/generation/image-to-model', (b) => ((task = b), true))
      .reply(200, ok({ task_id: 'tk-3' }))
      .get('/v3/tasks/tk-3')
      .reply(200, ok({ status: 'success', output: { model_url: `${CDN}/one.glb` } }));
    nock(CDN).get('/one.glb').reply(200, Buffer.from(glb));
    const single = await new TripoProductReconstructor({ ...fast, modelVersion: 'P1-20260311' }).reconstruct(request({ views: [views[0]] }));
    expect(task).toEqual({ input: 'tok-1', model: 'P1-20260311', texture: true, pbr: true, texture_quality: 'standard' });
    expect(single.notes.join('\n')).toMatch(/task tk-3 \(image-to-model, one view\)/);
  });

  it('resumes a stored task: no upload, no second task, only polling', async () => {
    const api = nock(API)
      .get('/v3/tasks/tk-old')
      .reply(200, ok({ task_id: 'tk-old', status: 'running', progress: 80 }))
      .get('/v3/tasks/tk-old')
      .reply(200, ok({ task_id: 'tk-old', status: 'success', output: { model_url: `${CDN}/old.glb` } }));
    nock(CDN).get('/old.glb').reply(200, Buffer.from(glb));
    let created = 0;
    const result = await new TripoProductReconstructor(fast).reconstruct(request({ resume: { id: 'tk-old', createdAt: new Date().toISOString() }, onTask: async () => void created++ }));
    expect(api.isDone()).toBe(true);
    expect(created).toBe(0);
    expect(result.notes[0]).toMatch(/resuming task tk-old/);
  });

  it('keeps polling through `unknown` (as the SDKs do) and reports final statuses without retrying', async () => {
    succeededAfterUnknown();
    const result = await new TripoProductReconstructor(fast).reconstruct(request());
    expect(result.notes.join('\n')).toMatch(/reported status "unknown"; still polling/);

    uploads(4, []);
    nock(API)
      .post('/v3/generation/multiview-to-model')
      .reply(200, ok({ task_id: 'tk-4' }))
      .get('/v3/tasks/tk-4')
      .reply(200, ok({ status: 'failed', progress: 100, error_code: 1001, error_message: 'Fatal error on server side' }));
    const failed = await new TripoProductReconstructor(fast).reconstruct(request()).catch((e) => e);
    expect(failed).toBeInstanceOf(ProviderError);
    expect(failed.retryable).toBe(false);
    expect(failed.message).toMatch(/task tk-4 failed: Fatal error on server side \(error_code 1001\)/);

    uploads(4, []);
    nock(API).post('/v3/generation/multiview-to-model').reply(200, ok({ task_id: 'tk-b' })).get('/v3/tasks/tk-b').reply(200, ok({ status: 'banned' }));
    const banned = await new TripoProductReconstructor(fast).reconstruct(request()).catch((e) => e);
    expect(banned.retryable).toBe(false);
    expect(banned.message).toMatch(/task tk-b banned \(content policy\)/);
  });

  function succeededAfterUnknown() {
    uploads(4, []);
    nock(API)
      .post('/v3/generation/multiview-to-model')
      .reply(200, ok({ task_id: 'tk-u' }))
      .get('/v3/tasks/tk-u')
      .times(2)
      .reply(200, ok({ task_id: 'tk-u', status: 'unknown' }))
      .get('/v3/tasks/tk-u')
      .reply(200, ok({ task_id: 'tk-u', status: 'success', output: { model_url: `${CDN}/u.glb` } }));
    nock(CDN).get('/u.glb').reply(200, Buffer.from(glb));
  }

  it('maps each documented error class: auth, credits, content policy, invalid input, deprecated version (none retried)', async () => {
    const cases = [
      { status: 401, code: 1002, message: 'Authentication failed', errorCode: 'PROVIDER_ACCOUNT' },
      { status: 403, code: 2010, message: 'You need more credits to start a new task.', errorCode: 'PROVIDER_ACCOUNT' },
      // the Go SDK's client_test.go: a refusal may come under HTTP 200
      { status: 200, code: 2010, message: 'Insufficient credits', errorCode: 'PROVIDER_ACCOUNT' },
      { status: 400, code: 2008, message: 'The input is rejected due to violation of content policy', errorCode: undefined, tag: /code 2008 \(content policy\)/ },
      { status: 400, code: 1004, message: 'One or more of your parameter is invalid', errorCode: undefined },
      { status: 400, code: 2015, message: 'The version has been deprecated', errorCode: 'MODEL_UNAVAILABLE' },
    ];
    for (const c of cases) {
      uploads(4, []);
      const create = nock(API).post('/v3/generation/multiview-to-model').reply(c.status, { code: c.code, message: c.message, suggestion: 'See the documentation' });
      const err = await new TripoProductReconstructor(fast).reconstruct(request()).catch((e) => e);
      expect(create.isDone(), String(c.code)).toBe(true);
      expect(err, String(c.code)).toBeInstanceOf(ProviderError);
      expect(err.retryable, String(c.code)).toBe(false);
      expect(err.code, String(c.code)).toBe(c.errorCode);
      expect(err.message).toContain(c.message);
      expect(err.message).toMatch(c.tag ?? new RegExp(`code ${c.code}`));
      expect(err.message).not.toContain(KEY);
    }
  });

  it('rate limit (429, code 2000) is retryable with the Retry-After it asked for; a server error (500, code 1001) is retryable', async () => {
    nock(API).post('/v3/files').reply(429, { code: 2000, message: 'You have exceeded the limit of generation', suggestion: 'Try again later.' }, { 'retry-after': '7' });
    const limited = await new TripoProductReconstructor(fast).reconstruct(request()).catch((e) => e);
    expect(limited.retryable).toBe(true);
    expect(limited.status).toBe(429);
    expect(limited.retryAfterMs).toBe(7000);
    expect(limited.message).toMatch(/code 2000: You have exceeded the limit of generation \(Try again later\.\)/);

    uploads(4, []);
    // creation is sent once: its 5xx is reported, never replayed (the Go SDK's http.go: billed per submission)
    const create = nock(API).post('/v3/generation/multiview-to-model').once().reply(500, { code: 1001, message: 'Fatal error on server side' });
    const server = await new TripoProductReconstructor(fast).reconstruct(request()).catch((e) => e);
    expect(create.isDone()).toBe(true);
    expect(server.retryable).toBe(true);
    expect(server.status).toBe(500);
  });

  it('rides out rate limits and server errors while polling, honouring Retry-After', async () => {
    uploads(4, []);
    nock(API)
      .post('/v3/generation/multiview-to-model')
      .reply(200, ok({ task_id: 'tk-r' }))
      .get('/v3/tasks/tk-r')
      .reply(500, { code: 1000, message: 'Unknown error on sever side' })
      .get('/v3/tasks/tk-r')
      .reply(429, { code: 1007, message: 'Rate limit exceeded' }, { 'retry-after': '0' })
      .get('/v3/tasks/tk-r')
      .reply(200, ok({ status: 'success', output: { model_url: `${CDN}/r.glb` } }));
    nock(CDN).get('/r.glb').reply(200, Buffer.from(glb));
    expect((await new TripoProductReconstructor(fast).reconstruct(request())).glb.byteLength).toBe(glb.byteLength);
  });

  it('a task that is not found (404, code 2001) is final: read once, not retried', async () => {
    let reads = 0;
    nock(API).get('/v3/tasks/gone').times(5).reply(404, () => (reads++, { code: 2001, message: 'The task is not found', suggestion: 'Check if the task is committed by you' }));
    const err = await new TripoProductReconstructor(fast).reconstruct(request({ resume: { id: 'gone', createdAt: new Date().toISOString() } })).catch((e) => e);
    expect(reads).toBe(1);
    expect(err.retryable).toBe(false);
    expect(err.status).toBe(404);
    expect(err.message).toMatch(/code 2001: The task is not found/);
  });

  it('gives up on a task after its task timeout, counted from the task\'s creation', async () => {
    nock(API).get('/v3/tasks/slow').times(1000).reply(200, ok({ status: 'running', progress: 10 }));
    // created long ago: the budget is spent, one read and then the timeout
    const err = await new TripoProductReconstructor({ ...fast, taskTimeoutMs: 60_000 }).reconstruct(request({ resume: { id: 'slow', createdAt: new Date(Date.now() - 120_000).toISOString() } })).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.message).toMatch(/still queued after/);
  });

  it('checks the key live (GET /account/balance) and reports the credits', async () => {
    const ac = new AbortController();
    nock(API, { reqheaders: { authorization: `Bearer ${KEY}` } }).get('/v3/account/balance').reply(200, ok({ balance: 300, frozen: 0 }));
    expect(await new TripoProductReconstructor(fast).check(ac.signal)).toMatchObject({ provider: 'tripo', status: 'ok', balance: 300, models: [{ id: 'v3.1-20260211', available: true }] });
    nock(API).get('/v3/account/balance').reply(401, { code: 1002, message: 'Authentication failed' });
    expect((await new TripoProductReconstructor(fast).check(ac.signal)).status).toBe('account_refused');
  });

  it('stops polling when the caller aborts', async () => {
    const ac = new AbortController();
    const reason = new Error('deadline');
    let reads = 0;
    nock(API)
      .get('/v3/tasks/tk-5')
      .times(1000)
      .reply(200, () => {
        if (++reads === 3) ac.abort(reason);
        return ok({ status: 'running', progress: 5 });
      });
    const err = await new TripoProductReconstructor(fast).reconstruct(request({ signal: ac.signal, resume: { id: 'tk-5', createdAt: new Date().toISOString() } })).catch((e) => e);
    expect(err).toBe(reason);
    expect(reads).toBe(3);
  });

  it('times out a slow request as retryable', async () => {
    nock(API)
      .post('/v3/files')
      .reply(late(3_000, [200, ok({ file_token: 'x' })]));
    const err = await new TripoProductReconstructor({ ...fast, timeoutMs: 200 }).reconstruct(request()).catch((e) => e);
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/timed out after 200 ms/);
  });

  it('refuses a model above maxGlbBytes, declared or streamed, as not retryable', async () => {
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
      .post('/v3/files', (raw: string) => {
        const body = Buffer.from(raw, /^[0-9a-f]+$/.test(raw) ? 'hex' : 'latin1');
        const start = body.indexOf(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
        files.push(body.subarray(start));
        return true;
      })
      .times(4)
      .reply(200, () => ({ code: 0, data: { file_token: `tok-${files.length}` } }));
    let task: any;
    nock(API)
      .post('/v3/generation/multiview-to-model', (b) => ((task = b), true))
      .reply(200, { code: 0, data: { task_id: 'orient' } })
      .get('/v3/tasks/orient')
      .reply(200, { code: 0, data: { task_id: 'orient', status: 'success', output: { model_url: `${CDN}/o.glb` } } });
    nock(CDN).get('/o.glb').reply(200, Buffer.from(glb));
    await new TripoProductReconstructor(fast).reconstruct(request({ views: cubeViews }));
    expect(task.inputs).toHaveLength(4);
    const slotNames = ['front', 'left', 'back', 'right'];
    for (const [slot, token] of (task.inputs as string[]).entries()) {
      const upload = files[Number(token.slice(4)) - 1];
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
