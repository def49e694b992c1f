/**
 * Background models for photos and packshots on a plain backdrop. The backdrop's colour is a
 * smooth surface per RGB channel (a plane, a quadratic for vignetting, or a sweep), fitted by
 * least squares to samples of a band along the image border and refitted, round after round, on
 * the samples the previous fit explains: objects that touch the frame, dust and text fall out.
 *
 * What counts as "explained" differs between engines (colour space, statistic, floor), so it is
 * given by the caller as a residual and a limit; this module holds the mechanics.
 */
import type { RasterImage } from '../../../core/images.ts';

/**
 * `plane`: 1, u, v. `quadratic`: 1, u, v, u², uv, v². `sweep`: the quadratic's terms and u²v, v³
 * (a studio sweep's S-shaped fall-off from light at the top to grey at the floor, under a
 * vignette): the cubic terms a vertical sweep needs, each fixed by the top and bottom edges or by
 * either side edge alone, so one side hidden behind an object does not leave them free. A
 * polynomial of degree 3 or less that vanishes along the whole border is zero, so the border alone
 * determines these surfaces.
 */
export type SurfaceKind = 'plane' | 'quadratic' | 'sweep';

/**
 * Ridge added to the quadratic's and sweep's normal equations: over a flat or sparse border the
 * higher terms are nearly collinear, and the ridge keeps the system solvable without moving a real
 * fit. Planes are solved as they are.
 */
const RIDGE = 1e-6;

/** Colour samples of a band along the image border, in row-major order. */
export interface BorderSamples {
  count: number;
  x: Int32Array;
  y: Int32Array;
  /** R, G, B per sample. */
  rgb: Float64Array;
}

export interface BorderSampling {
  /** Band width in pixels. */
  band: number;
  /** Grid spacing: the band pixels whose x and y are multiples of it are sampled. */
  step: number;
  /** Leave out pixels with alpha below 128 (a transparent surround is no backdrop colour). */
  opaqueOnly?: boolean;
}

/** Number of pixels in a border band `band` pixels wide. */
export function bandArea(width: number, height: number, band: number): number {
  return width * height - Math.max(0, width - 2 * band) * Math.max(0, height - 2 * band);
}

/** The band pixels on the sampling grid, with their colours. */
export function sampleBorder(img: RasterImage, sampling: BorderSampling): BorderSamples {
  const { width: w, height: h, data } = img;
  const band = sampling.band;
  const step = Math.max(1, Math.floor(sampling.step));
  const cap = Math.ceil(w / step) * Math.ceil(h / step);
  const xs = new Int32Array(cap);
  const ys = new Int32Array(cap);
  const rgb = new Float64Array(cap * 3);
  let n = 0;
  const interiorRight = w - band - 1;
  for (let y = 0; y < h; y += step) {
    const rowInBand = y < band || y >= h - band;
    for (let x = 0; x < w; x += step) {
      if (!rowInBand && x >= band && x < w - band) {
        // skip to the last grid column before the right band
        x = Math.max(x, interiorRight - (interiorRight % step));
        continue;
      }
      const o = (y * w + x) * 4;
      if (sampling.opaqueOnly && data[o + 3] < 128) continue;
      xs[n] = x;
      ys[n] = y;
      rgb[n * 3] = data[o];
      rgb[n * 3 + 1] = data[o + 1];
      rgb[n * 3 + 2] = data[o + 2];
      n++;
    }
  }
  return { count: n, x: xs.subarray(0, n), y: ys.subarray(0, n), rgb: rgb.subarray(0, n * 3) };
}

/**
 * A colour surface over an image: per channel, a polynomial in u = 2x/(w-1) - 1 and
 * v = 2y/(h-1) - 1 (both -1..1 across the image, which keeps the quadratic well conditioned).
 */
export class ColourSurface {
  readonly kind: SurfaceKind;
  readonly width: number;
  readonly height: number;
  /** Coefficients per channel, in the order of SurfaceKind's terms. */
  readonly coef: Float64Array[];
  readonly #xs: number;
  readonly #ys: number;

  constructor(kind: SurfaceKind, width: number, height: number, coef: Float64Array[]) {
    this.kind = kind;
    this.width = width;
    this.height = height;
    this.coef = coef;
    this.#xs = width - 1 || 1;
    this.#ys = height - 1 || 1;
  }

  /** A flat colour. */
  static constant(kind: SurfaceKind, width: number, height: number, rgb: ArrayLike<number>): ColourSurface {
    const terms = termCount(kind);
    return new ColourSurface(kind, width, height, [0, 1, 2].map((c) => {
      const k = new Float64Array(terms);
      k[0] = rgb[c];
      return k;
    }));
  }

  /** The model's colour at pixel (x, y), written into `out` (unclamped). */
  at(x: number, y: number, out: Float64Array | number[]): void {
    const u = (2 * x) / this.#xs - 1;
    const v = (2 * y) / this.#ys - 1;
    const r = this.coef[0], g = this.coef[1], b = this.coef[2];
    if (this.kind === 'plane') {
      out[0] = r[0] + r[1] * u + r[2] * v;
      out[1] = g[0] + g[1] * u + g[2] * v;
      out[2] = b[0] + b[1] * u + b[2] * v;
      return;
    }
    const uu = u * u, uv = u * v, vv = v * v;
    out[0] = r[0] + r[1] * u + r[2] * v + r[3] * uu + r[4] * uv + r[5] * vv;
    out[1] = g[0] + g[1] * u + g[2] * v + g[3] * uu + g[4] * uv + g[5] * vv;
    out[2] = b[0] + b[1] * u + b[2] * v + b[3] * uu + b[4] * uv + b[5] * vv;
    if (this.kind === 'quadratic') return;
    const uuv = uu * v, vvv = vv * v;
    out[0] += r[6] * uuv + r[7] * vvv;
    out[1] += g[6] * uuv + g[7] * vvv;
    out[2] += b[6] * uuv + b[7] * vvv;
  }

  /** The colour at the image centre. */
  centre(): [number, number, number] {
    return [this.coef[0][0], this.coef[1][0], this.coef[2][0]];
  }
}

function termCount(kind: SurfaceKind): number {
  return kind === 'plane' ? 3 : kind === 'quadratic' ? 6 : 8;
}

function basis(u: number, v: number, terms: number, out: Float64Array): void {
  out[0] = 1;
  out[1] = u;
  out[2] = v;
  if (terms === 3) return;
  out[3] = u * u;
  out[4] = u * v;
  out[5] = v * v;
  if (terms === 6) return;
  out[6] = u * u * v;
  out[7] = v * v * v;
}

/**
 * Least-squares colour surface through the samples with a non-zero `weights` entry (all when
 * omitted); null when fewer than `minSamples` take part.
 */
export function fitColourSurface(samples: BorderSamples, width: number, height: number, kind: SurfaceKind, weights?: Uint8Array, minSamples = 0): ColourSurface | null {
  const T = termCount(kind);
  const A = new Float64Array(T * T);
  const b = [new Float64Array(T), new Float64Array(T), new Float64Array(T)];
  const phi = new Float64Array(T);
  const xs = width - 1 || 1;
  const ys = height - 1 || 1;
  let used = 0;
  for (let s = 0; s < samples.count; s++) {
    if (weights && !weights[s]) continue;
    used++;
    basis((2 * samples.x[s]) / xs - 1, (2 * samples.y[s]) / ys - 1, T, phi);
    for (let c = 0; c < 3; c++) {
      const value = samples.rgb[s * 3 + c];
      const bc = b[c];
      for (let i = 0; i < T; i++) bc[i] += phi[i] * value;
    }
    for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) A[i * T + j] += phi[i] * phi[j];
  }
  if (used < minSamples) return null;
  if (kind !== 'plane') for (let i = 0; i < T; i++) A[i * T + i] += RIDGE;
  return new ColourSurface(kind, width, height, b.map((bc) => solve(A, bc, T)));
}

/** Solves A c = b (n x n) by Gaussian elimination with partial pivoting; A and b are left as they are. */
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

export interface BackgroundFitOptions {
  kind: SurfaceKind;
  /** Trimming rounds: residuals of the current model, a limit, the samples within it as inliers. */
  rounds: number;
  /**
   * The first round's model: a fit on all samples (default), or the per-channel median colour
   * (robust from the start when the object covers much of the border).
   */
  start?: 'fit' | 'median';
  /** Distance of a sample's colour from the model's colour there; default Euclidean RGB. */
  residual?: (r: number, g: number, b: number, model: Float64Array) => number;
  /** The round's residual limit, from all residuals and the inliers going into the round. */
  limit: (residuals: Float64Array, inliers: Uint8Array) => number;
  /** A refit on fewer inliers keeps the previous model (default 0: always refit). */
  minInliers?: number;
}

export interface BackgroundFit {
  /** The model of the last round. */
  model: ColourSurface;
  /** The last round's residuals, per sample. */
  residuals: Float64Array;
  /** Samples within the last round's limit. */
  inliers: Uint8Array;
}

/** Fits a background surface to border samples, refitting on the inliers of each round. */
export function fitBackground(samples: BorderSamples, width: number, height: number, opts: BackgroundFitOptions): BackgroundFit {
  const n = samples.count;
  let inliers = new Uint8Array(n).fill(1);
  let model = opts.start === 'median'
    ? ColourSurface.constant(opts.kind, width, height, [0, 1, 2].map((c) => median(channel(samples, c))))
    : fitColourSurface(samples, width, height, opts.kind)!;
  let residuals = new Float64Array(n);
  const m = new Float64Array(3);
  for (let round = 0; round < opts.rounds; round++) {
    if (round > 0) model = fitColourSurface(samples, width, height, opts.kind, inliers, opts.minInliers) ?? model;
    residuals = new Float64Array(n);
    for (let s = 0; s < n; s++) {
      model.at(samples.x[s], samples.y[s], m);
      const r = samples.rgb[s * 3], g = samples.rgb[s * 3 + 1], b = samples.rgb[s * 3 + 2];
      if (opts.residual) {
        residuals[s] = opts.residual(r, g, b, m);
      } else {
        const dr = r - m[0], dg = g - m[1], db = b - m[2];
        residuals[s] = Math.sqrt(dr * dr + dg * dg + db * db);
      }
    }
    const limit = opts.limit(residuals, inliers);
    const next = new Uint8Array(n);
    for (let s = 0; s < n; s++) next[s] = residuals[s] <= limit ? 1 : 0;
    inliers = next;
  }
  return { model, residuals, inliers };
}

function channel(samples: BorderSamples, c: number): Float64Array {
  const out = new Float64Array(samples.count);
  for (let s = 0; s < samples.count; s++) out[s] = samples.rgb[s * 3 + c];
  return out;
}

/** The values with a non-zero `keep` entry. */
export function selected(values: Float64Array, keep: Uint8Array): Float64Array {
  let n = 0;
  for (let i = 0; i < values.length; i++) if (keep[i]) n++;
  const out = new Float64Array(n);
  for (let i = 0, k = 0; i < values.length; i++) if (keep[i]) out[k++] = values[i];
  return out;
}

/** The value at rank floor(q * n) of the sorted values (0 when there are none). */
export function quantile(values: ArrayLike<number>, q: number): number {
  if (values.length === 0) return 0;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.floor(sorted.length * q)];
}

/** The median, averaging the two middle values of an even count (0 when there are none). */
export function median(values: ArrayLike<number>): number {
  if (values.length === 0) return 0;
  const s = Float64Array.from(values).sort();
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
