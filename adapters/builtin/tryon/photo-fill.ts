/**
 * Plausible fills for what a new garment leaves visible of the old one on a person photo: the
 * person's skin, synthesised from their own visible skin (its colour, texture and the limb's
 * shading), or the backdrop around the body (its gradient and grain).
 */
import { distanceTransform } from '../raster/distance-transform.ts';
import { maskBounds } from '../raster/mask.ts';
import { dilate, maxFilter } from '../raster/morphology.ts';
import { PERSON_PART, type PersonBody } from '../../../core/ports/person-analyzer.ts';
import { isSkin } from '../body/face.ts';
import { deltaE76, SRGB_TO_LINEAR, srgbToLab } from './color.ts';
import type { Layer } from './warp-piece.ts';

const median = (v: number[]) => {
  const s = v.slice().sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : 0;
};

export interface Skin {
  /** sRGB median of the skin pixels found. */
  srgb: number[];
  lab: number[];
  /** Linear-light RGB of `srgb`. */
  linear: number[];
}

/**
 * The person's skin colour: the median of skin-like pixels of the neck, face and arms (pixels the
 * caller marks in `exclude`, such as the old garment, left out); null when none is found.
 */
export function skinColour(body: PersonBody & { parts: Uint8Array }, toLinear: ArrayLike<number>, exclude?: Uint8Array): Skin | null {
  const d = body.image.data;
  const parts = body.parts;
  const idx: number[] = [];
  for (let i = 0; i < parts.length; i += 2) {
    const p = parts[i];
    if ((p === PERSON_PART.neck || p === PERSON_PART.face || p === PERSON_PART.arm) && !exclude?.[i] && isSkin(d[i * 4], d[i * 4 + 1], d[i * 4 + 2])) idx.push(i);
  }
  if (idx.length < 30) return null;
  // 8-bit channels: the median from a histogram (no sort of a large array)
  const srgb = [0, 1, 2].map((c) => {
    const hist = new Uint32Array(256);
    for (const i of idx) hist[d[i * 4 + c]]++;
    let acc = 0;
    for (let v = 0; v < 256; v++) if ((acc += hist[v]) > idx.length >> 1) return v;
    return 255;
  });
  return { srgb, lab: Array.from(srgbToLab(srgb[0], srgb[1], srgb[2], [0, 0, 0])), linear: srgb.map((v) => toLinear[Math.round(v)] ?? 0.5) };
}

/** Whether pixel `i` of the photo looks like this skin (or like skin at all). */
export function looksLikeSkin(body: PersonBody, i: number, skin: Skin | null, lab = [0, 0, 0]): boolean {
  const d = body.image.data;
  if (skin) {
    srgbToLab(d[i * 4], d[i * 4 + 1], d[i * 4 + 2], lab);
    if (deltaE76(lab, skin.lab) < 14) return true;
  }
  return isSkin(d[i * 4], d[i * 4 + 1], d[i * 4 + 2]);
}

/**
 * The nearest pixel outside the person in row `y` from `x` (either side), as an index, or -1.
 * `avoid` marks further pixels not to take (e.g. ones already repainted).
 */
export function backgroundBeside(mask: Uint8Array, w: number, x: number, y: number, avoid?: Uint8Array): number {
  for (let d = 1; d < w; d++) {
    const xl = x - d;
    const xr = x + d;
    if (xl < 0 && xr >= w) break;
    if (xl >= 0 && !mask[y * w + xl] && !avoid?.[y * w + xl]) return y * w + xl;
    if (xr < w && !mask[y * w + xr] && !avoid?.[y * w + xr]) return y * w + xr;
  }
  return -1;
}

/**
 * Pull-push interpolation (a membrane fill): `values` (c channels per pixel) are known where
 * `weight` > 0; every other pixel gets a smooth blend of the known values around it, coarse levels
 * filling what fine ones cannot reach. Runs on the box [x0, y0, x1, y1) only. In place.
 */
export function pullPush(values: Float32Array, weight: Float32Array, width: number, c: number, box: [number, number, number, number]): void {
  const [x0, y0, x1, y1] = box;
  const bw = x1 - x0;
  const bh = y1 - y0;
  if (bw <= 0 || bh <= 0) return;
  // level 0: the box, weights clamped to 0..1, values premultiplied by weight
  const levels: { w: number; h: number; v: Float32Array; a: Float32Array }[] = [];
  let v = new Float32Array(bw * bh * c);
  let a = new Float32Array(bw * bh);
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      const i = (y + y0) * width + x + x0;
      const k = y * bw + x;
      const wt = Math.min(1, weight[i]);
      a[k] = wt;
      for (let ch = 0; ch < c; ch++) v[k * c + ch] = values[i * c + ch] * wt;
    }
  }
  levels.push({ w: bw, h: bh, v, a });
  let w = bw;
  let h = bh;
  while (w > 1 || h > 1) {
    const nw = Math.max(1, (w + 1) >> 1);
    const nh = Math.max(1, (h + 1) >> 1);
    const nv = new Float32Array(nw * nh * c);
    const na = new Float32Array(nw * nh);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const k = y * w + x;
        const q = (y >> 1) * nw + (x >> 1);
        na[q] += a[k];
        for (let ch = 0; ch < c; ch++) nv[q * c + ch] += v[k * c + ch];
      }
    }
    // saturate: a coarse pixel with enough support counts as known
    for (let q = 0; q < nw * nh; q++) {
      if (na[q] > 1) {
        const s = 1 / na[q];
        for (let ch = 0; ch < c; ch++) nv[q * c + ch] *= s;
        na[q] = 1;
      }
    }
    levels.push({ w: nw, h: nh, v: nv, a: na });
    v = nv;
    a = na;
    w = nw;
    h = nh;
  }
  // push: each level's missing weight is filled from the (bilinearly upsampled) coarser level
  for (let l = levels.length - 2; l >= 0; l--) {
    const fine = levels[l];
    const coarse = levels[l + 1];
    for (let y = 0; y < fine.h; y++) {
      const cy = Math.max(0, Math.min(coarse.h - 1, (y - 0.5) / 2));
      const j0 = Math.floor(cy);
      const j1 = Math.min(coarse.h - 1, j0 + 1);
      const ty = cy - j0;
      for (let x = 0; x < fine.w; x++) {
        const k = y * fine.w + x;
        const missing = 1 - fine.a[k];
        if (missing <= 0) continue;
        const cx = Math.max(0, Math.min(coarse.w - 1, (x - 0.5) / 2));
        const i0 = Math.floor(cx);
        const i1 = Math.min(coarse.w - 1, i0 + 1);
        const tx = cx - i0;
        const w00 = (1 - tx) * (1 - ty);
        const w01 = tx * (1 - ty);
        const w10 = (1 - tx) * ty;
        const w11 = tx * ty;
        const i00 = j0 * coarse.w + i0;
        const i01 = j0 * coarse.w + i1;
        const i10 = j1 * coarse.w + i0;
        const i11 = j1 * coarse.w + i1;
        const ca = w00 * coarse.a[i00] + w01 * coarse.a[i01] + w10 * coarse.a[i10] + w11 * coarse.a[i11];
        if (ca <= 0) continue;
        const f = missing / ca;
        for (let ch = 0; ch < c; ch++) {
          const cv = w00 * coarse.v[i00 * c + ch] + w01 * coarse.v[i01 * c + ch] + w10 * coarse.v[i10 * c + ch] + w11 * coarse.v[i11 * c + ch];
          fine.v[k * c + ch] += f * cv;
        }
        fine.a[k] = 1;
      }
    }
  }
  const top = levels[0];
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      const i = (y + y0) * width + x + x0;
      if (weight[i] >= 1) continue;
      const k = y * bw + x;
      const s = top.a[k] > 0 ? 1 / top.a[k] : 0;
      for (let ch = 0; ch < c; ch++) values[i * c + ch] = top.v[k * c + ch] * s;
    }
  }
}

type Box = [number, number, number, number];

const lumOf = (img: Uint8Array, i: number) => 0.299 * img[i * 4] + 0.587 * img[i * 4 + 1] + 0.114 * img[i * 4 + 2];

/**
 * Median over `mask` pixels (every `step`-th row and column) of the 5x5 luminance std of an sRGB
 * image, each window counting mask pixels only: the strength of a surface's fine texture, as a
 * viewer (and the realism measure) sees it. NaN when too few pixels are found.
 */
export function localStd(img: Uint8Array, width: number, mask: Uint8Array, box: Box, step = 2): number {
  const height = mask.length / width;
  const stds: number[] = [];
  for (let y = Math.max(2, box[1]); y < Math.min(height - 2, box[3]); y += step) {
    for (let x = Math.max(2, box[0]); x < Math.min(width - 2, box[2]); x += step) {
      const i = y * width + x;
      if (!mask[i]) continue;
      let s = 0;
      let s2 = 0;
      let c = 0;
      for (let dy = -2; dy <= 2; dy++) {
        for (let dx = -2; dx <= 2; dx++) {
          const j = i + dy * width + dx;
          if (!mask[j]) continue;
          const v = lumOf(img, j);
          s += v;
          s2 += v * v;
          c++;
        }
      }
      if (c >= 12) stds.push(Math.sqrt(Math.max(0, s2 / c - (s / c) ** 2)));
    }
  }
  return stds.length >= 20 ? median(stds) : NaN;
}

/** A seeded hash of a position in -0.5..0.5 (the same inputs give the same pixels). */
function hash(x: number, y: number, seed: number): number {
  let t = Math.imul(x + 1, 0x27d4eb2d) ^ Math.imul(y + 1, 0x165667b1) ^ seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
}

/**
 * Grain for a synthesised surface: fine per-pixel noise plus a softer component interpolated from
 * a 3 px lattice (skin's pores and blotches, a backdrop's sensor grain and paper), about unit std.
 */
function grain(x: number, y: number, seed: number): number {
  const gx = x / 3;
  const gy = y / 3;
  const x0 = Math.floor(gx);
  const y0 = Math.floor(gy);
  const tx = gx - x0;
  const ty = gy - y0;
  const sx = tx * tx * (3 - 2 * tx);
  const sy = ty * ty * (3 - 2 * ty);
  const a = hash(x0, y0, seed + 1);
  const b = hash(x0 + 1, y0, seed + 1);
  const c = hash(x0, y0 + 1, seed + 1);
  const d = hash(x0 + 1, y0 + 1, seed + 1);
  const soft = (a + (b - a) * sx) * (1 - sy) + (c + (d - c) * sx) * sy;
  return 2.4 * hash(x, y, seed) + 3 * soft;
}

/** The 5x5 local std of `grain` itself over a patch, measured once: what scales it to a target std. */
const GRAIN_STD = (() => {
  const n = 64;
  const img = new Uint8Array(n * n * 4);
  const mask = new Uint8Array(n * n).fill(1);
  for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) img[(y * n + x) * 4] = img[(y * n + x) * 4 + 1] = img[(y * n + x) * 4 + 2] = Math.round(128 + 20 * grain(x, y, 0x5eed));
  return localStd(img, n, mask, [0, 0, n, n], 1) / 20;
})();

/** `region` cropped to `box`, and each of its pixels' distance to the crop's unset pixels. */
function depthInside(region: Uint8Array, w: number, box: Box) {
  const [bx0, by0, bx1, by1] = box;
  const bw = bx1 - bx0;
  const bh = by1 - by0;
  const crop = new Uint8Array(bw * bh);
  for (let y = 0; y < bh; y++) for (let x = 0; x < bw; x++) crop[y * bw + x] = region[(y + by0) * w + x + bx0];
  return { crop, depth: distanceTransform(crop, bw, bh, 'unset'), bw, bh };
}

/**
 * The membrane takes the colour of whatever skin borders the gap, which can be far from the
 * person's skin (a hand, the shaded rim of an arm). Inside the gap its colour moves towards the
 * person's own skin tone (the median of face, neck and arms, linear RGB, de-shaded like the
 * membrane), fully from about 4 px in, so the border still joins the skin around it.
 */
function towardsTone(values: Float32Array, region: Uint8Array, w: number, box: Box, tone: readonly number[]): void {
  const [bx0, by0] = box;
  const { crop, depth, bw, bh } = depthInside(region, w, box);
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      const j = y * bw + x;
      if (!crop[j]) continue;
      const t = 0.85 * Math.min(1, depth[j] / 4);
      const i = (y + by0) * w + x + bx0;
      for (let c = 0; c < 3; c++) values[i * 3 + c] = values[i * 3 + c] * (1 - t) + tone[c] * t;
    }
  }
}

/**
 * How far the fill spans, per pixel of `box`: 0 in a sliver, 1 where the fill is 12 px across or
 * more within 6 px (the depth inside it, as a distance transform, and its local maximum).
 */
function fillSpan(region: Uint8Array, w: number, box: Box): Float32Array {
  const { depth, bw, bh } = depthInside(region, w, box);
  const thick = maxFilter(depth, bw, bh, 6);
  for (let k = 0; k < thick.length; k++) thick[k] = Math.min(1, Math.max(0, (thick[k] - 1.5) / 4.5));
  return thick;
}

/** Shading across a limb: 1 on its ridge, down to 0.68 (linear light) at the person's outline (a rounded profile). */
const limbShade = (edgeDistance: number, limbRadius: number) => {
  const t = Math.min(1, edgeDistance / Math.max(1, limbRadius));
  return 0.68 + 0.32 * Math.sqrt(t * (2 - t));
};

/**
 * The synthesised skin's outline against the backdrop is a per-pixel decision: pixels on either
 * side of it (skin fill beside backdrop, backdrop beside skin fill) take the mean of their 3x3
 * neighbourhood, a soft edge of about 2 px like the photo's own.
 */
function softenOutline(canvas: Float32Array, fill: Uint8Array, isBackdrop: (i: number) => boolean, w: number, h: number, box: Box): void {
  const edge: number[] = [];
  const marked = new Set<number>();
  for (let y = Math.max(2, box[1]); y < Math.min(h - 2, box[3]); y++) {
    for (let x = Math.max(2, box[0]); x < Math.min(w - 2, box[2]); x++) {
      const i = y * w + x;
      if (fill[i] !== 1) continue;
      for (const j of [i - 1, i + 1, i - w, i + w]) {
        if (!isBackdrop(j)) continue;
        for (const k of [i, j]) {
          if (marked.has(k)) continue;
          marked.add(k);
          edge.push(k);
        }
      }
    }
  }
  const mean = new Float32Array(edge.length * 3);
  edge.forEach((i, k) => {
    for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) for (let c = 0; c < 3; c++) mean[k * 3 + c] += canvas[(i + dy * w + dx) * 3 + c] / 9;
  });
  edge.forEach((i, k) => {
    for (let c = 0; c < 3; c++) canvas[i * 3 + c] = mean[k * 3 + c];
  });
}

/**
 * Repaints `fill` pixels of the canvas (linear RGB) with synthesised skin (1) or background (2).
 * Skin: a membrane (pull-push) of the person's own visible skin colours (`skinSource`), so it
 * joins the skin around it without a seam, shaded across the limb (darker towards the person's
 * outline, over `limbRadius` of the pixel's limb), with grain whose local 5x5 std matches that of the person's skin (`skinStd`, sRGB
 * levels). Background: a membrane of the backdrop around (`backdropSource`, else what lies outside
 * the person's mask: its gradient) with the backdrop's own grain. Seeded: the same inputs give the same pixels.
 */
export function synthesiseFill(canvas: Float32Array, fill: Uint8Array, body: PersonBody, skinSource: Uint8Array, edgeDistance: Float32Array, limbRadius: (i: number) => number, skinTone?: readonly number[], skinStd?: number, backdropSource?: Uint8Array): void {
  const { width: w, height: h } = body.image;
  const img = body.image.data;
  const n = w * h;
  const values = new Float32Array(n * 3);
  const weight = new Float32Array(n);
  const region = new Uint8Array(n);
  const src = new Uint8Array(n);
  for (const kind of [1, 2] as const) {
    let any = false;
    for (let i = 0; i < n; i++) {
      region[i] = fill[i] === kind ? 1 : 0;
      if (region[i]) any = true;
    }
    if (!any) continue;
    const pad = Math.round(Math.max(w, h) * 0.06);
    const bounds = maskBounds(region, w, h);
    if (!bounds) continue;
    const box: Box = [Math.max(0, bounds.x0 - pad), Math.max(0, bounds.y0 - pad), Math.min(w, bounds.x1 + 1 + pad), Math.min(h, bounds.y1 + 1 + pad)];
    // the source: visible skin (de-shaded by the same limb profile), or the backdrop beside the body
    src.fill(0);
    const [bx0, by0, bx1, by1] = box;
    // a fill that spans the limb is shaded across it; a sliver beside skin the photo shows (the rim
    // of an old top between garment and arm) takes its shade from that skin, through the membrane
    const spanBox: Box = [Math.max(0, bounds.x0 - 6), Math.max(0, bounds.y0 - 6), Math.min(w, bounds.x1 + 7), Math.min(h, bounds.y1 + 7)];
    const span = kind === 1 ? fillSpan(region, w, spanBox) : null;
    const shadeAt = (i: number) => {
      if (kind !== 1) return 1;
      const s = limbShade(edgeDistance[i], limbRadius(i));
      if (!region[i]) return s;
      const k = (Math.floor(i / w) - spanBox[1]) * (spanBox[2] - spanBox[0]) + (i % w) - spanBox[0];
      return 1 - (1 - s) * span![k];
    };
    for (let y = by0; y < by1; y++) {
      for (let x = bx0; x < bx1; x++) {
        const i = y * w + x;
        if (!region[i] && (kind === 1 ? skinSource[i] : backdropSource ? backdropSource[i] : !body.mask[i])) src[i] = 1;
      }
    }
    let known = 0;
    for (let y = by0; y < by1; y++) weight.fill(0, y * w + bx0, y * w + bx1);
    for (let y = by0; y < by1; y++) {
      for (let x = bx0; x < bx1; x++) {
        const i = y * w + x;
        if (!src[i]) continue;
        const s = 1 / shadeAt(i);
        for (let c = 0; c < 3; c++) values[i * 3 + c] = canvas[i * 3 + c] * s;
        weight[i] = 1;
        known++;
      }
    }
    if (known < 20) {
      // nothing of the source near: the source's median over the whole photo, then shaded below
      const idx: number[] = [];
      for (let i = 0; i < n; i += 3) if (kind === 1 ? skinSource[i] : !body.mask[i]) idx.push(i);
      if (!idx.length && !(kind === 1 && skinTone)) continue;
      const med = idx.length ? [0, 1, 2].map((c) => median(idx.map((i) => canvas[i * 3 + c]))) : skinTone!;
      for (let i = 0; i < n; i++) if (region[i]) for (let c = 0; c < 3; c++) values[i * 3 + c] = med[c];
    } else {
      pullPush(values, weight, w, 3, box);
      if (kind === 1 && skinTone) towardsTone(values, region, w, box, skinTone);
    }
    // the grain's strength: the person's skin texture, or the backdrop's own around the fill
    let std = kind === 1 ? (skinStd ?? NaN) : NaN;
    if (!Number.isFinite(std)) std = localStd(img, w, src, box);
    if (!Number.isFinite(std)) std = 1.5;
    const amp = std / GRAIN_STD;
    const seed = 0x5eed + kind * 7919;
    for (let y = by0; y < by1; y++) {
      for (let x = bx0; x < bx1; x++) {
        const i = y * w + x;
        if (!region[i]) continue;
        const sh = shadeAt(i);
        let lum = 0;
        for (let c = 0; c < 3; c++) lum += values[i * 3 + c] * sh * [0.2126, 0.7152, 0.0722][c];
        // the grain is in sRGB levels: converted to a relative change of linear light (gamma ~2.2)
        const srgbLum = 255 * Math.max(1e-4, lum) ** (1 / 2.2);
        const gain = (Math.max(0, srgbLum + amp * grain(x, y, seed)) / srgbLum) ** 2.2;
        for (let c = 0; c < 3; c++) canvas[i * 3 + c] = Math.max(0, values[i * 3 + c] * sh * gain);
      }
    }
  }
}

/**
 * What stays visible of the person's own top after the new one is laid (straps, armholes, a
 * higher neckline, a longer hem, the fringe under the new top's soft edge) is repainted: with the
 * person's skin on the arms, neck, shoulders and within the new top's width below it, elsewhere
 * (an old top wider than the new one, the person's outline) with the backdrop. Pixels of the
 * old top's rim that show the backdrop or skin already are left as they are. Returns the fill map
 * (1 skin, 2 background).
 */
export function uncoverOldTop(canvas: Float32Array, layer: Layer, oldTop: Uint8Array, body: PersonBody & { parts: Uint8Array }): Uint8Array {
  const { width: w, height: h, data } = layer;
  const n = w * h;
  const parts = body.parts;
  const img = body.image.data;
  const L = body.landmarks;
  const sw = Math.hypot(L.leftShoulder.x - L.rightShoulder.x, L.leftShoulder.y - L.rightShoulder.y);
  const covered = (i: number) => data[i * 4 + 3] >= 0.99;
  // the old top's own outline pixels (mixed colours) go too: the region grows by 3 px
  const grown = dilate(oldTop, w, h, 3);
  const fill = new Uint8Array(n);
  // the new top's extent per row, and at its lowest row (its hem)
  const left = new Int32Array(h).fill(-1);
  const right = new Int32Array(h).fill(-1);
  let hemRow = -1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (data[(y * w + x) * 4 + 3] < 0.5) continue;
      if (left[y] < 0) left[y] = x;
      right[y] = x;
    }
    if (left[y] >= 0) hemRow = y;
  }
  const chestY = L.chestLeft.y;
  let bx0 = w;
  let by0 = h;
  let bx1 = -1;
  let by1 = -1;
  const la = [0, 0, 0];
  const lb = [0, 0, 0];
  const skin = skinColour(body, SRGB_TO_LINEAR, oldTop);
  // the backdrop's colour per row: the median of (every 4th of) the row's pixels outside the
  // person's mask; a pixel within 24 levels (sum over channels) of it shows the backdrop
  const rowRef = new Int16Array(h * 3).fill(-1);
  const backdropAt = (i: number) => {
    const y = Math.floor(i / w);
    if (rowRef[y * 3] === -1) {
      const v: number[][] = [[], [], []];
      for (let x = (y & 3); x < w; x += 4) if (!body.mask[y * w + x]) for (let c = 0; c < 3; c++) v[c].push(img[(y * w + x) * 4 + c]);
      for (let c = 0; c < 3; c++) rowRef[y * 3 + c] = v[0].length >= 4 ? median(v[c]) : -2;
    }
    if (rowRef[y * 3] < 0) return false;
    return Math.abs(img[i * 4] - rowRef[y * 3]) + Math.abs(img[i * 4 + 1] - rowRef[y * 3 + 1]) + Math.abs(img[i * 4 + 2] - rowRef[y * 3 + 2]) < 24;
  };
  // pixels of the person that show the backdrop (only the old top's rim is asked)
  const backdrop = new Uint8Array(n);
  for (let y = 0; y < h; y++) {
    const row = left[y] >= 0 ? y : hemRow;
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (!grown[i] || covered(i)) continue;
      const p = parts[i];
      if (p === PERSON_PART.face || p === PERSON_PART.hair || p === PERSON_PART.legs || p === PERSON_PART.feet) continue;
      // a rim pixel that is not the old top counts only where it is neither the person's skin nor
      // backdrop already (the old top's rim outside a tight mask is repainted too)
      if (!oldTop[i]) {
        srgbToLab(img[i * 4], img[i * 4 + 1], img[i * 4 + 2], la);
        if (skin ? deltaE76(la, skin.lab) < 12 : isSkin(img[i * 4], img[i * 4 + 1], img[i * 4 + 2])) continue;
        if (backdropAt(i)) {
          if (body.mask[i]) backdrop[i] = 1;
          continue;
        }
      }
      if (x < bx0) bx0 = x;
      if (x > bx1) bx1 = x;
      if (y < by0) by0 = y;
      if (y > by1) by1 = y;
      const within = row >= 0 && x >= left[row] && x <= right[row];
      fill[i] = !body.mask[i] || p === PERSON_PART.background ? 2 : p === PERSON_PART.arm || p === PERSON_PART.neck || y < chestY || within ? 1 : 2;
    }
  }
  if (bx1 < 0) return fill;
  // how deep each pixel lies inside the person (for the limb's shading), in the fill's box only;
  // backdrop seen inside the mask counts as outside
  const pad = Math.round(Math.max(w, h) * 0.06);
  const cx0 = Math.max(0, bx0 - pad);
  const cy0 = Math.max(0, by0 - pad);
  const cx1 = Math.min(w, bx1 + 1 + pad);
  const cy1 = Math.min(h, by1 + 1 + pad);
  const cw = cx1 - cx0;
  const ch = cy1 - cy0;
  const crop = new Uint8Array(cw * ch);
  const backdropSource = new Uint8Array(n);
  for (let y = 0; y < ch; y++) {
    for (let x = 0; x < cw; x++) {
      const i = (y + cy0) * w + x + cx0;
      const seen = backdropAt(i);
      if (seen && body.mask[i] && !oldTop[i] && fill[i] !== 1) backdrop[i] = 1;
      if (seen && !fill[i] && (!body.mask[i] || backdrop[i])) backdropSource[i] = 1;
      crop[y * cw + x] = body.mask[i] && !backdrop[i] ? 1 : 0;
    }
  }
  const dt = distanceTransform(crop, cw, ch, 'unset');
  const depth = new Float32Array(n);
  for (let y = 0; y < ch; y++) for (let x = 0; x < cw; x++) depth[(y + cy0) * w + x + cx0] = dt[y * cw + x];
  // a fill pixel on the person's outline (within 2.5 px of the backdrop) beside skin the photo
  // shows (the old top's rim along an arm or a shoulder) is backdrop: the skin's own outline
  // stays where it was rather than growing a rim of skin beside it
  const visibleSkin = (j: number) => {
    if (grown[j] || fill[j] || backdrop[j] || !body.mask[j]) return false;
    if (!skin) return isSkin(img[j * 4], img[j * 4 + 1], img[j * 4 + 2]);
    srgbToLab(img[j * 4], img[j * 4 + 1], img[j * 4 + 2], lb);
    return deltaE76(lb, skin.lab) < 20;
  };
  for (let y = cy0; y < cy1; y++) {
    for (let x = cx0; x < cx1; x++) {
      const i = y * w + x;
      if (fill[i] !== 1 || depth[i] > 2.5) continue;
      let beside = parts[i] !== PERSON_PART.arm;
      for (let dy = -4; dy <= 4 && !beside; dy++) {
        for (let dx = -4; dx <= 4 && !beside; dx++) {
          const xx = x + dx;
          const yy = y + dy;
          if (xx >= 0 && yy >= 0 && xx < w && yy < h && visibleSkin(yy * w + xx)) beside = true;
        }
      }
      if (beside) fill[i] = 2;
    }
  }
  // the person's visible skin the fill is grown from: skin of the arms, neck, face and torso near
  // the person's own tone (deep shadows, the outline's mixed pixels and backdrop left out)
  const skinSource = new Uint8Array(n);
  let sources = 0;
  for (const strict of [true, false]) {
    for (let y = cy0; y < cy1; y++) {
      for (let x = cx0; x < cx1; x++) {
        const i = y * w + x;
        const p = parts[i];
        if (!(p === PERSON_PART.arm || p === PERSON_PART.neck || p === PERSON_PART.face || p === PERSON_PART.torso) || grown[i] || fill[i] || backdrop[i]) continue;
        if (strict) {
          if (!skin || depth[i] < 2.5) continue;
          srgbToLab(img[i * 4], img[i * 4 + 1], img[i * 4 + 2], la);
          if (deltaE76(la, skin.lab) < 12) {
            skinSource[i] = 1;
            sources++;
          }
        } else if (isSkin(img[i * 4], img[i * 4 + 1], img[i * 4 + 2])) skinSource[i] = 1;
      }
    }
    if (sources >= 200) break;
  }
  // the texture to match: the person's own visible skin (face, neck, arms outside the old top)
  const own = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const p = parts[i];
    if ((p === PERSON_PART.arm || p === PERSON_PART.neck || p === PERSON_PART.face) && !oldTop[i] && isSkin(img[i * 4], img[i * 4 + 1], img[i * 4 + 2])) own[i] = 1;
  }
  const skinStd = localStd(img, w, own, [0, 0, w, h], 3);
  // an arm is a narrow cylinder, the torso a wide one: their shading falls off over different widths
  const radius = (i: number) => (parts[i] === PERSON_PART.arm ? 0.1 : 0.3) * sw;
  synthesiseFill(canvas, fill, body, skinSource, depth, radius, skin?.linear, skinStd, backdropSource);
  softenOutline(canvas, fill, (i) => fill[i] === 2 || (!fill[i] && (!body.mask[i] || backdrop[i] === 1)), w, h, [cx0, cy0, cx1, cy1]);
  return fill;
}
