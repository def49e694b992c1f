import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../support/harness.ts';
import { download, followJob, shoeGlb, startShoe3dService, uploadGlb } from './helpers.ts';

let svc: TestService;
let key: string;
const MB = 1024 * 1024;

beforeAll(async () => {
  svc = await startShoe3dService();
  key = (await svc.createKey()).key;
});
afterAll(async () => {
  await svc?.close();
});

const upload = (bytes: Uint8Array | null, k: string | null = key, filename = 'model.glb') => uploadGlb(svc, k, bytes, filename);

describe('POST /api/v1/files/upload', () => {
  it('stores a GLB and answers a URL that downloads it and works as glbInput', async () => {
    const glb = await shoeGlb(128);
    const r = await upload(glb);
    expect(r.status).toBe(200);
    expect(r.body.url).toMatch(/\/api\/v1\/files\/[0-9a-f-]{36}\?expires=\d+&token=/);
    const back = await download(r.body.url);
    expect(back.status).toBe(200);
    expect(Buffer.from(back.bytes).equals(Buffer.from(glb))).toBe(true);
    // enhanceTexture on an uploaded GLB: genaiQuality defaults to high (6 views)
    const sub = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images: [], glbInput: r.body.url, options: { enhanceTexture: true, refineLogo: true } } });
    expect(sub.status).toBe(202);
    const { job } = await followJob(svc, key, sub.body.jobId);
    expect(job.status).toBe('completed');
    const trace = (await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}/trace`, { key })).body;
    const enhance = trace.timeline.find((t: any) => t.stage === 'enhance texture');
    expect(enhance.detail.views).toBe(6);
    expect(enhance.detail.texelsChanged).toBeGreaterThan(0);
    expect(trace.timeline.find((t: any) => t.stage === 'refine logos').outcome).toBe('ok');
    expect(['applied', 'none_found']).toContain(trace.diagnostics.logoRefinement.status);
    expect(trace.timeline.map((t: any) => t.stage)).not.toContain('reconstruct');
  });

  it('refuses a missing file, a file that is not a GLB, a file over the limit and a request without a key', async () => {
    expect((await upload(null)).status).toBe(400);
    const notGlb = await upload(new TextEncoder().encode('{"asset":{"version":"2.0"}}'));
    expect(notGlb.status).toBe(400);
    expect(notGlb.body.error.code).toBe('VALIDATION_ERROR');
    expect(notGlb.body.error.details[0].field).toBe('file');
    const glb = await shoeGlb(64);
    const truncated = await upload(glb.slice(0, glb.length - 100));
    expect(truncated.status).toBe(400);
    const huge = new Uint8Array(31 * MB);
    huge.set(glb);
    expect((await upload(huge)).status).toBe(413);
    expect((await upload(glb, null)).status).toBe(401);
  });
});
