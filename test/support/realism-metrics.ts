/**
 * Realism measures of a try-on result on a person photo (issue 26, point 7), beside the box
 * figures of tryon-metrics.ts:
 * - skinRealism: repainted skin has the texture (local 5x5 luminance std, 0.5-2x) of the person's
 *   own visible skin and, region by region, the colour (median, ΔE76 <= 8) of the visible skin
 *   it continues (within SKIN_RING of it);
 * - streakRatio: inside the garment, horizontal over vertical gradient energy, relative to the
 *   packshot's own ratio at the size the garment was drawn (within 1/1.5 .. 1.5; smears and
 *   shredding drive it off);
 * - edgeRatio: the garment outline's length over that of a smoothed outline (<= 1.15);
 * - oldGarmentShowing: share of the person's own top still showing, unchanged, outside the new
 *   garment (<= 3 %).
 * And a ground truth for the skin fill: heldOutSkin repaints skin the photo shows and compares.
 */
import type { RasterImage } from '../../core/images.ts';
import { deltaE76, linearToSrgb, SRGB_TO_LINEAR, srgbToLab } from '../../adapters/builtin/tryon/color.ts';
import type { LayerDiagnostics } from '../../adapters/builtin/tryon/diagnostics.ts';
import { streakRatio } from '../../adapters/builtin/tryon/quality-gate.ts';
import { faceSkinLab, isSkin } from '../../adapters/builtin/body/face.ts';
import { PERSON_PART, type PersonBody } from '../../core/ports/person-analyzer.ts';
import { findOldTop, uncoverOldTop } from '../../adapters/builtin/tryon/photo-fill.ts';
import { createLayer } from '../../adapters/builtin/tryon/warp-piece.ts';
import { dilate, erode } from '../../adapters/builtin/raster/morphology.ts';
import { distanceTransform } from '../../adapters/builtin/raster/distance-transform.ts';
import { labelComponents } from '../../adapters/builtin/raster/components.ts';

export const REALISM_TARGETS = {
  stdRatio: [0.5, 2] as [number, number],
  deltaE: 8,
  streak: [1 / 1.5, 1.5] as [number, number],
  edgeRatio: 1.15,
  oldShowing: 0.03,
};

/** A mask or coverage field: pixels count as inside where the value is >= `level`. */
type Field = ArrayLike<number>;

const lum = (img: RasterImage, i: number) => 0.299 * img.data[i * 4] + 0.587 * img.data[i * 4 + 1] + 0.114 * img.data[i * 4 + 2];

const medianOf = (v: number[] | Float64Array) => {
  const s = Float64Array.from(v).sort();
  return s.length ? s[s.length >> 1] : NaN;
};

/** Median over the masked pixels of the 5x5 luminance std (window pixels in the mask only). */
function localStd(img: RasterImage, mask: Field): { std: number; lab: number[]; count: number } {
  const { width: w, height: h } = img;
  const stds: number[] = [];
  const L: number[] = [];
  const A: number[] = [];
  const B: number[] = [];
  const lab = [0, 0, 0];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (!mask[i]) continue;
      srgbToLab(img.data[i * 4], img.data[i * 4 + 1], img.data[i * 4 + 2], lab);
      L.push(lab[0]);
      A.push(lab[1]);
      B.push(lab[2]);
      let s = 0;
      let s2 = 0;
      let c = 0;
      for (let dy = -2; dy <= 2; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -2; dx <= 2; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w || !mask[yy * w + xx]) continue;
          const v = lum(img, yy * w + xx);
          s += v;
          s2 += v * v;
          c++;
        }
      }
      if (c >= 9) stds.push(Math.sqrt(Math.max(0, s2 / c - (s / c) ** 2)));
    }
  }
  return { std: medianOf(stds), lab: [medianOf(L), medianOf(A), medianOf(B)], count: L.length };
}

/**
 * Repainted skin (`fillMask` set) against the person's own visible skin (`personSkinMask` on
 * `person`): the ratio of their median local 5x5 luminance std and the ΔE76 of their median
 * colours. Nothing repainted: ratio 1, ΔE 0.
 */
export function skinRealism(result: RasterImage, person: RasterImage, fillMask: Field, personSkinMask: Field): { stdRatio: number; deltaE: number; count: number } {
  const fill = localStd(result, fillMask);
  if (!fill.count) return { stdRatio: 1, deltaE: 0, count: 0 };
  const own = localStd(person, personSkinMask);
  return { stdRatio: fill.std / Math.max(1e-6, own.std), deltaE: deltaE76(fill.lab, own.lab), count: fill.count };
}

/**
 * Horizontal over vertical gradient energy inside the garment on the result, over the packshot's
 * own (the quality gate's measure, so the bound the gate holds is the one measured here).
 */
export { streakRatio };

/**
 * The outlines of the field's `level` set, by marching squares (edge crossings interpolated, so a
 * soft matte's outline is sub-pixel), as closed polylines.
 */
export function outlines(field: Field, width: number, height: number, level = 0.5): number[][] {
  // padded by one unset pixel all round so every outline closes
  const W = width + 2;
  const H = height + 2;
  const v = (x: number, y: number) => (x <= 0 || y <= 0 || x > width || y > height ? 0 : field[(y - 1) * width + (x - 1)]);
  // crossing point on an edge: horizontal edge (x,y)-(x+1,y) id 2*(y*W+x), vertical (x,y)-(x,y+1) id +1
  const point = (id: number): [number, number] => {
    const e = id >> 1;
    const x = e % W;
    const y = (e - x) / W;
    const a = v(x, y);
    const b = id & 1 ? v(x, y + 1) : v(x + 1, y);
    const t = Math.max(0, Math.min(1, (level - a) / (b - a || 1e-9)));
    return id & 1 ? [x, y + t] : [x + t, y];
  };
  const next = new Map<number, number>();
  for (let y = 0; y < H - 1; y++) {
    for (let x = 0; x < W - 1; x++) {
      const tl = v(x, y) >= level ? 1 : 0;
      const tr = v(x + 1, y) >= level ? 1 : 0;
      const br = v(x + 1, y + 1) >= level ? 1 : 0;
      const bl = v(x, y + 1) >= level ? 1 : 0;
      const c = tl * 8 + tr * 4 + br * 2 + bl;
      if (c === 0 || c === 15) continue;
      const top = 2 * (y * W + x);
      const bottom = 2 * ((y + 1) * W + x);
      const left = 2 * (y * W + x) + 1;
      const right = 2 * (y * W + x + 1) + 1;
      // segments oriented with the inside on the right, so each crossing has one successor
      const segs: [number, number][] = {
        1: [[bottom, left]], 2: [[right, bottom]], 3: [[right, left]], 4: [[top, right]], 5: [[top, left], [bottom, right]],
        6: [[top, bottom]], 7: [[top, left]], 8: [[left, top]], 9: [[bottom, top]], 10: [[left, bottom], [right, top]],
        11: [[right, top]], 12: [[left, right]], 13: [[bottom, right]], 14: [[left, bottom]],
      }[c] as [number, number][];
      for (const [a, b] of segs) next.set(a, b);
    }
  }
  const loops: number[][] = [];
  const seen = new Set<number>();
  for (const start of next.keys()) {
    if (seen.has(start)) continue;
    const loop: number[] = [];
    let id = start;
    while (!seen.has(id)) {
      seen.add(id);
      const [x, y] = point(id);
      loop.push(x - 1, y - 1);
      const n = next.get(id);
      if (n === undefined) break;
      id = n;
    }
    loops.push(loop);
  }
  return loops;
}

function loopLength(p: ArrayLike<number>): number {
  let len = 0;
  const n = p.length / 2;
  for (let k = 0; k < n; k++) {
    const j = (k + 1) % n;
    len += Math.hypot(p[j * 2] - p[k * 2], p[j * 2 + 1] - p[k * 2 + 1]);
  }
  return len;
}

/**
 * Outline length of the garment (`level` set of its mask or coverage) over the length of the same
 * outline smoothed (resampled every pixel, then a moving average over `window` pixels of arc): 1
 * for a clean contour, up for stair-steps, jags and specks.
 */
export function edgeRatio(garmentMask: Field, width: number, height: number, level = 0.5, window = 17): number {
  let raw = 0;
  let smooth = 0;
  for (const loop of outlines(garmentMask, width, height, level)) {
    const len = loopLength(loop);
    raw += len;
    const n = Math.floor(len);
    if (n < window) continue; // a speck: nothing of it survives smoothing
    // resample at unit arc length
    const rs = new Float64Array(n * 2);
    const m = loop.length / 2;
    let k = 0;
    let acc = 0;
    let segStart = 0;
    for (let s = 0; s < n; s++) {
      const target = (s * len) / n;
      while (k < m) {
        const j = (k + 1) % m;
        const seg = Math.hypot(loop[j * 2] - loop[k * 2], loop[j * 2 + 1] - loop[k * 2 + 1]);
        if (acc + seg >= target) {
          segStart = seg;
          break;
        }
        acc += seg;
        k++;
      }
      const j = (k + 1) % m;
      const t = segStart > 0 ? (target - acc) / segStart : 0;
      rs[s * 2] = loop[k * 2] + (loop[j * 2] - loop[k * 2]) * t;
      rs[s * 2 + 1] = loop[k * 2 + 1] + (loop[j * 2 + 1] - loop[k * 2 + 1]) * t;
    }
    const half = window >> 1;
    const sm = new Float64Array(n * 2);
    for (let s = 0; s < n; s++) {
      let sx = 0;
      let sy = 0;
      for (let d = -half; d <= half; d++) {
        const q = (s + d + n) % n;
        sx += rs[q * 2];
        sy += rs[q * 2 + 1];
      }
      sm[s * 2] = sx / window;
      sm[s * 2 + 1] = sy / window;
    }
    smooth += loopLength(sm);
  }
  return raw / Math.max(1e-6, smooth);
}

/**
 * Share of the person's own top (`oldGarmentMask` set) still showing as it was (ΔE76 < 8 between
 * result and photo) where the new garment does not cover it (`newGarmentAlpha` < 0.5).
 */
export function oldGarmentShowing(result: RasterImage, person: RasterImage, oldGarmentMask: Field, newGarmentAlpha: Field): number {
  const a = [0, 0, 0];
  const b = [0, 0, 0];
  let total = 0;
  let showing = 0;
  const n = person.width * person.height;
  for (let i = 0; i < n; i++) {
    if (!oldGarmentMask[i]) continue;
    total++;
    if (newGarmentAlpha[i] >= 0.5) continue;
    srgbToLab(result.data[i * 4], result.data[i * 4 + 1], result.data[i * 4 + 2], a);
    srgbToLab(person.data[i * 4], person.data[i * 4 + 1], person.data[i * 4 + 2], b);
    if (deltaE76(a, b) < 8) showing++;
  }
  return total ? showing / total : 0;
}

/**
 * A colour of this person's skin, lit or in shade: the hue of their face's skin, its chroma falling
 * with its lightness (a shadow darkens skin, it does not turn it grey). The absolute skin test
 * (isSkin: luma 50 and up) leaves out dark skin in shade, the very skin a fill beside it continues.
 */
function skinOf(lab: ArrayLike<number>, face: ArrayLike<number>): boolean {
  if (lab[0] < 8 || lab[0] > face[0] + 25) return false;
  const chroma = Math.hypot(lab[1], lab[2]);
  const faceChroma = Math.hypot(face[1], face[2]);
  if (chroma < 0.5 * faceChroma * Math.min(1, lab[0] / face[0]) || chroma > 1.6 * faceChroma) return false;
  const hue = Math.abs(Math.atan2(lab[2], lab[1]) - Math.atan2(face[2], face[1]));
  return Math.min(hue, 2 * Math.PI - hue) < 0.35;
}

/** The person's own visible skin: skin-coloured arms, neck and face outside the old top (and `also`). */
function ownSkinOf(person: RasterImage, parts: Uint8Array, old: ArrayLike<number>, also?: Uint8Array): Uint8Array {
  const ownSkin = new Uint8Array(parts.length);
  const face = faceSkinLab({ image: person, parts });
  const lab = [0, 0, 0];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (!(p === PERSON_PART.arm || p === PERSON_PART.neck || p === PERSON_PART.face) || old[i] || also?.[i]) continue;
    const [r, g, b] = [person.data[i * 4], person.data[i * 4 + 1], person.data[i * 4 + 2]];
    if (isSkin(r, g, b) || (face && skinOf(srgbToLab(r, g, b, lab), face))) ownSkin[i] = 1;
  }
  return ownSkin;
}

/**
 * The colour figure's reference: the person's own visible skin within this many pixels (at the
 * standard long side, 1024) of a region of repainted skin, i.e. the skin that region continues.
 * Skin colour varies over a body by more than the bound (the lit face against a shaded neck, a
 * tanned forearm against the chest): on the held-out bands (heldOutSkin, 33 photos) the real skin
 * is within ΔE76 8 of this reference on three in four, of the median of all the face, neck and arm
 * skin on half.
 */
export const SKIN_RING = 15;

/** A region of repainted skin smaller than this (px) is a speck, left out of the colour figure. */
const SPECK = 10;

/**
 * The repainted skin's colour against the skin it continues: per connected region of `fill` (on
 * `result`), the ΔE76 between its median and that of the `own` skin (on `person`) within SKIN_RING
 * of it (all of `own` when fewer than 20 such pixels), averaged over the regions by area. A neck
 * and an arm repainted in one result are each held to their own surroundings.
 */
function continuedColour(result: RasterImage, person: RasterImage, fill: Uint8Array, own: Uint8Array): number {
  const { width: w, height: h } = result;
  const reach = (SKIN_RING * Math.max(w, h)) / 1024;
  const pad = Math.ceil(reach) + 1;
  const { labels, components } = labelComponents(fill, w, h, { connectivity: 8 });
  const ownAll = localStd(person, own).lab;
  // one region and its ring at a time, cleared after (within the region's box)
  const region = new Uint8Array(w * h);
  const ring = new Uint8Array(w * h);
  let sum = 0;
  let weight = 0;
  for (const c of components) {
    if (c.area < SPECK) continue;
    const x0 = Math.max(0, c.x0 - pad);
    const y0 = Math.max(0, c.y0 - pad);
    const bw = Math.min(w, c.x1 + pad + 1) - x0;
    const bh = Math.min(h, c.y1 + pad + 1) - y0;
    const crop = new Uint8Array(bw * bh);
    for (let y = 0; y < bh; y++) for (let x = 0; x < bw; x++) crop[y * bw + x] = labels[(y + y0) * w + x + x0] === c.label ? 1 : 0;
    const to = distanceTransform(crop, bw, bh, 'set');
    let ringCount = 0;
    for (let y = 0; y < bh; y++) {
      for (let x = 0; x < bw; x++) {
        const i = (y + y0) * w + x + x0;
        if (crop[y * bw + x]) region[i] = 1;
        else if (own[i] && to[y * bw + x] <= reach) {
          ring[i] = 1;
          ringCount++;
        }
      }
    }
    const ref = ringCount >= 20 ? localStd(person, ring).lab : ownAll;
    sum += deltaE76(localStd(result, region).lab, ref) * c.area;
    weight += c.area;
    for (let y = y0; y < y0 + bh; y++) {
      region.fill(0, y * w + x0, y * w + x0 + bw);
      ring.fill(0, y * w + x0, y * w + x0 + bw);
    }
  }
  return weight ? sum / weight : 0;
}

/**
 * A fill pixel the figures measure as skin: one the new garment's matte leaves uncovered (alpha
 * below this). The matte's anti-aliased rim is a blend with the garment, the edge figure's part.
 */
const UNCOVERED = 0.05;

/** Skin this near the backdrop (px) is the person's soft outline, a blend with the backdrop. */
const OUTLINE = 2;

/** The four figures of one garment layer, as the tests and the bench report them. */
export interface RealismFigures {
  stdRatio: number;
  /** Against the skin the fill continues (SKIN_RING). */
  deltaE: number;
  /** Against all the person's visible face, neck and arm skin, for comparison. */
  deltaEWide: number;
  skinFilled: number;
  streak: number;
  edge: number;
  oldShowing: number;
}

/**
 * The figures for a top laid on a person photo, from the renderer's diagnostics of that layer:
 * the repainted skin against the person's own visible skin (arms, neck, face: skin-coloured
 * pixels outside the old top; for its colour, that within SKIN_RING of the fill), the garment's inside (coverage >= 0.99) against the packshot's
 * garment (`packshotMask`), the garment's outline (coverage 0.5) and the old top left showing
 * (its pixels in the person's own skin colour, parsing errors, left out).
 */
export function realismOfLayer(result: RasterImage, person: RasterImage, packshot: RasterImage, packshotMask: Field, layer: LayerDiagnostics, parts: Uint8Array): RealismFigures {
  const { width: w, height: h } = result;
  const n = w * h;
  const alpha = layer.alpha ?? new Float32Array(n);
  const old = layer.oldGarment ?? new Uint8Array(n);
  // skin within OUTLINE px of the backdrop (around the person, or painted where the old top was) is
  // the outline's soft edge, a blend with the backdrop, measured by neither figure (on either side)
  const backdrop = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (parts[i] === PERSON_PART.background || layer.fill?.[i] === 2) backdrop[i] = 1;
  const nearBackdrop = dilate(backdrop, w, h, OUTLINE);
  const fillSkin = new Uint8Array(n);
  if (layer.fill) for (let i = 0; i < n; i++) if (layer.fill[i] === 1 && alpha[i] < UNCOVERED && !nearBackdrop[i]) fillSkin[i] = 1;
  const ownSkin = ownSkinOf(person, parts, old, nearBackdrop);
  const skin = skinRealism(result, person, fillSkin, ownSkin);
  // the parsing's old top can take in skin (a hand held against it, the neck above a low
  // neckline): repainted as skin, such pixels look as they did, which is right, not the old top
  // showing; pixels in the person's own skin colour (ΔE76 < 10 of its median) are left out
  const oldCloth = new Uint8Array(n);
  if (layer.oldGarment) {
    const own = localStd(person, ownSkin).lab;
    const lab = [0, 0, 0];
    for (let i = 0; i < n; i++) {
      if (!old[i]) continue;
      srgbToLab(person.data[i * 4], person.data[i * 4 + 1], person.data[i * 4 + 2], lab);
      if (!(isSkin(person.data[i * 4], person.data[i * 4 + 1], person.data[i * 4 + 2]) && deltaE76(lab, own) < 10)) oldCloth[i] = 1;
    }
  }
  return {
    stdRatio: skin.stdRatio,
    deltaE: continuedColour(result, person, fillSkin, ownSkin),
    deltaEWide: skin.deltaE,
    skinFilled: skin.count,
    streak: streakRatio(result, alpha, packshot, packshotMask, 0.99, layer.warp?.scale),
    edge: edgeRatio(alpha, w, h),
    oldShowing: oldGarmentShowing(result, person, oldCloth, alpha),
  };
}

/**
 * White strips along a dark or coloured new top: pixels of the result on the person's torso, arms
 * or neck (inside its mask) that are light and nearly grey (L* >= 80, chroma <= 12), be they the
 * old white top left showing or the packshot's light backdrop or shadow drawn as cloth. Eroded by
 * 1 px so the person's anti-aliased outline against a light backdrop does not count. Meaningful
 * for a new top with no white cloth of its own.
 */
export function lightStrips(result: RasterImage, parts: Uint8Array, mask: Uint8Array): number {
  const { width: w, height: h } = result;
  const n = w * h;
  const lab = [0, 0, 0];
  const light = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const p = parts[i];
    if (!mask[i] || !(p === PERSON_PART.torso || p === PERSON_PART.arm || p === PERSON_PART.neck)) continue;
    srgbToLab(result.data[i * 4], result.data[i * 4 + 1], result.data[i * 4 + 2], lab);
    if (lab[0] >= 80 && Math.hypot(lab[1], lab[2]) <= 12) light[i] = 1;
  }
  let count = 0;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      if (light[i] && light[i - 1] && light[i + 1] && light[i - w] && light[i + w]) count++;
    }
  }
  return count;
}

/** The held-out band: the person's visible skin up to this far (px) above their top. */
export const HELD_OUT_BAND = 20;

/** Within this ΔE76 of the hair's median colour a band pixel is hair, not skin. */
const HAIR_NEAR = 12;

/** The skin fill against the skin it replaced (see heldOutSkin). */
export interface HeldOutSkin {
  /** Pixels held out and repainted. */
  count: number;
  /** ΔE76 between the medians of the fill and of the photo's skin it replaced. */
  fillVsTruth: number;
  /** The fill's median local 5x5 luminance std over the replaced skin's. */
  stdRatio: number;
  /** ΔE76 of the replaced skin's own median from the colour figure's reference (the visible skin within SKIN_RING). */
  truthVsOwn: number;
  /** ΔE76 of the fill's median from that reference: the colour figure on this fill. */
  fillVsOwn: number;
  /** ΔE76 of the replaced skin's median from the median of all visible face, neck and arm skin. */
  truthVsWide: number;
}

/** Repaints the `band` of the canvas (linear RGB) as if it were old top; returns the fill map (1 = skin). */
export type SkinPainter = (canvas: Float32Array, band: Uint8Array, body: PersonBody & { parts: Uint8Array }, hair: Uint8Array) => Uint8Array;

/** The engine's fill, with no new garment drawn over the band. */
const engineFill: SkinPainter = (canvas, band, body, hair) => uncoverOldTop(canvas, createLayer(body.image.width, body.image.height), band, body, hair);

/**
 * The skin fill checked against ground truth: skin the photo shows is taken for old top and
 * repainted, and the fill compared with the photo. The band of visible neck, chest and shoulder
 * skin just above the person's own top (within HELD_OUT_BAND px of it, above the chest line, 3 px
 * inside the outline, hair left out) is what a lower neckline uncovers: skin next to the top,
 * continued from the skin beyond it. It is given to the engine's fill (uncoverOldTop) as the old
 * top, with no new garment over it (or to `paint`, for a test of the check itself). Null when the
 * photo shows fewer than 150 such pixels.
 */
export function heldOutSkin(body: PersonBody & { parts: Uint8Array }, paint: SkinPainter = engineFill): HeldOutSkin | null {
  const { width: w, height: h, data: img } = body.image;
  const n = w * h;
  const { repaint, hair } = findOldTop(body);
  const inside = erode(body.mask, w, h, 3);
  const toTop = distanceTransform(repaint, w, h, 'set');
  const chestY = body.landmarks.chestLeft.y;
  // hair ends over the shoulders can pass for skin: a pixel near the hair's median colour (within
  // HAIR_NEAR, and nearer it than the face's) is left out
  const medianOfPart = (part: number) => {
    const mask = new Uint8Array(n);
    for (let i = 0; i < n; i++) mask[i] = body.parts[i] === part && isSkin(img[i * 4], img[i * 4 + 1], img[i * 4 + 2]) ? 1 : 0;
    return localStd(body.image, mask).lab;
  };
  const face = medianOfPart(PERSON_PART.face);
  const hairLab = medianOfPart(PERSON_PART.hair);
  const lab = [0, 0, 0];
  const band = new Uint8Array(n);
  let count = 0;
  for (let i = 0; i < n; i++) {
    const p = body.parts[i];
    if ((p !== PERSON_PART.neck && p !== PERSON_PART.torso) || repaint[i] || hair[i] || !inside[i] || i / w >= chestY || toTop[i] > HELD_OUT_BAND) continue;
    if (!isSkin(img[i * 4], img[i * 4 + 1], img[i * 4 + 2])) continue;
    srgbToLab(img[i * 4], img[i * 4 + 1], img[i * 4 + 2], lab);
    if (Number.isFinite(hairLab[0]) && deltaE76(lab, hairLab) < Math.min(HAIR_NEAR, deltaE76(lab, face))) continue;
    band[i] = 1;
    count++;
  }
  if (count < 150) return null;
  const canvas = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) canvas[i * 3 + c] = SRGB_TO_LINEAR[img[i * 4 + c]];
  const fill = paint(canvas, band, body, hair);
  const filled: RasterImage = { width: w, height: h, data: new Uint8Array(n * 4) };
  const measured = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < 3; c++) filled.data[i * 4 + c] = Math.round(linearToSrgb(canvas[i * 3 + c]));
    filled.data[i * 4 + 3] = 255;
    measured[i] = band[i] && fill[i] === 1 ? 1 : 0;
  }
  const fillStats = localStd(filled, measured);
  const truth = localStd(body.image, measured);
  if (!fillStats.count) return null;
  const ownSkin = ownSkinOf(body.image, body.parts, repaint, band);
  return {
    count: fillStats.count,
    fillVsTruth: deltaE76(fillStats.lab, truth.lab),
    stdRatio: fillStats.std / Math.max(1e-6, truth.std),
    truthVsOwn: continuedColour(body.image, body.image, measured, ownSkin),
    fillVsOwn: continuedColour(filled, body.image, measured, ownSkin),
    truthVsWide: deltaE76(truth.lab, localStd(body.image, ownSkin).lab),
  };
}
