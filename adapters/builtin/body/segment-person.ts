import type { RasterImage } from '../../../core/images.ts';
import { close, countOn, fillHoles, largestComponent, open } from './mask-ops.ts';

export interface Segmentation {
  /** 255 inside the person. */
  mask: Uint8Array;
  /** Colour distance from the background model per pixel (diagnostics and thresholds). */
  threshold: number;
  notes: string[];
}

const TERMS = 6; // 1, x, y, x², xy, y²

function basis(x: number, y: number, out: Float64Array): void {
  out[0] = 1;
  out[1] = x;
  out[2] = y;
  out[3] = x * x;
  out[4] = x * y;
  out[5] = y * y;
}

/** Solves the symmetric system A c = b (Gaussian elimination with partial pivoting). */
function solve(A: Float64Array, b: Float64Array, n: number): Float64Array {
  const M = A.slice();
  const r = b.slice();
  for (let col = 0; col < n; col++) {
    let piv = col;
    for (let row = col + 1; row < n; row++) if (Math.abs(M[row * n + col]) > Math.abs(M[piv * n + col])) piv = row;
    if (piv !== col) {
      for (let k = 0; k < n; k++) [M[col * n + k], M[piv * n + k]] = [M[piv * n + k], M[col * n + k]];
      [r[col], r[piv]] = [r[piv], r[col]];
    }
    const d = M[col * n + col] || 1e-12;
    for (let row = col + 1; row < n; row++) {
      const f = M[row * n + col] / d;
      if (f === 0) continue;
      for (let k = col; k < n; k++) M[row * n + k] -= f * M[col * n + k];
      r[row] -= f * r[col];
    }
  }
  const c = new Float64Array(n);
  for (let row = n - 1; row >= 0; row--) {
    let s = r[row];
    for (let k = row + 1; k < n; k++) s -= M[row * n + k] * c[k];
    c[row] = s / (M[row * n + row] || 1e-12);
  }
  return c;
}

function median(values: Float64Array | number[]): number {
  const s = Float64Array.from(values).sort();
  return s.length ? s[s.length >> 1] : 0;
}

/**
 * Background model: a quadratic surface per RGB channel fitted to a band along the image border
 * (robustly: refitted without samples far from the first fit), so plain, gradient and lightly
 * vignetted studio backgrounds are all modelled. Returns the model's coefficients per channel and
 * the robust spread (median + MAD) of the border residuals.
 */
function fitBackground(img: RasterImage): { coef: Float64Array[]; center: number; spread: number } {
  const { width: w, height: h, data } = img;
  const band = Math.max(2, Math.round(Math.min(w, h) * 0.025));
  const inBand = (x: number, y: number) => x < band || y < band || x >= w - band || y >= h - band;
  const bandPixels = w * h - Math.max(0, w - 2 * band) * Math.max(0, h - 2 * band);
  const step = Math.max(1, Math.ceil(Math.sqrt(bandPixels / 20000)));
  const xs: number[] = [];
  const ys: number[] = [];
  for (let y = 0; y < h; y += step) {
    for (let x = 0; x < w; x += step) {
      if (!inBand(x, y)) x = Math.max(x, w - band - 1 - ((w - band - 1) % step));
      if (inBand(x, y)) {
        xs.push(x);
        ys.push(y);
      }
    }
  }
  const n = xs.length;
  const nx = (x: number) => (2 * x) / (w - 1 || 1) - 1;
  const ny = (y: number) => (2 * y) / (h - 1 || 1) - 1;
  const phi = new Float64Array(TERMS);
  let weights = new Float64Array(n).fill(1);
  let coef: Float64Array[] = [];
  let resid = new Float64Array(n);
  for (let iter = 0; iter < 3; iter++) {
    coef = [0, 1, 2].map((c) => {
      const A = new Float64Array(TERMS * TERMS);
      const b = new Float64Array(TERMS);
      for (let s = 0; s < n; s++) {
        if (!weights[s]) continue;
        basis(nx(xs[s]), ny(ys[s]), phi);
        const v = data[(ys[s] * w + xs[s]) * 4 + c];
        for (let i = 0; i < TERMS; i++) {
          b[i] += phi[i] * v;
          for (let j = 0; j < TERMS; j++) A[i * TERMS + j] += phi[i] * phi[j];
        }
      }
      for (let i = 0; i < TERMS; i++) A[i * TERMS + i] += 1e-6;
      return solve(A, b, TERMS);
    });
    resid = new Float64Array(n);
    for (let s = 0; s < n; s++) resid[s] = colourDistance(data, (ys[s] * w + xs[s]) * 4, coef, nx(xs[s]), ny(ys[s]), phi);
    const med = median(resid);
    const mad = median(resid.map((r) => Math.abs(r - med))) * 1.4826;
    const cut = med + 3 * Math.max(mad, 2);
    weights = resid.map((r) => (r <= cut ? 1 : 0));
  }
  const kept = resid.filter((_, s) => weights[s] > 0);
  const center = median(kept);
  const spread = median(kept.map((r) => Math.abs(r - center))) * 1.4826;
  return { coef, center, spread };
}

function colourDistance(data: Uint8Array, o: number, coef: Float64Array[], x: number, y: number, phi: Float64Array): number {
  basis(x, y, phi);
  let d2 = 0;
  for (let c = 0; c < 3; c++) {
    let m = 0;
    for (let i = 0; i < TERMS; i++) m += coef[c][i] * phi[i];
    const d = data[o + c] - m;
    d2 += d * d;
  }
  return Math.sqrt(d2);
}

/**
 * Classical person segmentation for a full-body photo on a studio-like background:
 * foreground = pixels far (in RGB) from the fitted background model, with hysteresis (weakly
 * different pixels kept inside the closed strong core), then opening against noise specks, closing of small
 * gaps, the largest 4-connected component and hole filling.
 */
export function segmentPerson(img: RasterImage): Segmentation {
  const { width: w, height: h, data } = img;
  const notes: string[] = [];
  const bg = fitBackground(img);
  const strong = Math.max(28, bg.center + 6 * bg.spread);
  const weak = Math.max(18, bg.center + 3.5 * bg.spread);
  const phi = new Float64Array(TERMS);
  const strongMask = new Uint8Array(w * h);
  const weakMask = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const yy = (2 * y) / (h - 1 || 1) - 1;
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const d = colourDistance(data, i * 4, bg.coef, (2 * x) / (w - 1 || 1) - 1, yy, phi);
      if (d > strong) strongMask[i] = 255;
      if (d > weak) weakMask[i] = 255;
    }
  }
  const size = Math.min(w, h);
  const rOpen = Math.max(1, Math.round(size * 0.002));
  const rClose = Math.max(1, Math.round(size * 0.006));
  let mask = open(strongMask, w, h, rOpen);
  // hysteresis: weak pixels within reach of the strong core
  const grown = close(mask, w, h, rClose);
  for (let i = 0; i < mask.length; i++) if (weakMask[i] && grown[i]) mask[i] = 255;
  mask = close(mask, w, h, rClose);
  mask = largestComponent(mask, w, h);
  mask = fillHoles(mask, w, h);
  const frac = countOn(mask) / (w * h);
  if (frac < 0.01) notes.push('segmentation found almost no foreground; the photo may not show a person on a plain background');
  if (frac > 0.8) notes.push('segmentation covers most of the photo; the background may be too similar to the person');
  return { mask, threshold: strong, notes };
}
