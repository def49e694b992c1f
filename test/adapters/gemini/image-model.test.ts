import { beforeAll, describe, expect, it } from 'vitest';
import nock from 'nock';
import sharp from 'sharp';
import { GeminiImageModel } from '../../../adapters/gemini/image-model.ts';
import { ProviderError } from '../../../core/ports/image-model.ts';
import type { ModelCall } from '../../../core/ports/image-model.ts';
import { late, tryonCall, tryonImages, useNock } from '../vendor-helpers.ts';

/*
 * Fixtures follow the Gemini API reference as of 2026-11: `POST /v1beta/models/{model}:generateContent`
 * (x-goog-api-key header; `contents[].parts[]` with `inline_data`; `generationConfig.responseModalities`
 * and `imageConfig.imageSize`), `GET /v1beta/models/{model}` (models.get), errors as google.rpc.Status
 * `{error: {code, message, status, details}}` with `google.rpc.ErrorInfo` (reason API_KEY_INVALID) and
 * `google.rpc.RetryInfo` (retryDelay "37s") details, and the `thought` flag of `Part` in Google's
 * js-genai SDK (@google/genai 2.32.0, genai.d.ts). Model ids: the GA image models that replaced the
 * preview ids shut down on 2026-06-25 and gemini-2.5-flash-image (shut down 2026-10-02).
 */

const KEY = 'gm-test-key-123';
const HOST = 'https://generativelanguage.googleapis.com';

function b64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}

let person: Uint8Array;
let garment: Uint8Array;
let output: Uint8Array;

function call(over: Partial<ModelCall> = {}): ModelCall {
  return tryonCall({ person, garment }, { model: 'gemini-3.1-flash-image', prompt: 'Dress the person in image 1 with the garment in image 2.' }, over);
}

useNock();
beforeAll(async () => ({ person, garment, output } = await tryonImages()));

describe('GeminiImageModel', () => {
  it('refuses to start without an API key, with a clear message', () => {
    expect(() => new GeminiImageModel({ apiKey: '' })).toThrow(/GEMINI_API_KEY/);
    expect(() => new GeminiImageModel({} as never)).toThrow(/API key is required/);
    expect(() => new GeminiImageModel({ apiKey: KEY, baseUrl: 'ftp://x' })).toThrow(/http/);
    expect(() => new GeminiImageModel({ apiKey: KEY, timeoutMs: 0 })).toThrow(/timeoutMs/);
  });

  it('lists its models from the registry: the GA ids, none of the retired ones', () => {
    const ids = new GeminiImageModel({ apiKey: KEY }).models().map((m) => m.id);
    expect(ids).toContain('gemini-3.1-flash-image');
    expect(ids).toContain('gemini-3-pro-image');
    for (const dead of ['gemini-2.5-flash-image', 'gemini-3-pro-image-preview', 'gemini-3.1-flash-image-preview']) expect(ids).not.toContain(dead);
  });

  it('never returns thought images: the answer is the part after them', async () => {
    const thought = await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 255, g: 0, b: 0 } } }).png().toBuffer();
    nock(HOST)
      .post('/v1beta/models/gemini-3.1-flash-image:generateContent')
      .reply(200, {
        candidates: [{ content: { role: 'model', parts: [
          { text: 'Planning the composition', thought: true },
          { inlineData: { mimeType: 'image/png', data: b64(new Uint8Array(thought)) }, thought: true },
          { inlineData: { mimeType: 'image/png', data: b64(output) }, thoughtSignature: 'c2ln' },
        ] }, finishReason: 'STOP' }],
      });
    const images = await new GeminiImageModel({ apiKey: KEY }).run(call());
    expect(images).toHaveLength(1);
    expect(Buffer.from(images[0].bytes).equals(Buffer.from(output))).toBe(true);
    // only thoughts: no image
    nock(HOST).post('/v1beta/models/gemini-3.1-flash-image:generateContent').reply(200, { candidates: [{ content: { parts: [{ inlineData: { mimeType: 'image/png', data: b64(new Uint8Array(thought)) }, thought: true }] }, finishReason: 'STOP' }] });
    const none = await new GeminiImageModel({ apiKey: KEY }).run(call()).catch((e) => e);
    expect(none).toBeInstanceOf(ProviderError);
    expect(none.message).toMatch(/no image/);
  });

  it('reports a retired model as MODEL_UNAVAILABLE and a rejected key as PROVIDER_ACCOUNT, neither retryable', async () => {
    nock(HOST)
      .post('/v1beta/models/gemini-3.1-flash-image:generateContent')
      .reply(404, { error: { code: 404, message: 'models/gemini-3.1-flash-image is not found for API version v1beta, or is not supported for generateContent.', status: 'NOT_FOUND' } });
    const gone = await new GeminiImageModel({ apiKey: KEY }).run(call()).catch((e) => e);
    expect(gone.code).toBe('MODEL_UNAVAILABLE');
    expect(gone.retryable).toBe(false);
    nock(HOST)
      .post('/v1beta/models/gemini-3.1-flash-image:generateContent')
      .reply(400, { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }] } });
    const key = await new GeminiImageModel({ apiKey: KEY }).run(call()).catch((e) => e);
    expect(key.code).toBe('PROVIDER_ACCOUNT');
    expect(key.retryable).toBe(false);
    nock(HOST).post('/v1beta/models/gemini-3.1-flash-image:generateContent').reply(403, { error: { code: 403, message: 'Method doesn\'t allow unregistered callers.', status: 'PERMISSION_DENIED' } });
    expect((await new GeminiImageModel({ apiKey: KEY }).run(call()).catch((e) => e)).code).toBe('PROVIDER_ACCOUNT');
  });

  it('waits out a short RetryInfo delay once, and hands a long one to the chain', async () => {
    const exhausted = (delay: string) => ({ error: { code: 429, message: 'You exceeded your current quota.', status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_paid_tier_input_token_count' }] }, { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: delay }] } });
    const scope = nock(HOST)
      .post('/v1beta/models/gemini-3.1-flash-image:generateContent').reply(429, exhausted('0.4s'))
      .post('/v1beta/models/gemini-3.1-flash-image:generateContent').reply(200, { candidates: [{ content: { parts: [{ inlineData: { mimeType: 'image/png', data: b64(output) } }] } }] });
    const t0 = Date.now();
    const images = await new GeminiImageModel({ apiKey: KEY }).run(call());
    expect(Date.now() - t0).toBeGreaterThanOrEqual(380); // a lower bound: load only lengthens it
    expect(images).toHaveLength(1);
    expect(scope.isDone()).toBe(true);

    // A second answer is ready: a model that waited the 37 s and asked again would succeed instead.
    const long = nock(HOST)
      .post('/v1beta/models/gemini-3.1-flash-image:generateContent').reply(429, exhausted('37s'))
      .post('/v1beta/models/gemini-3.1-flash-image:generateContent').reply(200, { candidates: [{ content: { parts: [{ inlineData: { mimeType: 'image/png', data: b64(output) } }] } }] });
    const err = await new GeminiImageModel({ apiKey: KEY }).run(call()).catch((e) => e);
    expect(err.retryable).toBe(true);
    expect(err.retryAfterMs).toBe(37_000);
    expect(long.pendingMocks()).toHaveLength(1);
  });

  it('checks the key and the models live: found, retired, key rejected, no network', async () => {
    const model = (name: string) => ({ name: `models/${name}`, displayName: 'Nano Banana 2', supportedGenerationMethods: ['generateContent'] });
    nock(HOST, { reqheaders: { 'x-goog-api-key': KEY } })
      .get('/v1beta/models/gemini-3.1-flash-image').reply(200, model('gemini-3.1-flash-image'))
      .get('/v1beta/models/gemini-2.5-flash-image').reply(404, { error: { code: 404, message: 'models/gemini-2.5-flash-image is not found for API version v1beta', status: 'NOT_FOUND' } });
    const ac = new AbortController();
    const report = await new GeminiImageModel({ apiKey: KEY }).check(['gemini-3.1-flash-image', 'gemini-2.5-flash-image'], ac.signal);
    expect(report.status).toBe('model_missing');
    expect(report.models).toEqual([{ id: 'gemini-3.1-flash-image', available: true, detail: 'Nano Banana 2' }, expect.objectContaining({ id: 'gemini-2.5-flash-image', available: false })]);

    nock(HOST).get('/v1beta/models/gemini-3.1-flash-image').reply(400, { error: { code: 400, message: 'API key not valid.', status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }] } });
    expect((await new GeminiImageModel({ apiKey: KEY }).check(['gemini-3.1-flash-image'], ac.signal)).status).toBe('account_refused');

    nock(HOST).get('/v1beta/models/gemini-3.1-flash-image').replyWithError({ code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND generativelanguage.googleapis.com' });
    const offline = await new GeminiImageModel({ apiKey: KEY, timeoutMs: 500 }).check(['gemini-3.1-flash-image'], ac.signal);
    expect(offline.status).toBe('unreachable');
  });

  it('sends the prompt and references as inline_data parts and decodes the inline image', async () => {
    let seen: any;
    const scope = nock(HOST, { reqheaders: { 'x-goog-api-key': KEY, 'content-type': 'application/json' } })
      .post('/v1beta/models/gemini-3.1-flash-image:generateContent', (body) => {
        seen = body;
        return true;
      })
      .reply(200, {
        candidates: [{ content: { role: 'model', parts: [{ text: 'Here is the edited image.' }, { inlineData: { mimeType: 'image/png', data: b64(output) } }] }, finishReason: 'STOP' }],
      });
    const images = await new GeminiImageModel({ apiKey: KEY }).run(call());
    expect(scope.isDone()).toBe(true);
    expect(seen.contents[0].parts[0]).toEqual({ text: 'Dress the person in image 1 with the garment in image 2.' });
    expect(seen.contents[0].parts[1]).toEqual({ inline_data: { mime_type: 'image/png', data: b64(person) } });
    expect(seen.contents[0].parts[2]).toEqual({ inline_data: { mime_type: 'image/png', data: b64(garment) } });
    expect(seen.generationConfig.responseModalities).toEqual(['IMAGE']);
    expect(images).toHaveLength(1);
    expect(images[0].contentType).toBe('image/png');
    expect(Buffer.from(images[0].bytes).equals(Buffer.from(output))).toBe(true);
    const meta = await sharp(images[0].bytes).metadata();
    expect([meta.width, meta.height]).toEqual([24, 32]);
  });

  it('maps quality to the output size of Gemini 3 Pro Image', async () => {
    let seen: any;
    nock(HOST)
      .post('/v1beta/models/gemini-3-pro-image:generateContent', (body) => ((seen = body), true))
      .reply(200, { candidates: [{ content: { parts: [{ inline_data: { mime_type: 'image/jpeg', data: b64(output) } }] } }] });
    const images = await new GeminiImageModel({ apiKey: KEY }).run(call({ model: 'gemini-3-pro-image', quality: 'high' }));
    expect(seen.generationConfig.imageConfig).toEqual({ imageSize: '4K' });
    expect(images[0].contentType).toBe('image/jpeg');
  });

  it('treats 429 RESOURCE_EXHAUSTED as retryable and never echoes the key', async () => {
    nock(HOST)
      .post('/v1beta/models/gemini-3.1-flash-image:generateContent')
      .reply(429, { error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' } });
    const err = await new GeminiImageModel({ apiKey: KEY }).run(call()).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.retryable).toBe(true);
    expect(err.status).toBe(429);
    expect(err.message).toMatch(/RESOURCE_EXHAUSTED/);
    expect(err.message).toMatch(/exhausted/);
    expect(JSON.stringify({ m: err.message, s: err.stack })).not.toContain(KEY);
  });

  it('treats 5xx as retryable and 400 INVALID_ARGUMENT as not', async () => {
    nock(HOST).post('/v1beta/models/gemini-3.1-flash-image:generateContent').reply(503, { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } });
    const unavailable = await new GeminiImageModel({ apiKey: KEY }).run(call()).catch((e) => e);
    expect(unavailable.retryable).toBe(true);
    expect(unavailable.status).toBe(503);

    nock(HOST).post('/v1beta/models/gemini-3.1-flash-image:generateContent').reply(400, { error: { code: 400, message: 'Unable to process input image.', status: 'INVALID_ARGUMENT' } });
    const invalid = await new GeminiImageModel({ apiKey: KEY }).run(call()).catch((e) => e);
    expect(invalid).toBeInstanceOf(ProviderError);
    expect(invalid.retryable).toBe(false);
    expect(invalid.message).toMatch(/Unable to process input image/);

    // the deployment's account, not the request: no retry helps, the chain moves to another provider
    nock(HOST).post('/v1beta/models/gemini-3.1-flash-image:generateContent').reply(400, { error: { code: 400, message: 'User location is not supported for the API use.', status: 'FAILED_PRECONDITION' } });
    const region = await new GeminiImageModel({ apiKey: KEY }).run(call()).catch((e) => e);
    expect(region.retryable).toBe(false);
    expect(region.code).toBe('PROVIDER_ACCOUNT');
  });

  it('reports a blocked prompt as not retryable and a text-only answer as retryable', async () => {
    nock(HOST).post('/v1beta/models/gemini-3.1-flash-image:generateContent').reply(200, { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' } });
    const blocked = await new GeminiImageModel({ apiKey: KEY }).run(call()).catch((e) => e);
    expect(blocked.retryable).toBe(false);
    expect(blocked.message).toMatch(/PROHIBITED_CONTENT/);

    nock(HOST)
      .post('/v1beta/models/gemini-3.1-flash-image:generateContent')
      .reply(200, { candidates: [{ content: { parts: [{ text: 'I can describe the outfit instead.' }] }, finishReason: 'STOP' }] });
    const textOnly = await new GeminiImageModel({ apiKey: KEY }).run(call()).catch((e) => e);
    expect(textOnly.retryable).toBe(true);
    expect(textOnly.message).toMatch(/no image/);
    expect(textOnly.message).toMatch(/describe the outfit/);

    nock(HOST).post('/v1beta/models/gemini-3.1-flash-image:generateContent').reply(200, { candidates: [{ finishReason: 'IMAGE_SAFETY' }] });
    const unsafe = await new GeminiImageModel({ apiKey: KEY }).run(call()).catch((e) => e);
    expect(unsafe.retryable).toBe(false);
  });

  it('times out a slow request as a retryable ProviderError', async () => {
    nock(HOST)
      .post('/v1beta/models/gemini-3.1-flash-image:generateContent')
      .reply(late(3_000, [200, { candidates: [] }]));
    const err = await new GeminiImageModel({ apiKey: KEY, timeoutMs: 200 }).run(call()).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/timed out after 200 ms/);
  });

  it("rethrows the caller's abort reason instead of a provider error", async () => {
    nock(HOST)
      .post('/v1beta/models/gemini-3.1-flash-image:generateContent')
      .reply(late(3_000, [200, { candidates: [] }]));
    const ac = new AbortController();
    const reason = new Error('job cancelled');
    setTimeout(() => ac.abort(reason), 100);
    const err = await new GeminiImageModel({ apiKey: KEY }).run(call({ signal: ac.signal })).catch((e) => e);
    expect(err).toBe(reason);
  });
});
