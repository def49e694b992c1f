import type { RasterImage } from '../../../core/images.ts';
import { luminance } from './raster.ts';

/**
 * Background model of a packshot: per-channel plane a + b*x + c*y fitted robustly to the border
 * band (studio backgrounds are nearly flat but often carry a light gradient), with a noise level.
 */
export interface BackgroundModel {
  /** [a, b, c] per channel, x and y normalised to 0..1. */
  planes: [number, number, number][];
  /** Robust standard deviation of the border residuals (8-bit levels). */
  noise: number;
  /** Share of border pixels that fit the model; low values mean the object touches the frame a lot. */
  inlierRatio: number;
  /** Colour at the image centre. */
  mean: [number, number, number];
}

export function backgroundAt(model: BackgroundModel, x: number, y: number, width: number, height: number, out: number[]): void {
  const u = x / Math.max(1, width - 1), v = y / Math.max(1, height - 1);
  for (let c = 0; c < 3; c++) {
    const p = model.planes[c];
    out[c] = p[0] + p[1] * u + p[2] * v;
  }
}

export function estimateBackground(img: RasterImage): BackgroundModel {
  const { width, height, data } = img;
  const band = Math.max(2, Math.round(Math.min(width, height) * 0.02));
  const xs: number[] = [], ys: number[] = [], cols: number[][] = [[], [], []];
  const step = Math.max(1, Math.floor((width + height) / 1500));
  for (let y = 0; y < height; y += step) {
    for (let x = 0; x < width; x += step) {
      if (x >= band && x < width - band && y >= band && y < height - band) continue;
      const i = (y * width + x) * 4;
      if (data[i + 3] < 128) continue;
      xs.push(x / Math.max(1, width - 1));
      ys.push(y / Math.max(1, height - 1));
      for (let c = 0; c < 3; c++) cols[c].push(data[i + c]);
    }
  }
  const n = xs.length;
  if (n < 8) {
    // transparent packshot: the background is whatever the alpha removed; treat it as white
    return { planes: [[255, 0, 0], [255, 0, 0], [255, 0, 0]], noise: 1.5, inlierRatio: 1, mean: [255, 255, 255] };
  }
  // start from the per-channel median, then refit planes on inliers twice
  let planes: [number, number, number][] = [0, 1, 2].map((c) => [median(cols[c]), 0, 0] as [number, number, number]);
  let inliers = new Uint8Array(n).fill(1);
  let noise = 2;
  for (let iter = 0; iter < 3; iter++) {
    const res = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let d2 = 0;
      for (let c = 0; c < 3; c++) {
        const p = planes[c];
        const r = cols[c][i] - (p[0] + p[1] * xs[i] + p[2] * ys[i]);
        d2 += r * r;
      }
      res[i] = Math.sqrt(d2);
    }
    const med = median(Array.from(res));
    noise = Math.max(1.5, 1.4826 * med);
    const limit = Math.max(6, 3 * noise);
    inliers = new Uint8Array(n);
    for (let i = 0; i < n; i++) inliers[i] = res[i] <= limit ? 1 : 0;
    planes = [0, 1, 2].map((c) => fitPlane(xs, ys, cols[c], inliers) ?? planes[c]);
  }
  let count = 0;
  for (let i = 0; i < n; i++) count += inliers[i];
  const mean: [number, number, number] = [0, 1, 2].map((c) => planes[c][0] + planes[c][1] * 0.5 + planes[c][2] * 0.5) as [number, number, number];
  return { planes, noise, inlierRatio: count / n, mean };
}

function fitPlane(xs: number[], ys: number[], vs: number[], use: Uint8Array): [number, number, number] | null {
  // normal equations of v = a + b x + c y
  let s1 = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0, sv = 0, sxv = 0, syv = 0;
  for (let i = 0; i < xs.length; i++) {
    if (!use[i]) continue;
    const x = xs[i], y = ys[i], v = vs[i];
    s1++; sx += x; sy += y; sxx += x * x; sxy += x * y; syy += y * y; sv += v; sxv += x * v; syv += y * v;
  }
  if (s1 < 8) return null;
  const m = [[s1, sx, sy], [sx, sxx, sxy], [sy, sxy, syy]];
  const r = [sv, sxv, syv];
  const det = det3(m);
  if (Math.abs(det) < 1e-9) return [sv / s1, 0, 0];
  const sol: number[] = [];
  for (let k = 0; k < 3; k++) {
    const mk = m.map((row, i) => row.map((val, j) => (j === k ? r[i] : val)));
    sol.push(det3(mk) / det);
  }
  return [sol[0], sol[1], sol[2]];
}

function det3(m: number[][]): number {
  return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Per-pixel departure from the background: colour distance, luminance ratio and chroma shift. */
export interface BackgroundDifference {
  /** Euclidean RGB distance to the background colour (8-bit levels). */
  delta: Float32Array;
  /** Pixel luminance / background luminance. */
  ratio: Float32Array;
  /** Distance between normalised chromaticities (0 = same hue and saturation as the background). */
  chroma: Float32Array;
  /** Luminance (8-bit levels). */
  lum: Float32Array;
}

export function backgroundDifference(img: RasterImage, model: BackgroundModel): BackgroundDifference {
  const { width, height, data } = img;
  const n = width * height;
  const delta = new Float32Array(n), ratio = new Float32Array(n), chroma = new Float32Array(n), lum = new Float32Array(n);
  const bg = [0, 0, 0];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const k = y * width + x, i = k * 4;
      backgroundAt(model, x, y, width, height, bg);
      const r = data[i], g = data[i + 1], b = data[i + 2];
      delta[k] = Math.hypot(r - bg[0], g - bg[1], b - bg[2]);
      const l = luminance(r, g, b);
      const lb = Math.max(1, luminance(bg[0], bg[1], bg[2]));
      lum[k] = l;
      ratio[k] = l / lb;
      const s = r + g + b + 1e-3, sb = bg[0] + bg[1] + bg[2] + 1e-3;
      chroma[k] = Math.hypot(r / s - bg[0] / sb, g / s - bg[1] / sb, b / s - bg[2] / sb);
    }
  }
  return { delta, ratio, chroma, lum };
}
