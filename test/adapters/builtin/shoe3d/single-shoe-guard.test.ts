import { describe, expect, it } from 'vitest';
import { cleanupPackshot } from '../../../../adapters/builtin/shoe3d/packshot-cleanup.ts';
import { countShoes, guardSingleShoe } from '../../../../adapters/builtin/shoe3d/single-shoe-guard.ts';
import { createRaster } from '../../../../core/images.ts';
import { makeBagMesh, makeShoeMesh, renderProductViews, twoShoesPackshot } from '../../../support/products.ts';

const separated = cleanupPackshot(twoShoesPackshot(512, 30)).image;
const touching = cleanupPackshot(twoShoesPackshot(512, -20)).image;

describe('single-shoe guard', () => {
  it('sees one shoe in single views at every angle, and one bag', () => {
    for (const v of renderProductViews(makeShoeMesh(), [0, 30, 45, 60, 90, 120, 135, 150], { size: 256 })) expect(countShoes(v.cutout).count).toBe(1);
    for (const v of renderProductViews(makeBagMesh(), [0, 45, 90], { size: 256 })) expect(countShoes(v.cutout).count).toBe(1);
  });

  it('counts a pair side by side, separate or touching, as two', () => {
    expect(countShoes(separated).count).toBe(2);
    const t = countShoes(touching);
    expect(t.count).toBe(2);
    expect(t.blobs.every((b) => b.split)).toBe(true);
  });

  it('isolates the most complete shoe of a pair on the first regeneration', async () => {
    for (const image of [separated, touching]) {
      const r = await guardSingleShoe(image);
      expect(r.singleShoe).toEqual({ status: 'regenerated', attempts: 2, count: 1, regeneratedFromCount: 2 });
      expect(countShoes(r.image).count).toBe(1);
      expect(r.image).not.toBe(image);
    }
  });

  it('passes a single shoe through untouched', async () => {
    const v = renderProductViews(makeShoeMesh(), [45], { size: 256 })[0].cutout;
    const r = await guardSingleShoe(v);
    expect(r.singleShoe).toEqual({ status: 'single', attempts: 1, count: 1 });
    expect(r.image).toBe(v);
  });

  it('retries a second time when the first regeneration still shows two shoes', async () => {
    const calls: number[] = [];
    const r = await guardSingleShoe(separated, {
      regenerate: (img, attempt, counted) => {
        calls.push(attempt);
        if (attempt === 2) return img; // a backend that returned the pair again
        const keep = counted.blobs[0];
        const out = createRaster(img.width, img.height);
        for (const p of keep.pixels) out.data.set(img.data.subarray(p * 4, p * 4 + 4), p * 4);
        return out;
      },
    });
    expect(calls).toEqual([2, 3]);
    expect(r.singleShoe).toEqual({ status: 'regenerated', attempts: 3, count: 1, regeneratedFromCount: 2 });
  });

  it('stops after two regenerations with multiple_after_retries', async () => {
    const r = await guardSingleShoe(separated, { regenerate: (img) => img });
    expect(r.singleShoe).toEqual({ status: 'multiple_after_retries', attempts: 3, count: 2, regeneratedFromCount: 2 });
  });

  it('records regeneration_failed when the backend cannot regenerate', async () => {
    const r = await guardSingleShoe(separated, { regenerate: () => { throw new Error('backend down'); } });
    expect(r.singleShoe).toEqual({ status: 'multiple_after_retries', attempts: 2, count: 2, stopReason: 'regeneration_failed', regeneratedFromCount: 2 });
    expect(r.image).toBe(separated);
  });

  it('records deadline when no time is left to regenerate', async () => {
    const r = await guardSingleShoe(separated, { deadline: 1000, now: () => 2000 });
    expect(r.singleShoe).toEqual({ status: 'multiple_after_retries', attempts: 1, count: 2, stopReason: 'deadline', regeneratedFromCount: 2 });
  });

  it('is unavailable when the packshot holds no object', async () => {
    const r = await guardSingleShoe(createRaster(64, 64));
    expect(r.singleShoe).toMatchObject({ status: 'unavailable', attempts: 1, count: 0, errorCode: 'no_object' });
  });
});
