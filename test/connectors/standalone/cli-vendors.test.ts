import nock from 'nock';
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
    expect(c.detail).toContain('tripo: ok (v2.5-20250123 pinned, not verifiable (no model list)), 300 credits');
    expect(c.detail).not.toMatch(/present/);
  });

  it('reports a refused Tripo key (code 2010: no credits) as an account problem', async () => {
    nock('https://openapi.tripo3d.ai').get('/v3/account/balance').reply(403, { code: 2010, message: 'You need more credits to start a new task.', suggestion: 'Please top up.' });
    const c = await checkVendors(loadConfig({ TRIPO_API_KEY: 't-key' }));
    expect(c.level).toBe('fail');
    expect(c.detail).toMatch(/tripo: account refused: HTTP 403 code 2010: You need more credits/);
  });
});
