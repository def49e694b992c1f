import { beforeAll, describe, expect, it } from 'vitest';
import nock from 'nock';
import { FalImageModel } from '../../../adapters/fal/image-model.ts';
import { GeminiImageModel } from '../../../adapters/gemini/image-model.ts';
import { ProviderError } from '../../../core/ports/image-model.ts';
import type { ImageModelProvider, ModelCall, ModelReference } from '../../../core/ports/image-model.ts';
import { checkPinnedModel, runModelChain } from '../../../core/tryon/model-chain.ts';
import type { ModelAttempt } from '../../../core/tryon/model-chain.ts';
import { DEFAULT_MODEL_CHAIN, MODEL_CATALOGUE, ModelRegistry, parseModelChain } from '../../../core/tryon/models.ts';
import { FitroomError } from '../../../core/errors.ts';
import { loadConfig } from '../../../core/config.ts';
import type { Token } from '../../../core/plugin.ts';
import { TOKENS } from '../../../core/tokens.ts';
import { registerAiProviders } from '../../../connectors/standalone/providers.ts';
import { FAST_POLL, late, tryonImages, useNock } from '../../adapters/vendor-helpers.ts';

const GEMINI = 'https://generativelanguage.googleapis.com';
const QUEUE = 'https://queue.fal.run';
const CDN = 'https://v3.fal.media';
const GEMINI_PATH = '/v1beta/models/gemini-3.1-flash-image:generateContent';
/** The chain these tests were written for (the flash model first); the default chain starts with gemini-3-pro-image since the flash model's deprecation. */
const FLASH_FIRST = ['gemini-3.1-flash-image', 'fal-ai/bytedance/seedream/v4/edit', 'gemini-3-pro-image', 'fal-ai/flux-pro/kontext', 'builtin-warp'];

let person: Uint8Array;
let garment: Uint8Array;
let output: Uint8Array;

function refs(n: number): ModelReference[] {
  return Array.from({ length: n }, (_, i) => ({ role: i === 0 ? 'person' : 'garment-grid', image: { bytes: i === 0 ? person : garment, contentType: 'image/png' } }));
}
function call(n = 2, signal = new AbortController().signal): Omit<ModelCall, 'model'> {
  return { task: 'tryon', prompt: 'Dress the person in image 1 with the garment in image 2.', references: refs(n), quality: 'standard', signal };
}
function vendors(): ImageModelProvider[] {
  return [new GeminiImageModel({ apiKey: 'g-key' }), new FalImageModel({ apiKey: 'f-key', ...FAST_POLL })];
}
/** fal's whole documented round trip for one request (storage uploads of the references first), counting submissions. */
function falSucceeds(model: string, app: string, id: string, counter: { n: number } = { n: 0 }) {
  nock('https://rest.fal.ai')
    .post('/storage/upload/initiate')
    .query(true)
    .times(20)
    .reply(200, { upload_url: 'https://storage.googleapis.com/fal-uploads/ref?sig=1', file_url: `${CDN}/files/ref.png` });
  nock('https://storage.googleapis.com').put('/fal-uploads/ref').query(true).times(20).reply(200, '');
  nock(QUEUE)
    .post(`/${model}`)
    .reply(() => (counter.n++, [200, { request_id: id, status_url: `${QUEUE}/${app}/requests/${id}/status`, response_url: `${QUEUE}/${app}/requests/${id}` }]))
    .get(`/${app}/requests/${id}/status`)
    .reply(200, { status: 'COMPLETED' })
    .get(`/${app}/requests/${id}`)
    .reply(200, { images: [{ url: `${CDN}/files/${id}.png`, content_type: 'image/png' }] });
  nock(CDN).get(`/files/${id}.png`).reply(200, Buffer.from(output), { 'content-type': 'image/png' });
  return counter;
}

/** An in-memory provider for the chain's own rules. */
class FakeProvider implements ImageModelProvider {
  readonly id: 'builtin' | 'gemini' | 'fal';
  calls: ModelCall[] = [];
  behaviour: (call: ModelCall) => Promise<Uint8Array[]>;
  constructor(id: 'builtin' | 'gemini' | 'fal', behaviour: (call: ModelCall) => Promise<Uint8Array[]>) {
    this.id = id;
    this.behaviour = behaviour;
  }
  models() {
    return MODEL_CATALOGUE.filter((m) => m.provider === this.id);
  }
  async run(c: ModelCall) {
    this.calls.push(c);
    return (await this.behaviour(c)).map((bytes) => ({ bytes, contentType: 'image/png' }));
  }
}

useNock();
beforeAll(async () => ({ person, garment, output } = await tryonImages()));

describe('runModelChain with the vendor adapters', () => {
  it('falls back from a failing Gemini (503) to fal Seedream and records both attempts', async () => {
    let geminiHits = 0;
    nock(GEMINI)
      .post(GEMINI_PATH)
      .reply(() => (geminiHits++, [503, { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } }]));
    const fal = falSucceeds('fal-ai/bytedance/seedream/v4/edit', 'fal-ai/bytedance', 'c1');
    const seen: ModelAttempt[] = [];
    const result = await runModelChain({ chain: FLASH_FIRST, call: call(), providers: vendors(), onAttempt: (a) => seen.push(a) });
    expect(geminiHits).toBe(1);
    expect(fal.n).toBe(1);
    expect(result.model).toBe('fal-ai/bytedance/seedream/v4/edit');
    expect(result.provider).toBe('fal');
    expect(Buffer.from(result.images[0].bytes).equals(Buffer.from(output))).toBe(true);
    expect(seen).toEqual(result.attempts);
    expect(seen.map((a) => [a.model, a.provider, a.outcome])).toEqual([
      ['gemini-3.1-flash-image', 'gemini', 'failed'],
      ['fal-ai/bytedance/seedream/v4/edit', 'fal', 'succeeded'],
    ]);
    expect(seen[0].error).toMatch(/503 UNAVAILABLE.*overloaded/);
    for (const a of seen) expect(a.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('falls back on 429 RESOURCE_EXHAUSTED too', async () => {
    nock(GEMINI).post(GEMINI_PATH).reply(429, { error: { code: 429, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED' } });
    falSucceeds('fal-ai/bytedance/seedream/v4/edit', 'fal-ai/bytedance', 'c2');
    const result = await runModelChain({ chain: FLASH_FIRST, call: call(), providers: vendors() });
    expect(result.provider).toBe('fal');
    expect(result.attempts[0].error).toMatch(/RESOURCE_EXHAUSTED/);
  });

  it('moves on when an attempt exceeds its timeout', async () => {
    nock(GEMINI).post(GEMINI_PATH).reply(late(3_000, [200, { candidates: [] }]));
    falSucceeds('fal-ai/bytedance/seedream/v4/edit', 'fal-ai/bytedance', 'c3');
    // The late answer (3 s) would be an empty, failed attempt: 'timeout' shows the 250 ms limit cut it.
    const result = await runModelChain({ chain: FLASH_FIRST, call: call(), providers: vendors(), attemptTimeoutMs: 250 });
    expect(result.attempts[0]).toMatchObject({ model: 'gemini-3.1-flash-image', outcome: 'timeout' });
    expect(result.attempts[0].durationMs).toBeGreaterThanOrEqual(200);
    expect(result.attempts[1]).toMatchObject({ provider: 'fal', outcome: 'succeeded' });
  });

  it('stops at a non-retryable error without calling the next provider', async () => {
    nock(GEMINI).post(GEMINI_PATH).reply(400, { error: { code: 400, message: 'Unable to process input image.', status: 'INVALID_ARGUMENT' } });
    const fal = nock(QUEUE).post('/fal-ai/bytedance/seedream/v4/edit').reply(200, { request_id: 'never' });
    const err = await runModelChain({ chain: FLASH_FIRST, call: call(), providers: vendors() }).catch((e) => e);
    expect(err.code).toBe('IMAGE_INVALID');
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/Unable to process input image/);
    expect(err.cause).toBeInstanceOf(ProviderError);
    expect(fal.isDone()).toBe(false);
  });

  it('rejects a pinned model with too few slots before any outbound request (INPUT_REFERENCE_LIMIT)', async () => {
    let outbound = 0;
    const onRequest = () => outbound++;
    nock.emitter.on('no match', onRequest);
    const gemini = nock(GEMINI).post(GEMINI_PATH).reply(() => (outbound++, [500, {}]));
    const fal = nock(QUEUE).post(/.*/).reply(() => (outbound++, [500, {}]));
    try {
      const err = await runModelChain({ call: call(2), providers: vendors(), pinnedModel: 'fal-ai/flux-pro/kontext' }).catch((e) => e);
      expect(err).toBeInstanceOf(FitroomError);
      expect(err.code).toBe('INPUT_REFERENCE_LIMIT');
      expect(err.status).toBe(422);
      expect(err.message).toMatch(/at most 1 input reference; this call sends 2/);
      const four = await runModelChain({ call: call(15), providers: vendors(), pinnedModel: 'gemini-3.1-flash-image' }).catch((e) => e);
      expect(four.code).toBe('INPUT_REFERENCE_LIMIT');
      expect(outbound).toBe(0);
      expect(gemini.isDone()).toBe(false);
      expect(fal.isDone()).toBe(false);
      expect(nock.pendingMocks()).toHaveLength(2);
    } finally {
      nock.emitter.removeListener('no match', onRequest);
    }
  });

  it('runs only the pinned model, bypassing the chain', async () => {
    const gemini = nock(GEMINI).post(GEMINI_PATH).reply(200, {});
    const fal = falSucceeds('fal-ai/flux-pro/kontext', 'fal-ai/flux-pro', 'p1');
    const result = await runModelChain({ call: call(1), providers: vendors(), pinnedModel: 'fal-ai/flux-pro/kontext' });
    expect(fal.n).toBe(1);
    expect(gemini.isDone()).toBe(false);
    expect(result.model).toBe('fal-ai/flux-pro/kontext');
    expect(result.attempts).toHaveLength(1);
  });

  it('does not fall back from a failing pinned model', async () => {
    nock(GEMINI).post(GEMINI_PATH).reply(503, { error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } });
    const fal = nock(QUEUE).post(/.*/).reply(200, {});
    const err = await runModelChain({ call: call(2), providers: vendors(), pinnedModel: 'gemini-3.1-flash-image' }).catch((e) => e);
    expect(err.code).toBe('SERVICE_UNAVAILABLE');
    expect(err.retryable).toBe(true);
    expect(fal.isDone()).toBe(false);
  });

  it('restricts the chain to one provider', async () => {
    const gemini = nock(GEMINI).post(GEMINI_PATH).reply(200, {});
    falSucceeds('fal-ai/bytedance/seedream/v4/edit', 'fal-ai/bytedance', 'r1');
    const result = await runModelChain({ chain: FLASH_FIRST, call: call(), providers: vendors(), provider: 'fal' });
    expect(gemini.isDone()).toBe(false);
    expect(result.attempts.map((a) => a.provider)).toEqual(['fal']);
  });

  it('skips a provider without credentials (absent from providers)', async () => {
    falSucceeds('fal-ai/bytedance/seedream/v4/edit', 'fal-ai/bytedance', 's1');
    const result = await runModelChain({ chain: FLASH_FIRST, call: call(), providers: [new FalImageModel({ apiKey: 'f-key', pollIntervalMs: 10 })] });
    expect(result.attempts[0]).toMatchObject({ model: 'gemini-3.1-flash-image', outcome: 'skipped', error: 'provider gemini is not configured' });
    expect(result.attempts[1]).toMatchObject({ model: 'fal-ai/bytedance/seedream/v4/edit', outcome: 'succeeded' });
  });
});

describe('runModelChain rules', () => {
  const ok = async () => [output];

  it('follows the configured chain order and skips models with too few slots', async () => {
    const fal = new FakeProvider('fal', ok);
    const gemini = new FakeProvider('gemini', ok);
    const result = await runModelChain({ call: call(2), providers: [fal, gemini], chain: ['fal-ai/flux-pro/kontext', 'gemini-3-pro-image', 'fal-ai/bytedance/seedream/v4/edit'] });
    expect(result.model).toBe('gemini-3-pro-image');
    expect(result.attempts[0]).toMatchObject({ model: 'fal-ai/flux-pro/kontext', outcome: 'skipped' });
    expect(result.attempts[0].error).toMatch(/at most 1 references; the call has 2/);
    expect(fal.calls).toHaveLength(0);
    expect(gemini.calls[0].model).toBe('gemini-3-pro-image');
    expect(gemini.calls[0].quality).toBe('standard');
  });

  it('leaves out models that do not serve the task', async () => {
    const builtin = new FakeProvider('builtin', ok);
    const gemini = new FakeProvider('gemini', async () => {
      throw new ProviderError('gemini', 'down', { retryable: true });
    });
    const generate = { ...call(1), task: 'generate' as const };
    const err = await runModelChain({ call: generate, providers: [builtin, gemini], chain: ['gemini-3.1-flash-image', 'builtin-warp'] }).catch((e) => e);
    expect(builtin.calls).toHaveLength(0);
    expect(err.code).toBe('SERVICE_UNAVAILABLE');
    expect(err.message).toMatch(/gemini-3.1-flash-image failed \(gemini: down\)/);
  });

  it('ends with the builtin engine when every vendor fails', async () => {
    const down = async (): Promise<Uint8Array[]> => {
      throw new ProviderError('x', 'HTTP 500', { retryable: true, status: 500 });
    };
    const result = await runModelChain({ chain: FLASH_FIRST, call: call(3), providers: [new FakeProvider('gemini', down), new FakeProvider('fal', down), new FakeProvider('builtin', ok)] });
    expect(result.model).toBe('builtin-warp');
    expect(result.attempts.map((a) => `${a.model}:${a.outcome}`)).toEqual([
      'gemini-3.1-flash-image:failed',
      'fal-ai/bytedance/seedream/v4/edit:failed',
      'gemini-3-pro-image:failed',
      'fal-ai/flux-pro/kontext:skipped',
      'builtin-warp:succeeded',
    ]);
  });

  it('reports when no configured model can serve the call', async () => {
    const err = await runModelChain({ call: call(2), providers: [], provider: 'gemini' }).catch((e) => e);
    expect(err.code).toBe('SERVICE_UNAVAILABLE');
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/No configured model can run tryon on provider gemini/);
  });

  it('gives up on a provider that ignores its signal once the attempt times out', async () => {
    const hung = new FakeProvider('gemini', () => new Promise(() => undefined));
    const fal = new FakeProvider('fal', ok);
    const result = await runModelChain({ chain: FLASH_FIRST, call: call(2), providers: [hung, fal], attemptTimeoutMs: 100 });
    expect(result.attempts[0].outcome).toBe('timeout');
    expect(hung.calls[0].signal.aborted).toBe(true);
    expect(result.provider).toBe('fal');
  });

  it("stops and rethrows when the caller's signal fires", async () => {
    const ac = new AbortController();
    const reason = new Error('job cancelled');
    const slow = new FakeProvider('gemini', (c) => new Promise((_, reject) => c.signal.addEventListener('abort', () => reject(c.signal.reason))));
    const fal = new FakeProvider('fal', ok);
    setTimeout(() => ac.abort(reason), 50);
    const attempts: ModelAttempt[] = [];
    const err = await runModelChain({ chain: FLASH_FIRST, call: call(2, ac.signal), providers: [slow, fal], onAttempt: (a) => attempts.push(a) }).catch((e) => e);
    expect(err).toBe(reason);
    expect(attempts.map((a) => a.outcome)).toEqual(['cancelled']);
    expect(fal.calls).toHaveLength(0);
  });

  it('treats an empty answer as a retryable failure', async () => {
    const result = await runModelChain({ chain: FLASH_FIRST, call: call(2), providers: [new FakeProvider('gemini', async () => []), new FakeProvider('fal', ok)] });
    expect(result.attempts[0]).toMatchObject({ outcome: 'failed', error: 'gemini: gemini-3.1-flash-image returned no image' });
    expect(result.provider).toBe('fal');
  });

  it('lets a non-provider error through unchanged', async () => {
    const bug = new TypeError('garment grid missing');
    const err = await runModelChain({ call: call(2), providers: [new FakeProvider('builtin', async () => Promise.reject(bug))], chain: ['builtin-warp'] }).catch((e) => e);
    expect(err).toBe(bug);
  });

  const gated = (c: ModelCall) => {
    c.report?.({ qualityGate: { passed: false, checks: [{ check: 'old-garment', value: 0.072, max: 0.03, passed: false }] } });
    return Promise.reject(new ProviderError('builtin', 'old top still showing on 7.2 % of where it was (bound 3 %)', { retryable: false, code: 'RESULT_UNRELIABLE' }));
  };

  it('moves on from a result its engine refused (RESULT_UNRELIABLE) to the next model, with the checks on the attempt', async () => {
    const result = await runModelChain({ call: call(2), providers: [new FakeProvider('builtin', gated), new FakeProvider('fal', ok)], chain: ['builtin-warp', 'fal-ai/bytedance/seedream/v4/edit'] });
    expect(result.provider).toBe('fal');
    expect(result.attempts[0]).toMatchObject({ model: 'builtin-warp', outcome: 'failed', error: expect.stringMatching(/old top still showing/), facts: { qualityGate: { passed: false } } });
  });

  it('fails with RESULT_UNRELIABLE and the reason when the refused result was the last chance', async () => {
    const seen: ModelAttempt[] = [];
    const down = async (): Promise<Uint8Array[]> => {
      throw new ProviderError('fal', 'HTTP 500', { retryable: true, status: 500 });
    };
    const err = await runModelChain({ call: call(2), providers: [new FakeProvider('fal', down), new FakeProvider('builtin', gated)], chain: ['fal-ai/bytedance/seedream/v4/edit', 'builtin-warp'], onAttempt: (a) => seen.push(a) }).catch((e) => e);
    expect(err).toBeInstanceOf(FitroomError);
    expect(err.code).toBe('RESULT_UNRELIABLE');
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/old top still showing on 7\.2 % of where it was \(bound 3 %\)/);
    expect(seen.map((a) => a.outcome)).toEqual(['failed', 'failed']);
    expect(seen[1].facts).toMatchObject({ qualityGate: { checks: [{ check: 'old-garment', passed: false }] } });
  });
});

describe('checkPinnedModel', () => {
  const base = { task: 'tryon' as const, quality: 'standard' as const, referenceCount: 2 };
  it('validates the pin against the registry and the configured providers', () => {
    expect(checkPinnedModel({ ...base, model: 'gemini-3.1-flash-image' }).maxReferences).toBe(14);
    expect(() => checkPinnedModel({ ...base, model: 'dall-e-9' })).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR', details: [{ field: 'options.model', message: 'is not a known model' }] }));
    expect(() => checkPinnedModel({ ...base, model: 'fal-ai/bytedance/seedream/v4/edit', referenceCount: 11 })).toThrow(expect.objectContaining({ code: 'INPUT_REFERENCE_LIMIT' }));
    expect(checkPinnedModel({ ...base, model: 'fal-ai/bytedance/seedream/v4/edit', referenceCount: 10 }).id).toBe('fal-ai/bytedance/seedream/v4/edit');
    expect(() => checkPinnedModel({ ...base, model: 'builtin-warp', task: 'generate' })).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
    expect(() => checkPinnedModel({ ...base, model: 'gemini-3.1-flash-image', provider: 'fal' })).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR', details: [expect.objectContaining({ field: 'options.provider' })] }));
    expect(() => checkPinnedModel({ ...base, model: 'gemini-3.1-flash-image', providers: [] })).toThrow(expect.objectContaining({ code: 'SERVICE_UNAVAILABLE' }));
  });

  it('checks the slot count before anything else, even for an unconfigured provider', () => {
    expect(() => checkPinnedModel({ ...base, model: 'fal-ai/flux-pro/kontext', referenceCount: 3, providers: [] })).toThrow(expect.objectContaining({ code: 'INPUT_REFERENCE_LIMIT' }));
  });
});

describe('the model registry', () => {
  it('holds the documented slot caps', () => {
    const r = new ModelRegistry();
    expect(r.get('gemini-3.1-flash-image')!.maxReferences).toBe(14);
    expect(r.get('gemini-3-pro-image')!.maxReferences).toBe(14);
    expect(r.get('fal-ai/bytedance/seedream/v4/edit')!.maxReferences).toBe(10);
    expect(r.get('fal-ai/flux-pro/kontext')!.maxReferences).toBe(1);
    expect(r.get('builtin-warp')!.maxReferences).toBeGreaterThanOrEqual(8);
    expect(r.get('gemini-3-pro-image')!.params('draft')).toEqual({ imageConfig: { imageSize: '1K' } });
    expect(r.get('fal-ai/bytedance/seedream/v4/edit')!.params('high')).toMatchObject({ image_size: 'auto_4K' });
  });

  it('resolves a configured chain and refuses unknown ids at start', () => {
    const r = new ModelRegistry();
    expect(r.resolveChain().map((m) => m.id)).toEqual([...DEFAULT_MODEL_CHAIN]);
    expect(r.resolveChain(parseModelChain('builtin-warp, gemini-3.1-flash-image builtin-warp')).map((m) => m.id)).toEqual(['builtin-warp', 'gemini-3.1-flash-image']);
    expect(() => r.resolveChain(['gemini-3.1-flash-image', 'gpt-image-9'])).toThrow(/unknown model id\(s\) in the model chain: gpt-image-9/);
    expect(parseModelChain('  ')).toBeUndefined();
    expect(parseModelChain(undefined)).toBeUndefined();
    expect(() => r.add({ ...r.get('builtin-warp')! })).toThrow(/registered twice/);
  });
});

describe('vendor registration from configuration', () => {
  function register(env: Record<string, string>) {
    const bound = new Map<symbol, unknown>();
    const services = {
      get: <T>(t: Token<T>) => bound.get(t.key) as T,
      has: (t: Token<unknown>) => bound.has(t.key),
      provide: <T>(t: Token<T>, v: T) => void bound.set(t.key, v),
    };
    const lines: string[] = [];
    registerAiProviders(loadConfig(env), services, (l) => lines.push(l));
    return { models: services.get(TOKENS.imageModels), reconstructors: services.get(TOKENS.reconstructors), lines };
  }

  it('adds a vendor only with its credential and reports each missing one at start', () => {
    const none = register({});
    // The builtin engines are always there, last.
    expect(none.models.map((p) => p.id)).toEqual(['builtin']);
    expect(none.reconstructors.map((r) => r.id)).toEqual(['builtin']);
    expect(none.lines).toEqual(['AI vendors without credentials, left out: gemini (GEMINI_API_KEY), fal (FAL_KEY), meshy (MESHY_API_KEY), tripo (TRIPO_API_KEY)']);

    const some = register({ GEMINI_API_KEY: 'g-secret', TRIPO_API_KEY: 't-secret', MESHY_API_KEY: 'm-secret', FITROOM_RECONSTRUCTOR: 'tripo' });
    expect(some.models.map((p) => p.id)).toEqual(['gemini', 'builtin']);
    expect(some.reconstructors.map((r) => r.id)).toEqual(['tripo', 'meshy', 'builtin']);
    expect(some.lines[0]).toBe('AI vendors without credentials, left out: fal (FAL_KEY)');
    expect(some.lines.join()).not.toContain('secret');

    const all = register({ GEMINI_API_KEY: 'g', FAL_KEY: 'f', MESHY_API_KEY: 'm', TRIPO_API_KEY: 't' });
    expect(all.models.map((p) => p.id)).toEqual(['gemini', 'fal', 'builtin']);
    expect(all.lines).toEqual([]);
  });

  it('refuses an unknown model in FITROOM_MODEL_CHAIN and a reconstructor without its key', () => {
    expect(() => register({ FITROOM_MODEL_CHAIN: 'gemini-3.1-flash-image,builtin-warp' })).not.toThrow();
    expect(() => register({ FITROOM_MODEL_CHAIN: 'gemini-3.1-flash-image,gpt-image-9' })).toThrow(/FITROOM_MODEL_CHAIN: unknown model id\(s\) in the model chain: gpt-image-9/);
    expect(() => register({ FITROOM_RECONSTRUCTOR: 'meshy' })).toThrow(/MESHY_API_KEY is not set/);
    expect(() => register({ FITROOM_RECONSTRUCTOR: 'rodin' })).toThrow(/builtin, meshy, tripo/);
  });
});
