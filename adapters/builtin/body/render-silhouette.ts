import type { RasterImage } from '../../../core/images.ts';
import type { ImageCodec } from '../../../core/ports/image-codec.ts';
import type { BodyRaster, RenderSize } from './rasterize-body.ts';
import { BACKGROUND_RGB, SKIN_RGB, lambert } from './rasterize-body.ts';
import { inflateDepth } from './inflate-depth.ts';
import { fillHoles, largestComponent } from '../raster/components.ts';
import { maskBounds } from '../raster/mask.ts';
import { close, open } from '../raster/morphology.ts';
import { analyzeSilhouette } from './silhouette-landmarks.ts';
import { ASSUMED_STATURE_CM } from './fit-profile.ts';

const luma = (d: Uint8Array, o: number) => 0.299 * d[o] + 0.587 * d[o + 1] + 0.114 * d[o + 2];

/** Otsu's threshold of values 0..255 (the split maximising between-class variance). */
function otsu(hist: Float64Array): number {
  let total = 0;
  let sum = 0;
  for (let i = 0; i < 256; i++) {
    total += hist[i];
    sum += i * hist[i];
  }
  let wB = 0;
  let sumB = 0;
  let best = 0;
  let bestT = 128;
  for (let t = 0; t < 256; t++) {
    wB += hist[t];
    if (!wB || wB === total) continue;
    sumB += t * hist[t];
    const mB = sumB / wB;
    const mF = (sum - sumB) / (total - wB);
    const v = wB * (total - wB) * (mB - mF) ** 2;
    if (v > best) {
      best = v;
      bestT = t;
    }
  }
  return bestT + 0.5;
}

/**
 * The body mask of a direct-mode silhouette/depth image. Alpha decides when the image has a
 * transparent surround; otherwise the luminance difference from the border's median luminance,
 * thresholded by Otsu (at least 12 levels). Cleaned up to the largest component without holes.
 */
export function silhouetteMask(img: RasterImage): { mask: Uint8Array; notes: string[] } {
  const { width: w, height: h, data } = img;
  const n = w * h;
  const notes: string[] = [];
  const border: number[] = [];
  const borderAlpha: number[] = [];
  for (let x = 0; x < w; x++) for (const y of [0, h - 1]) { border.push(luma(data, (y * w + x) * 4)); borderAlpha.push(data[(y * w + x) * 4 + 3]); }
  for (let y = 0; y < h; y++) for (const x of [0, w - 1]) { border.push(luma(data, (y * w + x) * 4)); borderAlpha.push(data[(y * w + x) * 4 + 3]); }
  border.sort((a, b) => a - b);
  borderAlpha.sort((a, b) => a - b);
  let opaque = 0;
  for (let i = 0; i < n; i++) if (data[i * 4 + 3] >= 128) opaque++;
  let mask: Uint8Array = new Uint8Array(n);
  if (borderAlpha[borderAlpha.length >> 1] < 128 && opaque > n * 0.01) {
    for (let i = 0; i < n; i++) if (data[i * 4 + 3] >= 128) mask[i] = 255;
    notes.push('silhouette taken from the alpha channel');
  } else {
    const bgL = border[border.length >> 1];
    const diff = new Uint8Array(n);
    const hist = new Float64Array(256);
    for (let i = 0; i < n; i++) {
      diff[i] = Math.min(255, Math.round(Math.abs(luma(data, i * 4) - bgL)));
      hist[diff[i]]++;
    }
    const t = Math.max(12, otsu(hist));
    for (let i = 0; i < n; i++) if (diff[i] > t) mask[i] = 255;
    notes.push('silhouette taken from luminance against the border');
  }
  const r = Math.max(1, Math.round(Math.min(w, h) * 0.002));
  mask = fillHoles(largestComponent(close(open(mask, w, h, r), w, h, r), w, h, { connectivity: 4 }), w, h);
  return { mask, notes };
}

/**
 * Renders a direct-mode twin body from a mask: the mask is reframed into the output size like a
 * parametric render (feet on the floor line, 4% margins), resampled by the codec (Lanczos) for
 * smooth edges, shaded with the same lights as the parametric body using normals of the rounded
 * depth proxy (inflateDepth), on the same background. Landmarks are estimated from the new mask;
 * pixelsPerCm assumes the standard stature.
 */
export async function renderSilhouetteBody(mask: Uint8Array, w: number, h: number, size: RenderSize, codec: ImageCodec): Promise<BodyRaster & { notes: string[] }> {
  const box = maskBounds(mask, w, h);
  if (!box) throw new Error('empty silhouette');
  const bw = box.x1 - box.x0 + 1;
  const bh = box.y1 - box.y0 + 1;
  const W = size.width;
  const H = size.height;
  const scale = Math.min((H * 0.92) / bh, (W * 0.92) / bw);
  const tw = Math.max(1, Math.round(bw * scale));
  const th = Math.max(1, Math.round(bh * scale));
  // the mask's crop as an opaque grey image (the codec resamples RGBA); coverage is its red channel
  const crop = new Uint8Array(bw * bh * 4);
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      const v = mask[(box.y0 + y) * w + box.x0 + x];
      const o = (y * bw + x) * 4;
      crop[o] = crop[o + 1] = crop[o + 2] = v;
      crop[o + 3] = 255;
    }
  }
  const resized = (await codec.resize({ width: bw, height: bh, data: crop }, tw, th)).data;
  const cov = new Uint8Array(tw * th);
  for (let i = 0; i < cov.length; i++) cov[i] = resized[i * 4];
  const ox = Math.round((W - tw) / 2);
  const oy = Math.round(H * 0.96 - th);
  const coverage = new Uint8Array(W * H);
  const out = new Uint8Array(W * H);
  for (let y = 0; y < th; y++) {
    const ty = oy + y;
    if (ty < 0 || ty >= H) continue;
    for (let x = 0; x < tw; x++) {
      const tx = ox + x;
      if (tx < 0 || tx >= W) continue;
      coverage[ty * W + tx] = cov[y * tw + x];
      if (cov[y * tw + x] >= 128) out[ty * W + tx] = 255;
    }
  }
  const bodyMask = fillHoles(largestComponent(out, W, H, { connectivity: 4 }), W, H);
  const dome = inflateDepth(bodyMask, W, H);
  const analysis = analyzeSilhouette(bodyMask, W, H);
  const ppcm = analysis.heightPx / ASSUMED_STATURE_CM;

  const data = new Uint8Array(W * H * 4);
  const depth = new Float32Array(W * H);
  const shade = new Float32Array(W * H);
  const at = (x: number, y: number, fx: number, fy: number) => {
    const xx = Math.min(W - 1, Math.max(0, x));
    const yy = Math.min(H - 1, Math.max(0, y));
    return bodyMask[yy * W + xx] ? dome[yy * W + xx] : dome[fy * W + fx];
  };
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      let s = 0;
      if (bodyMask[i]) {
        const gx = (at(x + 1, y, x, y) - at(x - 1, y, x, y)) / 2;
        const gy = (at(x, y + 1, x, y) - at(x, y - 1, x, y)) / 2;
        // image y points down, the light's y up
        s = lambert(-gx, gy, 1);
        shade[i] = s;
        depth[i] = dome[i] / ppcm + 1;
      }
      // edge pixels outside the mask still carry partial coverage: shade them like a rim
      const c = coverage[i] / 255;
      const bodyS = s || 0.5;
      for (let k = 0; k < 3; k++) data[i * 4 + k] = Math.round(SKIN_RGB[k] * bodyS * c + BACKGROUND_RGB[k] * (1 - c));
      data[i * 4 + 3] = 255;
    }
  }
  return {
    image: { width: W, height: H, data },
    mask: bodyMask,
    depth,
    parts: new Uint8Array(0),
    shade,
    landmarks: analysis.landmarks,
    pixelsPerCm: ppcm,
    notes: analysis.notes,
  };
}
