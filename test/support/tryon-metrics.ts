/**
 * Measures a try-on result on a real person photo against hand-marked boxes (test/fixtures/
 * real-photos/marks.json): how much of the chest-to-waist box shows the garment's colours, how
 * much of the face, legs and background changed, how much of the old top's hem band is left.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import type { RasterImage } from '../../core/images.ts';
import { deltaE76, srgbToLab } from '../../adapters/builtin/tryon/color.ts';

export const REAL_PHOTOS = path.resolve(import.meta.dirname, '../fixtures/real-photos');

type Box = [number, number, number, number];
export interface PersonMarks {
  face: Box;
  chestWaist: Box;
  hemBand: Box;
  legs: Box;
  background: Box[];
  /** One box per forearm (bare skin between elbow and wrist), on some photos. */
  forearms?: Box[];
}
export interface RealPair {
  person: string;
  topGarment: string;
}

/** A full-length photo (feet visible), for dresses and shoes. */
export interface FullLengthMarks {
  face: Box;
  /** The chest-to-thigh area any dress covers. */
  dress: Box;
  /** The person's own clothes a dress may leave uncovered (empty when a fill could not be told from them). */
  oldClothes: Box[];
  /** One box per shoe, tight around the person's own shoe. */
  feet: Box[];
  /** The legs from below the knees to just above the ankles. */
  aboveAnkles: Box;
  background: Box[];
}

export const MARKS: {
  persons: Record<string, PersonMarks>;
  pairs: RealPair[];
  /** A long-sleeve and a short-sleeve top tried on each photo with forearm boxes. */
  sleevePairs: { person: string; longSleeve: string; shortSleeve: string }[];
  /** Tops on the photos of varied poses and fabrics, measured like `pairs`. */
  posePairs: RealPair[];
  /** A person photo and the packshot of the very top that person wears (the paired check). */
  ownGarmentPairs: RealPair[];
  fullLength: Record<string, FullLengthMarks>;
  dressPairs: { person: string; garment: string }[];
  shoePairs: { person: string; shoes: string }[];
} = JSON.parse(readFileSync(path.join(REAL_PHOTOS, 'marks.json'), 'utf8'));

export async function loadPhoto(file: string): Promise<RasterImage> {
  const { data, info } = await sharp(file).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
}

const labAt = (img: RasterImage, i: number, out: number[]) => srgbToLab(img.data[i * 4], img.data[i * 4 + 1], img.data[i * 4 + 2], out);

/**
 * The packshot's palette: k-means (k = 8) in Lab over the pixels that differ from the border's
 * median colour (the backdrop) by more than 12, and all pixels of the packshot's middle.
 */
export function packshotPalette(img: RasterImage, opts: { middleIsGarment?: boolean } = {}): { colour: number[]; weight: number }[] {
  const { width: w, height: h } = img;
  const lab = [0, 0, 0];
  const border: number[][] = [];
  for (let x = 0; x < w; x += 4) for (const y of [0, h - 1]) border.push(Array.from(labAt(img, y * w + x, lab)));
  for (let y = 0; y < h; y += 4) for (const x of [0, w - 1]) border.push(Array.from(labAt(img, y * w + x, lab)));
  const bg = [0, 1, 2].map((c) => border.map((p) => p[c]).sort((a, b) => a - b)[border.length >> 1]);
  const pts: number[][] = [];
  // the garment's middle is cloth whatever its colour (white on a white backdrop too)
  // (not for a shoe, whose middle holds backdrop above and below it)
  const middle = opts.middleIsGarment ?? true;
  const inMiddle = (x: number, y: number) => middle && x > 0.35 * w && x < 0.65 * w && y > 0.3 * h && y < 0.8 * h;
  for (let i = 0; i < w * h; i += 7) {
    const p = Array.from(labAt(img, i, lab));
    if (deltaE76(p, bg) > 12 || inMiddle(i % w, Math.floor(i / w))) pts.push(p);
  }
  let centres = Array.from({ length: 8 }, (_, j) => pts[Math.floor(((j + 0.5) * pts.length) / 8)].slice());
  let weights: number[] = [];
  for (let it = 0; it < 10; it++) {
    const sums = centres.map(() => [0, 0, 0, 0]);
    for (const p of pts) {
      let best = 0;
      for (let j = 1; j < centres.length; j++) if (deltaE76(p, centres[j]) < deltaE76(p, centres[best])) best = j;
      sums[best][0] += p[0]; sums[best][1] += p[1]; sums[best][2] += p[2]; sums[best][3]++;
    }
    centres = sums.map((s, j) => (s[3] ? [s[0] / s[3], s[1] / s[3], s[2] / s[3]] : centres[j]));
    weights = sums.map((s) => s[3] / pts.length);
  }
  // colours of at least 3 % of the garment (stray pixels of the backdrop's shadow drop out)
  return centres.map((colour, j) => ({ colour, weight: weights[j] })).filter((c) => c.weight >= 0.03);
}

/** A pixel counts as changed when its colour moved by more than this (CIE76). */
const CHANGED = 6;

function boxShare(box: Box, test: (i: number) => boolean, w: number): number {
  let hit = 0;
  let all = 0;
  for (let y = box[1]; y < box[3]; y++) {
    for (let x = box[0]; x < box[2]; x++) {
      all++;
      if (test(y * w + x)) hit++;
    }
  }
  return all ? hit / all : 0;
}

export interface PairMetrics {
  /** Share of the chest-to-waist box in the garment's colours. */
  coverage: number;
  face: number;
  legs: number;
  background: number;
  /** Share of the old top's hem band left as it was. */
  hemLeft: number;
  /** The garment shares the colours of the person's own top: the pair tells nothing. */
  uninformative: boolean;
}

/**
 * What every measure compares: the result against the photo (pixels changed by more than CHANGED)
 * and against the packshot's palette (ΔE76 < 20), and whether colours of the photo's own clothes
 * are among the packshot's main ones (then coverage could not tell them apart).
 */
function comparison(person: RasterImage, packshot: RasterImage, result: RasterImage, palette: { middleIsGarment?: boolean } = {}) {
  if (result.width !== person.width || result.height !== person.height) throw new Error(`result is ${result.width}x${result.height}, the photo ${person.width}x${person.height}`);
  const pal = packshotPalette(packshot, palette);
  const a = [0, 0, 0];
  const b = [0, 0, 0];
  return {
    w: person.width,
    changed: (i: number) => deltaE76(labAt(person, i, a), labAt(result, i, b)) > CHANGED,
    garment: (i: number) => pal.some((c) => deltaE76(labAt(result, i, a), c.colour) < 20),
    sharesColours: (boxes: Box[]) => {
      const own = medianLab(person, boxes);
      return pal.some((c) => c.weight >= 0.2 && deltaE76(own, c.colour) < 20);
    },
  };
}

export function measurePair(person: RasterImage, packshot: RasterImage, result: RasterImage, marks: PersonMarks): PairMetrics {
  const { w, changed, garment, sharesColours } = comparison(person, packshot, result);
  return {
    coverage: boxShare(marks.chestWaist, garment, w),
    face: boxShare(marks.face, changed, w),
    legs: boxShare(marks.legs, changed, w),
    background: Math.max(...marks.background.map((box) => boxShare(box, changed, w))),
    hemLeft: boxShare(marks.hemBand, (i) => !changed(i), w),
    // the person's own top (its median colour) in one of the garment's main colours
    uninformative: sharesColours([marks.chestWaist]),
  };
}

export interface BottomMetrics {
  /** Share of the person in the legs box left as it was (pixels unlike the backdrop, unchanged): the old bottom or bare legs still showing. */
  oldLeft: number;
  face: number;
  /** Share of the upper two thirds of the chest-to-waist box changed (the top stays as it was). */
  top: number;
  background: number;
}

/** A bottom on a person photo, measured on the hand-marked boxes. */
export function measureBottom(person: RasterImage, result: RasterImage, marks: PersonMarks): BottomMetrics {
  if (result.width !== person.width || result.height !== person.height) throw new Error(`result is ${result.width}x${result.height}, the photo ${person.width}x${person.height}`);
  const w = person.width;
  const a = [0, 0, 0];
  const b = [0, 0, 0];
  const changed = (i: number) => deltaE76(labAt(person, i, a), labAt(result, i, b)) > CHANGED;
  const [x0, y0, x1, y1] = marks.chestWaist;
  // the backdrop's colour: the median of the background strips
  const bg: number[][] = [];
  for (const [bx0, by0, bx1, by1] of marks.background) for (let y = by0; y < by1; y += 4) for (let x = bx0; x < bx1; x += 4) bg.push(Array.from(labAt(person, y * w + x, a)));
  const backdrop = [0, 1, 2].map((c) => bg.map((p) => p[c]).sort((p, q) => p - q)[bg.length >> 1]);
  let personPx = 0;
  const unchanged = boxShare(marks.legs, (i) => {
    if (deltaE76(labAt(person, i, a), backdrop) < 15) return false;
    personPx++;
    return !changed(i);
  }, w);
  const legsArea = (marks.legs[2] - marks.legs[0]) * (marks.legs[3] - marks.legs[1]);
  return {
    oldLeft: personPx ? (unchanged * legsArea) / personPx : 0,
    face: boxShare(marks.face, changed, w),
    top: boxShare([x0, y0, x1, Math.round(y0 + (y1 - y0) * 0.66)], changed, w),
    background: Math.max(...marks.background.map((box) => boxShare(box, changed, w))),
  };
}

export interface ForearmMetrics {
  /** Per forearm box: the share in the garment's colours. */
  covered: number[];
  /** Per forearm box: the share changed. */
  changed: number[];
}

/** Sleeves on a person photo: the forearm boxes covered by the garment's colours, or left as they were. */
export function measureForearms(person: RasterImage, packshot: RasterImage, result: RasterImage, forearms: Box[]): ForearmMetrics {
  const { w, changed, garment } = comparison(person, packshot, result);
  return {
    covered: forearms.map((box) => boxShare(box, garment, w)),
    changed: forearms.map((box) => boxShare(box, changed, w)),
  };
}

/** Sleeves: a long sleeve covers at least this share of each forearm box; a short one changes at most this much of it. */
export const SLEEVE_TARGETS = { longCovered: 0.8, shortChanged: 0.05 };

/** Bottoms: at most this much of the person in the legs box, face, top and background as they were. */
export const BOTTOM_TARGETS = { oldLeft: 0.12, face: 0.02, top: 0.05, background: 0.02 };

export const TARGETS = { coverage: 0.8, face: 0.02, legs: 0.05, background: 0.02, hemLeft: 0.2 };

export function meetsTargets(m: PairMetrics): boolean {
  return m.coverage >= TARGETS.coverage && m.face <= TARGETS.face && m.legs <= TARGETS.legs && m.background <= TARGETS.background && m.hemLeft <= TARGETS.hemLeft;
}

/** The median Lab colour of the photo in the boxes (every third pixel). */
function medianLab(img: RasterImage, boxes: Box[]): number[] {
  const a = [0, 0, 0];
  const pts: number[][] = [];
  for (const [x0, y0, x1, y1] of boxes) for (let y = y0; y < y1; y += 3) for (let x = x0; x < x1; x += 3) pts.push(Array.from(labAt(img, y * img.width + x, a)));
  return [0, 1, 2].map((c) => pts.map((p) => p[c]).sort((p, q) => p - q)[pts.length >> 1]);
}

function areaShare(boxes: Box[], test: (i: number) => boolean, w: number): number {
  let hit = 0;
  let all = 0;
  for (const box of boxes) {
    const area = (box[2] - box[0]) * (box[3] - box[1]);
    hit += boxShare(box, test, w) * area;
    all += area;
  }
  return all ? hit / all : 0;
}

export interface DressMetrics {
  /** Share of the dress box in the dress's colours. */
  coverage: number;
  face: number;
  background: number;
  /** Share of the old clothes' boxes left as they were (null: none marked). */
  oldLeft: number | null;
  /** The dress shares the colours of the person's own clothes in the dress box. */
  uninformative: boolean;
}

/** A dress on a full-length person photo, measured on the hand-marked boxes. */
export function measureDress(person: RasterImage, packshot: RasterImage, result: RasterImage, marks: FullLengthMarks): DressMetrics {
  const { w, changed, garment, sharesColours } = comparison(person, packshot, result);
  return {
    coverage: boxShare(marks.dress, garment, w),
    face: boxShare(marks.face, changed, w),
    background: Math.max(...marks.background.map((box) => boxShare(box, changed, w))),
    oldLeft: marks.oldClothes.length ? areaShare(marks.oldClothes, (i) => !changed(i), w) : null,
    uninformative: sharesColours([marks.dress]),
  };
}

export interface ShoeMetrics {
  /** Share of the feet boxes in the shoe's colours. */
  coverage: number;
  /** Share of the legs above the ankles changed. */
  aboveAnkles: number;
  background: number;
  /** The person's own shoes have one of the new shoe's main colours: coverage could not tell them apart. */
  uninformative: boolean;
}

/** Shoes on a full-length person photo, measured on the hand-marked boxes. */
export function measureShoes(person: RasterImage, packshot: RasterImage, result: RasterImage, marks: FullLengthMarks): ShoeMetrics {
  const { w, changed, garment, sharesColours } = comparison(person, packshot, result, { middleIsGarment: false });
  return {
    coverage: areaShare(marks.feet, garment, w),
    aboveAnkles: boxShare(marks.aboveAnkles, changed, w),
    background: Math.max(...marks.background.map((box) => boxShare(box, changed, w))),
    uninformative: sharesColours(marks.feet),
  };
}

/** Dresses: at least this coverage; at most this much of face, background and the old clothes as they were. */
export const DRESS_TARGETS = { coverage: 0.8, face: 0.02, background: 0.02, oldLeft: 0.2 };
/** Shoes: at least this coverage of the feet boxes; at most this much of the legs above the ankles and background changed. */
export const SHOE_TARGETS = { coverage: 0.8, aboveAnkles: 0.02, background: 0.02 };

export function dressMeetsTargets(m: DressMetrics): boolean {
  return m.coverage >= DRESS_TARGETS.coverage && m.face <= DRESS_TARGETS.face && m.background <= DRESS_TARGETS.background && (m.oldLeft ?? 0) <= DRESS_TARGETS.oldLeft;
}

export function shoesMeetTargets(m: ShoeMetrics): boolean {
  return m.coverage >= SHOE_TARGETS.coverage && m.aboveAnkles <= SHOE_TARGETS.aboveAnkles && m.background <= SHOE_TARGETS.background;
}

/** Rec. 601 luma of each pixel (0..255), the channel SSIM is computed on. */
export function luminance(img: RasterImage): Float64Array {
  const out = new Float64Array(img.width * img.height);
  for (let i = 0; i < out.length; i++) out[i] = 0.299 * img.data[i * 4] + 0.587 * img.data[i * 4 + 1] + 0.114 * img.data[i * 4 + 2];
  return out;
}

/** Separable convolution with a normalised 1-D kernel; the image edge is clamped. */
function convolve(src: Float64Array, w: number, h: number, k: number[]): Float64Array {
  const r = k.length >> 1;
  const tmp = new Float64Array(src.length);
  const out = new Float64Array(src.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let s = 0;
      for (let j = -r; j <= r; j++) s += k[j + r] * src[y * w + Math.min(w - 1, Math.max(0, x + j))];
      tmp[y * w + x] = s;
    }
  }
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let s = 0;
      for (let j = -r; j <= r; j++) s += k[j + r] * tmp[Math.min(h - 1, Math.max(0, y + j)) * w + x];
      out[y * w + x] = s;
    }
  }
  return out;
}

/**
 * The SSIM map of two images of one size, on luminance, as Wang, Bovik, Sheikh and Simoncelli
 * (2004) define it: an 11x11 Gaussian window of sigma 1.5, K1 = 0.01, K2 = 0.03, L = 255.
 */
export function ssimMap(a: RasterImage, b: RasterImage): Float64Array {
  if (a.width !== b.width || a.height !== b.height) throw new Error(`SSIM of a ${a.width}x${a.height} and a ${b.width}x${b.height} image`);
  const { width: w, height: h } = a;
  const kernel = Array.from({ length: 11 }, (_, i) => Math.exp(-((i - 5) ** 2) / (2 * 1.5 ** 2)));
  const sum = kernel.reduce((s, v) => s + v, 0);
  for (let i = 0; i < kernel.length; i++) kernel[i] /= sum;
  const x = luminance(a);
  const y = luminance(b);
  const n = w * h;
  const xx = new Float64Array(n);
  const yy = new Float64Array(n);
  const xy = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    xx[i] = x[i] * x[i];
    yy[i] = y[i] * y[i];
    xy[i] = x[i] * y[i];
  }
  const [mx, my, sxx, syy, sxy] = [x, y, xx, yy, xy].map((m) => convolve(m, w, h, kernel));
  const c1 = (0.01 * 255) ** 2;
  const c2 = (0.03 * 255) ** 2;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const vx = sxx[i] - mx[i] * mx[i];
    const vy = syy[i] - my[i] * my[i];
    const cov = sxy[i] - mx[i] * my[i];
    out[i] = ((2 * mx[i] * my[i] + c1) * (2 * cov + c2)) / ((mx[i] * mx[i] + my[i] * my[i] + c1) * (vx + vy + c2));
  }
  return out;
}

/** Mean SSIM over the whole image, or over the pixels set in `region`. */
export function ssim(a: RasterImage, b: RasterImage, region?: Uint8Array): number {
  const map = ssimMap(a, b);
  let s = 0;
  let c = 0;
  for (let i = 0; i < map.length; i++) {
    if (region && !region[i]) continue;
    s += map[i];
    c++;
  }
  return c ? s / c : NaN;
}
