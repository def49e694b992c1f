import sharp from 'sharp';
/**
 * Generated image fixtures: solid images and shapes, a synthetic frontal face, and synthetic
 * full-body person photos with their ground-truth masks on plain, noisy or gradient backgrounds.
 * Everything is drawn in plain typed arrays, independent of the code under test, and seeded so the
 * same arguments always give the same pixels.
 */
import type { RasterImage } from '../../core/images.ts';

export type RGB = [number, number, number];

export function solidImage(width: number, height: number, rgba: [number, number, number, number]): RasterImage {
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
  return { width, height, data };
}

/** Deterministic hash noise in [-1, 1] for a pixel and a seed. */
export function hashNoise(x: number, y: number, seed: number): number {
  let h = Math.imul(x, 374761393) ^ Math.imul(y, 668265263) ^ Math.imul(seed, 2246822519);
  h = Math.imul(h ^ (h >>> 13), 1274126177);
  h ^= h >>> 16;
  return ((h >>> 0) / 4294967295) * 2 - 1;
}

const clamp255 = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : Math.round(v));

/** A shape test: true where the shape covers pixel centre (x + 0.5, y + 0.5). */
export type Shape = (x: number, y: number) => boolean;

export const ellipse = (cx: number, cy: number, rx: number, ry: number): Shape => (x, y) => ((x + 0.5 - cx) / rx) ** 2 + ((y + 0.5 - cy) / ry) ** 2 <= 1;

export const rect = (x0: number, y0: number, x1: number, y1: number): Shape => (x, y) => x + 0.5 >= x0 && x + 0.5 <= x1 && y + 0.5 >= y0 && y + 0.5 <= y1;

/** A segment with round ends whose radius goes linearly from r0 to r1. */
export const capsule = (x0: number, y0: number, x1: number, y1: number, r0: number, r1: number = r0): Shape => (x, y) => {
  const px = x + 0.5 - x0;
  const py = y + 0.5 - y0;
  const dx = x1 - x0;
  const dy = y1 - y0;
  const len2 = dx * dx + dy * dy || 1;
  const t = Math.min(1, Math.max(0, (px * dx + py * dy) / len2));
  const r = r0 + (r1 - r0) * t;
  return (px - t * dx) ** 2 + (py - t * dy) ** 2 <= r * r;
};

/** Convex or concave polygon, even-odd rule. */
export const polygon = (pts: [number, number][]): Shape => (x, y) => {
  const px = x + 0.5;
  const py = y + 0.5;
  let inside = false;
  for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
    const [xi, yi] = pts[i];
    const [xj, yj] = pts[j];
    if (yi > py !== yj > py && px < ((xj - xi) * (py - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
};

/** Paints a shape in a colour (opaque) over the image; returns the number of pixels painted. */
export function paint(img: RasterImage, shape: Shape, rgb: RGB, mask?: Uint8Array, bbox?: [number, number, number, number]): number {
  const [bx0, by0, bx1, by1] = bbox ?? [0, 0, img.width - 1, img.height - 1];
  let n = 0;
  for (let y = Math.max(0, by0); y <= Math.min(img.height - 1, by1); y++) {
    for (let x = Math.max(0, bx0); x <= Math.min(img.width - 1, bx1); x++) {
      if (!shape(x, y)) continue;
      const o = (y * img.width + x) * 4;
      img.data[o] = rgb[0];
      img.data[o + 1] = rgb[1];
      img.data[o + 2] = rgb[2];
      img.data[o + 3] = 255;
      if (mask) mask[y * img.width + x] = 255;
      n++;
    }
  }
  return n;
}

export type BackgroundKind = 'plain' | 'noisy' | 'gradient';

/** A light backdrop: flat, flat with sensor-like noise (sigma about 6), or a diagonal gradient with noise. */
export function background(width: number, height: number, kind: BackgroundKind, seed = 1, base: RGB = [226, 228, 231]): RasterImage {
  const img = solidImage(width, height, [base[0], base[1], base[2], 255]);
  if (kind === 'plain') return img;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      const n = hashNoise(x, y, seed) * 10 + hashNoise(x + 7, y + 3, seed + 1) * 4;
      const g = kind === 'gradient' ? 34 * (x / width) - 30 * (y / height) : 0;
      for (let c = 0; c < 3; c++) img.data[o + c] = clamp255(base[c] + n + g * (c === 2 ? 0.6 : 1));
    }
  }
  return img;
}

/** Adds per-channel noise of the given amplitude to the pixels where mask is set (or everywhere). */
export function addNoise(img: RasterImage, amplitude: number, seed: number, mask?: Uint8Array): void {
  for (let i = 0; i < img.width * img.height; i++) {
    if (mask && !mask[i]) continue;
    const x = i % img.width;
    const y = (i - x) / img.width;
    for (let c = 0; c < 3; c++) img.data[i * 4 + c] = clamp255(img.data[i * 4 + c] + hashNoise(x, y, seed + c) * amplitude);
  }
}

export interface SyntheticFace {
  image: RasterImage;
  /** The drawn face oval (skin), in pixels. */
  face: { cx: number; cy: number; rx: number; ry: number };
}

/**
 * A frontal head-and-shoulders portrait: coloured backdrop, hair, a skin oval with eyes, brows,
 * nose shadow and mouth, neck and a shirt. Skin defaults to a medium tone.
 */
export function syntheticFace(width = 256, height = 320, opts: { skin?: RGB; hair?: RGB; backdrop?: RGB; seed?: number } = {}): SyntheticFace {
  const skin = opts.skin ?? [196, 148, 118];
  const hair = opts.hair ?? [58, 40, 30];
  const img = background(width, height, 'noisy', opts.seed ?? 3, opts.backdrop ?? [120, 146, 170]);
  const cx = width / 2;
  const cy = height * 0.45;
  const rx = width * 0.24;
  const ry = rx * 1.3;
  paint(img, rect(0, height * 0.86, width, height), [70, 90, 120]); // shirt
  paint(img, ellipse(cx, height * 0.97, width * 0.42, height * 0.14), [70, 90, 120]);
  paint(img, rect(cx - rx * 0.45, cy + ry * 0.6, cx + rx * 0.45, height * 0.9), [skin[0] - 16, skin[1] - 14, skin[2] - 12]); // neck
  paint(img, ellipse(cx, cy - ry * 0.25, rx * 1.12, ry * 0.95), hair);
  paint(img, ellipse(cx, cy, rx, ry), skin);
  paint(img, ellipse(cx, cy - ry * 0.78, rx * 0.95, ry * 0.3), hair); // fringe
  const eyeY = cy - ry * 0.12;
  for (const s of [-1, 1]) {
    paint(img, ellipse(cx + s * rx * 0.4, eyeY, rx * 0.17, ry * 0.07), [240, 238, 235]);
    paint(img, ellipse(cx + s * rx * 0.4, eyeY, rx * 0.07, ry * 0.065), [60, 45, 35]);
    paint(img, capsule(cx + s * rx * 0.22, eyeY - ry * 0.17, cx + s * rx * 0.6, eyeY - ry * 0.19, rx * 0.04), hair);
  }
  paint(img, capsule(cx, eyeY + ry * 0.1, cx + rx * 0.06, cy + ry * 0.28, rx * 0.05), [skin[0] - 30, skin[1] - 28, skin[2] - 24]);
  paint(img, ellipse(cx, cy + ry * 0.55, rx * 0.3, ry * 0.07), [170, 80, 80]);
  addNoise(img, 3, (opts.seed ?? 3) + 11);
  return { image: img, face: { cx, cy, rx, ry } };
}

export interface SyntheticPerson {
  image: RasterImage;
  /** Ground truth: 255 where the person was drawn. */
  mask: Uint8Array;
  /** Drawn positions (pixels) of a few body points, for landmark checks. */
  points: { headTop: number; crotchY: number; soleY: number; centerX: number };
}

export interface PersonOptions {
  width?: number;
  height?: number;
  background?: BackgroundKind;
  seed?: number;
  /** Outward angle of the arms from vertical, degrees (default 18). */
  armAngle?: number;
  /** Half the horizontal distance between the ankles as a fraction of the height (default 0.06). */
  stance?: number;
  /** Widths relative to the default body (1 = average). */
  hipScale?: number;
  shirt?: RGB;
  trousers?: RGB;
}

/**
 * A full-body standing person (front view, head to feet) drawn from simple shapes: hair and a
 * face, neck, a shirt with short sleeves, bare forearms and hands, trousers and shoes, on a
 * light backdrop. The person spans about 88% of the image height.
 */
export function syntheticPerson(opts: PersonOptions = {}): SyntheticPerson {
  const W = opts.width ?? 480;
  const H = opts.height ?? 720;
  const seed = opts.seed ?? 7;
  const img = background(W, H, opts.background ?? 'plain', seed);
  const mask = new Uint8Array(W * H);
  const skin: RGB = [201, 152, 120];
  const shirt: RGB = opts.shirt ?? [52, 86, 140];
  const trousers: RGB = opts.trousers ?? [48, 48, 56];
  const shoes: RGB = [30, 26, 24];
  const hair: RGB = [60, 42, 30];
  const top = H * 0.06;
  const sole = H * 0.94;
  const S = sole - top; // body height in px
  const cx = W / 2;
  const hipHalf = 0.1 * S * (opts.hipScale ?? 1);
  const shoulderHalf = 0.115 * S;
  const waistHalf = 0.085 * S;
  const chestHalf = 0.1 * S;
  const y = (f: number) => top + f * S; // f measured from the head top
  const crotchY = y(0.53); // bottom edge of the shirt, where the legs part
  const stance = (opts.stance ?? 0.06) * S;
  const armAngle = ((opts.armAngle ?? 18) * Math.PI) / 180;
  const draw = (shape: Shape, rgb: RGB) => paint(img, shape, rgb, mask);

  // legs (trousers) and shoes
  for (const s of [-1, 1]) {
    const legR = 0.05 * S * (opts.hipScale ?? 1);
    const hipX = cx + s * (hipHalf - legR);
    const ankleX = cx + s * Math.max(stance, hipHalf - legR);
    draw(capsule(hipX, y(0.5), ankleX, y(0.955), legR, 0.03 * S), trousers);
    draw(ellipse(ankleX + s * 0.01 * S, y(0.985), 0.035 * S, 0.018 * S), shoes);
  }
  // torso: shoulders to hips, with a waist
  draw(polygon([
    [cx - shoulderHalf, y(0.185)], [cx - chestHalf, y(0.28)], [cx - waistHalf, y(0.4)], [cx - hipHalf, y(0.49)], [cx - hipHalf * 0.95, y(0.53)],
    [cx + hipHalf * 0.95, y(0.53)], [cx + hipHalf, y(0.49)], [cx + waistHalf, y(0.4)], [cx + chestHalf, y(0.28)], [cx + shoulderHalf, y(0.185)],
    [cx + 0.045 * S, y(0.165)], [cx - 0.045 * S, y(0.165)],
  ]), shirt);
  // arms: sleeve, forearm, hand
  for (const s of [-1, 1]) {
    const sx = cx + s * (shoulderHalf - 0.02 * S);
    const sy = y(0.2);
    const len = 0.33 * S;
    const ex = sx + s * Math.sin(armAngle) * len * 0.5;
    const ey = sy + Math.cos(armAngle) * len * 0.5;
    const wx = sx + s * Math.sin(armAngle) * len;
    const wy = sy + Math.cos(armAngle) * len;
    draw(capsule(sx, sy, wx, wy, 0.03 * S, 0.02 * S), skin);
    draw(capsule(sx, sy, ex, ey, 0.037 * S, 0.032 * S), shirt);
    draw(ellipse(wx + s * Math.sin(armAngle) * 0.04 * S, wy + 0.04 * S, 0.022 * S, 0.045 * S), skin);
  }
  // neck and head
  draw(rect(cx - 0.03 * S, y(0.1), cx + 0.03 * S, y(0.19)), [skin[0] - 14, skin[1] - 12, skin[2] - 10]);
  draw(ellipse(cx, y(0.065), 0.05 * S, 0.065 * S), skin);
  draw(ellipse(cx, y(0.045), 0.054 * S, 0.046 * S), hair);
  // fabric and skin texture
  addNoise(img, 5, seed + 101, mask);
  return { image: img, mask, points: { headTop: Math.round(top), crotchY: Math.round(crotchY), soleY: Math.round(sole), centerX: cx } };
}

/**
 * A direct-mode silhouette from a mask: white body on black (`luminance`), or the body opaque
 * on a transparent canvas (`alpha`), or a depth-like rendering whose brightness grows towards the
 * middle of each row-run (`depth`).
 */
export function silhouetteImage(mask: Uint8Array, width: number, height: number, mode: 'luminance' | 'alpha' | 'depth'): RasterImage {
  const img = solidImage(width, height, mode === 'alpha' ? [0, 0, 0, 0] : [0, 0, 0, 255]);
  for (let yy = 0; yy < height; yy++) {
    let x = 0;
    while (x < width) {
      if (!mask[yy * width + x]) {
        x++;
        continue;
      }
      let end = x;
      while (end < width && mask[yy * width + end]) end++;
      for (let i = x; i < end; i++) {
        const t = (i + 0.5 - x) / (end - x);
        const v = mode === 'depth' ? clamp255(90 + 160 * Math.sqrt(Math.max(0, 1 - (2 * t - 1) ** 2))) : mode === 'alpha' ? 180 : 255;
        img.data.set([v, v, v, 255], (yy * width + i) * 4);
      }
      x = end;
    }
  }
  return img;
}

/** Intersection over union of two masks. */
export function maskIoU(a: Uint8Array, b: Uint8Array): number {
  let inter = 0;
  let union = 0;
  for (let i = 0; i < a.length; i++) {
    const p = a[i] > 0;
    const q = b[i] > 0;
    if (p && q) inter++;
    if (p || q) union++;
  }
  return union ? inter / union : 1;
}

/** A raster as a PNG data URL (request images in API tests and benchmarks). */
export async function pngDataUrl(img: RasterImage): Promise<string> {
  const png = await sharp(Buffer.from(img.data), { raw: { width: img.width, height: img.height, channels: 4 } }).png().toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}
