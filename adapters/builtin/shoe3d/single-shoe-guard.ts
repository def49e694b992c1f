import type { RasterImage } from '../../../core/images.ts';
import { labelComponents } from '../raster/components.ts';
import { alphaMask } from '../raster/mask.ts';
import type { PackshotSingleShoe } from './diagnostics.ts';
import { cloneRaster } from './raster.ts';

/** One shoe-sized blob of a cleaned packshot: a component, or one side of a split component. */
export interface ShoeBlob {
  /** Pixel indices belonging to the blob. */
  pixels: Int32Array;
  area: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  touchesBorder: boolean;
  /** True when the blob was cut out of a larger connected component (shoes touching). */
  split: boolean;
}

export interface ShoeCount {
  count: number;
  blobs: ShoeBlob[];
}

/**
 * Counts shoes in a cleaned packshot (alpha = object): significant connected components, each
 * split once more when its silhouette profile has a deep valley between two comparable halves
 * (two shoes touching side by side or stacked). Known limit: two side views touching heel to heel
 * show no valley (both heels are high) and count as one.
 */
export function countShoes(image: RasterImage): ShoeCount {
  const { width, height } = image;
  const mask = alphaMask(image, 128);
  const { labels, components } = labelComponents(mask, width, height, { order: 'area' });
  const largest = components[0]?.area ?? 0;
  const blobs: ShoeBlob[] = [];
  for (const c of components) {
    if (c.area < Math.max(16, largest * 0.15)) break;
    const pixels = new Int32Array(c.area);
    let k = 0;
    for (let y = c.y0; y <= c.y1; y++) for (let x = c.x0; x <= c.x1; x++) if (labels[y * width + x] === c.label) pixels[k++] = y * width + x;
    const blob = makeBlob(pixels, width, height, false);
    blobs.push(...splitBlob(blob, width, height));
  }
  return { count: blobs.length, blobs };
}

function makeBlob(pixels: Int32Array, width: number, height: number, split: boolean): ShoeBlob {
  let x0 = width, y0 = height, x1 = -1, y1 = -1;
  for (const p of pixels) {
    const x = p % width, y = (p - x) / width;
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  const touchesBorder = x0 === 0 || y0 === 0 || x1 === width - 1 || y1 === height - 1;
  return { pixels, area: pixels.length, x0, y0, x1, y1, touchesBorder, split };
}

/** Splits a blob at the deepest profile valley along x or y when both sides look like shoes. */
function splitBlob(blob: ShoeBlob, width: number, height: number): ShoeBlob[] {
  let best: { axis: 0 | 1; at: number; ratio: number } | null = null;
  for (const axis of [0, 1] as const) {
    const lo = axis === 0 ? blob.x0 : blob.y0;
    const len = (axis === 0 ? blob.x1 : blob.y1) - lo + 1;
    if (len < 24) continue;
    const profile = new Float64Array(len);
    for (const p of blob.pixels) {
      const x = p % width, y = (p - x) / width;
      profile[(axis === 0 ? x : y) - lo]++;
    }
    const smooth = boxSmooth(profile, Math.max(1, Math.round(len * 0.02)));
    const prefixMax = new Float64Array(len), suffixMax = new Float64Array(len);
    for (let i = 0; i < len; i++) prefixMax[i] = Math.max(smooth[i], i > 0 ? prefixMax[i - 1] : 0);
    for (let i = len - 1; i >= 0; i--) suffixMax[i] = Math.max(smooth[i], i < len - 1 ? suffixMax[i + 1] : 0);
    const total = smooth.reduce((s, v) => s + v, 0);
    let cum = 0;
    for (let i = 0; i < len; i++) {
      cum += smooth[i];
      if (i < len * 0.2 || i > len * 0.8) continue;
      const ratio = smooth[i] / Math.max(1e-9, Math.min(prefixMax[i], suffixMax[i]));
      const share = cum / total;
      // both sides must carry a comparable share of the area (a heel post is not a second shoe)
      if (share < 0.3 || share > 0.7) continue;
      if (ratio < 0.6 && (!best || ratio < best.ratio)) best = { axis, at: i + lo, ratio };
    }
  }
  if (!best) return [blob];
  const a: number[] = [], b: number[] = [];
  for (const p of blob.pixels) {
    const x = p % width, y = (p - x) / width;
    ((best.axis === 0 ? x : y) <= best.at ? a : b).push(p);
  }
  return [makeBlob(Int32Array.from(a), width, height, true), makeBlob(Int32Array.from(b), width, height, true)];
}

function boxSmooth(v: Float64Array, r: number): Float64Array {
  const out = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) {
    let s = 0, n = 0;
    for (let j = Math.max(0, i - r); j <= Math.min(v.length - 1, i + r); j++) { s += v[j]; n++; }
    out[i] = s / n;
  }
  return out;
}

/**
 * Builtin "regeneration": keeps the most complete single shoe, i.e. the largest blob, preferring
 * blobs that are not cut by the frame or by a split. Everything else becomes transparent.
 */
export function isolateMostCompleteShoe(image: RasterImage, counted: ShoeCount): RasterImage | null {
  if (counted.blobs.length === 0) return null;
  const score = (b: ShoeBlob) => b.area * (b.touchesBorder ? 0.5 : 1) * (b.split ? 0.9 : 1);
  const best = [...counted.blobs].sort((a, b) => score(b) - score(a))[0];
  const keep = new Uint8Array(image.width * image.height);
  for (const p of best.pixels) keep[p] = 1;
  // keep the soft edge: semi-transparent pixels next to the kept blob stay
  const out = cloneRaster(image);
  const { width, height } = image;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (keep[i]) continue;
      let nearKeep = false;
      if (out.data[i * 4 + 3] < 128) {
        for (let dy = -1; dy <= 1 && !nearKeep; dy++) for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx, yy = y + dy;
          if (xx >= 0 && yy >= 0 && xx < width && yy < height && keep[yy * width + xx]) { nearKeep = true; break; }
        }
      }
      if (!nearKeep) {
        out.data[i * 4] = out.data[i * 4 + 1] = out.data[i * 4 + 2] = 255;
        out.data[i * 4 + 3] = 0;
      }
    }
  }
  return out;
}

export interface GuardOptions {
  /**
   * Produces a new packshot with a single shoe (attempt is 2 or 3). The builtin isolates the most
   * complete shoe; an image-model backend may regenerate the packshot instead. Null = failed.
   */
  regenerate?: (image: RasterImage, attempt: number, counted: ShoeCount) => Promise<RasterImage | null> | RasterImage | null;
  /** Epoch milliseconds after which no further regeneration is attempted. */
  deadline?: number;
  signal?: AbortSignal;
  now?: () => number;
}

export interface GuardResult {
  image: RasterImage;
  singleShoe: PackshotSingleShoe;
}

/**
 * Single-shoe guard: counts shoes in the cleaned packshot and, with two or more, regenerates up to
 * twice, returning the spec's PackshotSingleShoe record. A failed check is `unavailable` and the
 * pipeline goes on with the image it had.
 */
export async function guardSingleShoe(image: RasterImage, opts: GuardOptions = {}): Promise<GuardResult> {
  const now = opts.now ?? Date.now;
  const regenerate = opts.regenerate ?? ((img: RasterImage, _attempt: number, counted: ShoeCount) => isolateMostCompleteShoe(img, counted));
  let counted: ShoeCount;
  try {
    counted = countShoes(image);
  } catch {
    return { image, singleShoe: { status: 'unavailable', attempts: 1, errorCode: 'count_failed' } };
  }
  if (counted.count === 0) return { image, singleShoe: { status: 'unavailable', attempts: 1, count: 0, errorCode: 'no_object' } };
  if (counted.count === 1) return { image, singleShoe: { status: 'single', attempts: 1, count: 1 } };
  const initial = counted.count;
  let current = image;
  let attempts = 1;
  while (attempts < 3) {
    if ((opts.deadline !== undefined && now() >= opts.deadline) || opts.signal?.aborted) {
      return { image: current, singleShoe: { status: 'multiple_after_retries', attempts, count: counted.count, stopReason: 'deadline', regeneratedFromCount: initial } };
    }
    attempts++;
    let next: RasterImage | null;
    try {
      next = await regenerate(current, attempts, counted);
    } catch {
      next = null;
    }
    if (!next) {
      return { image: current, singleShoe: { status: 'multiple_after_retries', attempts, count: counted.count, stopReason: 'regeneration_failed', regeneratedFromCount: initial } };
    }
    current = next;
    try {
      counted = countShoes(current);
    } catch {
      return { image: current, singleShoe: { status: 'unavailable', attempts, errorCode: 'count_failed', regeneratedFromCount: initial } };
    }
    if (counted.count === 1) return { image: current, singleShoe: { status: 'regenerated', attempts, count: 1, regeneratedFromCount: initial } };
    if (counted.count === 0) {
      return { image, singleShoe: { status: 'multiple_after_retries', attempts, count: 0, stopReason: 'regeneration_failed', regeneratedFromCount: initial } };
    }
  }
  return { image: current, singleShoe: { status: 'multiple_after_retries', attempts, count: counted.count, regeneratedFromCount: initial } };
}
