import nock from 'nock';
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { vendorsCommand } from '../../../connectors/standalone/cli-vendors.ts';
import { checkVendors } from '../../../connectors/standalone/doctor.ts';
import { loadConfig } from '../../../core/config.ts';
import { png } from '../../adapters/vendor-helpers.ts';

/*
 * `fitroom vendors check --live`, called in-process with nock in place of the vendors (never the real
 * ones: the live check spends money). Fixtures: Gemini `GET /v1beta/models` (ai.google.dev/api/models)
 * and `models/{id}:generateContent` (candidates[].content.parts[].inlineData {mimeType, data}; a text-only
 * answer is the documented failure mode of image generation); Meshy `GET /openapi/v1/balance` ->
 * `{"balance": n}` (Meshy API reference); Tripo v3 `GET /v3/account/balance` -> `{code: 0, data:
 * {balance, frozen}}` (official Go SDK, client.go and types.go).
 */

const GEMINI = 'https://generativelanguage.googleapis.com';
const ENV = { GEMINI_API_KEY: 'live-gemini-key', FITROOM_MODEL_CHAIN: 'gemini-3-pro-image, builtin-warp' };
const LIST = {
  models: ['gemini-3-pro-image', 'gemini-3.1-flash-image'].map((id) => ({ name: `models/${id}`, version: '001', displayName: id, description: 'GA image model', supportedGenerationMethods: ['generateContent'] })),
};

function capture() {
  const lines: string[] = [];
  return { lines, out: { log: (l: string) => lines.push(l), error: (l: string) => lines.push(l) }, text: () => lines.join('\n') };
}

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

describe('fitroom vendors check --live', () => {
  it('makes one small real call per vendor and prints the answer, latency and cost', async () => {
    const image = await png(8, 8, [40, 90, 200]);
    nock(GEMINI).get('/v1beta/models').query(true).reply(200, LIST);
    const generate = nock(GEMINI, { reqheaders: { 'x-goog-api-key': 'live-gemini-key' } })
      .post('/v1beta/models/gemini-3-pro-image:generateContent', (body) => body.generationConfig?.imageConfig?.imageSize === '1K' && body.contents[0].parts.length === 2)
      .reply(200, { candidates: [{ content: { parts: [{ inlineData: { mimeType: 'image/png', data: Buffer.from(image).toString('base64') } }] }, finishReason: 'STOP' }] });
    nock('https://api.meshy.ai').get('/openapi/v1/balance').reply(200, { balance: 120 });
    const c = capture();
    const code = await vendorsCommand('check', ['--live'], { ...ENV, MESHY_API_KEY: 'live-meshy-key' }, c.out);
    expect(code).toBe(0);
    expect(generate.isDone()).toBe(true);
    expect(c.text()).toMatch(/^ok {4}gemini {2}gemini-3-pro-image answered a 8x8 png image; \d+ ms; cost: not reported in the answer; see https:\/\/ai\.google\.dev\/gemini-api\/docs\/pricing$/m);
    expect(c.text()).toMatch(/^ok {4}meshy {3}key accepted, 120 credits; meshy-6 not verifiable without a task/m);
    expect(c.text()).not.toContain('live-gemini-key');
  });

  it('fails when the answer does not have the shape the adapter reads', async () => {
    nock(GEMINI).get('/v1beta/models').query(true).reply(200, LIST);
    nock(GEMINI).post('/v1beta/models/gemini-3-pro-image:generateContent').reply(200, { candidates: [{ content: { parts: [{ text: 'I can only describe images.' }] }, finishReason: 'STOP' }] });
    const c = capture();
    expect(await vendorsCommand('check', ['--live'], ENV, c.out)).toBe(1);
    expect(c.text()).toMatch(/^FAIL {2}gemini {2}gemini-3-pro-image: gemini: no image in the response \(finishReason STOP\)/m);

    // an image part that is not an image
    nock(GEMINI).get('/v1beta/models').query(true).reply(200, LIST);
    nock(GEMINI).post('/v1beta/models/gemini-3-pro-image:generateContent').reply(200, { candidates: [{ content: { parts: [{ inlineData: { mimeType: 'image/png', data: 'bm90IGFuIGltYWdl' } }] }, finishReason: 'STOP' }] });
    const d = capture();
    expect(await vendorsCommand('check', ['--live'], ENV, d.out)).toBe(1);
    expect(d.text()).toMatch(/FAIL {2}gemini {2}gemini-3-pro-image: the answer's image does not decode/);
  });

  it('says so and exits 1 without a network', async () => {
    const c = capture();
    expect(await vendorsCommand('check', ['--live'], ENV, c.out)).toBe(1);
    expect(c.text()).toMatch(/^FAIL {2}gemini {2}gemini-3-pro-image: gemini: network error/m);
    expect(c.text()).toMatch(/^No network: no vendor could be reached/m);
  });

  it('says so when no vendor is configured', async () => {
    const c = capture();
    expect(await vendorsCommand('check', ['--live'], {}, c.out)).toBe(0);
    expect(c.text()).toMatch(/No AI vendor is configured .*nothing to check/);
  });
});

describe('the key check of Meshy and Tripo asks the vendor', () => {
  it('reads both balances (Tripo on v3) and reports the pinned models as not verifiable, not "present"', async () => {
    const meshy = nock('https://api.meshy.ai', { reqheaders: { authorization: 'Bearer m-key' } }).get('/openapi/v1/balance').reply(200, { balance: 40 });
    const tripo = nock('https://openapi.tripo3d.ai', { reqheaders: { authorization: 'Bearer t-key' } }).get('/v3/account/balance').reply(200, { code: 0, data: { balance: 300, frozen: 0 } });
    const c = await checkVendors(loadConfig({ MESHY_API_KEY: 'm-key', TRIPO_API_KEY: 't-key' }));
    expect(meshy.isDone() && tripo.isDone()).toBe(true);
    expect(c.level).toBe('ok');
    expect(c.detail).toContain('meshy: ok (meshy-6 pinned, not verifiable (no model list)), 40 credits');
    expect(c.detail).toContain('tripo: ok (v3.1-20260211 pinned, not verifiable (no model list)), 300 credits');
    expect(c.detail).not.toMatch(/present/);
  });

  it('reports a refused Tripo key (code 2010: no credits) as an account problem', async () => {
    nock('https://openapi.tripo3d.ai').get('/v3/account/balance').reply(403, { code: 2010, message: 'You need more credits to start a new task.', suggestion: 'Please top up.' });
    const c = await checkVendors(loadConfig({ TRIPO_API_KEY: 't-key' }));
    expect(c.level).toBe('fail');
    expect(c.detail).toMatch(/tripo: account refused: HTTP 403 code 2010: You need more credits/);
  });
});

/*
 * The dedicated try-on vendors in the live check. FASHN fixtures: `POST /v1/run` → `{id, error}`,
 * `GET /v1/status/{id}` → `{status: completed, output}` with `x-fashn-credits-used`, runtime errors
 * `{name, message}` (docs.fashn.ai/api-overview/api-fundamentals, official SDK fashn-typescript-sdk).
 * Cog fixtures: `PUT /predictions/{id}` → `{status: succeeded, output: "data:image/png;base64,…"}`
 * (github replicate/cog docs/http.md).
 */
describe('fitroom vendors check --live on the dedicated try-on vendors', () => {
  const FASHN = 'https://api.fashn.ai';
  const COG = 'http://gpu.internal:5000';
  const dataUrl = (b: Uint8Array) => `data:image/png;base64,${Buffer.from(b).toString('base64')}`;

  it('FASHN: dresses a generated figure with tryon-v1.6 in performance mode and prints the credits the header reports', async () => {
    const image = await png(24, 32, [20, 60, 200]);
    let body: any;
    nock(FASHN, { reqheaders: { authorization: 'Bearer live-fashn-key' } })
      .post('/v1/run', (b) => ((body = b), true))
      .reply(200, { id: 'p-live-1', error: null })
      .get('/v1/status/p-live-1')
      .reply(200, { id: 'p-live-1', status: 'completed', output: [dataUrl(image)], error: null }, { 'x-fashn-credits-used': '1' });
    const c = capture();
    expect(await vendorsCommand('check', ['--live'], { FASHN_API_KEY: 'live-fashn-key' }, c.out)).toBe(0);
    expect(body.model_name).toBe('tryon-v1.6');
    expect(body.inputs).toMatchObject({ mode: 'performance', category: 'tops', garment_photo_type: 'flat-lay', num_samples: 1 });
    expect(body.inputs.model_image).toMatch(/^data:image\/png;base64,/);
    expect(c.text()).toMatch(/^ok {4}fashn {3}tryon-v1\.6 answered a 24x32 png image; \d+ ms; cost: 1 FASHN credit \(x-fashn-credits-used\)$/m);
  });

  it('FASHN: an answer without an output, or one that does not decode, fails the shape; a PoseError is a refusal', async () => {
    nock(FASHN).post('/v1/run').reply(200, { id: 'p-live-2', error: null }).get('/v1/status/p-live-2').reply(200, { id: 'p-live-2', status: 'completed', output: [], error: null });
    const c = capture();
    expect(await vendorsCommand('check', ['--live'], { FASHN_API_KEY: 'k' }, c.out)).toBe(1);
    expect(c.text()).toMatch(/^FAIL {2}fashn {3}tryon-v1\.6: fashn: tryon-v1\.6 completed without an output/m);

    nock(FASHN).post('/v1/run').reply(200, { id: 'p-live-3', error: null }).get('/v1/status/p-live-3').reply(200, { id: 'p-live-3', status: 'completed', output: ['data:image/png;base64,bm90IGFuIGltYWdl'], error: null });
    const d = capture();
    expect(await vendorsCommand('check', ['--live'], { FASHN_API_KEY: 'k' }, d.out)).toBe(1);
    expect(d.text()).toMatch(/FAIL {2}fashn {3}tryon-v1\.6: the answer's image does not decode \(image\/png, 12 bytes\)/);

    nock(FASHN).post('/v1/run').reply(200, { id: 'p-live-4', error: null }).get('/v1/status/p-live-4').reply(200, { id: 'p-live-4', status: 'failed', output: null, error: { name: 'PoseError', message: 'Unable to detect body pose in model image' } });
    const e = capture();
    expect(await vendorsCommand('check', ['--live'], { FASHN_API_KEY: 'k' }, e.out)).toBe(1);
    expect(e.text()).toMatch(/FAIL {2}fashn {3}tryon-v1\.6: fashn: tryon-v1\.6 PoseError/);
  });

  it('without a network the try-on vendors say so and the command exits 1', async () => {
    const c = capture();
    expect(await vendorsCommand('check', ['--live'], { FASHN_API_KEY: 'k', FITROOM_COG_URL: COG }, c.out)).toBe(1);
    expect(c.text()).toMatch(/^FAIL {2}fashn {3}tryon-v1\.6: fashn: network error/m);
    expect(c.text()).toMatch(/^FAIL {2}cog {5}cog-tryon: cog: network error/m);
    expect(c.text()).toMatch(/^No network: no vendor could be reached/m);
  });

  it('Cog: one synchronous prediction with the mapped fields; the price hint as the cost; an output that is not an image fails the shape', async () => {
    const image = await png(24, 32, [20, 60, 200]);
    let body: any;
    nock(COG).put(/^\/predictions\/[0-9a-f]{32}$/, (b) => ((body = b), true)).reply(200, { status: 'succeeded', output: dataUrl(image), error: null, metrics: { predict_time: 3.1 } });
    const c = capture();
    expect(await vendorsCommand('check', ['--live'], { FITROOM_COG_URL: COG }, c.out)).toBe(0);
    expect(Object.keys(body.input).sort()).toEqual(['category', 'garment_image', 'person_image']);
    expect(body.input.category).toBe('tops');
    expect(c.text()).toMatch(/^ok {4}cog {5}cog-tryon answered a 24x32 png image; \d+ ms; cost: your own GPU \(catalogue price hint\)$/m);

    nock(COG).put(/^\/predictions\//).reply(200, { status: 'succeeded', output: { images: ['out.png'] }, error: null });
    const d = capture();
    expect(await vendorsCommand('check', ['--live'], { FITROOM_COG_URL: COG }, d.out)).toBe(1);
    expect(d.text()).toMatch(/^FAIL {2}cog {5}cog-tryon: cog: cog-tryon succeeded without an image output/m);
  });
});

describe('fitroom vendors check --live on Vertex AI Virtual Try-On', () => {
  /*
   * Vertex fixtures: Google's OAuth token endpoint (`POST https://oauth2.googleapis.com/token`, as
   * google-auth-library asks it for a service-account key) and `POST .../publishers/google/models/
   * virtual-try-on-001:predict` → `{predictions: [{mimeType, bytesBase64Encoded}]}`
   * (cloud.google.com/vertex-ai/generative-ai/docs/model-reference/virtual-try-on-api).
   */
  it('one sample at the fewest steps the catalogue uses (16), the image read from the answer, the price hint as the cost', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
    const key = JSON.stringify({ type: 'service_account', project_id: 'shop', private_key_id: 'k1', private_key: privateKey, client_email: 'fitroom@shop.iam.gserviceaccount.com' });
    const image = await png(24, 32, [20, 60, 200]);
    let body: any;
    nock('https://oauth2.googleapis.com').post('/token').reply(200, { access_token: 'ya29.live', expires_in: 3599, token_type: 'Bearer' });
    nock('https://europe-west4-aiplatform.googleapis.com', { reqheaders: { authorization: 'Bearer ya29.live' } })
      .post('/v1/projects/shop/locations/europe-west4/publishers/google/models/virtual-try-on-001:predict', (b) => ((body = b), true))
      .reply(200, { predictions: [{ mimeType: 'image/png', bytesBase64Encoded: Buffer.from(image).toString('base64') }] });
    const c = capture();
    expect(await vendorsCommand('check', ['--live'], { VERTEX_PROJECT: 'shop', VERTEX_LOCATION: 'europe-west4', VERTEX_CREDENTIALS_JSON: key }, c.out)).toBe(0);
    expect(body.parameters).toMatchObject({ sampleCount: 1, baseSteps: 16 });
    expect(body.instances[0].productImages).toHaveLength(1);
    expect(c.text()).toMatch(/^ok {4}vertex {2}virtual-try-on-001 answered a 24x32 png image; \d+ ms; cost: Vertex AI Imagen pricing .*\(catalogue price hint\)$/m);
  });
});

describe('the key check covers the dedicated try-on vendors', () => {
  it('doctor asks FASHN for its credits and a Cog container for its health and schema', async () => {
    nock('https://api.fashn.ai', { reqheaders: { authorization: 'Bearer d-key' } }).get('/v1/credits').reply(200, { credits: { total: 57, subscription: 50, on_demand: 7 } });
    nock('http://gpu.internal:5000')
      .get('/health-check').reply(200, { status: 'READY', setup: { status: 'succeeded' } })
      .get('/openapi.json').reply(200, { components: { schemas: { Input: { properties: { person_image: {}, garment_image: {}, category: { enum: ['tops', 'bottoms', 'one-pieces'] } } } } } });
    const c = await checkVendors(loadConfig({ FASHN_API_KEY: 'd-key', FITROOM_COG_URL: 'http://gpu.internal:5000' }));
    expect(c.level).toBe('ok');
    expect(c.detail).toContain('fashn: ok (tryon-v1.6 pinned, not verifiable (no model list), tryon-max pinned, not verifiable (no model list)), 57 credits');
    expect(c.detail).toContain('cog: ok (cog-tryon present)');
  });
});
