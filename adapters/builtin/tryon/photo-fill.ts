/**
 * Plausible fills for what a new garment leaves visible of the old one on a person photo: the
 * person's skin (measured on the photo) or the background beside the body in the same row.
 */
import { distanceTransform } from '../raster/distance-transform.ts';
import { maskBounds } from '../raster/mask.ts';
import { PERSON_PART, type PersonBody } from '../../../core/ports/person-analyzer.ts';
import { isSkin } from '../body/face.ts';
import { deltaE76, srgbToLab } from './color.ts';

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

/** Luminance detail (pixel minus its 5x5 mean) std over `mask` pixels of an sRGB image: the texture's strength. */
function detailStd(img: Uint8Array, width: number, mask: Uint8Array, box: [number, number, number, number]): number {
  const lumAt = (i: number) => 0.299 * img[i * 4] + 0.587 * img[i * 4 + 1] + 0.114 * img[i * 4 + 2];
  const devs: number[] = [];
  const height = mask.length / width;
  for (let y = Math.max(2, box[1]); y < Math.min(height - 2, box[3]); y += 2) {
    for (let x = Math.max(2, box[0]); x < Math.min(width - 2, box[2]); x += 2) {
      const i = y * width + x;
      if (!mask[i]) continue;
      let s = 0;
      let s2 = 0;
      let c = 0;
      for (let dy = -2; dy <= 2; dy++) {
        for (let dx = -2; dx <= 2; dx++) {
          const j = i + dy * width + dx;
          if (!mask[j]) continue;
          const v = lumAt(j);
          s += v;
          s2 += v * v;
          c++;
        }
      }
      if (c >= 12) devs.push(Math.sqrt(Math.max(0, s2 / c - (s / c) ** 2)));
    }
  }
  return devs.length ? median(devs) : 1.5;
}

/**
 * The membrane takes the colour of whatever skin borders the gap (an armpit's shadow, a hand, the
 * reddish edge of an old sleeve), which can be far from the person's skin. Inside the gap its colour
 * moves towards the person's own skin tone (the median of face, neck and arms, linear RGB, de-shaded
 * like the membrane), fully from about 8 px in, so the border still joins the skin around it.
 */
function towardsTone(values: Float32Array, region: Uint8Array, w: number, box: [number, number, number, number], tone: readonly number[]): void {
  const [bx0, by0, bx1, by1] = box;
  const bw = bx1 - bx0;
  const bh = by1 - by0;
  const crop = new Uint8Array(bw * bh);
  for (let y = 0; y < bh; y++) for (let x = 0; x < bw; x++) crop[y * bw + x] = region[(y + by0) * w + x + bx0];
  const depth = distanceTransform(crop, bw, bh, 'unset');
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      const j = y * bw + x;
      if (!crop[j]) continue;
      const t = 0.85 * Math.min(1, depth[j] / 8);
      const i = (y + by0) * w + x + bx0;
      for (let c = 0; c < 3; c++) values[i * 3 + c] = values[i * 3 + c] * (1 - t) + tone[c] * t;
    }
  }
}

/**
 * Repaints `fill` pixels of the canvas (linear RGB) with synthesised skin (1) or background (2).
 * Skin: a membrane (pull-push) of the person's own visible skin colours (`skinSource`), so it
 * joins the skin around it without a seam, shaded across the limb (darker towards the person's
 * outline), with luminance noise matched to the visible skin's own local texture. Background: a
 * membrane of the backdrop around (its gradient) with the backdrop's own noise. Seeded: the same
 * inputs give the same pixels.
 */
export function synthesiseFill(canvas: Float32Array, fill: Uint8Array, body: PersonBody, skinSource: Uint8Array, edgeDistance: Float32Array, limbRadius: number, skinTone?: readonly number[]): void {
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
    const box: [number, number, number, number] = [Math.max(0, bounds.x0 - pad), Math.max(0, bounds.y0 - pad), Math.min(w, bounds.x1 + 1 + pad), Math.min(h, bounds.y1 + 1 + pad)];
    // the source: visible skin (de-shaded by the same edge factor), or the backdrop beside the body
    src.fill(0);
    const shadeAt = (i: number) => (kind === 1 ? 0.8 + 0.2 * Math.min(1, edgeDistance[i] / Math.max(1, limbRadius)) ** 0.5 : 1);
    const [bx0, by0, bx1, by1] = box;
    for (let y = by0; y < by1; y++) {
      for (let x = bx0; x < bx1; x++) {
        const i = y * w + x;
        if (!region[i] && (kind === 1 ? skinSource[i] : !body.mask[i])) src[i] = 1;
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
      // nothing of the source near: the source's median over the whole photo
      const idx: number[] = [];
      for (let i = 0; i < n; i += 3) if (kind === 1 ? skinSource[i] : !body.mask[i]) idx.push(i);
      if (!idx.length) continue;
      const med = [0, 1, 2].map((c) => median(idx.map((i) => canvas[i * 3 + c])));
      for (let i = 0; i < n; i++) if (region[i]) for (let c = 0; c < 3; c++) canvas[i * 3 + c] = med[c];
      continue;
    }
    pullPush(values, weight, w, 3, box);
    if (kind === 1 && skinTone) towardsTone(values, region, w, box, skinTone);
    const std = detailStd(img, w, src, box);
    // noise from a hash of the position (seeded, so the same inputs give the same pixels),
    // averaged with its neighbours' for a grain of about two pixels, like skin and sensor grain
    const seed = 0x5eed + kind * 7919;
    const hash = (x: number, y: number) => {
      let t = Math.imul(x + 1, 0x27d4eb2d) ^ Math.imul(y + 1, 0x165667b1) ^ seed;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
    };
    for (let y = by0; y < by1; y++) {
      for (let x = bx0; x < bx1; x++) {
        const i = y * w + x;
        if (!region[i]) continue;
        // uniform (std 0.29) and two neighbours at half weight: std about 0.5 * 0.29 * 2 = 0.29
        const nz = (hash(x, y) + 0.5 * (hash(x - 1, y) + hash(x, y - 1))) * 1.414;
        const sh = shadeAt(i);
        let lum = 0;
        for (let c = 0; c < 3; c++) lum += values[i * 3 + c] * sh * [0.2126, 0.7152, 0.0722][c];
        // the noise std is in sRGB levels: converted to a relative change of linear light (gamma ~2.2)
        const srgbLum = 255 * Math.max(1e-4, lum) ** (1 / 2.2);
        const gain = ((srgbLum + nz * 2 * std) / srgbLum) ** 2.2;
        for (let c = 0; c < 3; c++) canvas[i * 3 + c] = Math.max(0, values[i * 3 + c] * sh * gain);
      }
    }
  }
}
