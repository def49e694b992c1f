import { describe, expect, it } from 'vitest';
import { distanceTransform, signedDistance } from '../../../../adapters/builtin/raster/distance-transform.ts';
import { blobMask } from './masks.ts';

/** Distance from every pixel to the nearest pixel where `isTarget` holds, by brute force. */
function bruteForce(mask: Uint8Array, w: number, h: number, isTarget: (v: number) => boolean): Float64Array {
  const out = new Float64Array(w * h).fill(Infinity);
  for (let p = 0; p < w * h; p++) {
    if (!isTarget(mask[p])) continue;
    const px = p % w, py = (p - px) / w;
    for (let q = 0; q < w * h; q++) {
      const qx = q % w, qy = (q - qx) / w;
      const d = Math.hypot(px - qx, py - qy);
      if (d < out[q]) out[q] = d;
    }
  }
  return out;
}

describe('exact Euclidean distance transform', () => {
  for (const [w, h, seed] of [[23, 17, 1], [40, 9, 2], [1, 30, 3], [30, 1, 4], [31, 31, 5]] as const) {
    it(`matches brute force to the set and the unset pixels (${w}x${h})`, () => {
      const mask = blobMask(w, h, seed);
      const toSet = distanceTransform(mask, w, h, 'set');
      const toUnset = distanceTransform(mask, w, h, 'unset');
      const bSet = bruteForce(mask, w, h, (v) => v !== 0);
      const bUnset = bruteForce(mask, w, h, (v) => v === 0);
      for (let i = 0; i < w * h; i++) {
        if (Number.isFinite(bSet[i])) expect(toSet[i]).toBeCloseTo(bSet[i], 4);
        if (Number.isFinite(bUnset[i])) expect(toUnset[i]).toBeCloseTo(bUnset[i], 4);
      }
      // zero exactly on the targets
      for (let i = 0; i < w * h; i++) expect(mask[i] ? toSet[i] : toUnset[i]).toBe(0);
    });
  }

  it('treats any non-zero byte as set', () => {
    const a = blobMask(20, 20, 9, 1);
    const b = blobMask(20, 20, 9, 200);
    expect(distanceTransform(a, 20, 20)).toEqual(distanceTransform(b, 20, 20));
  });

  it('reports a huge distance when there is no target at all', () => {
    const empty = new Uint8Array(12 * 7);
    const d = distanceTransform(empty, 12, 7, 'set');
    for (const v of d) expect(v).toBeGreaterThan(1e9);
  });

  it('measures only inside the image: a full mask has no unset target', () => {
    const full = new Uint8Array(5 * 5).fill(255);
    expect(Math.min(...distanceTransform(full, 5, 5, 'unset'))).toBeGreaterThan(1e9);
  });
});

describe('signed distance', () => {
  it('is negative inside and positive outside, half a pixel from the outline at the first pixel', () => {
    const w = 41, h = 41;
    const mask = new Uint8Array(w * h);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if ((x - 20) ** 2 + (y - 20) ** 2 <= 12 * 12) mask[y * w + x] = 1;
    const sd = signedDistance(mask, w, h);
    for (let i = 0; i < w * h; i++) expect(Math.sign(sd[i])).toBe(mask[i] ? -1 : 1);
    // the centre's nearest unset pixel is (32, 21) or a symmetric one: sqrt(145) away
    expect(sd[20 * w + 20]).toBeCloseTo(-(Math.sqrt(145) - 0.5), 5);
    expect(sd[20 * w + 32]).toBeCloseTo(-0.5, 5);
    expect(sd[20 * w + 33]).toBeCloseTo(0.5, 5);
    expect(sd[20 * w + 40]).toBeCloseTo(7.5, 5);
  });
});
