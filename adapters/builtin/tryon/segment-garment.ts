/**
 * Garment segmentation from a packshot: a smooth background model fitted to the image border, a
 * colour-distance matte, morphological clean-up, hole filling and the largest component(s).
 * Transparent packshots use their own alpha instead of the background model.
 */
import type { RasterImage } from '../../../core/images.ts';
import { FitroomError } from '../../../core/errors.ts';
import { deltaE76, srgbToLab } from './color.ts';
import { close, components, erode, fillHoles, open } from './mask-ops.ts';

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

type Poly = Float64Array; // 6 coefficients: 1, u, v, u^2, uv, v^2 (u, v in 0..1)

function basis(u: number, v: number, out: Float64Array): void {
  out[0] = 1;
  out[1] = u;
  out[2] = v;
  out[3] = u * u;
  out[4] = u * v;
  out[5] = v * v;
}

/** Least squares of a quadratic surface through weighted samples (6x6 normal equations). */
function fitQuadratic(us: number[], vs: number[], values: number[], use: Uint8Array): Poly {
  const A = new Float64Array(36);
  const b = new Float64Array(6);
  const phi = new Float64Array(6);
  for (let i = 0; i < us.length; i++) {
    if (!use[i]) continue;
    basis(us[i], vs[i], phi);
    for (let r = 0; r < 6; r++) {
      b[r] += phi[r] * values[i];
      for (let c = 0; c < 6; c++) A[r * 6 + c] += phi[r] * phi[c];
    }
  }
  for (let r = 0; r < 6; r++) A[r * 6 + r] += 1e-6; // keeps a flat border solvable
  // Gaussian elimination with partial pivoting
  for (let col = 0; col < 6; col++) {
    let piv = col;
    for (let r = col + 1; r < 6; r++) if (Math.abs(A[r * 6 + col]) > Math.abs(A[piv * 6 + col])) piv = r;
    if (piv !== col) {
      for (let c = 0; c < 6; c++) [A[col * 6 + c], A[piv * 6 + c]] = [A[piv * 6 + c], A[col * 6 + c]];
      [b[col], b[piv]] = [b[piv], b[col]];
    }
    for (let r = col + 1; r < 6; r++) {
      const f = A[r * 6 + col] / A[col * 6 + col];
      for (let c = col; c < 6; c++) A[r * 6 + c] -= f * A[col * 6 + c];
      b[r] -= f * b[col];
    }
  }
  const x = new Float64Array(6);
  for (let r = 5; r >= 0; r--) {
    let s = b[r];
    for (let c = r + 1; c < 6; c++) s -= A[r * 6 + c] * x[c];
    x[r] = s / A[r * 6 + r];
  }
  return x;
}

function evalPoly(p: Poly, phi: Float64Array): number {
  return p[0] * phi[0] + p[1] * phi[1] + p[2] * phi[2] + p[3] * phi[3] + p[4] * phi[4] + p[5] * phi[5];
}

interface BackgroundModel {
  rgb(x: number, y: number, out: Float64Array): void;
  /** Typical colour distance of background pixels from the model. */
  spread: number;
}

/**
 * Fits the background colour as a quadratic surface per channel to the border strip, trimming
 * outliers twice (garment parts that touch the border, dust, text).
 */
function fitBackground(img: RasterImage): BackgroundModel {
  const { width: w, height: h, data } = img;
  const strip = Math.max(2, Math.round(Math.min(w, h) * 0.02));
  const step = Math.max(1, Math.floor((2 * (w + h) * strip) / 6000));
  const us: number[] = [];
  const vs: number[] = [];
  const ch: number[][] = [[], [], []];
  let k = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (x >= strip && x < w - strip && y >= strip && y < h - strip) {
        x = w - strip - 1;
        continue;
      }
      if (k++ % step) continue;
      const i = (y * w + x) * 4;
      us.push(x / w);
      vs.push(y / h);
      ch[0].push(data[i]);
      ch[1].push(data[i + 1]);
      ch[2].push(data[i + 2]);
    }
  }
  const use = new Uint8Array(us.length).fill(1);
  const phi = new Float64Array(6);
  let polys: Poly[] = [];
  let spread = 0;
  const lab1 = [0, 0, 0];
  const lab2 = [0, 0, 0];
  for (let iter = 0; iter < 3; iter++) {
    polys = ch.map((values) => fitQuadratic(us, vs, values, use));
    const dist: number[] = [];
    for (let i = 0; i < us.length; i++) {
      basis(us[i], vs[i], phi);
      srgbToLab(ch[0][i], ch[1][i], ch[2][i], lab1);
      srgbToLab(evalPoly(polys[0], phi), evalPoly(polys[1], phi), evalPoly(polys[2], phi), lab2);
      dist.push(deltaE76(lab1, lab2));
    }
    const sorted = dist.filter((_, i) => use[i]).sort((a, b) => a - b);
    // robust spread: the 80th percentile of inlier distances
    spread = sorted[Math.floor(sorted.length * 0.8)] ?? 0;
    const cut = Math.max(6, spread * 3);
    for (let i = 0; i < us.length; i++) use[i] = dist[i] <= cut ? 1 : 0;
  }
  return {
    rgb(x, y, out) {
      basis(x / w, y / h, phi);
      out[0] = evalPoly(polys[0], phi);
      out[1] = evalPoly(polys[1], phi);
      out[2] = evalPoly(polys[2], phi);
    },
    spread,
  };
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
  const bg = transparent ? null : fitBackground(img);

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
        bg.rgb(Math.min(w - 1, i * G), Math.min(h - 1, j * G), model);
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
  let mask = open(raw, w, h, Math.max(1, Math.round(diag * 0.002)));
  // a 1 px closing only: a larger one fills the narrow top of the gap between trouser legs
  mask = close(mask, w, h, 1);
  // garment parts as light as the background (white laces, a white stripe) open onto the
  // outline through narrow gaps: regions enclosed once those gaps are sealed belong to the garment
  const sealed = close(mask, w, h, Math.max(2, Math.round(diag * 0.016)));
  const enclosed = fillHoles(sealed, w, h);
  for (let i = 0; i < n; i++) if (enclosed[i] && !sealed[i]) mask[i] = 255;
  mask = fillHoles(mask, w, h);

  // 3. keep the largest component and those comparable to it
  const comps = components(mask, w, h);
  const order = comps.areas.map((a, i) => i).sort((a, b) => comps.areas[b] - comps.areas[a]);
  const largest = order.length ? comps.areas[order[0]] : 0;
  if (largest < n * 0.005) throw new FitroomError('IMAGE_INVALID', 'No garment could be separated from the image background', { retryable: false });
  const kept = order.filter((i) => comps.areas[i] >= largest * keepRatio && comps.areas[i] >= n * 0.002);
  const remap = new Int32Array(comps.areas.length).fill(-1);
  kept.forEach((c, k) => (remap[c] = k));
  const labels = new Int32Array(n).fill(-1);
  const finalMask = new Uint8Array(n);
  for (let p = 0; p < n; p++) {
    const l = comps.labels[p];
    if (l >= 0 && remap[l] >= 0) {
      labels[p] = remap[l];
      finalMask[p] = 255;
    }
  }

  // 4. soft matte and colour decontamination in a thin band along the outline
  const interior = erode(finalMask, w, h, 2);
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
      bg.rgb(x, y, model);
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
    components: kept.map((c) => ({ area: comps.areas[c], box: comps.boxes[c] })),
  };
}
