/**
 * Garment segmentation from a packshot: a smooth background model fitted to the image border, a
 * colour-distance matte, morphological clean-up, hole filling and the largest component(s).
 * Transparent packshots use their own alpha instead of the background model.
 */
import type { RasterImage } from '../../../core/images.ts';
import { FitroomError } from '../../../core/errors.ts';
import { deltaE76, srgbToLab } from './color.ts';
import type { ColourSurface } from '../raster/background-model.ts';
import { bandArea, fitBackground, quantile, sampleBorder, selected } from '../raster/background-model.ts';
import { fillHoles, labelComponents } from '../raster/components.ts';
import { close, erode, open } from '../raster/morphology.ts';

export interface GarmentCutout {
  /** Straight RGBA: colour with the background removed from edge pixels, alpha = matte. */
  image: RasterImage;
  /** 0/255: the kept components with holes filled. */
  mask: Uint8Array;
  /** Kept component index per pixel (largest first), -1 elsewhere. */
  labels: Int32Array;
  components: { area: number; box: [number, number, number, number] }[];
}

export interface SegmentOptions {
  /** Components at least this fraction of the largest one's area are kept (pairs of shoes, loose parts). */
  keepRatio?: number;
}

/**
 * Fits the background colour as a quadratic surface per channel to the border strip, trimming
 * outliers twice (garment parts that touch the border, dust, text). Distances are CIE76 in Lab;
 * the spread is the 80th percentile of the inliers' distances.
 */
function fitGarmentBackground(img: RasterImage): { model: ColourSurface; spread: number } {
  const { width: w, height: h } = img;
  const strip = Math.max(2, Math.round(Math.min(w, h) * 0.02));
  const step = Math.max(1, Math.ceil(Math.sqrt(bandArea(w, h, strip) / 6000)));
  const samples = sampleBorder(img, { band: strip, step });
  const lab1 = [0, 0, 0];
  const lab2 = [0, 0, 0];
  let spread = 0;
  const { model } = fitBackground(samples, w, h, {
    kind: 'quadratic',
    rounds: 3,
    residual: (r, g, b, m) => {
      srgbToLab(r, g, b, lab1);
      srgbToLab(m[0], m[1], m[2], lab2);
      return deltaE76(lab1, lab2);
    },
    limit: (dist, inliers) => {
      spread = quantile(selected(dist, inliers), 0.8);
      return Math.max(6, spread * 3);
    },
  });
  return { model, spread };
}

function hasTransparentBorder(img: RasterImage): boolean {
  const { width: w, height: h, data } = img;
  let clear = 0;
  let total = 0;
  for (let x = 0; x < w; x++) {
    for (const y of [0, h - 1]) {
      total++;
      if (data[(y * w + x) * 4 + 3] < 128) clear++;
    }
  }
  for (let y = 0; y < h; y++) {
    for (const x of [0, w - 1]) {
      total++;
      if (data[(y * w + x) * 4 + 3] < 128) clear++;
    }
  }
  return clear >= total * 0.5;
}

export function segmentGarment(img: RasterImage, opts: SegmentOptions = {}): GarmentCutout {
  const { width: w, height: h, data } = img;
  const n = w * h;
  const keepRatio = opts.keepRatio ?? 0.2;
  const transparent = hasTransparentBorder(img);
  const bg = transparent ? null : fitGarmentBackground(img);

  // 1. colour distance to the background model -> hard foreground mask
  const raw = new Uint8Array(n);
  const threshold = bg ? Math.max(7, bg.spread * 3 + 3) : 0;
  const model = new Float64Array(3);
  const lab1 = new Float64Array(3);
  // the background model is smooth: its Lab values on a coarse grid, interpolated per pixel
  const G = 8;
  const gw = Math.ceil(w / G) + 1;
  const gh = Math.ceil(h / G) + 1;
  const gridLab = new Float64Array(gw * gh * 3);
  if (bg) {
    const tmp = new Float64Array(3);
    for (let j = 0; j < gh; j++) {
      for (let i = 0; i < gw; i++) {
        bg.model.at(Math.min(w - 1, i * G), Math.min(h - 1, j * G), model);
        srgbToLab(Math.round(model[0]), Math.round(model[1]), Math.round(model[2]), tmp);
        gridLab.set(tmp, (j * gw + i) * 3);
      }
    }
  }
  for (let y = 0; y < h; y++) {
    const j = Math.min(gh - 2, Math.floor(y / G));
    const ty = Math.min(1, (y - j * G) / G);
    for (let x = 0; x < w; x++) {
      const p = y * w + x;
      const i = p * 4;
      if (!bg) {
        raw[p] = data[i + 3] >= 128 ? 255 : 0;
        continue;
      }
      if (data[i + 3] < 128) continue;
      const gi = Math.min(gw - 2, Math.floor(x / G));
      const tx = Math.min(1, (x - gi * G) / G);
      const k00 = (j * gw + gi) * 3;
      const k10 = k00 + 3;
      const k01 = k00 + gw * 3;
      const k11 = k01 + 3;
      srgbToLab(data[i], data[i + 1], data[i + 2], lab1);
      let d2 = 0;
      for (let c = 0; c < 3; c++) {
        const m = (gridLab[k00 + c] * (1 - tx) + gridLab[k10 + c] * tx) * (1 - ty) + (gridLab[k01 + c] * (1 - tx) + gridLab[k11 + c] * tx) * ty;
        d2 += (lab1[c] - m) ** 2;
      }
      raw[p] = d2 > threshold * threshold ? 255 : 0;
    }
  }

  // 2. clean-up: remove specks, seal seams, fill enclosed holes (prints matching the background)
  const diag = Math.hypot(w, h);
  // disks, and closings that do not join the garment to the frame
  const disk = { shape: 'disk' } as const;
  const padded = { shape: 'disk', border: 'pad' } as const;
  let mask = open(raw, w, h, Math.max(1, Math.round(diag * 0.002)), disk);
  // a 1 px closing only: a larger one fills the narrow top of the gap between trouser legs
  mask = close(mask, w, h, 1, padded);
  // garment parts as light as the background (white laces, a white stripe) open onto the
  // outline through narrow gaps: regions enclosed once those gaps are sealed belong to the garment
  const sealed = close(mask, w, h, Math.max(2, Math.round(diag * 0.016)), padded);
  const enclosed = fillHoles(sealed, w, h);
  for (let i = 0; i < n; i++) if (enclosed[i] && !sealed[i]) mask[i] = 255;
  mask = fillHoles(mask, w, h);

  // 3. keep the largest component and those comparable to it (8-connected)
  const { labels: compLabels, components } = labelComponents(mask, w, h, { order: 'area' });
  const largest = components.length ? components[0].area : 0;
  if (largest < n * 0.005) throw new FitroomError('IMAGE_INVALID', 'No garment could be separated from the image background', { retryable: false });
  const kept = components.filter((c) => c.area >= largest * keepRatio && c.area >= n * 0.002);
  const remap = new Int32Array(components.length + 1).fill(-1);
  kept.forEach((c, k) => (remap[c.label] = k));
  const labels = new Int32Array(n).fill(-1);
  const finalMask = new Uint8Array(n);
  for (let p = 0; p < n; p++) {
    const k = remap[compLabels[p]];
    if (k >= 0) {
      labels[p] = k;
      finalMask[p] = 255;
    }
  }

  // 4. soft matte and colour decontamination in a thin band along the outline
  const interior = erode(finalMask, w, h, 2, disk);
  const out = new Uint8Array(n * 4);
  const R = 3;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = y * w + x;
      const i = p * 4;
      if (interior[p]) {
        out[i] = data[i];
        out[i + 1] = data[i + 1];
        out[i + 2] = data[i + 2];
        out[i + 3] = transparent ? data[i + 3] : 255;
        continue;
      }
      // near the outline of a kept component (inside, or just outside where edge pixels blend)
      let near = finalMask[p] !== 0;
      if (!near && raw[p]) {
        for (let dy = -1; dy <= 1 && !near; dy++) {
          for (let dx = -1; dx <= 1 && !near; dx++) {
            const nx = x + dx;
            const ny = y + dy;
            if (nx >= 0 && ny >= 0 && nx < w && ny < h && finalMask[ny * w + nx]) near = true;
          }
        }
      }
      if (!near) continue;
      // foreground estimate: mean of interior pixels nearby
      let fr = 0;
      let fg = 0;
      let fb = 0;
      let cnt = 0;
      for (let dy = -R; dy <= R; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= h) continue;
        for (let dx = -R; dx <= R; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= w) continue;
          const q = ny * w + nx;
          if (!interior[q]) continue;
          fr += data[q * 4];
          fg += data[q * 4 + 1];
          fb += data[q * 4 + 2];
          cnt++;
        }
      }
      if (transparent || !bg) {
        out[i] = data[i];
        out[i + 1] = data[i + 1];
        out[i + 2] = data[i + 2];
        out[i + 3] = data[i + 3];
        continue;
      }
      if (cnt === 0) {
        fr = data[i];
        fg = data[i + 1];
        fb = data[i + 2];
      } else {
        fr /= cnt;
        fg /= cnt;
        fb /= cnt;
      }
      bg.model.at(x, y, model);
      // alpha: projection of (C - B) onto (F - B), the colour-line assumption
      const ex = fr - model[0];
      const ey = fg - model[1];
      const ez = fb - model[2];
      const len2 = ex * ex + ey * ey + ez * ez;
      const projected = len2 > 25 ? ((data[i] - model[0]) * ex + (data[i + 1] - model[1]) * ey + (data[i + 2] - model[2]) * ez) / len2 : finalMask[p] ? 1 : 0;
      const a = Math.max(0, Math.min(1, projected));
      if (a <= 0.02) continue;
      out[i] = Math.round(Math.max(0, Math.min(255, cnt ? fr : data[i])));
      out[i + 1] = Math.round(Math.max(0, Math.min(255, cnt ? fg : data[i + 1])));
      out[i + 2] = Math.round(Math.max(0, Math.min(255, cnt ? fb : data[i + 2])));
      out[i + 3] = Math.round(a * 255);
    }
  }
  return {
    image: { width: w, height: h, data: out },
    mask: finalMask,
    labels,
    components: kept.map((c) => ({ area: c.area, box: [c.x0, c.y0, c.x1, c.y1] })),
  };
}
