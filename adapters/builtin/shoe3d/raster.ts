import type { RasterImage } from '../../../core/images.ts';
import { createRaster } from '../../../core/images.ts';

/** Small raster helpers shared by the packshot stages and the reconstruction (RGBA, straight alpha). */

export function luminance(r: number, g: number, b: number): number {
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function cloneRaster(img: RasterImage): RasterImage {
  return { width: img.width, height: img.height, data: new Uint8Array(img.data) };
}

/** Composites over a flat colour, returning an opaque image. */
export function flatten(img: RasterImage, bg: [number, number, number] = [255, 255, 255]): RasterImage {
  const out = createRaster(img.width, img.height);
  for (let i = 0; i < img.width * img.height; i++) {
    const a = img.data[i * 4 + 3] / 255;
    for (let c = 0; c < 3; c++) out.data[i * 4 + c] = Math.round(img.data[i * 4 + c] * a + bg[c] * (1 - a));
    out.data[i * 4 + 3] = 255;
  }
  return out;
}

/** Separable Gaussian blur of a float channel. */
export function blurFloat(src: Float32Array, width: number, height: number, sigma: number): Float32Array {
  if (sigma <= 0) return new Float32Array(src);
  const r = Math.max(1, Math.ceil(sigma * 3));
  const k = new Float32Array(2 * r + 1);
  let sum = 0;
  for (let i = -r; i <= r; i++) sum += k[i + r] = Math.exp(-(i * i) / (2 * sigma * sigma));
  for (let i = 0; i < k.length; i++) k[i] /= sum;
  return convolve1d(convolve1d(src, width, height, k, true), width, height, k, false);
}

/** Convolution with an odd kernel along rows or columns, the edge pixels repeated beyond the image. */
function convolve1d(src: Float32Array, width: number, height: number, k: Float32Array, horizontal: boolean): Float32Array {
  const r = (k.length - 1) / 2;
  const out = new Float32Array(width * height);
  const len = horizontal ? width : height;
  const stride = horizontal ? 1 : width;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const pos = horizontal ? x : y;
      const base = horizontal ? y * width : x;
      let acc = 0;
      for (let i = -r; i <= r; i++) acc += src[base + Math.min(len - 1, Math.max(0, pos + i)) * stride] * k[i + r];
      out[y * width + x] = acc;
    }
  }
  return out;
}

/**
 * Resamples RGBA with a separable tent filter whose support follows the scale (area-like when
 * shrinking, bilinear when enlarging), in premultiplied alpha so edges do not pick up fringes.
 */
export function resizeRgba(img: RasterImage, width: number, height: number): RasterImage {
  if (width === img.width && height === img.height) return cloneRaster(img);
  const pre = new Float32Array(img.width * img.height * 4);
  for (let i = 0; i < img.width * img.height; i++) {
    const a = img.data[i * 4 + 3] / 255;
    pre[i * 4] = img.data[i * 4] * a;
    pre[i * 4 + 1] = img.data[i * 4 + 1] * a;
    pre[i * 4 + 2] = img.data[i * 4 + 2] * a;
    pre[i * 4 + 3] = img.data[i * 4 + 3];
  }
  const horiz = resample1d(pre, img.width, img.height, width, true);
  const both = resample1d(horiz, width, img.height, height, false);
  const out = createRaster(width, height);
  for (let i = 0; i < width * height; i++) {
    const a = both[i * 4 + 3];
    out.data[i * 4 + 3] = clamp255(a);
    if (a > 0.5) for (let c = 0; c < 3; c++) out.data[i * 4 + c] = clamp255((both[i * 4 + c] * 255) / a);
  }
  return out;
}

function resample1d(src: Float32Array, w: number, h: number, n: number, horizontal: boolean): Float32Array {
  const len = horizontal ? w : h;
  const outW = horizontal ? n : w;
  const outH = horizontal ? h : n;
  const out = new Float32Array(outW * outH * 4);
  const scale = len / n;
  const support = Math.max(1, scale);
  for (let o = 0; o < n; o++) {
    const centre = (o + 0.5) * scale - 0.5;
    const lo = Math.max(0, Math.floor(centre - support));
    const hi = Math.min(len - 1, Math.ceil(centre + support));
    const weights: number[] = [];
    let total = 0;
    for (let i = lo; i <= hi; i++) {
      const w0 = Math.max(0, 1 - Math.abs(i - centre) / support);
      weights.push(w0);
      total += w0;
    }
    if (total <= 0) continue;
    const lines = horizontal ? h : w;
    for (let line = 0; line < lines; line++) {
      let r = 0, g = 0, b = 0, a = 0;
      for (let i = lo; i <= hi; i++) {
        const wt = weights[i - lo];
        if (wt === 0) continue;
        const s = (horizontal ? line * w + i : i * w + line) * 4;
        r += src[s] * wt; g += src[s + 1] * wt; b += src[s + 2] * wt; a += src[s + 3] * wt;
      }
      const d = (horizontal ? line * outW + o : o * outW + line) * 4;
      out[d] = r / total; out[d + 1] = g / total; out[d + 2] = b / total; out[d + 3] = a / total;
    }
  }
  return out;
}

/**
 * Rotates by `angleRad` (counter-clockwise on screen) about (cx, cy), then translates by (tx, ty),
 * onto a canvas of the given size; bilinear in premultiplied alpha, empty where nothing maps.
 */
export function rotateRgba(img: RasterImage, angleRad: number, cx: number, cy: number, tx: number, ty: number, width = img.width, height = img.height): RasterImage {
  const out = createRaster(width, height);
  const c = Math.cos(angleRad), s = Math.sin(angleRad);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      // inverse map: destination -> source; screen y points down, so CCW uses +s on x
      const dx = x + 0.5 - cx - tx, dy = y + 0.5 - cy - ty;
      const sx = c * dx - s * dy + cx - 0.5;
      const sy = s * dx + c * dy + cy - 0.5;
      sampleRgba(img, sx, sy, out.data, (y * width + x) * 4);
    }
  }
  return out;
}

/** Bilinear premultiplied RGBA sample written into `out` at `o`; outside samples are transparent. */
export function sampleRgba(img: RasterImage, sx: number, sy: number, out: Uint8Array, o: number): void {
  const x0 = Math.floor(sx), y0 = Math.floor(sy);
  const fx = sx - x0, fy = sy - y0;
  let r = 0, g = 0, b = 0, a = 0;
  for (let k = 0; k < 4; k++) {
    const xx = x0 + (k & 1), yy = y0 + (k >> 1);
    if (xx < 0 || yy < 0 || xx >= img.width || yy >= img.height) continue;
    const w = (k & 1 ? fx : 1 - fx) * (k >> 1 ? fy : 1 - fy);
    const i = (yy * img.width + xx) * 4;
    const wa = w * img.data[i + 3];
    r += img.data[i] * wa; g += img.data[i + 1] * wa; b += img.data[i + 2] * wa; a += wa;
  }
  if (a <= 0) return;
  out[o] = clamp255(r / a);
  out[o + 1] = clamp255(g / a);
  out[o + 2] = clamp255(b / a);
  out[o + 3] = clamp255(a);
}

export function cropRgba(img: RasterImage, x0: number, y0: number, width: number, height: number): RasterImage {
  const out = createRaster(width, height);
  for (let y = 0; y < height; y++) {
    const sy = y + y0;
    if (sy < 0 || sy >= img.height) continue;
    for (let x = 0; x < width; x++) {
      const sx = x + x0;
      if (sx < 0 || sx >= img.width) continue;
      const s = (sy * img.width + sx) * 4, d = (y * width + x) * 4;
      out.data[d] = img.data[s]; out.data[d + 1] = img.data[s + 1]; out.data[d + 2] = img.data[s + 2]; out.data[d + 3] = img.data[s + 3];
    }
  }
  return out;
}

export function clamp255(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : Math.round(v);
}
