import type { RasterImage } from '../../../core/images.ts';
import { labelComponents } from '../raster/components.ts';
import { dilate } from '../raster/morphology.ts';
import { blurFloat, clamp255, cloneRaster, luminance } from './raster.ts';

/**
 * Classical image filters for the builtin texture enhancement: edge-preserving denoise, local
 * contrast and unsharp masking, and the logo / brand-text detector and refinement. All of them
 * work on RGBA renders and leave transparent pixels alone; blurs are alpha-normalised so the
 * empty background never bleeds into the product's edges.
 */

/** Alpha-normalised Gaussian blur of the RGB channels. */
function blurRgb(img: RasterImage, sigma: number): Float32Array[] {
  const n = img.width * img.height;
  const a = new Float32Array(n);
  const ch = [new Float32Array(n), new Float32Array(n), new Float32Array(n)];
  for (let i = 0; i < n; i++) {
    const al = img.data[i * 4 + 3] / 255;
    a[i] = al;
    for (let c = 0; c < 3; c++) ch[c][i] = img.data[i * 4 + c] * al;
  }
  const ba = blurFloat(a, img.width, img.height, sigma);
  return ch.map((c) => {
    const b = blurFloat(c, img.width, img.height, sigma);
    for (let i = 0; i < n; i++) b[i] = ba[i] > 1e-4 ? b[i] / ba[i] : 0;
    return b;
  });
}

/** Bilateral filter (5x5): smooths sensor noise and compression blocks, keeps edges. */
export function denoise(img: RasterImage, sigmaSpace = 1.2, sigmaRange = 12): RasterImage {
  const out = cloneRaster(img);
  const { width, height, data } = img;
  const r = 2;
  const ws = new Float32Array((2 * r + 1) ** 2);
  for (let dy = -r; dy <= r; dy++) for (let dx = -r; dx <= r; dx++) ws[(dy + r) * (2 * r + 1) + dx + r] = Math.exp(-(dx * dx + dy * dy) / (2 * sigmaSpace * sigmaSpace));
  const inv2r = 1 / (2 * sigmaRange * sigmaRange);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      if (data[o + 3] === 0) continue;
      let sr = 0, sg = 0, sb = 0, sw = 0;
      for (let dy = -r; dy <= r; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= height) continue;
        for (let dx = -r; dx <= r; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= width) continue;
          const q = (yy * width + xx) * 4;
          if (data[q + 3] === 0) continue;
          const d2 = (data[q] - data[o]) ** 2 + (data[q + 1] - data[o + 1]) ** 2 + (data[q + 2] - data[o + 2]) ** 2;
          const w = ws[(dy + r) * (2 * r + 1) + dx + r] * Math.exp(-d2 * inv2r);
          sr += data[q] * w; sg += data[q + 1] * w; sb += data[q + 2] * w; sw += w;
        }
      }
      out.data[o] = clamp255(sr / sw);
      out.data[o + 1] = clamp255(sg / sw);
      out.data[o + 2] = clamp255(sb / sw);
    }
  }
  return out;
}

/** Unsharp mask: adds `amount` of the detail above a Gaussian of `sigma` (ignoring tiny detail). */
export function unsharp(img: RasterImage, sigma: number, amount: number, threshold = 2, mask?: Uint8Array): RasterImage {
  const out = cloneRaster(img);
  const blur = blurRgb(img, sigma);
  for (let i = 0; i < img.width * img.height; i++) {
    const o = i * 4;
    if (img.data[o + 3] === 0 || (mask && !mask[i])) continue;
    for (let c = 0; c < 3; c++) {
      const detail = img.data[o + c] - blur[c][i];
      if (Math.abs(detail) < threshold) continue;
      out.data[o + c] = clamp255(img.data[o + c] + amount * detail);
    }
  }
  return out;
}

/** Local contrast: a wide, gentle unsharp mask on luminance (colours keep their hue). */
export function localContrast(img: RasterImage, sigma = 10, amount = 0.25): RasterImage {
  const out = cloneRaster(img);
  const n = img.width * img.height;
  const lum = new Float32Array(n), a = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const al = img.data[i * 4 + 3] / 255;
    a[i] = al;
    lum[i] = luminance(img.data[i * 4], img.data[i * 4 + 1], img.data[i * 4 + 2]) * al;
  }
  const bl = blurFloat(lum, img.width, img.height, sigma), ba = blurFloat(a, img.width, img.height, sigma);
  for (let i = 0; i < n; i++) {
    const o = i * 4;
    if (img.data[o + 3] === 0 || ba[i] < 1e-4) continue;
    const l = luminance(img.data[o], img.data[o + 1], img.data[o + 2]);
    const target = l + amount * (l - bl[i] / ba[i]);
    const gain = l > 1 ? target / l : 1;
    for (let c = 0; c < 3; c++) out.data[o + c] = clamp255(img.data[o + c] * gain);
  }
  return out;
}

/** The builtin enhancement of one rendered view: denoise, local contrast, then sharpening. */
export function builtinEnhance(img: RasterImage): RasterImage {
  return unsharp(localContrast(denoise(img)), 1.0, 0.6, 2);
}

export interface LogoRegions {
  mask: Uint8Array;
  regions: number;
}

/**
 * Finds text and logo-like regions: dense, strong edges with high local contrast (printed brand
 * marks, embroidered text), as opposed to smooth panels or a single seam.
 */
export function findLogoRegions(img: RasterImage): LogoRegions {
  const { width, height, data } = img;
  const n = width * height;
  const lum = new Float32Array(n);
  for (let i = 0; i < n; i++) lum[i] = luminance(data[i * 4], data[i * 4 + 1], data[i * 4 + 2]);
  const edge = new Float32Array(n);
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      if (data[i * 4 + 3] < 255 || data[(i - 1) * 4 + 3] < 255 || data[(i + 1) * 4 + 3] < 255 || data[(i - width) * 4 + 3] < 255 || data[(i + width) * 4 + 3] < 255) continue;
      const gx = lum[i + 1] - lum[i - 1], gy = lum[i + width] - lum[i - width];
      edge[i] = Math.hypot(gx, gy) > 60 ? 1 : 0;
    }
  }
  // edge density in a window: several strokes close together, not one seam
  const density = blurFloat(edge, width, height, 3);
  const raw = new Uint8Array(n);
  for (let i = 0; i < n; i++) raw[i] = density[i] > 0.12 ? 1 : 0;
  const grown = dilate(raw, width, height, 3);
  const { labels, components } = labelComponents(grown, width, height, { order: 'area' });
  const keep = new Uint8Array(components.length + 1);
  let regions = 0;
  for (const c of components) {
    if (c.area >= 40) { keep[c.label] = 1; regions++; }
  }
  const mask = new Uint8Array(n);
  for (let i = 0; i < n; i++) mask[i] = keep[labels[i]] && data[i * 4 + 3] > 0 ? 1 : 0;
  return { mask, regions };
}

/**
 * The builtin logo refinement inside `mask`: a finer, stronger unsharp mask plus extra local
 * contrast, blended in through a feathered mask so no box edge shows around the region and flat
 * areas keep their colour (both filters only add detail).
 */
export function builtinLogoRefine(img: RasterImage, mask: Uint8Array): RasterImage {
  const refined = localContrast(unsharp(img, 0.8, 0.6, 1), 3, 0.3);
  const m = new Float32Array(mask.length);
  for (let i = 0; i < mask.length; i++) m[i] = mask[i];
  const feather = blurFloat(m, img.width, img.height, 3);
  const out = cloneRaster(img);
  for (let i = 0; i < mask.length; i++) {
    const w = Math.min(1, feather[i] * 1.5);
    if (w <= 0.01 || img.data[i * 4 + 3] === 0) continue;
    for (let c = 0; c < 3; c++) out.data[i * 4 + c] = clamp255(img.data[i * 4 + c] * (1 - w) + refined.data[i * 4 + c] * w);
  }
  return out;
}
