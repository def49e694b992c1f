import { describe, expect, it } from 'vitest';
import { segmentGarment } from '../../../../adapters/builtin/tryon/segment-garment.ts';
import type { RasterImage } from '../../../../core/images.ts';
import { drawBottom, drawShoes, drawTop } from '../../../support/garments.ts';

/** Ground truth: the same garment drawn on a transparent background. */
function truth(img: RasterImage): Uint8Array {
  const m = new Uint8Array(img.width * img.height);
  for (let i = 0; i < m.length; i++) m[i] = img.data[i * 4 + 3] >= 128 ? 255 : 0;
  return m;
}

function iou(a: Uint8Array, b: Uint8Array): number {
  let inter = 0;
  let union = 0;
  for (let i = 0; i < a.length; i++) {
    if (a[i] && b[i]) inter++;
    if (a[i] || b[i]) union++;
  }
  return inter / union;
}

describe('segmentGarment', () => {
  it('separates a shirt from a light, uneven background with its sleeves', () => {
    const cut = segmentGarment(drawTop());
    expect(iou(cut.mask, truth(drawTop({ transparent: true })))).toBeGreaterThan(0.98);
    expect(cut.components).toHaveLength(1);
  });

  it('keeps the gap between trouser legs open up to near the crotch', () => {
    const cut = segmentGarment(drawBottom());
    expect(iou(cut.mask, truth(drawBottom({ transparent: true })))).toBeGreaterThan(0.98);
    // 40 px below the drawn crotch (y 240), on the centre line: background
    expect(cut.mask[280 * 520 + 260]).toBe(0);
  });

  it('returns a pair of shoes as two components and fills white details inside the shoe', () => {
    const img = drawShoes({ layout: 'pair' });
    const cut = segmentGarment(img, { keepRatio: 0.3 });
    expect(cut.components).toHaveLength(2);
    expect(iou(cut.mask, truth(drawShoes({ layout: 'pair', transparent: true })))).toBeGreaterThan(0.97);
  });

  it('uses the alpha channel of a transparent packshot', () => {
    const img = drawTop({ transparent: true });
    const cut = segmentGarment(img);
    expect(iou(cut.mask, truth(img))).toBeGreaterThan(0.99);
  });

  it('gives edge pixels a soft alpha and the garment colour instead of the background', () => {
    const cut = segmentGarment(drawTop());
    const { width: w, data } = cut.image;
    // walk right from the centre of the torso at mid height to the side edge
    const y = 400;
    let soft = 0;
    for (let x = 320; x < w; x++) {
      const a = data[(y * w + x) * 4 + 3];
      if (a > 0 && a < 255) {
        soft++;
        // decontaminated: the red of the shirt, not a pink mix with the white background
        expect(data[(y * w + x) * 4 + 1]).toBeLessThan(90);
      }
    }
    expect(soft).toBeGreaterThan(0);
  });

  it('rejects an image with nothing on it', () => {
    const blank: RasterImage = { width: 64, height: 64, data: new Uint8Array(64 * 64 * 4).fill(250) };
    expect(() => segmentGarment(blank)).toThrow(/No garment/);
  });
});
