/**
 * Virtual fitting with a dedicated try-on vendor configured (FASHN, its API mocked with nock as in
 * test/adapters/fashn): the job sends the twin's render and the garment photo as sent, not the grid,
 * and an outfit of two garments falls back to the builtin engine.
 */
import nock from 'nock';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, waitForJob, type TestService } from '../../support/harness.ts';
import { images, makeTwin, type Images } from './helpers.ts';

let svc: TestService;
let img: Images;
let key: string;
let twinId: string;
let result: string;

const bytesOf = (dataUrl: string) => Buffer.from(dataUrl.split(',')[1], 'base64');

beforeAll(async () => {
  svc = await startTestService({ env: { FASHN_API_KEY: 'fa-test-key' } });
  img = await images();
  ({ key } = await svc.createKey());
  twinId = await makeTwin(svc, key, img.face);
  result = `data:image/png;base64,${(await sharp({ create: { width: 48, height: 72, channels: 3, background: { r: 20, g: 60, b: 200 } } }).png().toBuffer()).toString('base64')}`;
}, 120_000);
afterEach(() => nock.cleanAll());
afterAll(async () => svc?.close());

describe('virtual fitting through a dedicated try-on model', () => {
  it('sends FASHN the twin render and the on-model garment photo (category tops, photo type model) and stores its result', async () => {
    let body: any;
    const fashn = nock('https://api.fashn.ai')
      .post('/v1/run', (b) => ((body = b), true))
      .reply(200, { id: 'p-1', error: null })
      .get('/v1/status/p-1')
      .reply(200, { id: 'p-1', status: 'completed', output: [result], error: null }, { 'x-fashn-credits-used': '1' });
    const r = await svc.call('POST', '/api/v1/virtual-fitting', { key, body: { digitalTwinId: twinId, topGarment: [img.top, img.top2] } });
    expect(r.status, r.text).toBe(202);
    const job = await waitForJob(svc, key, r.body.jobId, undefined, 90_000);
    expect(job.status, JSON.stringify(job)).toBe('completed');
    expect(fashn.isDone()).toBe(true);
    expect(body.model_name).toBe('tryon-v1.6');
    expect(body.inputs).toMatchObject({ category: 'tops', garment_photo_type: 'model', mode: 'balanced' });
    expect(bytesOf(body.inputs.garment_image).equals(bytesOf(img.top2))).toBe(true);
    const render = await sharp(bytesOf(body.inputs.model_image)).metadata();
    expect(render.format).toBe('png');

    const trace = await svc.call('GET', `/api/v1/jobs/${r.body.jobId}/trace`, { key });
    const generate = trace.body.timeline.find((t: { stage: string }) => t.stage === 'generate');
    expect(generate.detail.model).toBe('tryon-v1.6');
    const stored = await fetch(job.results[0].url);
    expect((await sharp(Buffer.from(await stored.arrayBuffer())).metadata()).width).toBe(48);
  });

  it('an outfit of two garments passes the one-garment model over: the builtin engine answers and FASHN is not called', async () => {
    const fashn = nock('https://api.fashn.ai').post('/v1/run').reply(200, { id: 'never', error: null });
    const r = await svc.call('POST', '/api/v1/virtual-fitting', { key, body: { digitalTwinId: twinId, topGarment: img.top, bottomGarment: img.bottom, options: { skipResultCache: true } } });
    expect(r.status, r.text).toBe(202);
    const job = await waitForJob(svc, key, r.body.jobId, undefined, 90_000);
    expect(job.status, JSON.stringify(job)).toBe('completed');
    expect(fashn.isDone()).toBe(false);
    const trace = await svc.call('GET', `/api/v1/jobs/${r.body.jobId}/trace`, { key });
    expect(trace.body.timeline.find((t: { stage: string }) => t.stage === 'generate').detail.model).toBe('builtin-warp');
  });
});
