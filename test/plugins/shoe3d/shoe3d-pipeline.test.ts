import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { validateGlb } from '../../../adapters/builtin/shoe3d/validate-glb.ts';
import type { TestService } from '../../support/harness.ts';
import { download, followJob, shoePhotos, startShoe3dService } from './helpers.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startShoe3dService();
  key = (await svc.createKey()).key;
});
afterAll(async () => {
  await svc?.close();
});

describe('POST /api/v1/shoe-3d', () => {
  it('refuses requests without a key or with an invalid body', async () => {
    expect((await svc.call('POST', '/api/v1/shoe-3d', { body: { images: [] } })).status).toBe(401);
    const empty = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images: [] } });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('VALIDATION_ERROR');
    expect(empty.body.error.details[0].field).toBe('images');
    const badOption = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images: ['https://example.com/a.png'], options: { productType: 'hat' } } });
    expect(badOption.status).toBe(400);
    const badImage = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images: ['ftp://example.com/a.png'] } });
    expect(badImage.status).toBe(400);
    const badData = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images: ['data:image/png;base64,!!!!'] } });
    expect(badData.status).toBe(400);
    const badGlb = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images: [], glbInput: `data:model/gltf-binary;base64,${Buffer.from('not a glb at all').toString('base64')}` } });
    expect(badGlb.status).toBe(400);
    expect(badGlb.body.error.details[0].field).toBe('glbInput');
  });

  it('runs queued → validating → processing → uploading → completed with growing progress, results and diagnostics', async () => {
    const images = await shoePhotos([0, 45, 90, 135]);
    const sub = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images, options: { correctImage: true } } });
    expect(sub.status).toBe(202);
    expect(sub.body.jobId).toMatch(/^[0-9a-f-]{36}$/);
    const { job, statuses, progress } = await followJob(svc, key, sub.body.jobId);
    expect(job.status).toBe('completed');
    // the statuses seen are in lifecycle order (fast stages may be missed between polls)
    const order = ['queued', 'validating', 'processing', 'uploading', 'completed'];
    expect(statuses.every((s) => order.includes(s))).toBe(true);
    expect(statuses.map((s) => order.indexOf(s))).toEqual([...statuses.map((s) => order.indexOf(s))].sort((a, b) => a - b));
    expect(statuses).toContain('processing');
    expect(progress.every((p) => typeof p === 'number' && p >= 0 && p <= 100)).toBe(true);
    expect(progress.every((p, i) => i === 0 || p >= progress[i - 1])).toBe(true);
    expect(new Set(progress).size).toBeGreaterThan(3);
    expect(job.progress).toBe(100);

    const { glbUrl, viewerUrl, previewGrid, productType } = job.result;
    expect(productType).toBe('shoe');
    expect(viewerUrl).toContain('/tryon?src=');
    // not uploaded: no AR object, and the result says how to get one
    expect(job.result.arObject).toBeUndefined();
    expect(job.result.arObjectHint).toMatch(/options\.uploadToService: true.*POST \/tryon\/api\/upload_shoe/);
    const glb = await download(glbUrl);
    expect(glb.status).toBe(200);
    expect(glb.type).toBe('model/gltf-binary');
    expect((await validateGlb(glb.bytes)).errors).toBe(0);
    const png = await download(previewGrid);
    expect(png.status).toBe(200);
    const meta = await sharp(png.bytes).metadata();
    expect(meta.format).toBe('png');
    expect(meta.width).toBeGreaterThan(300);

    const trace = await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}/trace`, { key });
    expect(trace.status).toBe(200);
    const d = trace.body.diagnostics;
    expect(['applied', 'noop']).toContain(d.packshotCleanup.status);
    expect(d.packshotCleanup.numComponents).toBe(1);
    expect(d.packshotCleanup.areaRatio).toBeGreaterThan(0);
    expect(d.packshotSingleShoe).toEqual({ status: 'single', attempts: 1, count: 1 });
    expect(d.packshots).toHaveLength(4);
    // the spec's packshot diagnostics are on the job record itself too
    const record = await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}`, { key });
    expect(record.body.packshotCleanup).toEqual(d.packshotCleanup);
    expect(record.body.packshotSingleShoe).toEqual(d.packshotSingleShoe);
    expect(d.productType).toMatchObject({ requested: 'auto', decided: 'shoe' });
    expect(d.reconstruction.reconstructor).toBe('builtin');
    expect(d.reconstruction.notes.join('\n')).toMatch(/0\/45\/90\/135/);
    const stages = trace.body.timeline.map((t: any) => t.stage);
    expect(stages).toEqual(['validate inputs', 'correct images', 'clean packshots', 'single-shoe guard', 'product type', 'reconstruct', 'preview', 'store results']);
    expect(trace.body.timeline.every((t: any) => t.outcome === 'ok')).toBe(true);
  });
});
