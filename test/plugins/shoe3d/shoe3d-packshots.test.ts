import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../support/harness.ts';
import { makeBagMesh, renderProductViews, shadowHaloPackshot, twoShoesPackshot } from '../../support/products.ts';
import { dataUrl, followJob, startShoe3dService } from './helpers.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startShoe3dService();
  key = (await svc.createKey()).key;
});
afterAll(async () => {
  await svc?.close();
});

async function trace(jobId: string) {
  return (await svc.call('GET', `/api/v1/jobs/${jobId}/trace`, { key })).body;
}

describe('shoe-3d packshot diagnostics', () => {
  it('records cleanup of a shadowed photo and the guard regenerating a two-shoe photo', async () => {
    const images = [await dataUrl(twoShoesPackshot(384, -20)), await dataUrl(shadowHaloPackshot(384).image)];
    const sub = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images, options: { productType: 'shoe' } } });
    expect(sub.status).toBe(202);
    const { job } = await followJob(svc, key, sub.body.jobId);
    expect(job.status).toBe('completed');
    const t = await trace(sub.body.jobId);
    const d = t.diagnostics;
    // the pair: one connected blob, two shoes; the builtin regeneration isolates one
    expect(d.packshotSingleShoe).toEqual({ status: 'regenerated', attempts: 2, count: 1, regeneratedFromCount: 2 });
    expect(d.packshots[1].cleanup.status).toBe('applied');
    expect(d.packshots[1].cleanup.numComponents).toBe(1);
    expect(d.packshots[1].singleShoe).toEqual({ status: 'single', attempts: 1, count: 1 });
    expect(d.productType).toMatchObject({ requested: 'shoe', decided: 'shoe' });
    expect(job.result.productType).toBe('shoe');
  });

  it('retries the guard a second time on three shoes in a row', async () => {
    const sub = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images: [await dataUrl(twoShoesPackshot(480, -16, 3, false))], options: { productType: 'shoe' } } });
    const { job } = await followJob(svc, key, sub.body.jobId);
    expect(job.status).toBe('completed');
    const d = (await trace(sub.body.jobId)).diagnostics;
    expect(d.packshotSingleShoe).toEqual({ status: 'regenerated', attempts: 3, count: 1, regeneratedFromCount: 2 });
    expect(d.reconstruction.notes.join('\n')).toMatch(/one view: closed shape by inflating/);
  });

  it('decides other for a bag under productType auto and records why', async () => {
    const images = await Promise.all(renderProductViews(makeBagMesh(), [0, 90], { size: 256 }).map((v) => dataUrl(v.image)));
    const sub = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images } });
    const { job } = await followJob(svc, key, sub.body.jobId);
    expect(job.status).toBe('completed');
    expect(job.result.productType).toBe('other');
    const d = (await trace(sub.body.jobId)).diagnostics;
    expect(d.productType.requested).toBe('auto');
    expect(d.productType.decided).toBe('other');
    expect(d.productType.reason).toMatch(/handle/);
    expect(d.reconstruction.notes.join('\n')).toMatch(/widest side set to 30 cm/);
  });
});
