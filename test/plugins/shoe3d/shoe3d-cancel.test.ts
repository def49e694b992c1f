import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinProductReconstructor } from '../../../adapters/builtin/shoe3d/builtin-reconstructor.ts';
import type { ProductReconstructor } from '../../../core/ports/product-reconstructor.ts';
import { TOKENS } from '../../../core/tokens.ts';
import { SHOE3D_TIMEOUTS } from '../../../core/ports/shoe3d-timeouts.ts';
import type { TestService } from '../../support/harness.ts';
import { followJob, shoePhotos, startShoe3dService } from './helpers.ts';

/** What the reconstructor saw of one run: whether (when) its signal aborted, how it ended, progress after. */
interface Probe {
  abortedAt: number;
  progressAfterAbort: number;
  outcome: 'resolved' | 'rejected' | 'running';
}

const probes: Probe[] = [];
const builtin = new BuiltinProductReconstructor();
const probed: ProductReconstructor = {
  id: 'builtin',
  async reconstruct(req) {
    const p: Probe = { abortedAt: 0, progressAfterAbort: 0, outcome: 'running' };
    probes.push(p);
    req.signal.addEventListener('abort', () => { p.abortedAt = Date.now(); }, { once: true });
    try {
      const out = await builtin.reconstruct({ ...req, onProgress: (f) => { if (p.abortedAt) p.progressAfterAbort++; req.onProgress?.(f); } });
      p.outcome = 'resolved';
      return out;
    } catch (e) {
      p.outcome = 'rejected';
      throw e;
    }
  },
};

let svc: TestService;
let key: string;
let photos: string[];

beforeAll(async () => {
  // genaiQuality default gets a 1 s stage timeout here (3 minutes in the spec); high keeps a long one
  svc = await startShoe3dService((api) => {
    api.provide(TOKENS.reconstructors, [probed]);
    api.provide(SHOE3D_TIMEOUTS, { default: 1000, high: 120_000 });
  });
  key = (await svc.createKey()).key;
  photos = await shoePhotos([0, 30, 60, 90, 120, 150], 640);
});
afterAll(async () => {
  await svc?.close();
});

async function waitUntil(pred: () => Promise<boolean>, timeoutMs = 120_000) {
  const t0 = Date.now();
  while (!(await pred())) {
    if (Date.now() - t0 > timeoutMs) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 30));
  }
}

describe('stopping a shoe-3d job mid-pipeline', () => {
  it('cancels during reconstruction: the reconstructor stops, the job ends cancelled without results', async () => {
    const before = probes.length;
    const sub = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images: photos, options: { genaiQuality: 'high' } } });
    expect(sub.status).toBe(202);
    await waitUntil(async () => probes.length > before);
    const del = await svc.call('DELETE', `/api/v1/jobs/${sub.body.jobId}`, { key });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ cancelled: true });
    const { job } = await followJob(svc, key, sub.body.jobId);
    expect(job.status).toBe('failed');
    expect(job.cancelled).toBe(true);
    expect(job.result).toBeUndefined();
    const p = probes[before];
    await waitUntil(async () => p.outcome !== 'running');
    // it stopped on the abort (a reconstruction run to its end would resolve) and reported no more progress
    expect(p.outcome).toBe('rejected');
    expect(p.abortedAt).toBeGreaterThan(0);
    expect(p.progressAfterAbort).toBeLessThanOrEqual(1);
    const trace = (await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}/trace`, { key })).body;
    expect(trace.cancelled).toBe(true);
    expect(trace.timeline.find((t: any) => t.stage === 'reconstruct')?.outcome).toBe('cancelled');
    // a finished job cannot be cancelled
    expect((await svc.call('DELETE', `/api/v1/jobs/${sub.body.jobId}`, { key })).status).toBe(409);
  }, 300_000); // the pipeline before reconstruction takes minutes on a loaded machine

  it('enforces the genaiQuality timeout: the stage fails and the reconstruction really stops', async () => {
    const before = probes.length;
    const sub = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images: photos, options: { genaiQuality: 'default' } } });
    const { job } = await followJob(svc, key, sub.body.jobId);
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/Stage "reconstruct" timed out after 1 s/);
    const p = probes[before];
    await waitUntil(async () => p.outcome !== 'running');
    // the 1 s limit (not the 120 s one) aborted it, as the error says, and it stopped there
    expect(p.outcome).toBe('rejected');
    expect(p.abortedAt).toBeGreaterThan(0);
    expect(p.progressAfterAbort).toBeLessThanOrEqual(1);
  }, 300_000);
});
