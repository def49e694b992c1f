import { describe, expect, it } from 'vitest';
import { cleanupPackshot } from '../../../../adapters/builtin/shoe3d/packshot-cleanup.ts';
import { makeShoeMesh, renderProductViews, shadowHaloPackshot, tinyObjectPackshot, twoShoesPackshot } from '../../../support/products.ts';
import type { RasterImage } from '../../../../core/images.ts';

function iou(a: RasterImage, b: RasterImage): number {
  let inter = 0, union = 0;
  for (let i = 0; i < a.width * a.height; i++) {
    const x = a.data[i * 4 + 3] > 127, y = b.data[i * 4 + 3] > 127;
    if (x && y) inter++;
    if (x || y) union++;
  }
  return inter / union;
}

function alphaArea(img: RasterImage): number {
  let s = 0;
  for (let i = 0; i < img.width * img.height; i++) s += img.data[i * 4 + 3] / 255;
  return s / (img.width * img.height);
}

describe('packshot cleanup', () => {
  it('removes a contact shadow, a floor reflection and a halo, keeping the white sole', () => {
    const shot = shadowHaloPackshot(512);
    const before = iou(opaqueAsAlpha(shot.image), shot.truth);
    const r = cleanupPackshot(shot.image);
    expect(r.cleanup.status).toBe('applied');
    expect(r.cleanup.numComponents).toBe(1);
    expect(r.cleanup.errorCode).toBeUndefined();
    expect(r.removed.shadowAndReflection).toBeGreaterThan(2000);
    expect(iou(r.image, shot.truth)).toBeGreaterThan(0.97);
    expect(before).toBeLessThan(0.9);
    expect(r.cleanup.areaRatio!).toBeCloseTo(alphaArea(shot.truth), 2);
    // background pixels are transparent and repainted white
    const corner = 0;
    expect(Array.from(r.image.data.subarray(corner, corner + 4))).toEqual([255, 255, 255, 0]);
  });

  it('removes a halo fringe on its own', () => {
    const shot = shadowHaloPackshot(512, { shadow: false, reflection: false, halo: true });
    const r = cleanupPackshot(shot.image);
    expect(r.cleanup.status).toBe('applied');
    expect(r.removed.halo).toBeGreaterThan(1000);
    expect(iou(r.image, shot.truth)).toBeGreaterThan(0.97);
  });

  it('reports noop on a clean render and keeps its outline', () => {
    const view = renderProductViews(makeShoeMesh(), [0], { size: 384 })[0];
    const r = cleanupPackshot(view.image);
    expect(r.cleanup).toMatchObject({ status: 'noop', numComponents: 1 });
    expect(iou(r.image, view.cutout)).toBeGreaterThan(0.98);
  });

  it('counts two separate shoes as two components', () => {
    const r = cleanupPackshot(twoShoesPackshot(512, 30));
    expect(r.cleanup.numComponents).toBe(2);
  });

  it('keeps a tiny object and reports its small area', () => {
    const r = cleanupPackshot(tinyObjectPackshot(512, 24));
    expect(r.cleanup.status).toBe('noop');
    expect(r.cleanup.numComponents).toBe(1);
    expect(r.cleanup.areaRatio!).toBeGreaterThan(0);
    expect(r.cleanup.areaRatio!).toBeLessThan(0.002);
  });

  it('fails with a code, not prose, on a malformed raster and returns the input', () => {
    const bad: RasterImage = { width: 10, height: 10, data: new Uint8Array(12) };
    const r = cleanupPackshot(bad);
    expect(r.cleanup).toEqual({ status: 'failed', errorCode: 'image_invalid' });
    expect(r.image).toBe(bad);
  });
});

/** Everything that is not pure white counts as object: what a naive cutout would keep. */
function opaqueAsAlpha(img: RasterImage): RasterImage {
  const out = { width: img.width, height: img.height, data: new Uint8Array(img.data) };
  for (let i = 0; i < img.width * img.height; i++) {
    const white = img.data[i * 4] > 250 && img.data[i * 4 + 1] > 250 && img.data[i * 4 + 2] > 250;
    out.data[i * 4 + 3] = white ? 0 : 255;
  }
  return out;
}
