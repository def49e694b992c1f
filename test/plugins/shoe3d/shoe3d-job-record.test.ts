/**
 * The spec's packshot diagnostics on the job record: GET /api/v1/jobs/{id} of a shoe-3d job answers
 * `packshotCleanup` and `packshotSingleShoe` (the first photo's, as the trace's `packshots[0]`) at
 * the top level of the Job, valid against the published Job schema, from the moment the packshots
 * were checked (while the job still runs, and on a job that fails later), and not at all when no
 * packshot was checked (absence means unknown).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinProductReconstructor } from '../../../adapters/builtin/shoe3d/builtin-reconstructor.ts';
import { FitroomError } from '../../../core/errors.ts';
import type { ProductReconstructor } from '../../../core/ports/product-reconstructor.ts';
import { TOKENS } from '../../../core/tokens.ts';
import type { TestService } from '../../support/harness.ts';
import { shadowHaloPackshot, twoShoesPackshot } from '../../support/products.ts';
import { dataUrl, followJob, glbDataUrl, shoeGlb, shoePhotos, startShoe3dService } from './helpers.ts';

const builtin = new BuiltinProductReconstructor();
/** The builtin reconstructor, failing for requests of exactly three photos. */
const failingOnThree: ProductReconstructor = {
  id: 'builtin',
  reconstruct: (req) => (req.views.length === 3 ? Promise.reject(new FitroomError('IMAGE_INVALID', 'Three photos are refused by this test reconstructor')) : builtin.reconstruct(req)),
};

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startShoe3dService((api) => api.provide(TOKENS.reconstructors, [failingOnThree]));
  key = (await svc.createKey()).key;
});
afterAll(async () => {
  await svc?.close();
});

const record = async (jobId: string) => (await svc.call('GET', `/api/v1/jobs/${jobId}`, { key })).body;
const trace = async (jobId: string) => (await svc.call('GET', `/api/v1/jobs/${jobId}/trace`, { key })).body;
const schemaErrors = (job: unknown) => svc.fitroom.kernel.validator.errors('Job', job);

describe('GET /api/v1/jobs/{id} of a shoe-3d job', () => {
  it('answers packshotCleanup and packshotSingleShoe at the top level, as soon as the packshots were checked', async () => {
    const images = [await dataUrl(twoShoesPackshot(384, -20)), await dataUrl(shadowHaloPackshot(384).image)];
    const sub = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images, options: { productType: 'shoe' } } });
    expect(sub.status).toBe(202);
    // poll: the diagnostics show while the job still runs (reconstruction takes seconds)
    let seenRunning: any = null;
    let job: any;
    for (const t0 = Date.now(); Date.now() - t0 < 120_000;) {
      job = await record(sub.body.jobId);
      expect(schemaErrors(job)).toEqual([]);
      if (!seenRunning && job.packshotSingleShoe && !['completed', 'failed'].includes(job.status)) seenRunning = job;
      if (job.status === 'completed' || job.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(job.status).toBe('completed');
    expect(seenRunning?.status).toBe('processing');

    const d = (await trace(sub.body.jobId)).diagnostics;
    expect(job.packshotCleanup).toEqual(d.packshots[0].cleanup);
    expect(job.packshotSingleShoe).toEqual(d.packshots[0].singleShoe);
    // the pair in the first photo: one blob, two shoes, one regeneration isolates one
    expect(job.packshotSingleShoe).toEqual({ status: 'regenerated', attempts: 2, count: 1, regeneratedFromCount: 2 });
    expect(['applied', 'noop']).toContain(job.packshotCleanup.status);
    expect(job.packshotCleanup.numComponents).toBeGreaterThanOrEqual(1);
    expect(job.packshotCleanup.areaRatio).toBeGreaterThan(0);
    expect(job.packshotCleanup.areaRatio).toBeLessThanOrEqual(1);
    expect(job.packshotCleanup.errorCode).toBeUndefined();
    // only the spec's two fields reach the record; every photo's and the other stages' stay in the trace
    for (const k of ['packshots', 'productType', 'reconstruction', 'validation', 'diagnostics']) expect(job[k]).toBeUndefined();
    expect(Object.keys(job).sort()).toEqual(['createdAt', 'jobId', 'packshotCleanup', 'packshotSingleShoe', 'progress', 'result', 'status', 'updatedAt']);
  });

  it('keeps them on a job that fails after the packshots were checked', async () => {
    const sub = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images: await shoePhotos([0, 45, 90], 256), options: { productType: 'shoe' } } });
    const { job } = await followJob(svc, key, sub.body.jobId);
    expect(job).toMatchObject({ status: 'failed', errorCode: 'IMAGE_INVALID' });
    expect(schemaErrors(job)).toEqual([]);
    expect(job.packshotCleanup.status).toMatch(/^(applied|noop)$/);
    expect(job.packshotSingleShoe).toEqual({ status: 'single', attempts: 1, count: 1 });
    expect((await trace(sub.body.jobId)).timeline.find((t: any) => t.stage === 'reconstruct').outcome).toBe('failed');
  });

  it('leaves them out when no packshot was checked (a glbInput job): absence means unknown', async () => {
    const sub = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images: [], glbInput: glbDataUrl(await shoeGlb(64)) } });
    const { job } = await followJob(svc, key, sub.body.jobId);
    expect(job.status).toBe('completed');
    expect(schemaErrors(job)).toEqual([]);
    expect('packshotCleanup' in job).toBe(false);
    expect('packshotSingleShoe' in job).toBe(false);
  });
});
