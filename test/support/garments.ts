/**
 * Generated garment packshots for try-on tests: a t-shirt or long-sleeve shirt, trousers or shorts,
 * a dress and shoes, each a drawn shape with fabric texture on a light, slightly uneven studio
 * background (gradient plus noise, like a real photo table), so segmentation has real work to do.
 */
import type { RasterImage } from '../../core/images.ts';

type RGB = [number, number, number];
interface Pt {
  x: number;
  y: number;
}

/** Deterministic hash noise in [-1, 1] for a pixel and a seed. */
function noise(x: number, y: number, seed: number): number {
  let h = Math.imul(x, 374761393) ^ Math.imul(y, 668265263) ^ Math.imul(seed, 2246822519);
  h = Math.imul(h ^ (h >>> 13), 1274126177);
  h ^= h >>> 16;
  return ((h >>> 0) / 4294967295) * 2 - 1;
}

function clamp255(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : Math.round(v);
}

/** A light studio background: a soft vertical gradient with sensor-like noise. */
function studioBackground(width: number, height: number, base: RGB, seed: number, transparent: boolean): RasterImage {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    const shade = -6 * (y / height); // a little darker towards the bottom
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const n = noise(x, y, seed) * 2;
      data[i] = clamp255(base[0] + shade + n);
      data[i + 1] = clamp255(base[1] + shade + n);
      data[i + 2] = clamp255(base[2] + shade + n);
      data[i + 3] = transparent ? 0 : 255;
    }
  }
  return { width, height, data };
}

/** Catmull-Rom smoothing of a closed outline; `sharp` marks corners kept as they are. */
function smooth(points: Pt[], sharp: Set<number>, steps = 8): Pt[] {
  const out: Pt[] = [];
  const n = points.length;
  for (let i = 0; i < n; i++) {
    const p0 = points[(i - 1 + n) % n];
    const p1 = points[i];
    const p2 = points[(i + 1) % n];
    const p3 = points[(i + 2) % n];
    if (sharp.has(i) && sharp.has((i + 1) % n)) {
      out.push(p1);
      continue;
    }
    const a = sharp.has(i) ? p1 : p0;
    const d = sharp.has((i + 1) % n) ? p2 : p3;
    for (let s = 0; s < steps; s++) {
      const t = s / steps;
      const t2 = t * t;
      const t3 = t2 * t;
      out.push({
        x: 0.5 * (2 * p1.x + (-a.x + p2.x) * t + (2 * a.x - 5 * p1.x + 4 * p2.x - d.x) * t2 + (-a.x + 3 * p1.x - 3 * p2.x + d.x) * t3),
        y: 0.5 * (2 * p1.y + (-a.y + p2.y) * t + (2 * a.y - 5 * p1.y + 4 * p2.y - d.y) * t2 + (-a.y + 3 * p1.y - 3 * p2.y + d.y) * t3),
      });
    }
  }
  return out;
}

/**
 * Per-pixel coverage (0..1) of a polygon, with 4 sub-scanlines per row and exact horizontal
 * coverage of each span, so edges are anti-aliased like a photographed outline.
 */
function coverage(poly: Pt[], width: number, height: number): Float32Array {
  const cov = new Float32Array(width * height);
  const sub = 4;
  let minY = Infinity;
  let maxY = -Infinity;
  for (const p of poly) {
    minY = Math.min(minY, p.y);
    maxY = Math.max(maxY, p.y);
  }
  const y0 = Math.max(0, Math.floor(minY));
  const y1 = Math.min(height - 1, Math.ceil(maxY));
  const xs: number[] = [];
  for (let y = y0; y <= y1; y++) {
    for (let s = 0; s < sub; s++) {
      const sy = y + (s + 0.5) / sub;
      xs.length = 0;
      for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
        const a = poly[i];
        const b = poly[j];
        if (a.y > sy !== b.y > sy) xs.push(a.x + ((sy - a.y) / (b.y - a.y)) * (b.x - a.x));
      }
      xs.sort((p, q) => p - q);
      for (let k = 0; k + 1 < xs.length; k += 2) {
        const xa = Math.max(0, xs[k]);
        const xb = Math.min(width, xs[k + 1]);
        if (xb <= xa) continue;
        const ia = Math.floor(xa);
        const ib = Math.floor(xb);
        const row = y * width;
        if (ia === ib) {
          cov[row + ia] += (xb - xa) / sub;
          continue;
        }
        cov[row + ia] += (ia + 1 - xa) / sub;
        for (let x = ia + 1; x < ib && x < width; x++) cov[row + x] += 1 / sub;
        if (ib < width) cov[row + ib] += (xb - ib) / sub;
      }
    }
  }
  for (let i = 0; i < cov.length; i++) if (cov[i] > 1) cov[i] = 1;
  return cov;
}

/** Paints `colour(x, y)` through a polygon's coverage onto the image (over operator). */
function paint(img: RasterImage, poly: Pt[], colour: (x: number, y: number) => RGB): Float32Array {
  const cov = coverage(poly, img.width, img.height);
  const d = img.data;
  for (let i = 0; i < cov.length; i++) {
    const a = cov[i];
    if (a <= 0) continue;
    const x = i % img.width;
    const y = (i - x) / img.width;
    const c = colour(x, y);
    const o = i * 4;
    const da = d[o + 3] / 255;
    const outA = a + da * (1 - a);
    for (let k = 0; k < 3; k++) d[o + k] = clamp255((c[k] * a + d[o + k] * da * (1 - a)) / outA);
    d[o + 3] = clamp255(outA * 255);
  }
  return cov;
}

function mirror(points: Pt[], cx: number): Pt[] {
  return points.map((p) => ({ x: 2 * cx - p.x, y: p.y }));
}

/** Woven fabric: fine noise plus soft low-frequency folds, around a base colour. */
function fabric(base: RGB, seed: number, folds = 0.05): (x: number, y: number) => RGB {
  return (x, y) => {
    const n = noise(x, y, seed) * 5;
    const fold = 1 + folds * Math.sin(x * 0.045 + Math.sin(y * 0.02) * 2) * Math.sin(y * 0.013 + 1.3);
    return [base[0] * fold + n, base[1] * fold + n, base[2] * fold + n];
  };
}

export interface TopOptions {
  colour?: RGB;
  /** Horizontal stripes in a second colour. */
  stripes?: RGB;
  sleeves?: 'short' | 'long';
  background?: RGB;
  transparent?: boolean;
  seed?: number;
}

/** A t-shirt (short sleeves) or a long-sleeve shirt laid flat, front view, collar up. */
export function drawTop(opts: TopOptions = {}): RasterImage {
  const W = 640;
  const H = 720;
  const cx = W / 2;
  const seed = opts.seed ?? 1;
  const img = studioBackground(W, H, opts.background ?? [246, 246, 244], seed, opts.transparent ?? false);
  const long = opts.sleeves === 'long';
  // right half (image right), from the neck clockwise to the hem centre
  const right: Pt[] = long
    ? [
        { x: cx + 62, y: 72 },
        { x: cx + 152, y: 98 },
        { x: cx + 272, y: 548 },
        { x: cx + 212, y: 566 },
        { x: cx + 146, y: 242 },
        { x: cx + 150, y: 592 },
      ]
    : [
        { x: cx + 62, y: 72 },
        { x: cx + 150, y: 98 },
        { x: cx + 268, y: 228 },
        { x: cx + 212, y: 282 },
        { x: cx + 146, y: 228 },
        { x: cx + 150, y: 562 },
      ];
  const left = mirror(right, cx).reverse();
  const hemY = right[5].y;
  const outline: Pt[] = [...right, { x: cx, y: hemY + 6 }, ...left, { x: cx, y: 118 }];
  // corners: shoulder, sleeve ends, armpit, hem corners stay sharp; the neckline and hem curve
  const n = outline.length;
  const sharp = new Set<number>([0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12].filter((i) => i < n));
  const poly = smooth(outline, sharp);
  const base = opts.colour ?? [196, 38, 52];
  const cloth = fabric(base, seed + 11);
  const stripes = opts.stripes;
  paint(img, poly, (x, y) => {
    const c = stripes && Math.floor((y - 60) / 28) % 2 === 1 ? fabric(stripes, seed + 12)(x, y) : cloth(x, y);
    // a ribbed collar band just below the neckline
    const dx = x - cx;
    const collar = Math.hypot(dx / 70, (y - 60) / 62);
    const rib = collar > 0.92 && collar < 1.12 && y < 140 ? 0.85 : 1;
    // hem stitching
    const hem = y > hemY - 24 && y < hemY - 20 ? 0.85 : 1;
    return [c[0] * rib * hem, c[1] * rib * hem, c[2] * rib * hem];
  });
  return img;
}

export interface BottomOptions {
  colour?: RGB;
  length?: 'full' | 'shorts';
  background?: RGB;
  transparent?: boolean;
  seed?: number;
}

/** Trousers or shorts laid flat, front view, waistband up, with a gap between the legs. */
export function drawBottom(opts: BottomOptions = {}): RasterImage {
  const W = 520;
  const H = 780;
  const cx = W / 2;
  const seed = opts.seed ?? 2;
  const img = studioBackground(W, H, opts.background ?? [244, 245, 247], seed, opts.transparent ?? false);
  const shorts = opts.length === 'shorts';
  const hemY = shorts ? 350 : 740;
  const right: Pt[] = [
    { x: cx + 148, y: 40 },
    { x: cx + 162, y: 160 },
    { x: cx + (shorts ? 176 : 134), y: hemY },
    { x: cx + (shorts ? 28 : 30), y: hemY },
    { x: cx, y: 240 },
  ];
  const left = mirror(right.slice(0, 4), cx).reverse();
  const outline = [...right, ...left];
  const poly = smooth(outline, new Set([0, 2, 3, 4, 5, 6, 8]));
  const base = opts.colour ?? [48, 78, 138];
  paint(img, poly, (x, y) => {
    // denim twill: fine diagonal ribs
    const twill = 1 + 0.06 * Math.sin((x + y) * 1.3);
    const n = noise(x, y, seed + 21) * 5;
    const band = y < 72 ? 0.88 : 1; // waistband
    const fly = Math.abs(x - (cx - 18)) < 1.5 && y > 72 && y < 200 ? 0.8 : 1;
    const k = twill * band * fly;
    return [base[0] * k + n, base[1] * k + n, base[2] * k + n];
  });
  return img;
}

export interface DressOptions {
  colour?: RGB;
  dots?: RGB;
  background?: RGB;
  transparent?: boolean;
  seed?: number;
}

/** A sleeveless A-line dress with a V neck, fitted waist and flared skirt to below the knee. */
export function drawDress(opts: DressOptions = {}): RasterImage {
  const W = 600;
  const H = 940;
  const cx = W / 2;
  const seed = opts.seed ?? 3;
  const img = studioBackground(W, H, opts.background ?? [247, 246, 245], seed, opts.transparent ?? false);
  const right: Pt[] = [
    { x: cx + 58, y: 40 },
    { x: cx + 112, y: 48 },
    { x: cx + 118, y: 110 },
    { x: cx + 140, y: 180 },
    { x: cx + 132, y: 240 },
    { x: cx + 104, y: 310 },
    { x: cx + 150, y: 440 },
    { x: cx + 252, y: 860 },
  ];
  const left = mirror(right, cx).reverse();
  const outline = [...right, { x: cx, y: 870 }, ...left, { x: cx, y: 150 }];
  const n = outline.length;
  const sharp = new Set<number>([0, 1, 7, 9, 15, 16, n - 1].filter((i) => i < n));
  const poly = smooth(outline, sharp);
  const base = opts.colour ?? [22, 128, 96];
  const dots = opts.dots;
  const cloth = fabric(base, seed + 31, 0.04);
  paint(img, poly, (x, y) => {
    if (dots) {
      const gx = ((x % 46) + 46) % 46;
      const gy = (((y + (Math.floor(x / 46) % 2) * 23) % 46) + 46) % 46;
      if (Math.hypot(gx - 23, gy - 23) < 7) return fabric(dots, seed + 32, 0.02)(x, y);
    }
    const waist = y > 302 && y < 316 ? 0.88 : 1; // waist seam
    const c = cloth(x, y);
    return [c[0] * waist, c[1] * waist, c[2] * waist];
  });
  return img;
}

export interface ShoeOptions {
  colour?: RGB;
  sole?: RGB;
  /** 'single': one shoe; 'pair': two shoes side by side, not touching. */
  layout?: 'single' | 'pair';
  /** Which way the toe points. */
  toe?: 'right' | 'left';
  background?: RGB;
  transparent?: boolean;
  seed?: number;
}

/** Outline of a side-view sneaker with its toe to the right, in a 1 x 0.45 box scaled by `s`. */
function shoeOutline(ox: number, oy: number, s: number): { upper: Pt[]; sole: Pt[] } {
  const p = (x: number, y: number): Pt => ({ x: ox + x * s, y: oy + y * s });
  const upper = smooth(
    [p(0.02, 0.36), p(0.03, 0.1), p(0.1, 0.02), p(0.26, 0.08), p(0.38, 0.04), p(0.5, 0.12), p(0.72, 0.22), p(0.9, 0.26), p(0.98, 0.33), p(0.97, 0.38)],
    new Set([0, 9]),
  );
  const sole = smooth([p(0.0, 0.35), p(0.99, 0.35), p(1.0, 0.4), p(0.94, 0.45), p(0.05, 0.45), p(0.0, 0.42)], new Set([0, 1]), 6);
  return { upper, sole };
}

/** A sneaker side view (or a pair), coloured upper with laces and an accent stripe, on a light background. */
export function drawShoes(opts: ShoeOptions = {}): RasterImage {
  const pair = opts.layout === 'pair';
  const W = pair ? 900 : 640;
  const H = pair ? 420 : 360;
  const seed = opts.seed ?? 4;
  const img = studioBackground(W, H, opts.background ?? [245, 245, 245], seed, opts.transparent ?? false);
  const upperColour = opts.colour ?? [30, 104, 196];
  const soleColour = opts.sole ?? [172, 138, 98];
  const s = pair ? 400 : 560;
  const origins = pair ? [{ x: 40, y: 110 }, { x: 470, y: 130 }] : [{ x: 40, y: 70 }];
  for (const o of origins) {
    const { upper, sole } = shoeOutline(o.x, o.y, s);
    paint(img, upper, (x, y) => {
      const u = (x - o.x) / s;
      const v = (y - o.y) / s;
      const n = noise(x, y, seed + 41) * 4;
      // laces: short white bars across the instep
      const onLaces = u > 0.38 && u < 0.64 && Math.abs(v - (0.12 + (u - 0.36) * 0.45)) < 0.03 && Math.floor(u * 60) % 3 === 0;
      if (onLaces) return [236 + n, 236 + n, 232 + n];
      // a curved accent stripe along the side
      const stripe = Math.abs(v - (0.32 - 0.2 * (u - 0.25) * (u - 0.25) - 0.05 * u)) < 0.018 && u > 0.15 && u < 0.7;
      if (stripe) return [240 + n, 240 + n, 236 + n];
      const k = 0.9 + 0.1 * Math.cos(v * 6);
      return [upperColour[0] * k + n, upperColour[1] * k + n, upperColour[2] * k + n];
    });
    paint(img, sole, (x, y) => {
      const n = noise(x, y, seed + 42) * 3;
      const tread = Math.floor((y - o.y) / s / 0.02) % 2 === 0 ? 0.94 : 1;
      return [soleColour[0] * tread + n, soleColour[1] * tread + n, soleColour[2] * tread + n];
    });
  }
  if (opts.toe === 'left') {
    const d = img.data;
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W / 2; x++) {
        const a = (y * W + x) * 4;
        const b = (y * W + (W - 1 - x)) * 4;
        for (let k = 0; k < 4; k++) {
          const t = d[a + k];
          d[a + k] = d[b + k];
          d[b + k] = t;
        }
      }
    }
  }
  return img;
}

/** The fill colour each generator uses by default, for colour-fidelity checks. */
export const DEFAULT_COLOURS = {
  top: [196, 38, 52] as RGB,
  bottom: [48, 78, 138] as RGB,
  dress: [22, 128, 96] as RGB,
  shoes: [30, 104, 196] as RGB,
};
