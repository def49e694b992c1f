/**
 * A failed job says why in plain words and with a machine-readable errorCode (hardening: defect 9):
 * photos that show no object fail with IMAGE_INVALID and a sentence a merchant can act on, not
 * "internal error"; the webhook carries the same code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startShoe3dService, followJob, dataUrl } from './helpers.ts';
import { solidImage } from '../../support/images.ts';
import type { TestService } from '../../support/harness.ts';
import nock from 'nock';
import { TOKENS } from '../../../core/tokens.ts';
import { MeshyProductReconstructor } from '../../../adapters/meshy/product-reconstructor.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startShoe3dService();
  ({ key } = await svc.createKey());
}, 120_000);
afterAll(async () => svc?.close());

describe('failure codes', () => {
  it('blank photos fail with IMAGE_INVALID and a cause in plain words', async () => {
    const blank = await dataUrl(solidImage(320, 320, [255, 255, 255, 255]));
    const sub = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images: [blank, blank, blank, blank] } });
    expect(sub.status, sub.text).toBe(202);
    const { job } = await followJob(svc, key, sub.body.jobId);
    expect(job.status).toBe('failed');
    expect(job.errorCode).toBe('IMAGE_INVALID');
    expect(job.error).not.toMatch(/internal error/i);
    expect(job.error).toMatch(/background|product|object/i);
  });

  it('a cancelled job reports CANCELLED', async () => {
    const { shoePhotos } = await import('./helpers.ts');
    const photos = await shoePhotos([0, 90, 180, 270]);
    const sub = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images: photos } });
    await svc.call('DELETE', `/api/v1/jobs/${sub.body.jobId}`, { key });
    const r = await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}`, { key });
    expect(r.body).toMatchObject({ status: 'failed', cancelled: true, errorCode: 'CANCELLED' });
  });
});

describe('a vendor that refuses the account', () => {
  let meshySvc: TestService;
  afterAll(async () => {
    await meshySvc?.close();
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it('fails the job at once with PROVIDER_ACCOUNT and the vendor\'s words, without retries', async () => {
    nock.disableNetConnect();
    nock.enableNetConnect(/127\.0\.0\.1|localhost/);
    let tasks = 0;
    nock('https://api.meshy.ai').persist().post('/openapi/v1/multi-image-to-3d').reply(() => (tasks++, [402, { message: 'Insufficient funds' }]));
    meshySvc = await startShoe3dService((api) => api.provide(TOKENS.reconstructors, [new MeshyProductReconstructor({ apiKey: 'msy-test', pollIntervalMs: 10, maxPollIntervalMs: 20 })]));
    const k = (await meshySvc.createKey()).key;
    const { shoePhotos } = await import('./helpers.ts');
    const sub = await meshySvc.call('POST', '/api/v1/shoe-3d', { key: k, body: { images: await shoePhotos([0, 90], 240) } });
    const { job } = await followJob(meshySvc, k, sub.body.jobId, 60_000);
    expect(job).toMatchObject({ status: 'failed', errorCode: 'PROVIDER_ACCOUNT' });
    expect(job.error).toMatch(/HTTP 402: Insufficient funds/);
    expect(tasks).toBe(1);
    const trace = (await meshySvc.call('GET', `/api/v1/jobs/${sub.body.jobId}/trace`, { key: k })).body;
    expect(new Set(trace.timeline.map((t: { attempt: number }) => t.attempt))).toEqual(new Set([1]));
  }, 90_000);
});
