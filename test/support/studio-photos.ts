/**
 * Product photos as merchants shoot them, built from the rendered test objects (objects.ts): the
 * object's cutout composited onto a studio backdrop (uniform grey, a light-to-grey sweep with a
 * vignette, off-white with sensor noise and JPEG blocks), with a soft contact shadow under the
 * sole, optionally a floor reflection (the object mirrored in the floor plane, rendered, faded)
 * and optionally a second shoe cut by the frame edge or standing behind the first. Every photo
 * keeps its ground truth: the object's own alpha where it was placed, plus the pixels the shadow,
 * the reflection and the second shoe changed, for measuring what a cleanup kept and lost.
 */
import sharp from 'sharp';
import type { RasterImage } from '../../core/images.ts';
import { createRaster } from '../../core/images.ts';
import type { RenderMesh } from '../../adapters/gltf/render.ts';
import { photographObject, type PhotoOptions, type TestObject } from './objects.ts';
import { rng } from './products.ts';

/** One rendered view of an object: its cutout and its mirror image in the floor plane. */
export interface StudioView {
  object: string;
  azimuthDeg: number;
  elevationDeg: number;
  /** Side of the photos made from this view. */
  size: number;
  /**
   * RGBA, transparent background, framed by photographObject on a canvas 1.5 times the photo's
   * side (the object at the photo's scale), so the mirror image below is not cut by the canvas.
   */
  cutout: RasterImage;
  /** RGBA: what the floor mirror adds below the object (the mirrored object minus the object). */
  mirror: RasterImage;
}

/** Renders the views and, with the same framing, the object together with its mirror image (y -> -y). */
export function studioViews(obj: TestObject, azimuths: number[], opts: PhotoOptions = {}): StudioView[] {
  const el = opts.elevationDeg ?? 0;
  const size = opts.size ?? 768;
  const canvas: PhotoOptions = { ...opts, size: Math.round(1.5 * size), fill: (opts.fill ?? 0.8) / 1.5 };
  const photos = photographObject(obj, azimuths, canvas);
  // photographObject frames on obj.surface and renders obj.meshes: the mirrored meshes ride along
  const mirrored: TestObject = { ...obj, meshes: [...obj.meshes, ...obj.meshes.map(mirrorMesh)] };
  const both = photographObject(mirrored, azimuths, canvas);
  return photos.map((p, i) => {
    const u = both[i].cutout;
    const mirror = createRaster(u.width, u.height);
    for (let k = 0; k < u.width * u.height; k++) {
      const a = Math.max(0, u.data[k * 4 + 3] - p.cutout.data[k * 4 + 3]);
      if (a === 0) continue;
      mirror.data.set(u.data.subarray(k * 4, k * 4 + 3), k * 4);
      mirror.data[k * 4 + 3] = a;
    }
    return { object: obj.name, azimuthDeg: azimuths[i], elevationDeg: el, size, cutout: p.cutout, mirror };
  });
}

function mirrorMesh(m: RenderMesh): RenderMesh {
  const positions = new Float32Array(m.positions);
  for (let i = 1; i < positions.length; i += 3) positions[i] = -positions[i];
  // reversed winding keeps the faces outward
  const indices = new Uint32Array(m.indices);
  for (let i = 0; i < indices.length; i += 3) [indices[i + 1], indices[i + 2]] = [indices[i + 2], indices[i + 1]];
  return { ...m, positions, indices, ...(m.normals ? { normals: m.normals.map((v, i) => (i % 3 === 1 ? -v : v)) } : {}) };
}

/**
 * `grey-d9`, `grey-bf`, `grey-cf`: uniform greys; `gradient`: a light-to-grey sweep with a vignette;
 * `offwhite-jpeg` (#f6f3ed) and `offwhite-warm` (#f3efe8): off-white paper, shot with sensor noise
 * and saved as JPEG.
 */
export type Backdrop = 'grey-d9' | 'grey-bf' | 'grey-cf' | 'gradient' | 'offwhite-jpeg' | 'offwhite-warm';

/** Backdrops photographed with stronger sensor noise and saved as JPEG by default. */
export const isOffWhite = (b: Backdrop) => b === 'offwhite-jpeg' || b === 'offwhite-warm';

export interface SecondShoe {
  /** `left` / `right`: cut by that frame edge; `behind`: further back, partly hidden by the first. */
  placement: 'left' | 'right' | 'behind';
  /** Share of the second shoe's width inside the frame (edge placements; default 0.45). */
  visible?: number;
  /** The other foot: the cutout mirrored left-right (default true). */
  mirrored?: boolean;
}

export interface StudioOptions {
  backdrop: Backdrop;
  /** Soft contact shadow under the sole (default true). */
  shadow?: boolean;
  /** Peak opacity of the floor reflection at the contact line (0.15-0.3), or 0 for none. */
  reflection?: number;
  secondShoe?: SecondShoe;
  /** JPEG round trip through sharp (default: 80 for the off-white backdrop, none otherwise). */
  jpegQuality?: number;
  seed?: number;
}

export interface StudioPhoto {
  /** Opaque RGBA photo. */
  image: RasterImage;
  /** The object's own RGBA cutout where it was placed (ground truth: its alpha). */
  truth: RasterImage;
  /** Pixels outside the object that the shadow or the reflection changed by more than 6 levels. */
  ghost: Uint8Array;
  /** Pixels of the second shoe (and its reflection) outside the object. */
  second: Uint8Array;
  /** The bare backdrop (no object, no ghosts), for reference. */
  backdrop: RasterImage;
  kind: string;
}

/** Composites a rendered view into a studio photo. */
export async function studioPhoto(view: StudioView, opts: StudioOptions): Promise<StudioPhoto> {
  const S = view.size, SH = view.size;
  const random = rng(opts.seed ?? 7);
  const b = bounds(view.cutout);
  const objW = b.x1 - b.x0 + 1, objH = b.y1 - b.y0 + 1;
  // placement: the sole on a floor line below the middle, room for the reflection underneath
  const floor = Math.round(Math.min(0.9 * SH, Math.max(0.74 * SH, 0.06 * SH + objH)));
  let dx = Math.round(S / 2 - (b.x0 + b.x1 + 1) / 2);
  const dy = floor - 1 - b.y1;
  const second = opts.secondShoe;
  let secondDx = 0, secondDy = 0, secondScale = 1;
  if (second && second.placement !== 'behind') {
    const vis = Math.round((second.visible ?? 0.45) * objW);
    const gap = Math.round(0.06 * S);
    // the main object centred in what the second shoe leaves free (the mirrored copy's extent is
    // taken as the original's: the object is centred on its canvas, so they differ by a pixel)
    const free = S - vis - gap;
    const x0 = second.placement === 'right' ? Math.round((free - objW) / 2) : S - Math.round((free - objW) / 2) - objW;
    dx = x0 - b.x0;
    secondDx = second.placement === 'right' ? S - vis - b.x0 : vis - 1 - b.x1;
    secondDy = dy - Math.round(0.02 * objH);
  } else if (second) {
    secondScale = 0.94;
    secondDx = dx + Math.round(0.38 * objW);
    secondDy = dy - Math.round(0.12 * objH);
  }

  const main = actor(view, opts, dx, dy, 1, false);
  const backdrop = makeBackdrop(opts.backdrop, S, SH);
  const image = createRaster(S, SH);
  image.data.set(backdrop.data);
  const layers: Actor[] = [];
  let other: Actor | null = null;
  if (second) {
    other = actor(view, opts, secondDx, secondDy, secondScale, second.mirrored ?? true);
    layers.push(other);
  }
  layers.push(main);
  // what the ghosts alone do to the backdrop (for the ghost ground truth)
  const ghostOnly = createRaster(S, SH);
  ghostOnly.data.set(backdrop.data);
  for (const a of layers) {
    applyShadow(image, a.shadow);
    over(image, a.mirror);
    over(image, a.cutout);
    if (a === main) {
      applyShadow(ghostOnly, a.shadow);
      over(ghostOnly, a.mirror);
    }
  }
  addNoise(image, isOffWhite(opts.backdrop) ? 2.2 : 0.8, random);
  let out = image;
  const q = opts.jpegQuality ?? (isOffWhite(opts.backdrop) ? 80 : 0);
  if (q > 0) out = await jpegRoundTrip(image, q);

  const n = S * SH;
  const ghost = new Uint8Array(n), secondMask = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (main.cutout.data[i * 4 + 3] >= 128) continue;
    const o = i * 4;
    const d = Math.hypot(ghostOnly.data[o] - backdrop.data[o], ghostOnly.data[o + 1] - backdrop.data[o + 1], ghostOnly.data[o + 2] - backdrop.data[o + 2]);
    if (d > 6) ghost[i] = 1;
    if (other && (other.cutout.data[o + 3] >= 128 || other.mirror.data[o + 3] >= 32)) secondMask[i] = 1;
  }
  const kind = [opts.backdrop, opts.shadow === false ? null : 'shadow', opts.reflection ? 'reflection' : null, second ? `second-${second.placement}` : null].filter(Boolean).join('+');
  return { image: out, truth: main.cutout, ghost, second: secondMask, backdrop, kind };
}

interface Actor {
  cutout: RasterImage;
  mirror: RasterImage;
  /** Darkening factor 0..1 per pixel (0 = none). */
  shadow: Float32Array;
}

/** The object, its reflection and its shadow, placed (scaled about the floor point, optionally mirrored). */
function actor(view: StudioView, opts: StudioOptions, dx: number, dy: number, scale: number, mirrored: boolean): Actor {
  const S = view.size, SH = view.size;
  let cut = view.cutout, mir = view.mirror;
  if (mirrored) { cut = flipX(cut); mir = flipX(mir); }
  const b = bounds(cut);
  const ax = (b.x0 + b.x1 + 1) / 2, ay = b.y1 + 1;
  const cutout = place(cut, dx, dy, scale, ax, ay, S, SH);
  const peak = opts.reflection ?? 0;
  const mirror = peak > 0 ? place(mir, dx, dy, scale, ax, ay, S, SH) : createRaster(S, SH);
  const pb = bounds(cutout);
  const objH = pb.y1 - pb.y0 + 1;
  if (peak > 0) {
    // a glossy floor: the mirror image fades out with the distance below the contact line
    for (let y = 0; y < SH; y++) {
      const f = peak * Math.max(0, 1 - (y - pb.y1) / (0.55 * objH));
      for (let x = 0; x < S; x++) {
        const o = (y * S + x) * 4;
        mirror.data[o + 3] = Math.round(mirror.data[o + 3] * Math.min(1, f));
      }
    }
  }
  const shadow = opts.shadow === false ? new Float32Array(S * SH) : contactShadow(cutout, pb);
  return { cutout, mirror, shadow };
}

/**
 * A soft contact shadow: a dark core along the lowest pixels of each column (weaker where the sole
 * is lifted off the floor, as under an arch) and a wide penumbra around the footprint, reaching a
 * little beyond toe and heel.
 */
function contactShadow(cut: RasterImage, b: Bounds): Float32Array {
  const { width: W, height: H } = cut;
  const objW = b.x1 - b.x0 + 1, objH = b.y1 - b.y0 + 1;
  const core = new Float32Array(W * H), pen = new Float32Array(W * H);
  for (let x = b.x0; x <= b.x1; x++) {
    let yl = -1;
    for (let y = b.y1; y >= b.y0; y--) if (cut.data[(y * W + x) * 4 + 3] >= 128) { yl = y; break; }
    if (yl < 0) continue;
    const lift = b.y1 - yl;
    const w = Math.exp(-lift / (0.05 * objH));
    if (yl + 1 < H) core[(yl + 1) * W + x] = w;
    for (let y = Math.max(0, yl - Math.round(0.08 * objH)); y <= Math.min(H - 1, yl + 2); y++) pen[y * W + x] = Math.max(pen[y * W + x], 0.4 + 0.6 * w);
  }
  const c = gaussian(core, W, H, Math.max(1, 0.012 * objW), Math.max(1, 0.006 * H));
  const p = gaussian(pen, W, H, Math.max(2, 0.05 * objW), Math.max(2, 0.018 * H));
  // normalise: the core's peak and the penumbra's peak just below the sole
  let cm = 1e-6, pm = 1e-6;
  for (let i = 0; i < W * H; i++) { if (c[i] > cm) cm = c[i]; if (p[i] > pm) pm = p[i]; }
  const out = new Float32Array(W * H);
  for (let i = 0; i < W * H; i++) out[i] = Math.min(0.6, 0.38 * Math.min(1, c[i] / (0.6 * cm)) + 0.25 * Math.min(1, p[i] / (0.8 * pm)));
  return out;
}

export function makeBackdrop(kind: Backdrop, W: number, H: number): RasterImage {
  const img = createRaster(W, H, [0, 0, 0, 255]);
  for (let y = 0; y < H; y++) {
    const v = (2 * y) / (H - 1) - 1;
    for (let x = 0; x < W; x++) {
      const u = (2 * x) / (W - 1) - 1;
      let rgb: [number, number, number];
      if (kind === 'grey-d9') rgb = [217, 217, 217];
      else if (kind === 'grey-bf') rgb = [191, 191, 191];
      else if (kind === 'grey-cf') rgb = [207, 207, 207];
      else if (kind === 'offwhite-jpeg') rgb = [246, 243, 237];
      else if (kind === 'offwhite-warm') rgb = [243, 239, 232];
      else {
        // a sweep: light at the top, grey towards the floor, and a vignette darkening the corners
        const t = (v + 1) / 2;
        const base = 242 - 50 * t * t * (3 - 2 * t);
        const vig = 1 - 0.1 * (u * u + v * v);
        rgb = [base * vig, base * vig * 0.995, base * vig * 0.985];
      }
      const o = (y * W + x) * 4;
      img.data[o] = clamp(rgb[0]); img.data[o + 1] = clamp(rgb[1]); img.data[o + 2] = clamp(rgb[2]);
    }
  }
  return img;
}

export function addNoise(img: RasterImage, sigma: number, random: () => number): void {
  for (let i = 0; i < img.width * img.height; i++) {
    // luminance noise plus a little chroma noise, as a sensor makes it
    const l = gauss(random) * sigma;
    for (let c = 0; c < 3; c++) img.data[i * 4 + c] = clamp(img.data[i * 4 + c] + l + 0.3 * sigma * gauss(random));
  }
}

export async function jpegRoundTrip(img: RasterImage, quality: number): Promise<RasterImage> {
  const jpg = await sharp(Buffer.from(img.data), { raw: { width: img.width, height: img.height, channels: 4 } }).removeAlpha().jpeg({ quality }).toBuffer();
  const { data, info } = await sharp(jpg).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

// ---------------------------------------------------------------------------------------------
// Small raster helpers

interface Bounds { x0: number; y0: number; x1: number; y1: number }

function bounds(img: RasterImage): Bounds {
  let x0 = img.width, y0 = img.height, x1 = -1, y1 = -1;
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      if (img.data[(y * img.width + x) * 4 + 3] < 128) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      y1 = y;
    }
  }
  return { x0, y0, x1, y1 };
}

/**
 * Translates by (dx, dy) after scaling about (ax, ay) into an outW x outH raster; bilinear in
 * premultiplied alpha when scaled.
 */
function place(img: RasterImage, dx: number, dy: number, scale: number, ax: number, ay: number, outW: number, outH: number): RasterImage {
  const { width: W, height: H, data } = img;
  const out = createRaster(outW, outH);
  for (let y = 0; y < outH; y++) {
    for (let x = 0; x < outW; x++) {
      const o = (y * outW + x) * 4;
      if (scale === 1) {
        const sx = x - dx, sy = y - dy;
        if (sx < 0 || sy < 0 || sx >= W || sy >= H) continue;
        out.data.set(data.subarray((sy * W + sx) * 4, (sy * W + sx) * 4 + 4), o);
        continue;
      }
      const sx = (x + 0.5 - dx - ax) / scale + ax - 0.5, sy = (y + 0.5 - dy - ay) / scale + ay - 0.5;
      const x0 = Math.floor(sx), y0 = Math.floor(sy), fx = sx - x0, fy = sy - y0;
      let a = 0;
      const rgb = [0, 0, 0];
      for (const [xx, yy, w] of [[x0, y0, (1 - fx) * (1 - fy)], [x0 + 1, y0, fx * (1 - fy)], [x0, y0 + 1, (1 - fx) * fy], [x0 + 1, y0 + 1, fx * fy]] as const) {
        if (xx < 0 || yy < 0 || xx >= W || yy >= H || w === 0) continue;
        const s = (yy * W + xx) * 4;
        const sa = (data[s + 3] / 255) * w;
        a += sa;
        for (let c = 0; c < 3; c++) rgb[c] += data[s + c] * sa;
      }
      if (a <= 0) continue;
      for (let c = 0; c < 3; c++) out.data[o + c] = clamp(rgb[c] / a);
      out.data[o + 3] = clamp(a * 255);
    }
  }
  return out;
}

function flipX(img: RasterImage): RasterImage {
  const out = createRaster(img.width, img.height);
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      const s = (y * img.width + x) * 4, d = (y * img.width + img.width - 1 - x) * 4;
      out.data.set(img.data.subarray(s, s + 4), d);
    }
  }
  return out;
}

export function over(dst: RasterImage, src: RasterImage): void {
  for (let i = 0; i < dst.width * dst.height; i++) {
    const o = i * 4;
    const a = src.data[o + 3] / 255;
    if (a <= 0) continue;
    for (let c = 0; c < 3; c++) dst.data[o + c] = clamp(dst.data[o + c] * (1 - a) + src.data[o + c] * a);
  }
}

/** Darkens `dst` by a factor 1 - shadow per pixel. */
export function applyShadow(dst: RasterImage, shadow: Float32Array): void {
  for (let i = 0; i < shadow.length; i++) {
    const f = 1 - shadow[i];
    if (f >= 1) continue;
    for (let c = 0; c < 3; c++) dst.data[i * 4 + c] = clamp(dst.data[i * 4 + c] * f);
  }
}

/** Separable Gaussian blur with separate sigmas along x and y (edges clamped). */
export function gaussian(src: Float32Array, W: number, H: number, sx: number, sy: number): Float32Array {
  const pass = (input: Float32Array, sigma: number, horizontal: boolean) => {
    const r = Math.ceil(3 * sigma);
    const k = new Float32Array(2 * r + 1);
    let sum = 0;
    for (let i = -r; i <= r; i++) sum += k[i + r] = Math.exp(-(i * i) / (2 * sigma * sigma));
    const out = new Float32Array(W * H);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        let acc = 0;
        for (let i = -r; i <= r; i++) {
          const xx = horizontal ? Math.min(W - 1, Math.max(0, x + i)) : x;
          const yy = horizontal ? y : Math.min(H - 1, Math.max(0, y + i));
          acc += input[yy * W + xx] * k[i + r];
        }
        out[y * W + x] = acc / sum;
      }
    }
    return out;
  };
  return pass(pass(src, sx, true), sy, false);
}

function gauss(random: () => number): number {
  return Math.sqrt(-2 * Math.log(Math.max(1e-12, random()))) * Math.cos(2 * Math.PI * random());
}

function clamp(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : Math.round(v);
}

// ---------------------------------------------------------------------------------------------
// Measures

export interface MaskScore {
  /** Intersection over union of the mask (alpha >= 128) and the truth's alpha >= 128. */
  iou: number;
  /** Share of the shadow and reflection pixels the mask keeps as object. */
  ghostKept: number;
  /** Share of the second shoe's pixels the mask keeps. */
  secondKept: number;
  /** Share of the object's pixels the mask loses. */
  objectLost: number;
}

export function scoreMask(result: RasterImage, photo: StudioPhoto): MaskScore {
  let inter = 0, union = 0, ghost = 0, ghostKept = 0, second = 0, secondKept = 0, obj = 0, lost = 0;
  for (let i = 0; i < result.width * result.height; i++) {
    const m = result.data[i * 4 + 3] >= 128, t = photo.truth.data[i * 4 + 3] >= 128;
    if (m && t) inter++;
    if (m || t) union++;
    if (t) { obj++; if (!m) lost++; }
    if (photo.ghost[i]) { ghost++; if (m) ghostKept++; }
    if (photo.second[i]) { second++; if (m) secondKept++; }
  }
  return { iou: union ? inter / union : 1, ghostKept: ghost ? ghostKept / ghost : 0, secondKept: second ? secondKept / second : 0, objectLost: obj ? lost / obj : 0 };
}
