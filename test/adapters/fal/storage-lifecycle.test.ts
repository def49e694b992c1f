import { beforeAll, describe, expect, it } from 'vitest';
import nock from 'nock';
import { FalImageModel } from '../../../adapters/fal/image-model.ts';
import { FAST_POLL, tryonCall, tryonImages, useNock } from '../vendor-helpers.ts';

/*
 * Privacy on fal storage. Sources: fal-js `libs/client/src/storage.ts` (fal-ai/fal-js; the upload's
 * initiation sends `X-Fal-Object-Lifecycle: {"expiration_duration_seconds": N, "allow_io_storage": true}`,
 * and `buildObjectLifecycleHeaders` makes `X-Fal-Object-Lifecycle-Preference: {"expiration_duration_seconds": N}`
 * for queue requests), and fal's "Data Retention & Storage" page (docs.fal.ai/documentation/model-apis/
 * media-expiration: the preference header governs a request's CDN files, input uploads included;
 * `X-Fal-Store-IO: 0` keeps the request's JSON out of the 30-day history).
 */

const KEY = 'fal-key-id:fal-key-secret';
const QUEUE = 'https://queue.fal.run';
const STORAGE = 'https://rest.fal.ai';
const PRESIGNED = 'https://storage.googleapis.com';
const CDN = 'https://v3.fal.media';
const MODEL = 'fal-ai/flux-pro/kontext';

let images: Awaited<ReturnType<typeof tryonImages>>;
useNock();
beforeAll(async () => (images = await tryonImages()));

/** One Kontext call; records the headers the upload initiation and the queue submission carried. */
async function runOnce(fal: FalImageModel) {
  const seen: { initiate: Record<string, string>; submit: Record<string, string> } = { initiate: {}, submit: {} };
  /** Header matchers that record the values they see (and accept any). */
  const record = (into: Record<string, string>, names: string[]) => Object.fromEntries(names.map((n) => [n, (v: string | null) => ((into[n] = v ?? ''), v !== null)]));
  const LIFECYCLE = ['x-fal-object-lifecycle', 'x-fal-object-lifecycle-preference'];
  nock(STORAGE, { reqheaders: record(seen.initiate, LIFECYCLE) })
    .post('/storage/upload/initiate')
    .query({ storage_type: 'fal-cdn-v3' })
    .reply(200, { upload_url: `${PRESIGNED}/fal-uploads/ref-1?X-Goog-Signature=s`, file_url: `${CDN}/files/ref-1.png` });
  nock(PRESIGNED).put('/fal-uploads/ref-1').query(true).reply(200);
  nock(QUEUE, { reqheaders: record(seen.submit, ['x-fal-object-lifecycle-preference', 'x-fal-store-io']) })
    .post(`/${MODEL}`)
    .reply(200, { request_id: 'r1', status_url: `${QUEUE}/fal-ai/flux-pro/requests/r1/status`, response_url: `${QUEUE}/fal-ai/flux-pro/requests/r1` });
  nock(QUEUE)
    .get('/fal-ai/flux-pro/requests/r1/status')
    .reply(200, { status: 'COMPLETED' })
    .get('/fal-ai/flux-pro/requests/r1')
    .reply(200, { images: [{ url: `${CDN}/files/out.png`, content_type: 'image/png' }], has_nsfw_concepts: [false] });
  nock(CDN).get('/files/out.png').reply(200, Buffer.from(images.output), { 'content-type': 'image/png' });
  const call = tryonCall(images, { model: MODEL, prompt: 'p' });
  const out = await fal.run({ ...call, references: call.references.slice(0, 1) });
  expect(out).toHaveLength(1);
  return seen;
}

describe('fal storage lifecycle', () => {
  it('asks the configured lifetime for the uploaded photo and the generated files, and no stored payload', async () => {
    const seen = await runOnce(new FalImageModel({ apiKey: KEY, ...FAST_POLL, objectTtlSeconds: 900 }));
    expect(JSON.parse(seen.initiate['x-fal-object-lifecycle'])).toEqual({ expiration_duration_seconds: 900, allow_io_storage: true });
    expect(JSON.parse(seen.initiate['x-fal-object-lifecycle-preference'])).toEqual({ expiration_duration_seconds: 900 });
    expect(JSON.parse(seen.submit['x-fal-object-lifecycle-preference'])).toEqual({ expiration_duration_seconds: 900 });
    expect(seen.submit['x-fal-store-io']).toBe('0');
  });

  it('defaults to one hour', async () => {
    const seen = await runOnce(new FalImageModel({ apiKey: KEY, ...FAST_POLL }));
    expect(JSON.parse(seen.initiate['x-fal-object-lifecycle-preference'])).toEqual({ expiration_duration_seconds: 3600 });
    expect(JSON.parse(seen.submit['x-fal-object-lifecycle-preference'])).toEqual({ expiration_duration_seconds: 3600 });
  });

  it('refuses a lifetime that is not positive', () => {
    expect(() => new FalImageModel({ apiKey: KEY, objectTtlSeconds: 0 })).toThrow(/objectTtlSeconds/);
  });
});
