import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GeminiCatalog } from '../../adapters/gemini/discovery.ts';
import { FalCatalog } from '../../adapters/fal/discovery.ts';
import { GeminiImageModel } from '../../adapters/gemini/image-model.ts';
import { PostgresDiscoveryStore } from '../../adapters/postgres/vendor-discovery-store.ts';
import { createPool, type Pool } from '../../adapters/postgres/db.ts';
import { ModelRegistry } from '../../core/tryon/models.ts';
import { runModelChain } from '../../core/tryon/model-chain.ts';
import { VendorDiscoveryService } from '../../core/vendor-discovery.ts';
import type { VendorCatalog } from '../../core/ports/vendor-catalog.ts';
import { loadConfig } from '../../core/config.ts';
import { checkVendors } from '../../connectors/standalone/doctor.ts';
import { discoveryCron } from '../../connectors/standalone/compose.ts';
import { createTestDatabase } from '../support/database.ts';
import { startTestService, type TestService } from '../support/harness.ts';
import { png } from '../adapters/vendor-helpers.ts';

/*
 * Fixtures: Gemini's `GET /v1beta/models` (models.list) as ai.google.dev/api/models documents it
 * (`{models: [Model], nextPageToken}`; Model = name "models/{id}", baseModelId, version, displayName,
 * description, inputTokenLimit, outputTokenLimit, supportedGenerationMethods). The reference documents
 * no deprecation field: Google's notice is in the description here, as the adapter reads it. The ids
 * after gemini-3.1-flash-image are invented for the test (the successor's real id was not verifiable).
 * fal: `GET api.fal.ai/v1/models?endpoint_id=...` (docs.fal.ai/platform-apis/v1/models): `{models:
 * [{endpoint_id, metadata: {display_name, status: "active" | "deprecated"}}], next_cursor, has_more}`.
 */

const GEMINI = 'https://generativelanguage.googleapis.com';
const KEY = 'gemini-discovery-key';

const model = (id: string, description: string, version = '001') => ({
  name: `models/${id}`,
  baseModelId: id,
  version,
  displayName: id,
  description,
  inputTokenLimit: 131072,
  outputTokenLimit: 32768,
  supportedGenerationMethods: ['generateContent', 'countTokens'],
});
const PAGE_1 = {
  models: [
    model('gemini-3-pro-image', 'Gemini 3 Pro Image, generally available.'),
    model('gemini-3.1-flash-image', 'Deprecated on October 6, 2026: use gemini-3.2-flash-image instead. Shutdown no earlier than April 2027.'),
    model('gemini-3.2-flash-image', 'Gemini 3.2 Flash Image.'),
  ],
  nextPageToken: 'page-2',
};
const PAGE_2 = {
  models: [
    model('gemini-3.9-flash-image', 'Gemini 3.9 Flash Image.'),
    model('gemini-3.10-flash-image', 'Gemini 3.10 Flash Image.'),
    model('gemini-4-flash-image-preview', 'Preview of the next flash image model.'),
    model('gemini-3.5-flash', 'Text model.'),
  ],
};

/** The two pages of models.list; `times` answers of each. */
function listModels(times = 1) {
  return nock(GEMINI, { reqheaders: { 'x-goog-api-key': KEY } })
    .get('/v1beta/models')
    .query({ pageSize: '1000' })
    .times(times)
    .reply(200, PAGE_1)
    .get('/v1beta/models')
    .query({ pageSize: '1000', pageToken: 'page-2' })
    .times(times)
    .reply(200, PAGE_2);
}

const geminiOnly = (): VendorCatalog[] => [new GeminiCatalog({ apiKey: KEY })];
const unmatched: string[] = [];
const onNoMatch = (req: { method?: string; path?: string; href?: string; url?: string }) => unmatched.push(`${req.method} ${req.href ?? req.url ?? req.path}`);

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  nock.emitter.on('no match', onNoMatch);
});
afterEach(() => {
  unmatched.length = 0;
});
afterAll(() => {
  nock.emitter.removeListener('no match', onNoMatch);
  nock.enableNetConnect();
});

describe('discovery from the vendors\' model lists', () => {
  afterEach(() => nock.cleanAll());
  it('flags a model Gemini lists as deprecated and the chain passes it over before any call; the family follows the newest GA model', async () => {
    listModels();
    const registry = new ModelRegistry();
    const logs: string[] = [];
    const discovery = new VendorDiscoveryService({ catalogs: geminiOnly, registry, intervalMs: 3_600_000, log: (l) => logs.push(l) });
    const [gemini] = await discovery.refresh();
    expect(logs).toEqual([
      'AI vendor gemini: gemini-3.1-flash-image is DEPRECATED (successor: gemini-3.2-flash-image); the model chain passes it over from now on',
      'model family gemini-flash-image-newest (gemini-*-flash-image) calls gemini-3.10-flash-image',
    ]);
    expect(gemini).toMatchObject({ provider: 'gemini', status: 'ok', coverage: 'complete' });
    expect(gemini.models).toHaveLength(7);
    expect(registry.deprecation('gemini-3.1-flash-image')).toEqual({ provider: 'gemini', successor: 'gemini-3.2-flash-image' });
    // newest by version number (3.10 > 3.9 > 3.2), never a preview, never the deprecated one
    expect(registry.families()).toEqual([{ id: 'gemini-flash-image-newest', follow: 'gemini-*-flash-image', target: 'gemini-3.10-flash-image', source: 'discovery' }]);
    expect(registry.get('gemini-3.10-flash-image')).toMatchObject({ provider: 'gemini', maxReferences: 14 });
    expect(registry.retired()).toEqual([]);

    const out = await png(8, 8, [20, 60, 200]);
    const deprecatedCall = nock(GEMINI).post('/v1beta/models/gemini-3.1-flash-image:generateContent').reply(200, {});
    const newest = nock(GEMINI)
      .post('/v1beta/models/gemini-3.10-flash-image:generateContent')
      .reply(200, { candidates: [{ content: { parts: [{ inlineData: { mimeType: 'image/png', data: Buffer.from(out).toString('base64') } }] }, finishReason: 'STOP' }] });
    const result = await runModelChain({
      call: { task: 'tryon', prompt: 'p', references: [{ role: 'person', image: { bytes: out, contentType: 'image/png' } }], quality: 'draft', signal: new AbortController().signal },
      providers: [new GeminiImageModel({ apiKey: KEY })],
      chain: ['gemini-3.1-flash-image', 'gemini-flash-image-newest', 'builtin-warp'],
      registry,
    });
    expect(result.attempts.map((a) => `${a.model}:${a.outcome}`)).toEqual(['gemini-3.1-flash-image:skipped', 'gemini-3.10-flash-image:succeeded']);
    expect(result.attempts[0].error).toBe('deprecated by gemini (successor: gemini-3.2-flash-image)');
    expect(deprecatedCall.isDone()).toBe(false);
    expect(newest.isDone()).toBe(true);
  });

  it('retires a catalogue model missing from a complete list, and a family without a listed member is passed over', async () => {
    nock(GEMINI).get('/v1beta/models').query(true).reply(200, { models: [model('gemini-3-pro-image', 'GA')] });
    const registry = new ModelRegistry();
    await new VendorDiscoveryService({ catalogs: geminiOnly, registry, intervalMs: 3_600_000 }).refresh();
    expect(registry.retiredReason('gemini-3.1-flash-image')).toMatch(/gemini's model list no longer has it/);
    expect(registry.retiredReason('gemini-3-pro-image')).toBeUndefined();
    // the family keeps its fallback, which is retired: the chain says why it skips it
    const r = await runModelChain({
      call: { task: 'tryon', prompt: 'p', references: [], quality: 'draft', signal: new AbortController().signal },
      providers: [{ id: 'gemini', models: () => [], run: async () => [{ bytes: new Uint8Array([1]), contentType: 'image/png' }] }],
      chain: ['gemini-flash-image-newest', 'gemini-3-pro-image'],
      registry,
    });
    expect(r.attempts[0]).toMatchObject({ model: 'gemini-flash-image-newest', outcome: 'skipped', error: expect.stringMatching(/^retired: /) });
    expect(r.model).toBe('gemini-3-pro-image');
  });

  it('reads fal\'s model search: a deprecated endpoint is flagged, an endpoint fal does not list is retired', async () => {
    nock('https://api.fal.ai')
      .get('/v1/models')
      .query((q) => Array.isArray(q.endpoint_id) && q.endpoint_id.includes('fal-ai/flux-pro/kontext'))
      .reply(200, {
        models: [
          { endpoint_id: 'fal-ai/flux-pro/kontext', metadata: { display_name: 'FLUX.1 Kontext [pro]', status: 'deprecated' } },
          { endpoint_id: 'fal-ai/bytedance/seedream/v4/edit', metadata: { display_name: 'Seedream 4.0 edit', status: 'active' } },
        ],
        next_cursor: null,
        has_more: false,
      });
    const registry = new ModelRegistry();
    await new VendorDiscoveryService({ catalogs: () => [new FalCatalog({ apiKey: 'fal-key' })], registry, intervalMs: 3_600_000 }).refresh();
    expect(registry.deprecation('fal-ai/flux-pro/kontext')).toEqual({ provider: 'fal' });
    expect(registry.retiredReason('fal-ai/flux-pro/kontext/max')).toMatch(/fal's model list no longer has it/);
    expect(registry.retiredReason('fal-ai/bytedance/seedream/v4/edit')).toBeUndefined();
  });

  it('says a family pattern must carry one version wildcard', () => {
    const r = new ModelRegistry();
    expect(() => r.configure([{ id: 'x-newest', like: 'gemini-3-pro-image', follow: 'gemini-pro-image' }])).toThrow(/exactly one "\*"/);
    r.configure([{ id: 'pro-newest', like: 'gemini-3-pro-image', follow: 'gemini-*-pro-image' }]);
    // `like` fits the family: it is what the entry calls until a list has been read
    expect(r.target('pro-newest')).toBe('gemini-3-pro-image');
  });
});

describe('discovery results in PostgreSQL', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  const pools: Pool[] = [];
  beforeAll(async () => (db = await createTestDatabase()));
  afterAll(async () => {
    for (const p of pools) await p.end();
    await db?.drop();
  });
  /** One process's discovery: its own pool and registry, the shared database. */
  const proc = () => {
    const pool = createPool(db.url, 2);
    pools.push(pool);
    const registry = new ModelRegistry();
    return { registry, discovery: new VendorDiscoveryService({ catalogs: geminiOnly, registry, intervalMs: 6 * 3_600_000 }), store: new PostgresDiscoveryStore(pool) };
  };

  it('asks the vendor once when two processes start together, and a restarted process remembers without asking', async () => {
    const list = listModels(1);
    const a = proc();
    const b = proc();
    a.discovery.useStore(a.store);
    b.discovery.useStore(b.store);
    await Promise.all([a.discovery.ensureFresh(10_000), b.discovery.ensureFresh(10_000)]);
    expect(list.isDone()).toBe(true);
    expect(unmatched).toEqual([]);
    // the one that lost the claim (either) reads what the other stored
    await Promise.all([a.discovery.load(), b.discovery.load()]);
    for (const p of [a, b]) expect(p.registry.deprecation('gemini-3.1-flash-image')).toEqual({ provider: 'gemini', successor: 'gemini-3.2-flash-image' });

    // a restart: a new pool, a new registry, nothing in memory; the vendor is not asked again
    const restarted = proc();
    restarted.discovery.useStore(restarted.store);
    const found = await restarted.discovery.ensureFresh(10_000);
    expect(unmatched).toEqual([]);
    expect(found.map((r) => [r.provider, r.status, r.discoveredAt])).toEqual([['gemini', 'ok', a.discovery.discoveredAt()]]);
    expect(b.discovery.discoveredAt()).toBe(a.discovery.discoveredAt());
    expect(restarted.registry.deprecation('gemini-3.1-flash-image')).toEqual({ provider: 'gemini', successor: 'gemini-3.2-flash-image' });
    expect(restarted.registry.target('gemini-flash-image-newest')).toBe('gemini-3.10-flash-image');
  });
});

describe('deprecations in the warm-up and in doctor', () => {
  let svc: TestService;
  const CHAIN = 'gemini-3.1-flash-image, gemini-flash-image-newest, builtin-warp';
  beforeAll(async () => {
    listModels(10);
    // models.get for the ids the chain calls (the live key check)
    nock(GEMINI).persist().get(/^\/v1beta\/models\/gemini-[\w.-]+$/).reply(200, { displayName: 'Gemini image model' });
    svc = await startTestService({ env: { GEMINI_API_KEY: KEY, FITROOM_MODEL_CHAIN: CHAIN } });
  });
  afterAll(async () => {
    await svc?.close();
    nock.cleanAll();
  });

  it('lists the deprecated model with its successor and the family\'s member in GET /api/v1/warmup', async () => {
    const { key } = await svc.createKey();
    const r = await svc.call('GET', '/api/v1/warmup', { key });
    expect(r.status).toBe(200);
    expect(r.body.vendors.deprecatedModels).toEqual([{ id: 'gemini-3.1-flash-image', provider: 'gemini', successor: 'gemini-3.2-flash-image' }]);
    expect(r.body.vendors.families).toEqual([{ id: 'gemini-flash-image-newest', follow: 'gemini-*-flash-image', target: 'gemini-3.10-flash-image', source: 'discovery' }]);
    expect(Date.parse(r.body.vendors.discoveredAt)).toBeGreaterThan(Date.now() - 60_000);
    // the key check asked about the ids jobs call: the family's member, not the family's own name
    expect(r.body.vendors.vendors[0].models.map((m: { id: string }) => m.id)).toEqual(['gemini-3.1-flash-image', 'gemini-3.10-flash-image']);
    const stored = await svc.fitroom.pool.query('select provider from vendor_discovery');
    expect(stored.rows).toEqual([{ provider: 'gemini' }]);
  });

  it('schedules the next reads as a graphile-worker cron item (run once for all workers)', async () => {
    const known = await svc.fitroom.pool.query<{ identifier: string }>('select identifier from graphile_worker._private_known_crontabs');
    expect(known.rows.map((r) => r.identifier)).toContain('fitroom_vendor_discovery');
    expect(discoveryCron(6)).toBe('23 */6 * * *');
    expect(discoveryCron(48)).toBe('23 4 */2 * *');
  });

  it('flags it in doctor with what to change', async () => {
    const c = await checkVendors(loadConfig({ GEMINI_API_KEY: KEY, FITROOM_MODEL_CHAIN: CHAIN }));
    expect(c.level).toBe('warn');
    expect(c.detail).toContain('DEPRECATED by gemini: gemini-3.1-flash-image (successor: gemini-3.2-flash-image), passed over by the model chain');
    expect(c.detail).toContain('family gemini-flash-image-newest (gemini-*-flash-image) calls gemini-3.10-flash-image');
    expect(c.fix).toMatch(/replace gemini-3.1-flash-image in FITROOM_MODEL_CHAIN/);
  });
});
