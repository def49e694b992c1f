import { beforeAll, describe, expect, it } from 'vitest';
import nock from 'nock';
import { generateKeyPairSync } from 'node:crypto';
import { FashnImageModel } from '../../../adapters/fashn/image-model.ts';
import { GeminiImageModel } from '../../../adapters/gemini/image-model.ts';
import { ProviderError } from '../../../core/ports/image-model.ts';
import type { GarmentReference, ImageModelProvider, ModelCall, ProviderId } from '../../../core/ports/image-model.ts';
import { runModelChain } from '../../../core/tryon/model-chain.ts';
import { DEDICATED_TRYON_CHAIN, DEFAULT_MODEL_CHAIN, MODEL_CATALOGUE, ModelRegistry } from '../../../core/tryon/models.ts';
import { FitroomError } from '../../../core/errors.ts';
import { loadConfig } from '../../../core/config.ts';
import type { Token } from '../../../core/plugin.ts';
import { TOKENS } from '../../../core/tokens.ts';
import { registerAiProviders } from '../../../connectors/standalone/providers.ts';
import { FAST_POLL, tryonImages, useNock } from '../../adapters/vendor-helpers.ts';

let person: Uint8Array;
let garment: Uint8Array;
let output: Uint8Array;
const png = (bytes: Uint8Array) => ({ bytes, contentType: 'image/png' });

/** An in-memory provider for the chain's order: every call recorded, each model failing (retryably) or answering. */
class FakeProvider implements ImageModelProvider {
  readonly id: ProviderId;
  readonly calls: ModelCall[] = [];
  readonly answer: (call: ModelCall) => 'ok' | 'fail';
  constructor(id: ProviderId, answer: (call: ModelCall) => 'ok' | 'fail' = () => 'fail') {
    this.id = id;
    this.answer = answer;
  }
  models() {
    return MODEL_CATALOGUE.filter((m) => m.provider === this.id);
  }
  async run(call: ModelCall) {
    this.calls.push(call);
    if (this.answer(call) === 'fail') throw new ProviderError(this.id, `${call.model} is down`, { retryable: true, status: 503 });
    return [png(output)];
  }
}

const ALL: ProviderId[] = ['builtin', 'gemini', 'fal', 'fashn', 'vertex', 'cog', 'replicate'];
const everyone = (answer?: (call: ModelCall) => 'ok' | 'fail') => ALL.map((id) => new FakeProvider(id, id === 'builtin' ? () => 'ok' : answer));

function call(garments: GarmentReference[] | undefined, over: Partial<ModelCall> = {}): Omit<ModelCall, 'model'> {
  return {
    task: 'tryon',
    prompt: 'Dress the person in image 1 with the garments in image 2.',
    references: [
      { role: 'person', image: png(person) },
      { role: 'garment-grid', image: png(garment) },
    ],
    quality: 'standard',
    signal: new AbortController().signal,
    garments,
    ...over,
  };
}
const top: GarmentReference = { slot: 'topGarment', image: { bytes: new Uint8Array(0), contentType: 'image/png' } };

useNock();
beforeAll(async () => {
  ({ person, garment, output } = await tryonImages());
  top.image = png(garment);
});

describe('the default chain with dedicated try-on models', () => {
  it('tries dedicated try-on models first, then image-edit models, then builtin, when every vendor is configured', async () => {
    const result = await runModelChain({ call: call([top]), providers: everyone() });
    expect(result.attempts.map((a) => [a.model, a.outcome])).toEqual([
      ['cog-tryon', 'failed'],
      ['tryon-v1.6', 'failed'],
      ['virtual-try-on-001', 'failed'],
      ['fal-ai/fashn/tryon/v1.6', 'failed'],
      ['fal-ai/kling/v1-5/kolors-virtual-try-on', 'failed'],
      ['replicate-tryon', 'failed'],
      ['tryon-max', 'failed'],
      ['gemini-3-pro-image', 'failed'],
      // the flash family entry calls its fallback until discovery has read Google's list
      ['gemini-3.1-flash-image', 'failed'],
      ['fal-ai/bytedance/seedream/v4/edit', 'failed'],
      // one context image: the person and the grid do not fit
      ['fal-ai/flux-pro/kontext', 'skipped'],
      ['builtin-warp', 'succeeded'],
    ]);
    expect(DEFAULT_MODEL_CHAIN.slice(0, DEDICATED_TRYON_CHAIN.length)).toEqual([...DEDICATED_TRYON_CHAIN]);
  });

  it('the first dedicated model that answers wins; it gets the garment photo as sent, image-edit models are not called', async () => {
    const providers = everyone((c) => (c.model === 'tryon-v1.6' ? 'ok' : 'fail'));
    const result = await runModelChain({ call: call([top]), providers });
    expect(result.model).toBe('tryon-v1.6');
    const fashn = providers.find((p) => p.id === 'fashn')!;
    expect(fashn.calls[0].garments).toEqual([top]);
    expect(fashn.calls[0].references[0].role).toBe('person');
    expect(providers.find((p) => p.id === 'gemini')!.calls).toHaveLength(0);
  });

  it('passes dedicated models over when the call has only the garment grid, several garments, or a slot they do not dress', async () => {
    const noPhotos = await runModelChain({ call: call(undefined), providers: everyone() });
    expect(noPhotos.attempts[0].model).toBe('gemini-3-pro-image');
    expect(noPhotos.attempts.some((a) => DEDICATED_TRYON_CHAIN.includes(a.model))).toBe(false);

    const outfit = await runModelChain({ call: call([top, { ...top, slot: 'bottomGarment' }]), providers: everyone() });
    expect(outfit.attempts[0].model).toBe('gemini-3-pro-image');

    // shoes: only Try-On Max of the dedicated models dresses them, then the image-edit models and builtin
    const shoes = await runModelChain({ call: call([{ ...top, slot: 'shoes' }], { task: 'shoe-tryon' }), providers: everyone() });
    expect(shoes.attempts.map((a) => a.model)).toEqual(['tryon-max', 'gemini-3-pro-image', 'gemini-3.1-flash-image', 'fal-ai/bytedance/seedream/v4/edit', 'fal-ai/flux-pro/kontext', 'builtin-warp']);
  });

  it('with only image-edit vendors configured, the chain is as before (dedicated models recorded as not configured)', async () => {
    const providers = (['builtin', 'gemini', 'fal'] as ProviderId[]).map((id) => new FakeProvider(id, id === 'builtin' ? () => 'ok' : () => 'fail'));
    const result = await runModelChain({ call: call([top]), providers });
    const tried = result.attempts.filter((a) => a.outcome !== 'skipped').map((a) => a.model);
    expect(tried).toEqual(['fal-ai/fashn/tryon/v1.6', 'fal-ai/kling/v1-5/kolors-virtual-try-on', 'gemini-3-pro-image', 'gemini-3.1-flash-image', 'fal-ai/bytedance/seedream/v4/edit', 'builtin-warp']);
    expect(result.attempts.find((a) => a.model === 'tryon-v1.6')).toMatchObject({ outcome: 'skipped', error: 'provider fashn is not configured' });
  });

  it('skips a model whose image limit the call exceeds (Vertex: 10 MB) and refuses a pinned dedicated model that cannot take the call', async () => {
    const big: GarmentReference = { slot: 'topGarment', image: { bytes: new Uint8Array(10 * 1024 * 1024 + 1), contentType: 'image/png' } };
    const providers = everyone((c) => (c.model === 'virtual-try-on-001' ? 'ok' : 'fail'));
    const result = await runModelChain({ call: call([big]), providers });
    expect(result.attempts.find((a) => a.model === 'virtual-try-on-001')).toMatchObject({ outcome: 'skipped', error: expect.stringMatching(/accepts images up to 10485760 bytes/) });
    expect(providers.find((p) => p.id === 'vertex')!.calls).toHaveLength(0);

    const err = await runModelChain({ call: call([top, { ...top, slot: 'bottomGarment' }]), providers: everyone(), pinnedModel: 'tryon-v1.6' }).catch((e) => e);
    expect(err).toBeInstanceOf(FitroomError);
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.message).toMatch(/tryon-v1.6 cannot take this request: it dresses 1 garment a call; this request has 2/);
  });

  it('FITROOM_MODELS can add a successor of a dedicated model; it keeps the kind and slots', () => {
    const r = new ModelRegistry();
    r.configure([{ id: 'virtual-try-on-002', like: 'virtual-try-on-001' }]);
    expect(r.get('virtual-try-on-002')).toMatchObject({ provider: 'vertex', kind: 'tryon', slots: ['topGarment', 'bottomGarment', 'fullBodyGarment', 'auto'], maxImageBytes: 10 * 1024 * 1024 });
    expect(() => r.configure([{ id: 'x', provider: 'cog', kind: 'tryon', maxReferences: 2 }])).toThrow(/needs "slots"/);
  });

  it('end to end with the real adapters: FASHN answers, Gemini is never called', async () => {
    const run = nock('https://api.fashn.ai').post('/v1/run').reply(200, { id: 'p1', error: null }).get('/v1/status/p1').reply(200, { id: 'p1', status: 'completed', output: [`data:image/png;base64,${Buffer.from(output).toString('base64')}`], error: null });
    const gemini = nock('https://generativelanguage.googleapis.com').post(/.*/).reply(200, {});
    const result = await runModelChain({ call: call([top]), providers: [new GeminiImageModel({ apiKey: 'g' }), new FashnImageModel({ apiKey: 'f', ...FAST_POLL })] });
    expect(result.model).toBe('tryon-v1.6');
    expect(run.isDone()).toBe(true);
    expect(gemini.isDone()).toBe(false);
  });
});

describe('try-on vendors from configuration', () => {
  function register(env: Record<string, string>) {
    const bound = new Map<symbol, unknown>();
    const services = {
      get: <T>(t: Token<T>) => bound.get(t.key) as T,
      has: (t: Token<unknown>) => bound.has(t.key),
      provide: <T>(t: Token<T>, v: T) => void bound.set(t.key, v),
    };
    registerAiProviders(loadConfig(env), services, () => undefined);
    return services.get(TOKENS.imageModels).map((p) => p.id);
  }

  it('adds FASHN, Vertex, a Cog container and Replicate when configured, and stops the start on a bad setting', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
    const key = JSON.stringify({ type: 'service_account', client_email: 'a@p.iam.gserviceaccount.com', private_key: privateKey });
    expect(
      register({ FASHN_API_KEY: 'k', VERTEX_PROJECT: 'p', VERTEX_CREDENTIALS_JSON: key, FITROOM_COG_URL: 'http://10.0.0.5:5000', FITROOM_COG_INPUTS: '{"person":"human_img","garment":"garm_img"}', REPLICATE_API_TOKEN: 'r8', REPLICATE_MODEL: 'owner/vton' }),
    ).toEqual(['fashn', 'vertex', 'cog', 'replicate', 'builtin']);
    expect(() => register({ REPLICATE_API_TOKEN: 'r8' })).toThrow(/REPLICATE_MODEL: replicate: REPLICATE_MODEL must be owner\/name/);
    expect(() => register({ FITROOM_COG_URL: 'http://gpu:5000', FITROOM_COG_INPUTS: '{"person":' })).toThrow(/FITROOM_COG_INPUTS is not valid JSON/);
    expect(() => register({ FITROOM_COG_URL: 'http://gpu:5000', FITROOM_COG_INPUTS: '{"person":"a"}' })).toThrow(/"person" and "garment"/);
    expect(() => register({ VERTEX_PROJECT: 'p', VERTEX_CREDENTIALS_JSON: '{"type":"authorized_user"}' })).toThrow(/VERTEX_PROJECT: vertex: the credentials must be a service-account key/);
  });
});
