import { beforeAll, describe, expect, it } from 'vitest';
import nock from 'nock';
import { FashnImageModel } from '../../../adapters/fashn/image-model.ts';
import { VendorHttpError } from '../../../adapters/http/vendor.ts';
import { ProviderError } from '../../../core/ports/image-model.ts';
import { FAST_POLL, dedicatedCall, tryonImages, useNock } from '../vendor-helpers.ts';

/*
 * Fixtures follow FASHN's API reference as of 2026-11 and its official SDK (fashn-AI/fashn-typescript-sdk,
 * src/resources/predictions.ts): `POST /v1/run {model_name, inputs}` → `{id, error: null}`;
 * `GET /v1/status/{id}` → `{id, status: starting | in_queue | processing | completed | failed | canceled |
 * time_out, output, error: {name, message}}` with the `x-fashn-credits-used` header on the final read;
 * runtime error names ImageLoadError, ContentModerationError, PoseError, PipelineError, ThirdPartyError;
 * API-level errors `{error, message}` (docs.fashn.ai/api-overview/error-handling): 400 BadRequest,
 * 401 UnauthorizedAccess, 404 NotFound, 429 RateLimitExceeded / ConcurrencyLimitExceeded / OutOfCredits,
 * 500 InternalServerError. Inputs per docs.fashn.ai/api-reference/tryon-v1-6 and /tryon-max.
 */

const API = 'https://api.fashn.ai';
const KEY = 'fa-test-key';
const CDN = 'https://cdn.fashn.ai';
const ID = '123a87r9-4129-4bb3-be18-9c9fb5bd7fc1-u1';

let person: Uint8Array;
let garment: Uint8Array;
let output: Uint8Array;
const b64 = (b: Uint8Array) => `data:image/png;base64,${Buffer.from(b).toString('base64')}`;
const fast = { apiKey: KEY, ...FAST_POLL };

/** run → in_queue → processing → completed, recording the run body. */
function prediction(onBody: (b: any) => void, completed: object, credits = '1') {
  return nock(API, { reqheaders: { authorization: `Bearer ${KEY}` } })
    .post('/v1/run', (b) => (onBody(b), true))
    .reply(200, { id: ID, error: null })
    .get(`/v1/status/${ID}`)
    .reply(200, { id: ID, status: 'in_queue', output: null, error: null })
    .get(`/v1/status/${ID}`)
    .reply(200, { id: ID, status: 'processing', output: null, error: null })
    .get(`/v1/status/${ID}`)
    .reply(200, { id: ID, status: 'completed', error: null, ...completed }, { 'x-fashn-credits-used': credits });
}

/** A run that is accepted, then fails at run time with one of FASHN's error names. */
function failsWith(name: string, message: string) {
  nock(API).post('/v1/run').reply(200, { id: ID, error: null }).get(`/v1/status/${ID}`).reply(200, { id: ID, status: 'failed', output: null, error: { name, message } });
}

useNock();
beforeAll(async () => ({ person, garment, output } = await tryonImages()));

describe('FashnImageModel', () => {
  it('refuses to start without a key', () => {
    expect(() => new FashnImageModel({ apiKey: '' })).toThrow(/FASHN_API_KEY/);
  });

  it('runs tryon-v1.6 with the garment as a flat-lay top, polls to completion and decodes the base64 result', async () => {
    let body: any;
    const credits: unknown[] = [];
    const scope = prediction((b) => (body = b), { output: [b64(output)] }, '1');
    const images = await new FashnImageModel({ ...fast, onCredits: (c) => credits.push(c) }).run(dedicatedCall({ person, garment }, 'tryon-v1.6'));
    expect(scope.isDone()).toBe(true);
    expect(body.model_name).toBe('tryon-v1.6');
    expect(body.inputs).toMatchObject({ model_image: b64(person), garment_image: b64(garment), category: 'tops', garment_photo_type: 'flat-lay', mode: 'balanced', return_base64: true, num_samples: 1 });
    expect(body.inputs.prompt).toBeUndefined();
    expect(Buffer.from(images[0].bytes).equals(Buffer.from(output))).toBe(true);
    expect(images[0].contentType).toBe('image/png');
    expect(credits).toEqual([{ model: 'tryon-v1.6', predictionId: ID, credits: 1 }]);
  });

  it('sends the on-model reference as garment_photo_type model, maps bottoms and dresses, and the quality to the mode', async () => {
    const bodies: any[] = [];
    const onModel = { bytes: output, contentType: 'image/png' };
    prediction((b) => bodies.push(b), { output: [b64(output)] });
    await new FashnImageModel(fast).run(dedicatedCall({ person, garment }, 'tryon-v1.6', { quality: 'high' }, { slot: 'bottomGarment', onModel }));
    prediction((b) => bodies.push(b), { output: [b64(output)] });
    await new FashnImageModel(fast).run(dedicatedCall({ person, garment }, 'tryon-v1.6', { quality: 'draft' }, { slot: 'fullBodyGarment' }));
    expect(bodies[0].inputs).toMatchObject({ category: 'bottoms', garment_photo_type: 'model', garment_image: b64(output), mode: 'quality' });
    expect(bodies[1].inputs).toMatchObject({ category: 'one-pieces', garment_photo_type: 'flat-lay', mode: 'performance' });
  });

  it('runs Try-On Max for shoes with product_image, generation mode and resolution, and downloads a CDN result', async () => {
    let body: any;
    prediction((b) => (body = b), { output: [`${CDN}/outputs/${ID}/0.png`] }, '4');
    const cdn = nock(CDN, { badheaders: ['authorization'] }).get(`/outputs/${ID}/0.png`).reply(200, Buffer.from(output), { 'content-type': 'image/png' });
    const images = await new FashnImageModel(fast).run(dedicatedCall({ person, garment }, 'tryon-max', { task: 'shoe-tryon' }, { slot: 'shoes' }));
    expect(cdn.isDone()).toBe(true);
    expect(body).toMatchObject({ model_name: 'tryon-max', inputs: { model_image: b64(person), product_image: b64(garment), generation_mode: 'balanced', resolution: '2k', num_images: 1 } });
    expect(body.inputs.garment_image).toBeUndefined();
    expect(body.inputs.category).toBeUndefined();
    expect(Buffer.from(images[0].bytes).equals(Buffer.from(output))).toBe(true);
  });

  it('a refused key (401 UnauthorizedAccess) and exhausted credits (429 OutOfCredits) are the account: never retried', async () => {
    nock(API).post('/v1/run').reply(401, { error: 'UnauthorizedAccess', message: 'Unauthorized: Invalid token' });
    const auth = await new FashnImageModel(fast).run(dedicatedCall({ person, garment }, 'tryon-v1.6')).catch((e) => e);
    expect(auth).toBeInstanceOf(ProviderError);
    expect(auth).toMatchObject({ code: 'PROVIDER_ACCOUNT', retryable: false, status: 401 });
    expect(auth.message).toMatch(/UnauthorizedAccess: Unauthorized: Invalid token/);

    nock(API).post('/v1/run').reply(429, { error: 'OutOfCredits', message: 'You have run out of API credits' });
    const credits = await new FashnImageModel(fast).run(dedicatedCall({ person, garment }, 'tryon-v1.6')).catch((e) => e);
    expect(credits).toMatchObject({ code: 'PROVIDER_ACCOUNT', retryable: false, status: 429 });
  });

  it('a rate limit (429 RateLimitExceeded) is retryable and keeps its Retry-After; a concurrency limit while polling is waited out', async () => {
    nock(API).post('/v1/run').reply(429, { error: 'RateLimitExceeded', message: 'Too many requests' }, { 'retry-after': '7' });
    const err = await new FashnImageModel(fast).run(dedicatedCall({ person, garment }, 'tryon-v1.6')).catch((e) => e);
    expect(err).toBeInstanceOf(VendorHttpError);
    expect(err).toMatchObject({ retryable: true, status: 429, retryAfterMs: 7000 });
    expect(err.code).toBeUndefined();

    const scope = nock(API)
      .post('/v1/run')
      .reply(200, { id: ID, error: null })
      .get(`/v1/status/${ID}`)
      .reply(429, { error: 'ConcurrencyLimitExceeded', message: 'Too many concurrent predictions' }, { 'retry-after': '0' })
      .get(`/v1/status/${ID}`)
      .reply(200, { id: ID, status: 'completed', output: [b64(output)], error: null });
    const images = await new FashnImageModel(fast).run(dedicatedCall({ person, garment }, 'tryon-v1.6'));
    expect(scope.isDone()).toBe(true);
    expect(images).toHaveLength(1);
  });

  it('content moderation, an unloadable image, no pose and a bad request are the input: not retried, said clearly', async () => {
    failsWith('ContentModerationError', 'Prohibited content detected in garment image');
    const moderation = await new FashnImageModel(fast).run(dedicatedCall({ person, garment }, 'tryon-v1.6')).catch((e) => e);
    expect(moderation).toMatchObject({ retryable: false });
    expect(moderation.message).toMatch(/ContentModerationError, the images were refused by content moderation: Prohibited content/);

    failsWith('PoseError', 'Unable to detect body pose');
    const pose = await new FashnImageModel(fast).run(dedicatedCall({ person, garment }, 'tryon-v1.6')).catch((e) => e);
    expect(pose).toMatchObject({ retryable: false });
    expect(pose.message).toMatch(/no body pose found in the person photo/);

    failsWith('ImageLoadError', 'Unable to load model image');
    expect(await new FashnImageModel(fast).run(dedicatedCall({ person, garment }, 'tryon-v1.6')).catch((e) => e)).toMatchObject({ retryable: false });

    nock(API).post('/v1/run').reply(400, { error: 'BadRequest', message: 'inputs.model_image is required' });
    const bad = await new FashnImageModel(fast).run(dedicatedCall({ person, garment }, 'tryon-v1.6')).catch((e) => e);
    expect(bad).toMatchObject({ retryable: false, status: 400 });
    expect(bad.code).toBeUndefined();
    expect(bad.message).toMatch(/BadRequest: inputs.model_image is required/);
  });

  it('server errors (500, PipelineError, ThirdPartyError) and a prediction no longer tracked (404) let the chain try another model', async () => {
    nock(API).post('/v1/run').reply(500, { error: 'InternalServerError', message: 'Internal server error' });
    expect(await new FashnImageModel(fast).run(dedicatedCall({ person, garment }, 'tryon-v1.6')).catch((e) => e)).toMatchObject({ retryable: true, status: 500 });

    failsWith('PipelineError', 'Unexpected pipeline failure');
    const pipeline = await new FashnImageModel(fast).run(dedicatedCall({ person, garment }, 'tryon-v1.6')).catch((e) => e);
    expect(pipeline).toMatchObject({ retryable: true });
    expect(pipeline.message).toMatch(/failed \(PipelineError\): Unexpected pipeline failure/);

    failsWith('ThirdPartyError', 'Captioning restriction');
    expect(await new FashnImageModel(fast).run(dedicatedCall({ person, garment }, 'tryon-v1.6')).catch((e) => e)).toMatchObject({ retryable: true });

    nock(API).post('/v1/run').reply(200, { id: ID, error: null }).get(`/v1/status/${ID}`).times(4).reply(404, { error: 'NotFound', message: 'Prediction not found or no longer tracked' });
    const gone = await new FashnImageModel(fast).run(dedicatedCall({ person, garment }, 'tryon-v1.6')).catch((e) => e);
    expect(gone).toMatchObject({ retryable: true, status: 404 });
    expect(gone.code).toBeUndefined();
    expect(gone.message).toMatch(/NotFound: Prediction not found/);
  });

  it('gives up (retryable) on a prediction still processing after maxWaitMs, and on canceled or timed-out ones', async () => {
    nock(API).post('/v1/run').reply(200, { id: ID, error: null }).get(`/v1/status/${ID}`).times(100).reply(200, { id: ID, status: 'processing', output: null, error: null });
    const slow = await new FashnImageModel({ ...fast, maxWaitMs: 60 }).run(dedicatedCall({ person, garment }, 'tryon-v1.6')).catch((e) => e);
    expect(slow).toBeInstanceOf(ProviderError);
    expect(slow).toMatchObject({ retryable: true });
    expect(slow.message).toMatch(/still queued after 60 ms/);

    nock(API).post('/v1/run').reply(200, { id: ID, error: null }).get(`/v1/status/${ID}`).reply(200, { id: ID, status: 'time_out', output: null, error: { name: 'PollingTimeout', message: 'timed out' } });
    expect(await new FashnImageModel(fast).run(dedicatedCall({ person, garment }, 'tryon-v1.6')).catch((e) => e)).toMatchObject({ retryable: true });
  });

  it('a call without the garment photos (only the grid) fails retryably before any request', async () => {
    const err = await new FashnImageModel(fast).run(dedicatedCall({ person, garment }, 'tryon-v1.6', { garments: undefined })).catch((e) => e);
    expect(err).toMatchObject({ retryable: true });
    expect(err.message).toMatch(/needs a person image and a garment photo/);
  });
});
