/**
 * How far a garment's mapping onto the body stretches, squeezes or folds, from the packshot
 * coordinates recorded for each output pixel: the Jacobian determinant of the output-to-packshot
 * map by finite differences between neighbouring pixels of the same piece (panel, each sleeve).
 */
import type { WarpDiagnostics } from './diagnostics.ts';

export interface WarpMaps {
  /** Packshot x and y sampled for each output pixel (NaN where the garment was not drawn). */
  gx: Float32Array;
  gy: Float32Array;
  /** Which piece drew the pixel (0 = none). */
  piece: Uint8Array;
}

export function createWarpMaps(n: number): WarpMaps {
  return { gx: new Float32Array(n).fill(NaN), gy: new Float32Array(n).fill(NaN), piece: new Uint8Array(n) };
}

/**
 * Fold share (determinant <= 0) and the spread of the local area ratio (output area per packshot
 * area, the inverse determinant) around its median: the 99.5th and 0.5th percentiles over the
 * masked pixels, so single pixels at piece edges do not decide it; and the median's square root,
 * the garment's linear scale on the output.
 */
export function warpStats(maps: WarpMaps, width: number, height: number, mask?: ArrayLike<number>): WarpDiagnostics {
  const { gx, gy, piece } = maps;
  let count = 0;
  for (let i = 0; i < piece.length; i++) if (piece[i]) count++;
  const ratios = new Float64Array(count);
  let r = 0;
  let folded = 0;
  let total = 0;
  // every other row: the mapping is smooth at that scale, and it halves the work
  for (let y = 0; y < height - 1; y += 2) {
    for (let x = 0; x < width - 1; x++) {
      const i = y * width + x;
      const p = piece[i];
      if (!p || piece[i + 1] !== p || piece[i + width] !== p) continue;
      if (mask && !(mask[i] > 0.5)) continue;
      const ax = gx[i + 1] - gx[i];
      const ay = gy[i + 1] - gy[i];
      const bx = gx[i + width] - gx[i];
      const by = gy[i + width] - gy[i];
      const det = ax * by - ay * bx;
      total++;
      if (!(det > 0)) {
        folded++;
        continue;
      }
      ratios[r++] = 1 / det;
    }
  }
  if (!r) return { folded: total ? folded / total : 0, maxAreaRatio: 1, minAreaRatio: 1 };
  const s = ratios.subarray(0, r).sort();
  const med = s[s.length >> 1];
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.round(q * (s.length - 1))))];
  return { folded: folded / total, maxAreaRatio: at(0.995) / med, minAreaRatio: at(0.005) / med, scale: Math.sqrt(med) };
}
