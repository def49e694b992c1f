import { describe, expect, it } from 'vitest';
import { correctImage } from '../../../../adapters/builtin/shoe3d/packshot-correction.ts';
import { badlyShotPackshot } from '../../../support/products.ts';
import type { RasterImage } from '../../../../core/images.ts';

function objectMask(img: RasterImage): Uint8Array {
  const m = new Uint8Array(img.width * img.height);
  for (let i = 0; i < m.length; i++) m[i] = Math.hypot(255 - img.data[i * 4], 255 - img.data[i * 4 + 1], 255 - img.data[i * 4 + 2]) > 30 ? 1 : 0;
  return m;
}

function maskIoU(a: Uint8Array, b: Uint8Array): number {
  let inter = 0, union = 0;
  for (let i = 0; i < a.length; i++) { if (a[i] && b[i]) inter++; if (a[i] || b[i]) union++; }
  return inter / union;
}

function meanColour(img: RasterImage, mask: Uint8Array): [number, number, number] {
  const s = [0, 0, 0];
  let n = 0;
  for (let i = 0; i < mask.length; i++) if (mask[i]) { for (let c = 0; c < 3; c++) s[c] += img.data[i * 4 + c]; n++; }
  return s.map((v) => v / n) as [number, number, number];
}

describe('packshot correction', () => {
  it('white-balances, straightens and centres a tilted, colour-cast, dark shot', () => {
    const { image, reference } = badlyShotPackshot(512, 12);
    const r = correctImage(image);
    expect(r.correction.rotationDeg).toBeGreaterThan(11);
    expect(r.correction.rotationDeg).toBeLessThan(13);
    expect(r.correction.axis).toBe('support-edge');
    // the warm, dark background measured and mapped to white
    expect(r.correction.backgroundBefore[2]).toBeLessThan(r.correction.backgroundBefore[0]);
    expect(r.correction.gains[2]).toBeGreaterThan(r.correction.gains[0]);
    expect(Array.from(r.image.data.subarray(0, 3))).toEqual([255, 255, 255]);
    const corrected = objectMask(r.image), ref = objectMask(reference);
    expect(maskIoU(corrected, ref)).toBeGreaterThan(0.85);
    const before = maskIoU(objectMask(image), ref);
    expect(before).toBeLessThan(0.5);
    // colours come back close to the clean shot
    const a = meanColour(r.image, corrected), b = meanColour(reference, ref);
    for (let c = 0; c < 3; c++) expect(Math.abs(a[c] - b[c])).toBeLessThan(12);
  });

  it('leaves a clean upright centred shot as it is', () => {
    const { reference } = badlyShotPackshot(512, 0);
    const r = correctImage(reference);
    expect(r.correction.rotationDeg).toBe(0);
    expect(r.correction.gains).toEqual([1, 1, 1]);
    expect(maskIoU(objectMask(r.image), objectMask(reference))).toBeGreaterThan(0.97);
  });
});
