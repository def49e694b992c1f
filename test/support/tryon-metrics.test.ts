/**
 * SSIM as the paired check computes it (Wang et al. 2004, Gaussian window on luminance): 1 for an
 * image against itself, lower the more noise is added, and symmetric.
 */
import { describe, expect, it } from 'vitest';
import type { RasterImage } from '../../core/images.ts';
import { ssim, ssimMap } from './tryon-metrics.ts';

/** A smooth gradient with a few shapes, and the same with seeded Gaussian noise of the given sigma. */
function scene(noise = 0, seed = 1): RasterImage {
  const w = 96;
  const h = 72;
  const data = new Uint8Array(w * h * 4);
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const gauss = () => Math.sqrt(-2 * Math.log(rand() || 1e-9)) * Math.cos(2 * Math.PI * rand());
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const base = 60 + x + (Math.hypot(x - 30, y - 30) < 14 ? 80 : 0) + (x > 60 && y > 40 ? -40 : 0);
      for (let c = 0; c < 3; c++) data[(y * w + x) * 4 + c] = Math.max(0, Math.min(255, Math.round(base + c * 10 + noise * gauss())));
      data[(y * w + x) * 4 + 3] = 255;
    }
  }
  return { width: w, height: h, data };
}

describe('ssim', () => {
  it('is 1 for an image against itself, over the whole image and over a region', () => {
    const a = scene();
    expect(ssim(a, a)).toBeCloseTo(1, 10);
    const region = new Uint8Array(a.width * a.height).fill(1, 0, 500);
    expect(ssim(a, a, region)).toBeCloseTo(1, 10);
  });

  it('drops as noise grows, and is symmetric', () => {
    const a = scene();
    const values = [2, 8, 25].map((sigma) => ssim(a, scene(sigma, 7)));
    expect(values[0]).toBeLessThan(1);
    expect(values[1]).toBeLessThan(values[0]);
    expect(values[2]).toBeLessThan(values[1]);
    expect(values[2]).toBeLessThan(0.6);
    const b = scene(8, 7);
    expect(ssim(b, a)).toBeCloseTo(ssim(a, b), 12);
  });

  it('has one value per pixel, each at most 1', () => {
    const map = ssimMap(scene(), scene(5, 3));
    expect(map.length).toBe(96 * 72);
    for (const v of map) expect(v).toBeLessThanOrEqual(1 + 1e-12);
  });

  it('refuses images of different sizes', () => {
    const a = scene();
    expect(() => ssim(a, { ...a, width: 48, height: 144 })).toThrow(/SSIM of a 96x72 and a 48x144 image/);
  });
});
