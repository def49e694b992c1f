import { beforeAll, describe, expect, it } from 'vitest';
import nock from 'nock';
import sharp from 'sharp';
import { GeminiImageModel } from '../../../adapters/gemini/image-model.ts';
import { ProviderError } from '../../../core/ports/image-model.ts';
import type { ModelCall } from '../../../core/ports/image-model.ts';
import { late, tryonCall, tryonImages, useNock } from '../vendor-helpers.ts';

const KEY = 'gm-test-key-123';
const HOST = 'https://generativelanguage.googleapis.com';

function b64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}

let person: Uint8Array;
let garment: Uint8Array;
let output: Uint8Array;

function call(over: Partial<ModelCall> = {}): ModelCall {
  return tryonCall({ person, garment }, { model: 'gemini-2.5-flash-image', prompt: 'Dress the person in image 1 with the garment in image 2.' }, over);
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

  it('lists its models from the registry', () => {
    const ids = new GeminiImageModel({ apiKey: KEY }).models().map((m) => m.id);
    expect(ids).toContain('gemini-2.5-flash-image');
    expect(ids).toContain('gemini-3-pro-image-preview');
  });

  it('sends the prompt and references as inline_data parts and decodes the inline image', async () => {
    let seen: any;
    const scope = nock(HOST, { reqheaders: { 'x-goog-api-key': KEY, 'content-type': 'application/json' } })
      .post('/v1beta/models/gemini-2.5-flash-image:generateContent', (body) => {
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
      .post('/v1beta/models/gemini-3-pro-image-preview:generateContent', (body) => ((seen = body), true))
      .reply(200, { candidates: [{ content: { parts: [{ inline_data: { mime_type: 'image/jpeg', data: b64(output) } }] } }] });
    const images = await new GeminiImageModel({ apiKey: KEY }).run(call({ model: 'gemini-3-pro-image-preview', quality: 'high' }));
    expect(seen.generationConfig.imageConfig).toEqual({ imageSize: '4K' });
    expect(images[0].contentType).toBe('image/jpeg');
  });

  it('treats 429 RESOURCE_EXHAUSTED as retryable and never echoes the key', async () => {
    nock(HOST)
      .post('/v1beta/models/gemini-2.5-flash-image:generateContent')
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
    nock(HOST).post('/v1beta/models/gemini-2.5-flash-image:generateContent').reply(503, { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } });
    const unavailable = await new GeminiImageModel({ apiKey: KEY }).run(call()).catch((e) => e);
    expect(unavailable.retryable).toBe(true);
    expect(unavailable.status).toBe(503);

    nock(HOST).post('/v1beta/models/gemini-2.5-flash-image:generateContent').reply(400, { error: { code: 400, message: 'Unable to process input image.', status: 'INVALID_ARGUMENT' } });
    const invalid = await new GeminiImageModel({ apiKey: KEY }).run(call()).catch((e) => e);
    expect(invalid).toBeInstanceOf(ProviderError);
    expect(invalid.retryable).toBe(false);
    expect(invalid.message).toMatch(/Unable to process input image/);

    nock(HOST).post('/v1beta/models/gemini-2.5-flash-image:generateContent').reply(400, { error: { code: 400, message: 'User location is not supported for the API use.', status: 'FAILED_PRECONDITION' } });
    const region = await new GeminiImageModel({ apiKey: KEY }).run(call()).catch((e) => e);
    expect(region.retryable).toBe(true);
  });

  it('reports a blocked prompt as not retryable and a text-only answer as retryable', async () => {
    nock(HOST).post('/v1beta/models/gemini-2.5-flash-image:generateContent').reply(200, { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' } });
    const blocked = await new GeminiImageModel({ apiKey: KEY }).run(call()).catch((e) => e);
    expect(blocked.retryable).toBe(false);
    expect(blocked.message).toMatch(/PROHIBITED_CONTENT/);

    nock(HOST)
      .post('/v1beta/models/gemini-2.5-flash-image:generateContent')
      .reply(200, { candidates: [{ content: { parts: [{ text: 'I can describe the outfit instead.' }] }, finishReason: 'STOP' }] });
    const textOnly = await new GeminiImageModel({ apiKey: KEY }).run(call()).catch((e) => e);
    expect(textOnly.retryable).toBe(true);
    expect(textOnly.message).toMatch(/no image/);
    expect(textOnly.message).toMatch(/describe the outfit/);

    nock(HOST).post('/v1beta/models/gemini-2.5-flash-image:generateContent').reply(200, { candidates: [{ finishReason: 'IMAGE_SAFETY' }] });
    const unsafe = await new GeminiImageModel({ apiKey: KEY }).run(call()).catch((e) => e);
    expect(unsafe.retryable).toBe(false);
  });

  it('times out a slow request as a retryable ProviderError', async () => {
    nock(HOST)
      .post('/v1beta/models/gemini-2.5-flash-image:generateContent')
      .reply(late(3_000, [200, { candidates: [] }]));
    const t0 = Date.now();
    const err = await new GeminiImageModel({ apiKey: KEY, timeoutMs: 200 }).run(call()).catch((e) => e);
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/timed out after 200 ms/);
  });

  it("rethrows the caller's abort reason instead of a provider error", async () => {
    nock(HOST)
      .post('/v1beta/models/gemini-2.5-flash-image:generateContent')
      .reply(late(3_000, [200, { candidates: [] }]));
    const ac = new AbortController();
    const reason = new Error('job cancelled');
    setTimeout(() => ac.abort(reason), 100);
    const err = await new GeminiImageModel({ apiKey: KEY }).run(call({ signal: ac.signal })).catch((e) => e);
    expect(err).toBe(reason);
  });
});
