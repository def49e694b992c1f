import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError } from '../../../core/ports/image-model.ts';
import type { ImageModelProvider, ModelCall, ProviderId } from '../../../core/ports/image-model.ts';
import { runModelChain } from '../../../core/tryon/model-chain.ts';
import { MODEL_CATALOGUE, ModelRegistry } from '../../../core/tryon/models.ts';
import { loadConfig } from '../../../core/config.ts';
import { checkAiConfig } from '../../../connectors/standalone/providers.ts';
import { startTestService, type TestService } from '../../support/harness.ts';

/**
 * Models as configuration (FITROOM_MODELS), what the chain does with a retired model or a refused
 * account, and the live vendor check at start and in the warm-up.
 */

class Fake implements ImageModelProvider {
  readonly id: ProviderId;
  readonly calls: string[] = [];
  readonly fail: (model: string) => Error | null;
  constructor(id: ProviderId, fail: (model: string) => Error | null = () => null) {
    this.id = id;
    this.fail = fail;
  }
  models() {
    return MODEL_CATALOGUE.filter((m) => m.provider === this.id);
  }
  async run(c: ModelCall) {
    this.calls.push(c.model);
    const e = this.fail(c.model);
    if (e) throw e;
    return [{ bytes: new Uint8Array([1]), contentType: 'image/png' }];
  }
}

const call = (): Omit<ModelCall, 'model'> => ({ task: 'tryon', prompt: 'p', references: [{ role: 'person', image: { bytes: new Uint8Array([0]), contentType: 'image/png' } }], quality: 'standard', signal: new AbortController().signal });

describe('models from configuration', () => {
  it('adds a model like a known one, changes parameters and limits, retires one', () => {
    const r = new ModelRegistry();
    r.configure([
      { id: 'gemini-3.5-flash-image', like: 'gemini-3.1-flash-image', params: { draft: { imageConfig: { imageSize: '512' } }, standard: { imageConfig: { imageSize: '1K' } }, high: { imageConfig: { imageSize: '2K' } } } },
      { id: 'fal-ai/bytedance/seedream/v4/edit', maxReferences: 6 },
      { id: 'fal-ai/new/edit', provider: 'fal', maxReferences: 4, params: { output_format: 'png' } },
      { id: 'fal-ai/flux-pro/kontext', retired: true },
    ]);
    expect(r.get('gemini-3.5-flash-image')).toMatchObject({ provider: 'gemini', maxReferences: 14 });
    expect(r.get('gemini-3.5-flash-image')!.params('draft')).toEqual({ imageConfig: { imageSize: '512' } });
    expect(r.get('fal-ai/bytedance/seedream/v4/edit')!.maxReferences).toBe(6);
    // the rest of a changed model stays as it was
    expect(r.get('fal-ai/bytedance/seedream/v4/edit')!.params('high')).toMatchObject({ image_size: 'auto_4K' });
    expect(r.get('fal-ai/new/edit')!.params('high')).toEqual({ output_format: 'png' });
    expect(r.retiredReason('fal-ai/flux-pro/kontext')).toBe('retired in configuration');
    expect(r.resolveChain(['gemini-3.5-flash-image', 'fal-ai/new/edit']).map((m) => m.id)).toEqual(['gemini-3.5-flash-image', 'fal-ai/new/edit']);
  });

  it('says what is wrong with a configured model', () => {
    const r = new ModelRegistry();
    expect(() => r.configure([{ id: 'x', provider: 'fal' }])).toThrow(/maxReferences.*required/);
    expect(() => r.configure([{ id: 'x', like: 'nope' }])).toThrow(/"like" names an unknown model nope/);
    expect(() => r.configure([{ id: 'x', provider: 'openai' as never, maxReferences: 1 }])).toThrow(/provider/);
    expect(() => r.configure([{ id: 'x', provider: 'fal', maxReferences: 1, tasks: ['dance' as never] }])).toThrow(/unknown task/);
  });

  it('reads FITROOM_MODELS and FITROOM_MODELS_FILE at start; a chain may name the new ids', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fitroom-models-'));
    const file = path.join(dir, 'models.json');
    writeFileSync(file, JSON.stringify([{ id: 'gemini-4-image', like: 'gemini-3-pro-image' }]));
    expect(() => checkAiConfig(loadConfig({ FITROOM_MODELS_FILE: file, FITROOM_MODELS: '[{"id":"fal-ai/seedream/v5/edit","like":"fal-ai/bytedance/seedream/v4/edit"}]', FITROOM_MODEL_CHAIN: 'gemini-4-image, fal-ai/seedream/v5/edit, builtin-warp' }))).not.toThrow();
    expect(() => checkAiConfig(loadConfig({ FITROOM_MODELS: '{"id": 1' }))).toThrow(/FITROOM_MODELS is not valid JSON/);
    expect(() => checkAiConfig(loadConfig({ FITROOM_MODELS: '{"id": "a"}' }))).toThrow(/must be a JSON array/);
    expect(() => checkAiConfig(loadConfig({ FITROOM_MODELS_FILE: path.join(dir, 'missing.json') }))).toThrow(/FITROOM_MODELS_FILE: cannot read/);
    expect(() => checkAiConfig(loadConfig({ FITROOM_MODELS: '[{"id":"z","provider":"fal"}]' }))).toThrow(/FITROOM_MODELS: model z: "maxReferences" is required/);
  });
});

describe('the chain and vendor failures', () => {
  it('takes a model that answers "not found" out of the chain, once, and says so once', async () => {
    const registry = new ModelRegistry();
    const heard: string[] = [];
    registry.onRetire((id, reason) => heard.push(`${id}: ${reason}`));
    const gemini = new Fake('gemini', (m) => (m === 'gemini-3.1-flash-image' ? new ProviderError('gemini', 'HTTP 404 NOT_FOUND: models/gemini-3.1-flash-image is not found', { retryable: false, status: 404, code: 'MODEL_UNAVAILABLE' }) : null));
    const chain = ['gemini-3.1-flash-image', 'gemini-3-pro-image'];
    const first = await runModelChain({ call: call(), providers: [gemini], chain, registry });
    expect(first.model).toBe('gemini-3-pro-image');
    expect(first.attempts.map((a) => `${a.model}:${a.outcome}`)).toEqual(['gemini-3.1-flash-image:failed', 'gemini-3-pro-image:succeeded']);
    const second = await runModelChain({ call: call(), providers: [gemini], chain, registry });
    expect(second.attempts[0]).toMatchObject({ model: 'gemini-3.1-flash-image', outcome: 'skipped', error: expect.stringMatching(/^retired: .*not found/) });
    expect(gemini.calls).toEqual(['gemini-3.1-flash-image', 'gemini-3-pro-image', 'gemini-3-pro-image']);
    expect(heard).toHaveLength(1);
  });

  it('skips the other models of a provider whose account was refused and moves to the next provider', async () => {
    const registry = new ModelRegistry();
    const gemini = new Fake('gemini', () => new ProviderError('gemini', 'HTTP 400 INVALID_ARGUMENT: API key not valid', { retryable: false, status: 400, code: 'PROVIDER_ACCOUNT' }));
    const builtin = new Fake('builtin');
    const r = await runModelChain({ call: call(), providers: [gemini, builtin], chain: ['gemini-3.1-flash-image', 'gemini-3-pro-image', 'builtin-warp'], registry });
    expect(r.model).toBe('builtin-warp');
    expect(gemini.calls).toEqual(['gemini-3.1-flash-image']);
    expect(r.attempts[1]).toMatchObject({ model: 'gemini-3-pro-image', outcome: 'skipped', error: expect.stringMatching(/refused this deployment's account/) });
    // an account problem is not the input's fault: not IMAGE_INVALID, and no model is retired
    expect(registry.retired()).toEqual([]);
  });
});

describe('the live vendor check', () => {
  let svc: TestService;
  const GEMINI = 'https://generativelanguage.googleapis.com';
  beforeAll(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect(/127\.0\.0\.1|localhost/);
    nock(GEMINI)
      .persist()
      .get('/v1beta/models/gemini-3.1-flash-image').reply(200, { name: 'models/gemini-3.1-flash-image', displayName: 'Nano Banana 2' })
      .get('/v1beta/models/gemini-3-pro-image').reply(404, { error: { code: 404, message: 'models/gemini-3-pro-image is not found for API version v1beta', status: 'NOT_FOUND' } });
    nock('https://api.meshy.ai').persist().get('/openapi/v1/balance').reply(402, { message: 'Insufficient funds' });
    svc = await startTestService({ env: { GEMINI_API_KEY: 'g-live-check', MESHY_API_KEY: 'm-live-check', FITROOM_MODEL_CHAIN: 'gemini-3.1-flash-image, gemini-3-pro-image, builtin-warp' } });
  });
  afterAll(async () => {
    await svc?.close();
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it('reports keys, models and credits in the warm-up and takes a missing model out of the chain', async () => {
    const { key } = await svc.createKey();
    const r = await svc.call('GET', '/api/v1/warmup', { key });
    expect(r.status).toBe(200);
    const vendors = r.body.vendors;
    expect(Date.parse(vendors.checkedAt)).toBeGreaterThan(Date.now() - 60_000);
    const gemini = vendors.vendors.find((v: any) => v.provider === 'gemini');
    expect(gemini).toMatchObject({ status: 'model_missing', models: [{ id: 'gemini-3.1-flash-image', available: true }, { id: 'gemini-3-pro-image', available: false }] });
    expect(vendors.vendors.find((v: any) => v.provider === 'meshy')).toMatchObject({ status: 'account_refused' });
    expect(vendors.retiredModels).toEqual([expect.objectContaining({ id: 'gemini-3-pro-image' })]);
    // the key never shows
    expect(r.text).not.toContain('live-check');
  });
});
