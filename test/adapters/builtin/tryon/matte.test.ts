/**
 * reblendOutline: the person's outline pixels that mixed in the old top are re-mixed with the new
 * top in the same proportion, and nothing else changes.
 */
import { describe, expect, it } from 'vitest';
import { reblendOutline } from '../../../../adapters/builtin/tryon/matte.ts';

// a row of 12 pixels: arm (0-5), its outline half arm and half old top (6), old top (7-11)
const W = 12;
const H = 5;
const ARM = [0.2, 0.12, 0.08];
const OLD = [0.9, 0.9, 0.9];
const NEW = [0.01, 0.01, 0.02];

function scene(share: number) {
  const n = W * H;
  const photo = new Float32Array(n * 3);
  const replaced = new Uint8Array(n);
  const kept = new Uint8Array(n);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      const colour = x < 6 ? ARM : x === 6 ? ARM.map((a, c) => share * a + (1 - share) * OLD[c]) : OLD;
      photo.set(colour, i * 3);
      if (x <= 6) kept[i] = 1;
      else replaced[i] = 1;
    }
  }
  // the composite: the new top drawn where the old top was, the person as photographed
  const canvas = new Float32Array(photo);
  for (let i = 0; i < n; i++) if (replaced[i]) canvas.set(NEW, i * 3);
  return { photo, canvas, replaced, kept };
}

describe('reblendOutline', () => {
  it('re-mixes an outline pixel half of a white old top with the new dark top: the light line goes', () => {
    const { photo, canvas, replaced, kept } = scene(0.5);
    const before = canvas[(2 * W + 6) * 3];
    reblendOutline(canvas, photo, replaced, kept, W, H);
    for (let c = 0; c < 3; c++) expect(canvas[(2 * W + 6) * 3 + c]).toBeCloseTo(0.5 * ARM[c] + 0.5 * NEW[c], 3);
    expect(canvas[(2 * W + 6) * 3]).toBeLessThan(before / 2);
  });

  it('leaves the arm inside its outline, the new top and an outline of pure skin as they were', () => {
    const { photo, canvas, replaced, kept } = scene(1);
    const before = Float32Array.from(canvas);
    reblendOutline(canvas, photo, replaced, kept, W, H);
    expect(Array.from(canvas)).toEqual(Array.from(before));
  });

  it('does not tell a mix where the old top is the colour of the skin', () => {
    const { photo, canvas, replaced, kept } = scene(0.5);
    // the old top as the arm: nothing to tell the outline's share by
    for (let i = 0; i < W * H; i++) if (replaced[i] || i % W === 6) photo.set(ARM, i * 3);
    for (let i = 0; i < W * H; i++) if (i % W === 6) canvas.set(ARM, i * 3);
    const before = Float32Array.from(canvas);
    reblendOutline(canvas, photo, replaced, kept, W, H);
    expect(Array.from(canvas)).toEqual(Array.from(before));
  });

  it('leaves an outline pixel off the line between the skin and the old top (the old neckline\'s navy stitching)', () => {
    const { photo, canvas, replaced, kept } = scene(0.5);
    const navy = [0.1, 0.1, 0.6];
    for (let y = 0; y < H; y++) {
      photo.set(navy, (y * W + 6) * 3);
      canvas.set(navy, (y * W + 6) * 3);
    }
    const before = Float32Array.from(canvas);
    reblendOutline(canvas, photo, replaced, kept, W, H);
    expect(Array.from(canvas)).toEqual(Array.from(before));
  });

  it('gives a mix of the skin and the new top, never a colour beyond both', () => {
    // an outline a little off the mix (its blue low, as JPEG leaves it): swapping the old top's
    // share for the new top's (C + (1 - a)(G - B)) drove its blue to zero, an orange speck
    const { photo, canvas, replaced, kept } = scene(0.5);
    for (let y = 0; y < H; y++) {
      const i = (y * W + 6) * 3;
      for (const [c, d] of [[0, 0.05], [2, -0.1]]) {
        photo[i + c] += d;
        canvas[i + c] += d;
      }
    }
    reblendOutline(canvas, photo, replaced, kept, W, H);
    for (let c = 0; c < 3; c++) {
      const v = canvas[(2 * W + 6) * 3 + c];
      expect(v).toBeGreaterThanOrEqual(Math.min(ARM[c], NEW[c]) - 1e-6);
      expect(v).toBeLessThanOrEqual(Math.max(ARM[c], NEW[c]) + 1e-6);
    }
  });
});
