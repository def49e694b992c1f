/**
 * The shoe-3d model stages through HTTP: one document from the reconstructor's GLB to storage, read
 * once and written once (counted on glTF-Transform's I/O and the Khronos validator of this process,
 * where the worker runs), and a reconstructor's `skipsStages` recorded in the trace.
 */
import { NodeIO } from '@gltf-transform/core';
import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinProductReconstructor } from '../../../adapters/builtin/shoe3d/builtin-reconstructor.ts';
import { validateGlb } from '../../../adapters/builtin/shoe3d/validate-glb.ts';
import type { ProductReconstructor } from '../../../core/ports/product-reconstructor.ts';
import { TOKENS } from '../../../core/tokens.ts';
import type { TestService } from '../../support/harness.ts';
import { download, followJob, glbDataUrl, shoeGlb, shoePhotos, startShoe3dService } from './helpers.ts';

const builtin = new BuiltinProductReconstructor();
let skipping: string[] = [];
/** A vendor-like reconstructor (the builtin's models) that says which stages its models skip. */
const vendor: ProductReconstructor = {
  id: 'tripo',
  get skipsStages() {
    return skipping;
  },
  reconstruct: (req) => builtin.reconstruct(req),
};

const counts = { reads: 0, writes: 0, validations: 0 };
const validator = createRequire(import.meta.url)('gltf-validator') as { validateBytes: (...a: unknown[]) => Promise<unknown> };
const original = { read: NodeIO.prototype.readBinary, write: NodeIO.prototype.writeBinary, validate: validator.validateBytes };

let svc: TestService;
let key: string;

beforeAll(async () => {
  NodeIO.prototype.readBinary = function (...a) { counts.reads++; return original.read.apply(this, a); };
  NodeIO.prototype.writeBinary = function (...a) { counts.writes++; return original.write.apply(this, a); };
  validator.validateBytes = (...a) => (counts.validations++, original.validate(...a));
  svc = await startShoe3dService((api) => api.provide(TOKENS.reconstructors, [vendor]));
  key = (await svc.createKey()).key;
});
afterEach(() => {
  skipping = [];
});
afterAll(async () => {
  NodeIO.prototype.readBinary = original.read;
  NodeIO.prototype.writeBinary = original.write;
  validator.validateBytes = original.validate;
  await svc?.close();
});

async function run(body: unknown) {
  Object.assign(counts, { reads: 0, writes: 0, validations: 0 });
  const sub = await svc.call('POST', '/api/v1/shoe-3d', { key, body });
  expect(sub.status).toBe(202);
  const { job } = await followJob(svc, key, sub.body.jobId, 90_000);
  const seen = { ...counts };
  expect(job.status).toBe('completed');
  const trace = (await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}/trace`, { key })).body;
  return { job, trace, seen };
}

describe('one document from reconstruction to storage', () => {
  it('reads the reconstructor\'s GLB once and writes the stored GLB once, through enhancement, logos and preview', async () => {
    const { job, trace, seen } = await run({ images: await shoePhotos([0, 45, 90, 135], 256), options: { enhanceTexture: true, refineLogo: true, genaiQuality: 'default' } });
    // the reconstructor writes (and validates) its own GLB: vendors return bytes
    expect(seen).toEqual({ reads: 1, writes: 2, validations: 2 });
    const stages = trace.timeline.map((t: any) => t.stage);
    expect(stages).toEqual(['validate inputs', 'clean packshots', 'single-shoe guard', 'product type', 'reconstruct', 'enhance texture', 'refine logos', 'preview', 'store results']);
    expect(trace.timeline.find((t: any) => t.stage === 'enhance texture').detail.texelsChanged).toBeGreaterThan(0);
    expect(trace.diagnostics.validation).toMatchObject({ errors: 0 });
    const glb = await download(job.result.glbUrl);
    expect((await validateGlb(glb.bytes)).errors).toBe(0);
  });

  it('reads a glbInput once and writes it once', async () => {
    const { seen } = await run({ images: [], glbInput: glbDataUrl(await shoeGlb(128)), options: { enhanceTexture: true } });
    expect(seen).toEqual({ reads: 1, writes: 1, validations: 1 });
  });

  it('skips the stages the reconstructor names and says so in the trace; validation still runs', async () => {
    skipping = ['enhance-texture', 'validate'];
    const { trace } = await run({ images: await shoePhotos([0, 90], 256), options: { enhanceTexture: true, productType: 'shoe' } });
    const enhance = trace.timeline.find((t: any) => t.stage === 'enhance texture');
    expect(enhance.detail).toEqual({ skipped: ['enhance-texture'], skippedBy: 'tripo' });
    expect(trace.timeline.find((t: any) => t.stage === 'reconstruct').detail.skipsStages).toEqual(['enhance-texture', 'validate']);
    expect(trace.timeline.find((t: any) => t.stage === 'store results').detail.validation).toMatchObject({ errors: 0 });
  });
});
