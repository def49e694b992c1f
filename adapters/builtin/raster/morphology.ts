/**
 * Binary morphology on one-byte-per-pixel, row-major masks (any non-zero value is set; results
 * are 0/255), and a grey-level max filter.
 *
 * Two structuring elements:
 * - `square` (2r+1 pixels a side): separable running counts, so the cost does not grow with r;
 * - `disk` (radius r, Euclidean): thresholds of the exact distance transform, also linear time;
 *   rounder results, and r may be fractional.
 *
 * At the image edge, dilation counts pixels beyond it as unset and erosion counts them as set, so
 * erosion never eats a shape that touches the frame. `close` can instead pad the mask with unset
 * pixels first (`border: 'pad'`): then a shape near the frame is not joined to it.
 */
import { distanceTransform } from './distance-transform.ts';

export type StructuringElement = 'square' | 'disk';

export interface MorphologyOptions {
  /** Shape of the structuring element (default `square`). */
  shape?: StructuringElement;
}

export interface CloseOptions extends MorphologyOptions {
  /**
   * `clip` (default): closes the image as it is, so gaps narrower than the element between a
   * shape and the frame fill in. `pad`: the closing of the mask surrounded by unset pixels.
   */
  border?: 'clip' | 'pad';
}

export function dilate(mask: Uint8Array, width: number, height: number, radius: number, opts: MorphologyOptions = {}): Uint8Array {
  if (opts.shape === 'disk') {
    const dist = distanceTransform(mask, width, height, 'set');
    const out = new Uint8Array(mask.length);
    for (let i = 0; i < out.length; i++) out[i] = dist[i] <= radius ? 255 : 0;
    return out;
  }
  if (radius <= 0) return mask.slice();
  return squarePass(squarePass(mask, width, height, radius, true, false), width, height, radius, false, false);
}

export function erode(mask: Uint8Array, width: number, height: number, radius: number, opts: MorphologyOptions = {}): Uint8Array {
  if (opts.shape === 'disk') {
    const dist = distanceTransform(mask, width, height, 'unset');
    const out = new Uint8Array(mask.length);
    for (let i = 0; i < out.length; i++) out[i] = mask[i] && dist[i] > radius ? 255 : 0;
    return out;
  }
  if (radius <= 0) return mask.slice();
  return squarePass(squarePass(mask, width, height, radius, true, true), width, height, radius, false, true);
}

/** Opening: removes specks and spurs smaller than the element. */
export function open(mask: Uint8Array, width: number, height: number, radius: number, opts: MorphologyOptions = {}): Uint8Array {
  return dilate(erode(mask, width, height, radius, opts), width, height, radius, opts);
}

/** Closing: seals gaps and notches narrower than the element. */
export function close(mask: Uint8Array, width: number, height: number, radius: number, opts: CloseOptions = {}): Uint8Array {
  if (opts.border !== 'pad') return erode(dilate(mask, width, height, radius, opts), width, height, radius, opts);
  const pad = Math.ceil(radius) + 1;
  const pw = width + 2 * pad;
  const ph = height + 2 * pad;
  const padded = new Uint8Array(pw * ph);
  for (let y = 0; y < height; y++) padded.set(mask.subarray(y * width, (y + 1) * width), (y + pad) * pw + pad);
  const closed = erode(dilate(padded, pw, ph, radius, opts), pw, ph, radius, opts);
  const out = new Uint8Array(mask.length);
  for (let y = 0; y < height; y++) out.set(closed.subarray((y + pad) * pw + pad, (y + pad) * pw + pad + width), y * width);
  return out;
}

/**
 * Square erosion (all set) or dilation (any set) along one axis: a running count over the window
 * [i - r, i + r]; beyond the edge counts as set for erosion and unset for dilation.
 */
function squarePass(src: Uint8Array, w: number, h: number, r: number, horizontal: boolean, erosion: boolean): Uint8Array {
  const out = new Uint8Array(w * h);
  const lines = horizontal ? h : w;
  const len = horizontal ? w : h;
  const stride = horizontal ? 1 : w;
  const beyond = erosion ? 1 : 0;
  const full = 2 * r + 1;
  for (let l = 0; l < lines; l++) {
    const base = horizontal ? l * w : l;
    let count = 0;
    for (let i = -r; i <= r; i++) {
      if (i < 0 || i >= len) count += beyond;
      else if (src[base + i * stride]) count++;
    }
    for (let i = 0; i < len; i++) {
      out[base + i * stride] = (erosion ? count === full : count > 0) ? 255 : 0;
      const drop = i - r;
      const add = i + r + 1;
      count -= drop < 0 ? beyond : src[base + drop * stride] ? 1 : 0;
      count += add >= len ? beyond : src[base + add * stride] ? 1 : 0;
    }
  }
  return out;
}

/** Grey-level dilation: the maximum over a (2r+1)-pixel square, clipped at the image edge. */
export function maxFilter(src: Float32Array, width: number, height: number, r: number): Float32Array {
  const tmp = new Float32Array(width * height);
  const out = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      let m = -Infinity;
      const hi = Math.min(width - 1, x + r);
      for (let i = Math.max(0, x - r); i <= hi; i++) if (src[row + i] > m) m = src[row + i];
      tmp[row + x] = m;
    }
  }
  for (let y = 0; y < height; y++) {
    const lo = Math.max(0, y - r);
    const hi = Math.min(height - 1, y + r);
    for (let x = 0; x < width; x++) {
      let m = -Infinity;
      for (let i = lo; i <= hi; i++) if (tmp[i * width + x] > m) m = tmp[i * width + x];
      out[y * width + x] = m;
    }
  }
  return out;
}
