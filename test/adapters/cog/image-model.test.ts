import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import nock from 'nock';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CogImageModel } from '../../../adapters/cog/image-model.ts';
import { SafeHttp } from '../../../adapters/http/safe-http.ts';
import { VendorHttpError } from '../../../adapters/http/vendor.ts';
import { ProviderError } from '../../../core/ports/image-model.ts';
import { FAST_POLL, dedicatedCall, late, tryonImages, useNock } from '../vendor-helpers.ts';

/*
 * Cog fixtures follow Cog's HTTP API (github replicate/cog, docs/http.md at 6110c91, 2026-08):
 * `PUT /predictions/{prediction_id}` with `{input}` is synchronous and idempotent and answers
 * `{status: succeeded | failed, output, error, metrics}`; file outputs are base64 data URLs unless the
 * server runs with --upload-url (then a URL); 409 Conflict when every prediction slot is busy; invalid
 * input is FastAPI's 422 `{detail: [{loc, msg, type}]}`. Replicate fixtures follow its HTTP API docs
 * (replicate.com/docs/topics/predictions, /create-a-prediction, /input-files) and its official SDK
 * (replicate/replicate-javascript lib/predictions.js, lib/files.js): `POST /v1/models/{owner}/{name}/predictions`
 * or `POST /v1/predictions {version, input}` with `Prefer: wait=n`, the prediction object `{id, model,
 * version, input, logs, output, error, status: starting | processing | succeeded | failed | canceled,
 * urls: {get, cancel}}`, `POST /v1/files` (multipart `content`) answering `{id, urls: {get}}`, and errors
 * as problem details `{title, detail, status}` (401, 402, 404, 422, 429 with Retry-After).
 */

const COG = 'http://gpu.internal:5000';
const REPLICATE = 'https://api.replicate.com';
const DELIVERY = 'https://replicate.delivery';
const TOKEN = 'r8_test_token';

let person: Uint8Array;
let garment: Uint8Array;
let output: Uint8Array;
let server: http.Server;
let serverUrl: string;
const b64 = (b: Uint8Array) => `data:image/png;base64,${Buffer.from(b).toString('base64')}`;
const safe = (allowed: string[] = []) => new SafeHttp({ allowedPrivateNetworks: allowed, maxBytes: 10_000_000, timeoutMs: 5_000, maxRedirects: 2 });
const cog = (over: Partial<ConstructorParameters<typeof CogImageModel>[0]> = {}) => new CogImageModel({ id: 'cog', baseUrl: COG, outbound: safe(), ...over });
const replicate = (over: Partial<ConstructorParameters<typeof CogImageModel>[0]> = {}) => new CogImageModel({ id: 'replicate', token: TOKEN, model: 'fashn-ai/fashn-vton-1.5', ...FAST_POLL, ...over });
const call = (model = 'cog-tryon', ...rest: Parameters<typeof dedicatedCall> extends [unknown, unknown, ...infer R] ? R : never) => dedicatedCall({ person, garment }, model, ...rest);

useNock();
beforeAll(async () => {
  ({ person, garment, output } = await tryonImages());
  // a result server on loopback, as a Cog container started with --upload-url would name
  server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'image/png' });
    res.end(Buffer.from(output));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('CogImageModel on a Cog container', () => {
  it('needs a URL and refuses an input mapping without person and garment fields', () => {
    expect(() => new CogImageModel({ id: 'cog', outbound: safe() })).toThrow(/FITROOM_COG_URL/);
    expect(() => cog({ inputs: { person: 'image' } as never })).toThrow(/"person" and "garment"/);
  });

  it('PUTs an idempotent synchronous prediction with FASHN VTON v1.5 field names and decodes the data-URL output', async () => {
    let body: any;
    let path = '';
    const scope = nock(COG)
      .put(
        (uri) => ((path = uri), /^\/predictions\/[0-9a-f]{32}$/.test(uri)),
        (b) => ((body = b), true),
      )
      .reply(200, { status: 'succeeded', output: b64(output), error: null, metrics: { predict_time: 4.52 } });
    const images = await cog().run(call('cog-tryon', {}, { slot: 'bottomGarment' }));
    expect(scope.isDone()).toBe(true);
    expect(path).toMatch(/^\/predictions\/[0-9a-f]{32}$/);
    expect(body).toEqual({ input: { person_image: b64(person), garment_image: b64(garment), category: 'bottoms' } });
    expect(Buffer.from(images[0].bytes).equals(Buffer.from(output))).toBe(true);
  });

  it('follows a configured mapping: other field names, photo type from the on-model reference, constant inputs', async () => {
    let body: any;
    nock(COG)
      .put(/\/predictions\//, (b) => ((body = b), true))
      .reply(200, { status: 'succeeded', output: [b64(output)] });
    const inputs = { person: 'model_image', garment: 'cloth_image', category: 'cloth_type', categories: { topGarment: 'upper', fullBodyGarment: 'overall' }, photoType: 'garment_photo_type', extra: { num_inference_steps: 30 } };
    await cog({ inputs }).run(call('cog-tryon', {}, { slot: 'fullBodyGarment', onModel: { bytes: output, contentType: 'image/png' } }));
    expect(body.input).toEqual({ num_inference_steps: 30, model_image: b64(person), cloth_image: b64(output), cloth_type: 'overall', garment_photo_type: 'model' });
  });

  it('fetches a result URL through the safe outbound client: allowed when its network is configured, refused (retryable, with the fix) otherwise', async () => {
    nock.enableNetConnect('127.0.0.1');
    try {
      nock(COG).put(/\/predictions\//).reply(200, { status: 'succeeded', output: `${serverUrl}/upload/out.png` });
      const images = await cog({ outbound: safe(['127.0.0.0/8']) }).run(call());
      expect(Buffer.from(images[0].bytes).equals(Buffer.from(output))).toBe(true);

      nock(COG).put(/\/predictions\//).reply(200, { status: 'succeeded', output: `${serverUrl}/upload/out.png` });
      const blocked = await cog().run(call()).catch((e) => e);
      expect(blocked).toBeInstanceOf(ProviderError);
      expect(blocked).toMatchObject({ retryable: true });
      expect(blocked.message).toMatch(/ALLOWED_PRIVATE_NETWORKS/);
    } finally {
      nock.disableNetConnect();
    }
  });

  it('maps the documented answers: invalid input (422) and a refused content are final; busy slots (409), a failed run and a 500 are not; a 401 from an auth proxy is the account; a wrong URL (404) leaves the chain', async () => {
    nock(COG).put(/\/predictions\//).reply(422, { detail: [{ loc: ['body', 'input', 'person_image'], msg: 'field required', type: 'value_error.missing' }] });
    const invalid = await cog().run(call()).catch((e) => e);
    expect(invalid).toMatchObject({ retryable: false, status: 422 });
    expect(invalid.message).toMatch(/body.input.person_image: field required/);

    nock(COG).put(/\/predictions\//).reply(200, { status: 'failed', output: null, error: 'NSFW content detected in the output' });
    expect(await cog().run(call()).catch((e) => e)).toMatchObject({ retryable: false });

    nock(COG).put(/\/predictions\//).reply(409, { detail: 'Already running a prediction' });
    expect(await cog().run(call()).catch((e) => e)).toMatchObject({ retryable: true, status: 409 });

    nock(COG).put(/\/predictions\//).reply(200, { status: 'failed', output: null, error: 'CUDA out of memory' });
    const oom = await cog().run(call()).catch((e) => e);
    expect(oom).toMatchObject({ retryable: true });
    expect(oom.message).toMatch(/prediction failed: CUDA out of memory/);

    nock(COG).put(/\/predictions\//).reply(500, 'Internal Server Error');
    expect(await cog().run(call()).catch((e) => e)).toMatchObject({ retryable: true, status: 500 });

    nock(COG).put(/\/predictions\//).reply(401, { detail: 'Unauthorized' });
    expect(await cog({ token: 'proxy-token' }).run(call()).catch((e) => e)).toMatchObject({ code: 'PROVIDER_ACCOUNT', retryable: false });

    nock(COG).put(/\/predictions\//).reply(404, { detail: 'Not Found' });
    expect(await cog().run(call()).catch((e) => e)).toMatchObject({ code: 'MODEL_UNAVAILABLE', status: 404 });
  });

  it('after a dropped connection sends the same PUT again, joining the running prediction rather than starting another', async () => {
    const paths = new Set<string>();
    const scope = nock(COG)
      .put((uri) => (paths.add(uri), true))
      .replyWithError('socket hang up')
      .put((uri) => (paths.add(uri), true))
      .reply(200, { status: 'succeeded', output: b64(output) });
    expect(await cog().run(call())).toHaveLength(1);
    // both interceptors answered, both for the one prediction id
    expect(scope.isDone()).toBe(true);
    expect(paths.size).toBe(1);
  });

  it('times out a container that does not answer, as retryable', async () => {
    nock(COG).put(/\/predictions\//).reply(late(2_000, [200, { status: 'succeeded', output: b64(output) }]));
    const err = await cog({ timeoutMs: 150 }).run(call()).catch((e) => e);
    expect(err).toMatchObject({ retryable: true });
    expect(err.message).toMatch(/timed out after 150 ms/);
  });
});

describe('CogImageModel on Replicate', () => {
  it('needs a token and a model reference', () => {
    expect(() => new CogImageModel({ id: 'replicate', model: 'a/b' })).toThrow(/REPLICATE_API_TOKEN/);
    expect(() => new CogImageModel({ id: 'replicate', token: TOKEN, model: 'not a model' })).toThrow(/REPLICATE_MODEL/);
  });

  it('creates on the model with Prefer: wait, polls starting → processing → succeeded and downloads the output without the token', async () => {
    let body: any;
    const scope = nock(REPLICATE, { reqheaders: { authorization: `Bearer ${TOKEN}`, prefer: 'wait=30' } })
      .post('/v1/models/fashn-ai/fashn-vton-1.5/predictions', (b) => ((body = b), true))
      .reply(201, { id: 'gm3qorzdhgbfurvjtvhg6dckhu', model: 'fashn-ai/fashn-vton-1.5', status: 'starting', output: null, error: null, urls: { get: `${REPLICATE}/v1/predictions/gm3qorzdhgbfurvjtvhg6dckhu`, cancel: `${REPLICATE}/v1/predictions/gm3qorzdhgbfurvjtvhg6dckhu/cancel` } });
    const polls = nock(REPLICATE, { reqheaders: { authorization: `Bearer ${TOKEN}` } })
      .get('/v1/predictions/gm3qorzdhgbfurvjtvhg6dckhu')
      .reply(200, { id: 'gm3qorzdhgbfurvjtvhg6dckhu', status: 'processing', output: null, logs: 'step 10/30' })
      .get('/v1/predictions/gm3qorzdhgbfurvjtvhg6dckhu')
      .reply(200, { id: 'gm3qorzdhgbfurvjtvhg6dckhu', status: 'succeeded', output: `${DELIVERY}/xezq/out-0.png`, metrics: { predict_time: 6.1 } });
    const cdn = nock(DELIVERY, { badheaders: ['authorization'] }).get('/xezq/out-0.png').reply(200, Buffer.from(output), { 'content-type': 'image/png' });
    const images = await replicate().run(call('replicate-tryon'));
    expect(scope.isDone() && polls.isDone() && cdn.isDone()).toBe(true);
    expect(body).toEqual({ input: { person_image: b64(person), garment_image: b64(garment), category: 'tops' } });
    expect(Buffer.from(images[0].bytes).equals(Buffer.from(output))).toBe(true);
  });

  it('uses /v1/predictions with the version for owner/name:version, and the Files API for inputs over the data-URI limit', async () => {
    const version = 'a'.repeat(64);
    let body: any;
    const uploads: string[] = [];
    nock(REPLICATE)
      .post('/v1/files', (raw: string) => {
        // nock hands over binary bodies hex-encoded
        const text = /^[0-9a-f]+$/.test(raw) ? Buffer.from(raw, 'hex').toString('latin1') : raw;
        uploads.push(/name="content"; filename="input\.png"/.test(text) && /Content-Type: image\/png/i.test(text) ? 'content' : 'other');
        return true;
      })
      .times(2)
      .reply(201, () => ({ id: `f${uploads.length}`, urls: { get: `${REPLICATE}/v1/files/f${uploads.length}` } }))
      .post('/v1/predictions', (b) => ((body = b), true))
      .reply(201, { id: 'p2', status: 'succeeded', output: [b64(output)] });
    await replicate({ model: `owner/model:${version}`, dataUriMaxBytes: 10 }).run(call('replicate-tryon'));
    expect(uploads).toEqual(['content', 'content']);
    expect(body).toEqual({ version, input: { person_image: `${REPLICATE}/v1/files/f1`, garment_image: `${REPLICATE}/v1/files/f2`, category: 'tops' } });
  });

  it('a bad token (401) and no credit (402) are the account; an unknown model (404) leaves the chain; invalid input (422) is final', async () => {
    const at = '/v1/models/fashn-ai/fashn-vton-1.5/predictions';
    nock(REPLICATE).post(at).reply(401, { title: 'Unauthenticated', detail: 'You did not pass a valid authentication token', status: 401 });
    expect(await replicate().run(call('replicate-tryon')).catch((e) => e)).toMatchObject({ code: 'PROVIDER_ACCOUNT', retryable: false, status: 401 });
    nock(REPLICATE).post(at).reply(402, { title: 'Insufficient credit', detail: 'You have insufficient credit to run this model. Go to https://replicate.com/account/billing to purchase credit.', status: 402 });
    const credit = await replicate().run(call('replicate-tryon')).catch((e) => e);
    expect(credit).toMatchObject({ code: 'PROVIDER_ACCOUNT', status: 402 });
    expect(credit.message).toMatch(/Insufficient credit: You have insufficient credit/);
    nock(REPLICATE).post(at).reply(404, { title: 'Not found', detail: 'The requested resource could not be found.', status: 404 });
    expect(await replicate().run(call('replicate-tryon')).catch((e) => e)).toMatchObject({ code: 'MODEL_UNAVAILABLE', status: 404 });
    nock(REPLICATE).post(at).reply(422, { title: 'Input validation failed', detail: '- input.category: category must be one of the following: "tops", "bottoms", "one-pieces"', status: 422 });
    expect(await replicate().run(call('replicate-tryon')).catch((e) => e)).toMatchObject({ retryable: false, status: 422 });
  });

  it('a throttled create (429) is retryable with its Retry-After; a server error too; a content refusal is final', async () => {
    const at = '/v1/models/fashn-ai/fashn-vton-1.5/predictions';
    nock(REPLICATE).post(at).reply(429, { title: 'Request was throttled', detail: 'Request was throttled. Expected available in 4 seconds.', status: 429 }, { 'retry-after': '4' });
    const limited = await replicate().run(call('replicate-tryon')).catch((e) => e);
    expect(limited).toBeInstanceOf(VendorHttpError);
    expect(limited).toMatchObject({ retryable: true, status: 429, retryAfterMs: 4000 });
    nock(REPLICATE).post(at).reply(503, { title: 'Service unavailable', status: 503 });
    expect(await replicate().run(call('replicate-tryon')).catch((e) => e)).toMatchObject({ retryable: true, status: 503 });
    nock(REPLICATE).post(at).reply(201, { id: 'p3', status: 'failed', output: null, error: 'NSFW content detected. Try running it again, or try a different input.' });
    expect(await replicate().run(call('replicate-tryon')).catch((e) => e)).toMatchObject({ retryable: false });
  });

  it('stops waiting after maxWaitMs (retryable) and cancels the prediction', async () => {
    let cancelled = false;
    nock(REPLICATE)
      .post('/v1/models/fashn-ai/fashn-vton-1.5/predictions')
      .reply(201, { id: 'p4', status: 'starting', urls: { get: `${REPLICATE}/v1/predictions/p4`, cancel: `${REPLICATE}/v1/predictions/p4/cancel` } })
      .get('/v1/predictions/p4')
      .times(100)
      .reply(200, { id: 'p4', status: 'processing' })
      .post('/v1/predictions/p4/cancel')
      .reply(() => ((cancelled = true), [200, { id: 'p4', status: 'canceled' }]));
    const err = await replicate({ maxWaitMs: 60 }).run(call('replicate-tryon')).catch((e) => e);
    expect(err).toMatchObject({ retryable: true });
    expect(err.message).toMatch(/still queued after 60 ms/);
    await expect.poll(() => cancelled).toBe(true);
  });
});
