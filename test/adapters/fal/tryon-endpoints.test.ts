import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import nock from 'nock';
import { FalImageModel } from '../../../adapters/fal/image-model.ts';
import { VendorHttpError } from '../../../adapters/http/vendor.ts';
import { ProviderError } from '../../../core/ports/image-model.ts';
import { FAST_POLL, dedicatedCall, tryonImages, useNock } from '../vendor-helpers.ts';

/*
 * fal's dedicated try-on endpoints through the same queue client as the image-edit models. Fixtures
 * follow fal's llms.txt pages as of 2026-11: fal-ai/fashn/tryon/v1.6 (input `model_image`,
 * `garment_image`, `category` tops | bottoms | one-pieces | auto, `mode` performance | balanced | quality,
 * `garment_photo_type` auto | flat-lay | model, `num_samples`, `output_format`; output
 * `{images: [{url, content_type, width, height}]}`) and fal-ai/kling/v1-5/kolors-virtual-try-on (input
 * `human_image_url`, `garment_image_url`, `sync_mode`; output `{image: {url, content_type}}`); the queue
 * protocol and storage uploads as in @fal-ai/client 1.10 (see image-model.test.ts); model errors per
 * docs.fal.ai/model-apis/errors (`{detail: [{loc, msg, type}]}`, e.g. type content_policy_violation, 422).
 */

const KEY = 'fal-key-id:fal-key-secret';
const QUEUE = 'https://queue.fal.run';
const CDN = 'https://v3.fal.media';
const STORAGE = 'https://rest.fal.ai';
const PRESIGNED = 'https://storage.googleapis.com';
const FASHN = 'fal-ai/fashn/tryon/v1.6';
const KOLORS = 'fal-ai/kling/v1-5/kolors-virtual-try-on';

let person: Uint8Array;
let garment: Uint8Array;
let output: Uint8Array;
let uploads: { name: string; bytes?: number }[] = [];
const fast = { apiKey: KEY, ...FAST_POLL };

beforeEach(() => {
  uploads = [];
  nock(STORAGE)
    .persist()
    .post('/storage/upload/initiate', (b) => (uploads.push({ name: b.file_name }), true))
    .query(true)
    .reply(() => [200, { upload_url: `${PRESIGNED}/fal-uploads/u-${uploads.length}?sig=1`, file_url: `${CDN}/files/u-${uploads.length}.png` }]);
  nock(PRESIGNED)
    .persist()
    .put(/\/fal-uploads\/u-\d+/)
    .query(true)
    .reply(async (req: Request) => {
      uploads[Number(/u-(\d+)/.exec(req.url)![1]) - 1].bytes = (await req.arrayBuffer()).byteLength;
      return [200, ''];
    });
});

/** Submit → IN_QUEUE → IN_PROGRESS → COMPLETED → result, for an app path (the model id's first two segments). */
function queue(model: string, id: string, onBody: (b: any) => void, result: [number, object]) {
  const app = model.split('/').slice(0, 2).join('/');
  return nock(QUEUE, { reqheaders: { authorization: `Key ${KEY}` } })
    .post(`/${model}`, (b) => (onBody(b), true))
    .reply(200, { request_id: id, status_url: `${QUEUE}/${app}/requests/${id}/status`, response_url: `${QUEUE}/${app}/requests/${id}`, cancel_url: `${QUEUE}/${app}/requests/${id}/cancel` })
    .get(`/${app}/requests/${id}/status`)
    .reply(202, { status: 'IN_QUEUE', queue_position: 0 })
    .get(`/${app}/requests/${id}/status`)
    .reply(202, { status: 'IN_PROGRESS', logs: [] })
    .get(`/${app}/requests/${id}/status`)
    .reply(200, { status: 'COMPLETED' })
    .get(`/${app}/requests/${id}`)
    .reply(...result);
}

useNock();
beforeAll(async () => ({ person, garment, output } = await tryonImages()));

describe('fal dedicated try-on endpoints', () => {
  it('FASHN v1.6 on fal: person and garment uploaded, their URLs in model_image and garment_image, category, mode and photo type set, no prompt', async () => {
    let body: any;
    const q = queue(FASHN, 't-1', (b) => (body = b), [200, { images: [{ url: `${CDN}/files/out.png`, content_type: 'image/png', width: 864, height: 1296 }] }]);
    nock(CDN, { badheaders: ['authorization'] }).get('/files/out.png').reply(200, Buffer.from(output), { 'content-type': 'image/png' });
    const images = await new FalImageModel(fast).run(dedicatedCall({ person, garment }, FASHN, { quality: 'draft' }, { slot: 'bottomGarment' }));
    expect(q.isDone()).toBe(true);
    expect(uploads).toEqual([{ name: 'person.png', bytes: person.byteLength }, { name: 'garment.png', bytes: garment.byteLength }]);
    expect(body).toEqual({ model_image: `${CDN}/files/u-1.png`, garment_image: `${CDN}/files/u-2.png`, category: 'bottoms', garment_photo_type: 'flat-lay', mode: 'performance', num_samples: 1, output_format: 'png' });
    expect(Buffer.from(images[0].bytes).equals(Buffer.from(output))).toBe(true);
  });

  it('Kling Kolors on fal: human_image_url and garment_image_url only, the single `image` result', async () => {
    let body: any;
    queue(KOLORS, 't-2', (b) => (body = b), [200, { image: { url: `${CDN}/files/k.png`, content_type: 'image/png' } }]);
    nock(CDN).get('/files/k.png').reply(200, Buffer.from(output), { 'content-type': 'image/png' });
    const images = await new FalImageModel(fast).run(dedicatedCall({ person, garment }, KOLORS));
    expect(body).toEqual({ human_image_url: `${CDN}/files/u-1.png`, garment_image_url: `${CDN}/files/u-2.png` });
    expect(images).toHaveLength(1);
  });

  it('a refused key (401) and a locked account (403 exhausted balance) are the account', async () => {
    nock(QUEUE).post(`/${FASHN}`).reply(401, { detail: 'No user found for Key ID and Secret' });
    expect(await new FalImageModel(fast).run(dedicatedCall({ person, garment }, FASHN)).catch((e) => e)).toMatchObject({ code: 'PROVIDER_ACCOUNT', retryable: false, status: 401 });
    nock(QUEUE).post(`/${FASHN}`).reply(403, { detail: 'User is locked. Reason: Exhausted balance.' });
    expect(await new FalImageModel(fast).run(dedicatedCall({ person, garment }, FASHN)).catch((e) => e)).toMatchObject({ code: 'PROVIDER_ACCOUNT', retryable: false, status: 403 });
  });

  it('a content-policy refusal and invalid input (422 from the result) are not retried', async () => {
    queue(FASHN, 't-3', () => undefined, [422, { detail: [{ loc: ['body', 'model_image'], msg: 'The image was flagged by the content checker.', type: 'content_policy_violation' }] }]);
    const policy = await new FalImageModel(fast).run(dedicatedCall({ person, garment }, FASHN)).catch((e) => e);
    expect(policy).toMatchObject({ retryable: false, status: 422 });
    expect(policy.message).toMatch(/body.model_image: The image was flagged/);

    queue(KOLORS, 't-4', () => undefined, [422, { detail: [{ loc: ['body', 'human_image_url'], msg: 'Image too small: at least 300 px', type: 'image_too_small' }] }]);
    expect(await new FalImageModel(fast).run(dedicatedCall({ person, garment }, KOLORS)).catch((e) => e)).toMatchObject({ retryable: false, status: 422 });
  });

  it('an unknown endpoint (404), a rate limit (429 with Retry-After) and a server error (500) fail without ending the chain', async () => {
    nock(QUEUE).post(`/${FASHN}`).reply(404, { detail: 'Application not found' });
    const missing = await new FalImageModel(fast).run(dedicatedCall({ person, garment }, FASHN)).catch((e) => e);
    expect(missing).toBeInstanceOf(ProviderError);
    expect(missing.status).toBe(404);
    expect(missing.code === 'MODEL_UNAVAILABLE' || missing.retryable).toBe(true);

    nock(QUEUE).post(`/${FASHN}`).reply(429, { detail: 'Too many requests' }, { 'retry-after': '3' });
    const limited = await new FalImageModel(fast).run(dedicatedCall({ person, garment }, FASHN)).catch((e) => e);
    expect(limited).toBeInstanceOf(VendorHttpError);
    expect(limited).toMatchObject({ retryable: true, status: 429, retryAfterMs: 3000 });

    nock(QUEUE).post(`/${FASHN}`).reply(500, { detail: 'Internal server error' });
    expect(await new FalImageModel(fast).run(dedicatedCall({ person, garment }, FASHN)).catch((e) => e)).toMatchObject({ retryable: true, status: 500 });
  });

  it('stops waiting (retryable) on a request still queued after maxWaitMs and cancels it', async () => {
    const app = 'fal-ai/fashn';
    let cancelled = false;
    nock(QUEUE)
      .post(`/${FASHN}`)
      .reply(200, { request_id: 't-5', status_url: `${QUEUE}/${app}/requests/t-5/status`, response_url: `${QUEUE}/${app}/requests/t-5`, cancel_url: `${QUEUE}/${app}/requests/t-5/cancel` })
      .get(`/${app}/requests/t-5/status`)
      .times(100)
      .reply(202, { status: 'IN_QUEUE', queue_position: 9 })
      .put(`/${app}/requests/t-5/cancel`)
      .reply(() => ((cancelled = true), [202, { status: 'CANCELLATION_REQUESTED' }]));
    const err = await new FalImageModel({ ...fast, maxWaitMs: 50 }).run(dedicatedCall({ person, garment }, FASHN)).catch((e) => e);
    expect(err).toMatchObject({ retryable: true });
    expect(err.message).toMatch(/still queued after 50 ms/);
    await expect.poll(() => cancelled).toBe(true);
  });
});
