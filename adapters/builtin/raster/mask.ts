/**
 * Binary masks as the builtin engines use them: one byte per pixel, row-major, any non-zero value
 * is set (masks made by the raster helpers are 0/255). Making one from an alpha channel and
 * measuring one.
 */
import type { RasterImage } from '../../../core/images.ts';

/** The pixels whose alpha is at least `threshold`, as a 0/255 mask. */
export function alphaMask(img: RasterImage, threshold = 128): Uint8Array {
  const out = new Uint8Array(img.width * img.height);
  const data = img.data;
  for (let i = 0, o = 3; i < out.length; i++, o += 4) if (data[o] >= threshold) out[i] = 255;
  return out;
}

export function countOn(mask: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < mask.length; i++) if (mask[i]) n++;
  return n;
}

/** Inclusive bounding box of the set pixels. */
export interface MaskBounds {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** Number of set pixels. */
  area: number;
}

/**
 * Bounding box and area of the set pixels, or null when none is set. `stride` and `offset` read one
 * channel of an interleaved image (4 and 3: the alpha of RGBA).
 */
export function maskBounds(mask: ArrayLike<number>, width: number, height: number, stride = 1, offset = 0): MaskBounds | null {
  let x0 = width, y0 = height, x1 = -1, y1 = -1, area = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0, i = y * width; x < width; x++, i++) {
      if (!mask[i * stride + offset]) continue;
      area++;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      y1 = y;
    }
  }
  return area ? { x0, y0, x1, y1, area } : null;
}

/** A box grown by `pad` px on every side and clipped to the image: inclusive corners, and its size. */
export interface GrownBounds {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  w: number;
  h: number;
}

/** `b` (inclusive corners) grown by `pad` px on every side, clipped to a `width` x `height` image. */
export function grownBounds(b: Pick<MaskBounds, 'x0' | 'y0' | 'x1' | 'y1'>, pad: number, width: number, height: number): GrownBounds {
  const x0 = Math.max(0, b.x0 - pad);
  const y0 = Math.max(0, b.y0 - pad);
  const x1 = Math.min(width - 1, b.x1 + pad);
  const y1 = Math.min(height - 1, b.y1 + pad);
  return { x0, y0, x1, y1, w: x1 - x0 + 1, h: y1 - y0 + 1 };
}
