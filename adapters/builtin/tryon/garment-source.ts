/**
 * A garment cutout prepared for sampling: premultiplied linear-light RGBA floats, pre-shrunk by
 * powers of two (box filter) when the garment will be drawn much smaller than the packshot, so
 * fine texture does not alias.
 */
import type { RasterImage } from '../../../core/images.ts';
import { SRGB_TO_LINEAR } from './color.ts';

export interface GarmentSource {
  width: number;
  height: number;
  /** Premultiplied linear RGBA, 4 floats per pixel. */
  data: Float32Array;
  /** Packshot pixels per source pixel (1, 2, 4, ...). */
  factor: number;
  /** Size of the packshot the coordinates refer to. */
  packshotWidth: number;
  packshotHeight: number;
}

function toLinear(img: RasterImage): Float32Array {
  const out = new Float32Array(img.width * img.height * 4);
  const d = img.data;
  for (let i = 0; i < out.length; i += 4) {
    const a = d[i + 3] / 255;
    out[i] = SRGB_TO_LINEAR[d[i]] * a;
    out[i + 1] = SRGB_TO_LINEAR[d[i + 1]] * a;
    out[i + 2] = SRGB_TO_LINEAR[d[i + 2]] * a;
    out[i + 3] = a;
  }
  return out;
}

function halve(src: Float32Array, w: number, h: number): { data: Float32Array; width: number; height: number } {
  const W = Math.max(1, w >> 1);
  const H = Math.max(1, h >> 1);
  const out = new Float32Array(W * H * 4);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      for (let k = 0; k < 4; k++) {
        const y0 = Math.min(h - 1, 2 * y);
        const y1 = Math.min(h - 1, 2 * y + 1);
        const x0 = Math.min(w - 1, 2 * x);
        const x1 = Math.min(w - 1, 2 * x + 1);
        out[(y * W + x) * 4 + k] = (src[(y0 * w + x0) * 4 + k] + src[(y0 * w + x1) * 4 + k] + src[(y1 * w + x0) * 4 + k] + src[(y1 * w + x1) * 4 + k]) / 4;
      }
    }
  }
  return { data: out, width: W, height: H };
}

/** `scale`: output pixels per packshot pixel the garment will be drawn at. */
export function prepareSource(img: RasterImage, scale: number): GarmentSource {
  let data = toLinear(img);
  let width = img.width;
  let height = img.height;
  let factor = 1;
  while (scale * factor < 0.6 && width > 32 && height > 32) {
    const h = halve(data, width, height);
    data = h.data;
    width = h.width;
    height = h.height;
    factor *= 2;
  }
  return { width, height, data, factor, packshotWidth: img.width, packshotHeight: img.height };
}

/** Bilinear sample (packshot coordinates) into out[0..3]; zero outside. */
export function sampleBilinear(src: GarmentSource, px: number, py: number, out: Float32Array): void {
  const x = (px + 0.5) / src.factor - 0.5;
  const y = (py + 0.5) / src.factor - 0.5;
  const x0 = Math.floor(x);
  const y0 = Math.floor(y);
  const fx = x - x0;
  const fy = y - y0;
  out[0] = out[1] = out[2] = out[3] = 0;
  const { width: w, height: h, data } = src;
  for (let j = 0; j < 2; j++) {
    const yy = y0 + j;
    if (yy < 0 || yy >= h) continue;
    const wy = j ? fy : 1 - fy;
    for (let i = 0; i < 2; i++) {
      const xx = x0 + i;
      if (xx < 0 || xx >= w) continue;
      const wt = wy * (i ? fx : 1 - fx);
      if (wt === 0) continue;
      const o = (yy * w + xx) * 4;
      out[0] += data[o] * wt;
      out[1] += data[o + 1] * wt;
      out[2] += data[o + 2] * wt;
      out[3] += data[o + 3] * wt;
    }
  }
}

function cubic(t: number): number {
  // Catmull-Rom weights
  const a = Math.abs(t);
  if (a < 1) return 1.5 * a * a * a - 2.5 * a * a + 1;
  if (a < 2) return -0.5 * a * a * a + 2.5 * a * a - 4 * a + 2;
  return 0;
}

/** Bicubic (Catmull-Rom) sample, clamped so premultiplied colour never exceeds alpha. */
export function sampleBicubic(src: GarmentSource, px: number, py: number, out: Float32Array): void {
  const x = (px + 0.5) / src.factor - 0.5;
  const y = (py + 0.5) / src.factor - 0.5;
  const x0 = Math.floor(x);
  const y0 = Math.floor(y);
  const fx = x - x0;
  const fy = y - y0;
  out[0] = out[1] = out[2] = out[3] = 0;
  const { width: w, height: h, data } = src;
  for (let j = -1; j <= 2; j++) {
    const yy = y0 + j;
    if (yy < 0 || yy >= h) continue;
    const wy = cubic(j - fy);
    for (let i = -1; i <= 2; i++) {
      const xx = x0 + i;
      if (xx < 0 || xx >= w) continue;
      const wt = wy * cubic(i - fx);
      const o = (yy * w + xx) * 4;
      out[0] += data[o] * wt;
      out[1] += data[o + 1] * wt;
      out[2] += data[o + 2] * wt;
      out[3] += data[o + 3] * wt;
    }
  }
  const a = Math.max(0, Math.min(1, out[3]));
  out[3] = a;
  for (let k = 0; k < 3; k++) out[k] = Math.max(0, Math.min(a, out[k]));
}
