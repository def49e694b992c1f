/**
 * Garment packshots as shops publish them, for measuring the garment segmentation.
 *
 * Two kinds, each with its ground truth (test/fixtures/real-photos/garment-masks: the garment's
 * mask, made from the photo with a flood through the backdrop, edges closed, holes filled, and
 * checked by eye against the photo):
 * - real shop photos on their own backdrops (a light grey studio sweep with its horizon band, a
 *   beige card), as the shop published them;
 * - real garments from white-backdrop packshots, cut out with their mask and composited onto an
 *   off-white card (#f3efe8, sensor noise and JPEG blocks), a uniform mid grey (#cfcfcf) or a
 *   light-to-grey sweep with a vignette (the backdrops of studio-photos.ts), with a soft drop shadow
 *   (a garment on a hanger a little in front of the wall, or laid flat) and, on some, a kraft swing
 *   tag on a string from the back of the neck, lying on the backdrop above the shoulder.
 *
 * Each photo marks the inner back of the collar seen through the neck opening (cloth: a hole there
 * is wrong; the printed neck labels of these garments are in it), the shadow pixels (outside the
 * garment, changed by the shadow by more than 6 levels) and the tag's pixels (the card and the
 * string outside the garment: a swing tag is not part of the garment and should be cut off).
 */
import path from 'node:path';
import sharp from 'sharp';
import type { RasterImage } from '../../core/images.ts';
import { createRaster } from '../../core/images.ts';
import { distanceTransform } from '../../adapters/builtin/raster/distance-transform.ts';
import { rng } from './products.ts';
import { addNoise, applyShadow, gaussian, isOffWhite, jpegRoundTrip, makeBackdrop, over, type Backdrop } from './studio-photos.ts';
import { REAL_PHOTOS } from './tryon-metrics.ts';

type Box = [number, number, number, number];

/**
 * The garments with a truth mask. `collar`: a box inside the inner back of the collar (and the
 * neck label on it), marked by hand on the photo with a 20 px grid over it, in the photo's pixels.
 */
/**
 * `halo`: pixels the cutout trims off the mask's edge before compositing (the white-backdrop
 * originals blend into white over a pixel or two; 06123_00 was cut out once before and carries a
 * ragged white fringe).
 */
export const SHOP_GARMENTS: Record<string, { collar: Box; about: string; halo?: number }> = {
  '050191_1.jpg': { collar: [315, 180, 415, 222], about: 'green T-shirt, inner collar and a woven neck label' },
  '03032_00.jpg': { collar: [300, 150, 460, 175], about: 'black T-shirt with a photo print' },
  '07382_00.jpg': { collar: [260, 275, 520, 370], about: 'white crop top, its grey inner back and neck label seen through a deep neckline' },
  '06123_00.jpg': { collar: [300, 100, 470, 140], about: 'white T-shirt with blue trims, the inner back and a neck label', halo: 5 },
  '049805_1.jpg': { collar: [330, 160, 440, 185], about: 'purple long-sleeve T-shirt, sleeves printed' },
  '048554_1.jpg': { collar: [270, 112, 500, 150], about: 'white T-shirt on the shop\'s grey studio sweep, inner back and a neck label' },
  '050105_1.jpg': { collar: [320, 145, 455, 215], about: 'white T-shirt on the shop\'s beige card, inner back with a printed label' },
};

export type DropShadow = 'hanger' | 'flat';

export interface ShopPackshotSpec {
  garment: string;
  /** A backdrop of studio-photos.ts, or `original`: the shop's photo as published. */
  backdrop: Backdrop | 'original';
  shadow?: DropShadow;
  tag?: boolean;
  seed?: number;
}

export interface ShopPackshot {
  name: string;
  image: RasterImage;
  /** 1 = garment. */
  truth: Uint8Array;
  /** 1 = outside the garment, darkened by its shadow by more than 6 levels. */
  shadow: Uint8Array;
  /** 1 = the swing tag's card and string outside the garment. */
  tag: Uint8Array;
  /** 1 = the inner back of the collar (garment pixels in the marked box). */
  collar: Uint8Array;
}

/** The measured set: every garment, every backdrop, both shadows, tags on four. */
export const SHOP_PACKSHOTS: ShopPackshotSpec[] = [
  { garment: '050191_1.jpg', backdrop: 'offwhite-warm', shadow: 'hanger', tag: true },
  { garment: '050191_1.jpg', backdrop: 'gradient', shadow: 'flat' },
  { garment: '03032_00.jpg', backdrop: 'grey-cf', shadow: 'hanger' },
  { garment: '03032_00.jpg', backdrop: 'offwhite-warm', shadow: 'flat', tag: true },
  { garment: '07382_00.jpg', backdrop: 'gradient', shadow: 'hanger', tag: true },
  { garment: '07382_00.jpg', backdrop: 'grey-cf', shadow: 'flat' },
  { garment: '06123_00.jpg', backdrop: 'offwhite-warm', shadow: 'flat' },
  { garment: '06123_00.jpg', backdrop: 'gradient', shadow: 'hanger' },
  { garment: '049805_1.jpg', backdrop: 'grey-cf', shadow: 'hanger', tag: true },
  { garment: '048554_1.jpg', backdrop: 'original' },
  { garment: '050105_1.jpg', backdrop: 'original' },
];

export function packshotName(s: ShopPackshotSpec): string {
  return [s.garment.replace(/\.jpg$/, ''), s.backdrop, s.shadow ? `${s.shadow}-shadow` : null, s.tag ? 'tag' : null].filter(Boolean).join('+');
}

async function readRgba(file: string, resize?: { width: number; height: number }): Promise<RasterImage> {
  let pipe = sharp(file);
  if (resize) pipe = pipe.resize(resize.width, resize.height, { fit: 'fill' });
  const { data, info } = await pipe.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
}

/** The truth mask of a garment photo, at the photo's size or resized (0..255, soft at the edge when resized). */
async function readMask(garment: string, resize?: { width: number; height: number }): Promise<Uint8Array> {
  const img = await readRgba(path.join(REAL_PHOTOS, 'garment-masks', garment.replace(/\.jpg$/, '.png')), resize);
  const out = new Uint8Array(img.width * img.height);
  for (let i = 0; i < out.length; i++) out[i] = img.data[i * 4];
  return out;
}

/** Builds one photo of the set. */
export async function shopPackshot(spec: ShopPackshotSpec): Promise<ShopPackshot> {
  const file = path.join(REAL_PHOTOS, 'garments', spec.garment);
  const marks = SHOP_GARMENTS[spec.garment];
  if (!marks) throw new Error(`no truth for ${spec.garment}`);
  const name = packshotName(spec);
  if (spec.backdrop === 'original') {
    const image = await readRgba(file);
    const mask = await readMask(spec.garment);
    const truth = new Uint8Array(mask.length);
    for (let i = 0; i < mask.length; i++) truth[i] = mask[i] >= 128 ? 1 : 0;
    const n = truth.length;
    return { name, image, truth, shadow: new Uint8Array(n), tag: new Uint8Array(n), collar: boxMask(marks.collar, truth, image.width, 1, 0, 0) };
  }
  // the garment at 86 % of the photo, centred: a margin of backdrop on every side
  const meta = await sharp(file).metadata();
  const W = meta.width!, H = meta.height!;
  const scale = 0.86;
  const sw = Math.round(W * scale), sh = Math.round(H * scale);
  const ox = Math.round((W - sw) / 2), oy = Math.round((H - sh) / 2);
  const src = await readRgba(file, { width: sw, height: sh });
  // the mask trimmed by the halo (an erosion), its edge softened over a pixel
  const halo = marks.halo ?? 2;
  const full = await readMask(spec.garment, { width: sw, height: sh });
  const dist = distanceTransform(full.map((v) => (v >= 128 ? 255 : 0)), sw, sh, 'unset');
  const srcMask = full.map((_, i) => Math.round(255 * Math.max(0, Math.min(1, dist[i] - halo))));
  const cutout = createRaster(W, H);
  for (let y = 0; y < sh; y++) {
    for (let x = 0; x < sw; x++) {
      const s = y * sw + x, d = (y + oy) * W + x + ox;
      cutout.data.set(src.data.subarray(s * 4, s * 4 + 3), d * 4);
      cutout.data[d * 4 + 3] = srcMask[s];
    }
  }
  const n = W * H;
  const truth = new Uint8Array(n);
  for (let i = 0; i < n; i++) truth[i] = cutout.data[i * 4 + 3] >= 128 ? 1 : 0;
  const random = rng(spec.seed ?? 11);
  const backdrop = makeBackdrop(spec.backdrop, W, H);
  const image = createRaster(W, H);
  image.data.set(backdrop.data);
  const darkening = spec.shadow ? dropShadow(cutout, spec.shadow) : new Float32Array(n);
  applyShadow(image, darkening);
  const shadow = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (!truth[i] && 255 * darkening[i] > 6) shadow[i] = 1;
  const tag = new Uint8Array(n);
  if (spec.tag) drawSwingTag(image, truth, marks.collar, { scale, ox, oy }, tag, random);
  over(image, cutout);
  addNoise(image, isOffWhite(spec.backdrop) ? 2.2 : 0.8, random);
  const out = isOffWhite(spec.backdrop) ? await jpegRoundTrip(image, 80) : image;
  return { name, image: out, truth, shadow, tag, collar: boxMask(marks.collar, truth, W, scale, ox, oy) };
}

/** The truth pixels inside a box given in the garment photo's pixels, placed by scale and offset. */
function boxMask(box: Box, truth: Uint8Array, W: number, scale: number, ox: number, oy: number): Uint8Array {
  const out = new Uint8Array(truth.length);
  const [x0, y0, x1, y1] = box.map((v, k) => Math.round(v * scale + (k % 2 ? oy : ox)));
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) if (truth[y * W + x]) out[y * W + x] = 1;
  return out;
}

/**
 * A drop shadow: the garment's alpha moved down and to the right and blurred. `hanger`: the garment
 * hangs a little in front of the wall (offset 1.2 % x 2 %, blur 1.2 % of the width, 38 % dark);
 * `flat`: laid on the card (a small offset, tighter blur, 30 % dark).
 */
function dropShadow(cutout: RasterImage, kind: DropShadow): Float32Array {
  const { width: W, height: H } = cutout;
  const [dx, dy, sigma, dark] = kind === 'hanger' ? [0.012 * W, 0.02 * H, 0.012 * W, 0.38] : [0.004 * W, 0.008 * H, 0.007 * W, 0.3];
  const a = new Float32Array(W * H);
  const ix = Math.round(dx), iy = Math.round(dy);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const sx = x - ix, sy = y - iy;
      if (sx < 0 || sy < 0 || sx >= W || sy >= H) continue;
      a[y * W + x] = cutout.data[(sy * W + sx) * 4 + 3] / 255;
    }
  }
  const blurred = gaussian(a, W, H, sigma, sigma);
  for (let i = 0; i < blurred.length; i++) blurred[i] *= dark;
  return blurred;
}

/**
 * A kraft swing tag: a string from the back of the neck (the collar box's upper right) up over the
 * neckline to a card lying on the backdrop above the shoulder, with a punched hole and printed bars.
 */
function drawSwingTag(img: RasterImage, truth: Uint8Array, collar: Box, place: { scale: number; ox: number; oy: number }, tag: Uint8Array, random: () => number): void {
  const { width: W, height: H } = img;
  const ax = Math.round(collar[2] * place.scale + place.ox - 8), ay = Math.round(collar[1] * place.scale + place.oy + 4);
  const cw = Math.round(0.07 * W), ch = Math.round(0.1 * H);
  // the card's centre: up and to the right of the anchor, clear of the garment
  const cx = Math.round(ax + 0.1 * W);
  let cy = ay - Math.round(0.06 * H) - ch;
  const overlaps = () => {
    for (let y = cy - 4; y < cy + ch + 4; y++) for (let x = cx - cw / 2 - 4; x < cx + cw / 2 + 4; x++) if (y >= 0 && y < H && x >= 0 && x < W && truth[y * W + Math.round(x)]) return true;
    return false;
  };
  while (overlaps() && cy > 8) cy -= 4;
  cy = Math.max(8, cy);
  const tilt = 0.12 + 0.1 * random();
  const paint = (x: number, y: number, rgb: [number, number, number]) => {
    if (x < 0 || y < 0 || x >= W || y >= H) return;
    const i = y * W + x;
    img.data.set(rgb, i * 4);
    if (!truth[i]) tag[i] = 1;
  };
  // the string: two pixels wide, from the anchor to the card's hole
  const hx = cx, hy = cy + Math.round(0.12 * ch);
  const steps = Math.ceil(Math.hypot(hx - ax, hy - ay));
  for (let s = 0; s <= steps; s++) {
    const x = Math.round(ax + ((hx - ax) * s) / steps), y = Math.round(ay + ((hy - ay) * s) / steps);
    paint(x, y, [58, 52, 48]);
    paint(x + 1, y, [58, 52, 48]);
  }
  // the card, tilted about its hole
  const cos = Math.cos(tilt), sin = Math.sin(tilt);
  for (let y = cy - ch; y < cy + 2 * ch; y++) {
    for (let x = cx - ch; x < cx + ch; x++) {
      const u = (x - hx) * cos + (y - hy) * sin, v = -(x - hx) * sin + (y - hy) * cos + 0.12 * ch;
      if (Math.abs(u) > cw / 2 || v < 0 || v > ch) continue;
      const hole = Math.hypot(u, v - 0.12 * ch) < 0.035 * W;
      if (hole) continue;
      const bar = (v > 0.45 * ch && v < 0.52 * ch && Math.abs(u) < 0.35 * cw) || (v > 0.6 * ch && v < 0.64 * ch && Math.abs(u) < 0.25 * cw);
      paint(x, y, bar ? [70, 55, 40] : [198, 166, 120]);
    }
  }
}

export interface GarmentMaskScore {
  iou: number;
  /** Share of the shadow pixels kept as garment. */
  shadowKept: number;
  /** Shadow pixels kept, as a share of the garment's area. */
  shadowArea: number;
  /** Share of the inner back of the collar kept. */
  collarKept: number;
  /** Share of the swing tag's pixels kept (0 when the photo has none). */
  tagKept: number;
}

/** Scores a 0/non-zero mask against a photo's truth. */
export function scoreGarmentMask(mask: Uint8Array, photo: ShopPackshot): GarmentMaskScore {
  let inter = 0, union = 0, area = 0, shadow = 0, shadowKept = 0, collar = 0, collarKept = 0, tag = 0, tagKept = 0;
  for (let i = 0; i < mask.length; i++) {
    const m = mask[i] !== 0, t = photo.truth[i] !== 0;
    if (m && t) inter++;
    if (m || t) union++;
    if (t) area++;
    if (photo.shadow[i]) { shadow++; if (m) shadowKept++; }
    if (photo.collar[i]) { collar++; if (m) collarKept++; }
    if (photo.tag[i]) { tag++; if (m) tagKept++; }
  }
  return {
    iou: union ? inter / union : 1,
    shadowKept: shadow ? shadowKept / shadow : 0,
    shadowArea: area ? shadowKept / area : 0,
    collarKept: collar ? collarKept / collar : 1,
    tagKept: tag ? tagKept / tag : 0,
  };
}
