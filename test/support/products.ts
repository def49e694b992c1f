/**
 * Generated ground truth for the shoe and bag 3D pipeline: procedural shoe-like and bag-like
 * meshes (metres, Y up, sole on y = 0, shoe toe towards +X), orthographic views of them on white
 * backgrounds at known azimuths, packshot variants (two shoes, shadow + reflection + halo, a tiny
 * object, a colour-cast tilted shot) and geometry metrics (Chamfer distance, F-score).
 */
import type { RasterImage } from '../../core/images.ts';
import { createRaster } from '../../core/images.ts';
import { renderMesh, viewBasis, type OrthoView, type RenderMesh } from '../../adapters/gltf/render.ts';

export interface ProductMesh {
  positions: Float32Array;
  indices: Uint32Array;
  /** rgb 0..1 per vertex */
  colors: Float32Array;
}

export const SHOE_LENGTH = 0.28;
export const BAG_WIDTH = 0.3;

function smoothstep(a: number, b: number, x: number): number {
  const t = Math.min(1, Math.max(0, (x - a) / (b - a)));
  return t * t * (3 - 2 * t);
}

/** Piecewise-cosine interpolation through knots, smooth enough for a shoe profile. */
function profile(knots: [number, number][], t: number): number {
  for (let i = 0; i < knots.length - 1; i++) {
    const [t0, v0] = knots[i];
    const [t1, v1] = knots[i + 1];
    if (t <= t1) {
      const f = (1 - Math.cos((Math.PI * (t - t0)) / (t1 - t0))) / 2;
      return v0 + (v1 - v0) * f;
    }
  }
  return knots[knots.length - 1][1];
}

class MeshBuilder {
  pos: number[] = [];
  col: number[] = [];
  idx: number[] = [];
  vertex(p: [number, number, number], c: [number, number, number]): number {
    this.pos.push(...p);
    this.col.push(...c);
    return this.pos.length / 3 - 1;
  }
  /** Grid of (rows+1) x (cols+1) vertices; quads wound so the normal follows (dRow x dCol) when flip = false. */
  grid(rows: number, cols: number, at: (r: number, c: number) => [number, number, number], color: (p: [number, number, number]) => [number, number, number], flip: boolean): void {
    const base = this.pos.length / 3;
    for (let r = 0; r <= rows; r++) for (let c = 0; c <= cols; c++) { const p = at(r, c); this.vertex(p, color(p)); }
    const w = cols + 1;
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const a = base + r * w + c, b = a + 1, d = a + w, e = d + 1;
        if (flip) this.idx.push(a, b, d, b, e, d);
        else this.idx.push(a, d, b, b, d, e);
      }
    }
  }
  build(): ProductMesh {
    return { positions: new Float32Array(this.pos), indices: new Uint32Array(this.idx), colors: new Float32Array(this.col) };
  }
}

/** Shoe footprint, heights and colours as functions of t (heel 0 .. toe 1) and s (-1 medial .. +1 lateral). */
const SOLE = 0.026;
function shoeHalfWidth(t: number): number {
  const body = 0.036 + 0.016 * smoothstep(0.2, 0.68, t) - 0.005 * smoothstep(0.82, 1, t);
  const ends = Math.pow(Math.max(0, 1 - Math.pow(Math.abs(2 * t - 1), 3)), 1 / 3);
  return body * ends;
}
function shoeCentreZ(t: number): number {
  return 0.006 * Math.sin(2 * Math.PI * (t - 0.1)) * t;
}
function shoeTop(t: number, s: number): number {
  const h = profile([[0, 0.07], [0.07, 0.092], [0.2, 0.088], [0.45, 0.078], [0.6, 0.068], [0.8, 0.05], [0.95, 0.038], [1, 0.032]], t);
  const dome = Math.pow(Math.max(0, 1 - Math.pow(Math.abs(s), 2.5)), 0.4);
  let y = SOLE + (h - SOLE) * dome;
  // ankle opening: a shallow depression the silhouettes cannot see
  const r2 = ((t - 0.27) / 0.12) ** 2 + (s / 0.55) ** 2;
  if (r2 < 1) y -= 0.022 * Math.pow(1 - r2, 1.5);
  return y;
}
function shoeColor(p: [number, number, number]): [number, number, number] {
  const t = (p[0] + SHOE_LENGTH / 2) / SHOE_LENGTH;
  const y = p[1];
  const z = p[2] - shoeCentreZ(t);
  if (y < SOLE * 1.02) {
    if (y > 0.011 && y < 0.016) return [0.55, 0.55, 0.58];
    return [0.94, 0.93, 0.9];
  }
  if (t < 0.07 && y > 0.045) return [0.82, 0.12, 0.1];
  if (t > 0.86) return [0.72, 0.73, 0.76];
  // lateral "swoosh" band
  const band = 0.038 + 0.045 * (t - 0.3);
  if (z > 0.015 && t > 0.3 && t < 0.8 && Math.abs(y - band) < 0.006) return [0.97, 0.97, 0.97];
  // medial brand text: short vertical strokes
  if (z < -0.015 && t > 0.36 && t < 0.62 && y > 0.044 && y < 0.058 && Math.floor(t * 160) % 2 === 0) return [0.98, 0.82, 0.12];
  // laces across the instep
  const s = (p[2] - shoeCentreZ(t)) / Math.max(1e-6, shoeHalfWidth(t));
  if (t > 0.45 && t < 0.76 && Math.abs(s) < 0.3 && Math.floor(t * 70) % 2 === 0) return [0.95, 0.95, 0.95];
  return [0.12, 0.2, 0.45];
}

/** A closed shoe-like mesh, 28 cm long, toe towards +X, sole on y = 0. */
export function makeShoeMesh(nt = 180, ns = 72): ProductMesh {
  const b = new MeshBuilder();
  const tAt = (r: number) => (1 - Math.cos((Math.PI * r) / nt)) / 2;
  const sAt = (c: number) => Math.sin((Math.PI / 2) * (-1 + (2 * c) / ns));
  const xz = (t: number, s: number): [number, number] => [-SHOE_LENGTH / 2 + t * SHOE_LENGTH, shoeCentreZ(t) + s * shoeHalfWidth(t)];
  // top surface: rows along t (x), columns along s (z); (dRow x dCol) = (+x) x (+z) = -y, so flip for +y
  b.grid(nt, ns, (r, c) => { const t = tAt(r), s = sAt(c); const [x, z] = xz(t, s); return [x, shoeTop(t, s), z]; }, shoeColor, true);
  b.grid(nt, ns, (r, c) => { const t = tAt(r), s = sAt(c); const [x, z] = xz(t, s); return [x, 0, z]; }, shoeColor, false);
  // side walls of the sole at s = +1 (lateral, +z) and s = -1 (medial, -z)
  for (const side of [1, -1]) {
    const rows = 4;
    b.grid(nt, rows, (r, c) => { const t = tAt(r); const [x, z] = xz(t, side); return [x, SOLE * (1 - c / rows), z]; }, shoeColor, side < 0);
  }
  return b.build();
}

function sePow(v: number, e: number): number {
  return Math.sign(v) * Math.pow(Math.abs(v), e);
}

const BAG_HEIGHT = 0.24;
function bagColor(p: [number, number, number]): [number, number, number] {
  const [x, y, z] = p;
  if (y > BAG_HEIGHT + 0.005) return [0.3, 0.17, 0.08]; // handles
  if (y < 0.03) return [0.36, 0.22, 0.12];
  if (z > 0.02 && y > 0.15) {
    if (Math.abs(x) < 0.032 && y > 0.152 && y < 0.172) return [0.86, 0.7, 0.25]; // metal plate
    return [0.45, 0.28, 0.15]; // flap
  }
  if (z < -0.02 && y > 0.08 && y < 0.1) return [0.55, 0.38, 0.22]; // back pocket seam
  return [0.74, 0.55, 0.34];
}

/** Points of a superellipse |x/a|^n + |z/b|^n = 1 spaced evenly along its perimeter. */
function superellipseRing(a: number, b: number, n: number, count: number): [number, number][] {
  const dense: [number, number][] = [];
  const steps = 4096;
  for (let i = 0; i <= steps; i++) {
    const t = (2 * Math.PI * i) / steps;
    dense.push([a * sePow(Math.cos(t), 2 / n), b * sePow(Math.sin(t), 2 / n)]);
  }
  const cum = [0];
  for (let i = 1; i < dense.length; i++) cum.push(cum[i - 1] + Math.hypot(dense[i][0] - dense[i - 1][0], dense[i][1] - dense[i - 1][1]));
  const total = cum[cum.length - 1];
  const out: [number, number][] = [];
  let j = 0;
  for (let k = 0; k <= count; k++) {
    const target = (total * k) / count;
    while (j < cum.length - 2 && cum[j + 1] < target) j++;
    const f = (target - cum[j]) / Math.max(1e-12, cum[j + 1] - cum[j]);
    out.push([dense[j][0] + (dense[j + 1][0] - dense[j][0]) * f, dense[j][1] + (dense[j + 1][1] - dense[j][1]) * f]);
  }
  return out;
}

/** A tote-like bag, 30 cm wide (X), 24 cm body height, tapering depth, rounded edges, two arched handles. */
export function makeBagMesh(rows = 90, ring = 240): ProductMesh {
  const b = new MeshBuilder();
  const W = BAG_WIDTH, H = BAG_HEIGHT, rc = 0.016;
  // rows of the side wall: denser near the rounded bottom and top edges
  const ys: number[] = [];
  for (let r = 0; r <= rows; r++) { const f = r / rows; ys.push(H * (f - Math.sin(2 * Math.PI * f) / (2 * Math.PI * 1.15))); }
  const inset = (y: number) => {
    const d = Math.min(y, H - y);
    return d >= rc ? 0 : rc - Math.sqrt(Math.max(0, rc * rc - (rc - d) ** 2));
  };
  const rings = ys.map((y) => {
    const depth = 0.12 * (1 - 0.34 * (y / H));
    const k = inset(y);
    return superellipseRing(W / 2 - k, depth / 2 - k, 5, ring).map(([x, z]) => [x, y, z] as [number, number, number]);
  });
  // side wall: rows along y, columns around the ring (counter-clockwise seen from above is -z -> +x ...)
  b.grid(rows, ring, (r, c) => rings[r][c], bagColor, true);
  // caps: fans from the centre to the bottom and top rings
  for (const [r, up] of [[0, false], [rows, true]] as [number, boolean][]) {
    const centre = b.vertex([0, ys[r], 0], bagColor([0, ys[r], 0]));
    const first = b.pos.length / 3;
    for (let c = 0; c <= ring; c++) b.vertex(rings[r][c], bagColor(rings[r][c]));
    for (let c = 0; c < ring; c++) {
      if (up) b.idx.push(centre, first + c + 1, first + c);
      else b.idx.push(centre, first + c, first + c + 1);
    }
  }
  for (const zh of [0.024, -0.024]) {
    const na = 60, nr = 12, rad = 0.007;
    b.grid(na, nr, (r, c) => {
      const phi = -0.05 + ((Math.PI + 0.1) * r) / na;
      const cx = 0.08 * Math.cos(phi), cy = H - 0.012 + 0.11 * Math.sin(phi);
      // tube frame: tangent in the x-y plane, normal n, binormal z
      const tx = -0.08 * Math.sin(phi), ty = 0.11 * Math.cos(phi);
      const tl = Math.hypot(tx, ty);
      const nx = ty / tl, ny = -tx / tl;
      const a = (2 * Math.PI * c) / nr;
      return [cx + rad * Math.cos(a) * nx, cy + rad * Math.cos(a) * ny, zh + rad * Math.sin(a)];
    }, bagColor, false);
  }
  return b.build();
}

export function meshBounds(positions: Float32Array): { min: [number, number, number]; max: [number, number, number] } {
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i += 3) {
    for (let k = 0; k < 3; k++) {
      min[k] = Math.min(min[k], positions[i + k]);
      max[k] = Math.max(max[k], positions[i + k]);
    }
  }
  return { min, max };
}

export interface RenderedView {
  /** Opaque RGB on white. */
  image: RasterImage;
  /** Same view with a transparent background (what a perfect cleanup would give). */
  cutout: RasterImage;
  angleDeg: number;
}

export interface ViewOptions {
  size?: number;
  /** Fraction of the frame the object fills along its longer projected side. */
  fill?: number;
  /** 'fit': each view framed on its own object (like real packshots); 'fixed': shared scale and centre. */
  framing?: 'fit' | 'fixed';
  elevationDeg?: number;
}

/** Orthographic views at the given azimuths, white background, soft anti-aliased edges. */
export function renderProductViews(mesh: ProductMesh, angles: number[], opts: ViewOptions = {}): RenderedView[] {
  const size = opts.size ?? 512;
  const fill = opts.fill ?? 0.8;
  const { min, max } = meshBounds(mesh.positions);
  const extent = Math.max(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
  const centre: [number, number, number] = [(min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2];
  const rm: RenderMesh = { positions: mesh.positions, indices: mesh.indices, colors: mesh.colors };
  return angles.map((angleDeg) => {
    const elevationDeg = opts.elevationDeg ?? 0;
    let target = centre;
    let ppu = (fill * size) / extent;
    if ((opts.framing ?? 'fit') === 'fit') {
      const { right, up } = viewBasis(angleDeg, elevationDeg);
      let u0 = Infinity, u1 = -Infinity, v0 = Infinity, v1 = -Infinity;
      for (let i = 0; i < mesh.positions.length; i += 3) {
        const p = [mesh.positions[i], mesh.positions[i + 1], mesh.positions[i + 2]];
        const u = p[0] * right[0] + p[1] * right[1] + p[2] * right[2];
        const v = p[0] * up[0] + p[1] * up[1] + p[2] * up[2];
        u0 = Math.min(u0, u); u1 = Math.max(u1, u); v0 = Math.min(v0, v); v1 = Math.max(v1, v);
      }
      const cu = (u0 + u1) / 2, cv = (v0 + v1) / 2;
      target = [right[0] * cu + up[0] * cv, right[1] * cu + up[1] * cv, right[2] * cu + up[2] * cv];
      ppu = (fill * size) / Math.max(u1 - u0, v1 - v0);
    }
    const view: OrthoView = { azimuthDeg: angleDeg, elevationDeg, target, pixelsPerUnit: ppu, width: size, height: size };
    const cutout = renderMesh(rm, view, { supersample: 3, ambient: 0.6 }).image;
    return { image: onWhite(cutout), cutout, angleDeg };
  });
}

/** Composites an RGBA image over opaque white. */
export function onWhite(img: RasterImage, bg: [number, number, number] = [255, 255, 255]): RasterImage {
  const out = createRaster(img.width, img.height, [bg[0], bg[1], bg[2], 255]);
  compositeOver(out, img, 0, 0, 1);
  return out;
}

/** Alpha-composites `src` onto opaque `dst` at an integer offset. */
export function compositeOver(dst: RasterImage, src: RasterImage, dx: number, dy: number, opacity: number): void {
  for (let y = 0; y < src.height; y++) {
    const ty = y + dy;
    if (ty < 0 || ty >= dst.height) continue;
    for (let x = 0; x < src.width; x++) {
      const tx = x + dx;
      if (tx < 0 || tx >= dst.width) continue;
      const s = (y * src.width + x) * 4;
      const a = (src.data[s + 3] / 255) * opacity;
      if (a <= 0) continue;
      const d = (ty * dst.width + tx) * 4;
      for (let c = 0; c < 3; c++) dst.data[d + c] = Math.round(dst.data[d + c] * (1 - a) + src.data[s + c] * a);
      dst.data[d + 3] = 255;
    }
  }
}

export function flipHorizontal(img: RasterImage): RasterImage {
  const out = createRaster(img.width, img.height);
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      const s = (y * img.width + x) * 4, d = (y * img.width + (img.width - 1 - x)) * 4;
      out.data.set(img.data.subarray(s, s + 4), d);
    }
  }
  return out;
}

/** Opaque bounding box of an RGBA cutout (alpha > 0.5). */
export function alphaBounds(img: RasterImage): { x0: number; y0: number; x1: number; y1: number; area: number } {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity, area = 0;
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      if (img.data[(y * img.width + x) * 4 + 3] > 127) {
        area++;
        x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
      }
    }
  }
  return { x0, y0, x1, y1, area };
}

function sideCutout(size: number, fill: number): RasterImage {
  return renderProductViews(makeShoeMesh(), [0], { size, fill })[0].cutout;
}

/**
 * Shoes side by side on white (two: a pair toe to toe; three: a row). `gap` in pixels between
 * their bounding boxes; a negative gap makes them overlap into one connected blob. With
 * `alternate` every other shoe is mirrored (a pair); otherwise all face the same way.
 */
export function twoShoesPackshot(size = 512, gap = 24, count = 2, alternate = true): RasterImage {
  const single = sideCutout(Math.round((size * 0.84) / count), 0.92);
  const other = flipHorizontal(single);
  const out = createRaster(size, size, [255, 255, 255, 255]);
  const bA = alphaBounds(single);
  const bB = alphaBounds(other);
  const wA = bA.x1 - bA.x0 + 1, wB = bB.x1 - bB.x0 + 1;
  const mirrored = (i: number) => alternate && i % 2 === 1;
  const widths = Array.from({ length: count }, (_, i) => (mirrored(i) ? wB : wA));
  const total = widths.reduce((s, w) => s + w, 0) + gap * (count - 1);
  let left = Math.round((size - total) / 2);
  const top = Math.round(size / 2 - (bA.y1 - bA.y0) / 2) - bA.y0;
  for (let i = 0; i < count; i++) {
    const img = mirrored(i) ? other : single;
    const b = mirrored(i) ? bB : bA;
    // every other shoe sits slightly lower, as pairs usually do in packshots
    compositeOver(out, img, left - b.x0, top + (i % 2) * Math.round(size * 0.02), 1);
    left += widths[i] + gap;
  }
  return out;
}

export interface GhostPackshot {
  image: RasterImage;
  /** Where the true shoe is (alpha of the clean cutout on this canvas). */
  truth: RasterImage;
}

export interface GhostOptions {
  shadow?: boolean;
  reflection?: boolean;
  halo?: boolean;
}

/** A shoe on white with a soft contact shadow, a faint floor reflection and a light halo fringe. */
export function shadowHaloPackshot(size = 512, ghosts: GhostOptions = {}): GhostPackshot {
  const { shadow = true, reflection = true, halo = true } = ghosts;
  const cut = sideCutout(size, 0.7);
  const b = alphaBounds(cut);
  const out = createRaster(size, size, [255, 255, 255, 255]);
  const len = b.x1 - b.x0 + 1;
  // contact shadow: grey ellipse under the sole
  const cx = (b.x0 + b.x1) / 2, cy = b.y1 + 2;
  const rx = len * 0.55, ry = size * 0.035;
  for (let y = 0; y < size && shadow; y++) {
    for (let x = 0; x < size; x++) {
      const d = ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2;
      if (d >= 1) continue;
      const a = 0.3 * (1 - d) ** 1.5;
      const o = (y * size + x) * 4;
      for (let c = 0; c < 3; c++) out.data[o + c] = Math.round(out.data[o + c] * (1 - a) + 110 * a);
    }
  }
  // floor reflection: the shoe mirrored below the sole, fading out
  const h = b.y1 - b.y0 + 1;
  for (let y = 0; y < h * 0.4 && reflection; y++) {
    const sy = b.y1 - y, ty = b.y1 + 3 + y;
    if (ty >= size) break;
    const fade = 0.14 * (1 - y / (h * 0.4));
    for (let x = b.x0; x <= b.x1; x++) {
      const s = (sy * size + x) * 4;
      const a = (cut.data[s + 3] / 255) * fade;
      if (a <= 0) continue;
      const o = (ty * size + x) * 4;
      for (let c = 0; c < 3; c++) out.data[o + c] = Math.round(out.data[o + c] * (1 - a) + cut.data[s + c] * a);
    }
  }
  // halo: a pale bluish fringe a few pixels wide around the silhouette (a poor earlier cutout)
  const alpha = new Float32Array(size * size);
  for (let i = 0; i < size * size; i++) alpha[i] = cut.data[i * 4 + 3] / 255;
  const ring = 4;
  for (let y = 0; y < size && halo; y++) {
    for (let x = 0; x < size; x++) {
      if (alpha[y * size + x] > 0.5) continue;
      let near = false;
      for (let dy = -ring; dy <= ring && !near; dy++) {
        for (let dx = -ring; dx <= ring; dx++) {
          const xx = x + dx, yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= size || yy >= size || dx * dx + dy * dy > ring * ring) continue;
          if (alpha[yy * size + xx] > 0.5) { near = true; break; }
        }
      }
      if (!near) continue;
      const o = (y * size + x) * 4;
      const a = 0.45;
      out.data[o] = Math.round(out.data[o] * (1 - a) + 205 * a);
      out.data[o + 1] = Math.round(out.data[o + 1] * (1 - a) + 212 * a);
      out.data[o + 2] = Math.round(out.data[o + 2] * (1 - a) + 228 * a);
    }
  }
  compositeOver(out, cut, 0, 0, 1);
  return { image: out, truth: cut };
}

/** A very small shoe in the middle of a large white frame. */
export function tinyObjectPackshot(size = 512, objectPixels = 24): RasterImage {
  const cut = sideCutout(objectPixels * 2, 0.5);
  const out = createRaster(size, size, [255, 255, 255, 255]);
  compositeOver(out, cut, Math.round(size / 2 - cut.width / 2), Math.round(size / 2 - cut.height / 2), 1);
  return out;
}

/**
 * A side view shot badly: warm colour cast, under-exposed, rotated by `tiltDeg` and off-centre.
 * Returns the image and the clean reference view (white background, upright, centred).
 */
export function badlyShotPackshot(size = 512, tiltDeg = 12, cast: [number, number, number] = [1.0, 0.9, 0.72], exposure = 0.8): { image: RasterImage; reference: RasterImage } {
  const cut = sideCutout(size, 0.6);
  const rot = rotateNearest(cut, (tiltDeg * Math.PI) / 180, size * 0.1, -size * 0.06);
  const out = createRaster(size, size);
  for (let i = 0; i < size * size; i++) {
    const a = rot.data[i * 4 + 3] / 255;
    for (let c = 0; c < 3; c++) {
      const v = rot.data[i * 4 + c] * a + 255 * (1 - a);
      out.data[i * 4 + c] = Math.max(0, Math.min(255, Math.round(v * cast[c] * exposure)));
    }
    out.data[i * 4 + 3] = 255;
  }
  return { image: out, reference: onWhite(cut) };
}

/** Rotation about the image centre (plus a shift), sampling the source bilinearly. */
function rotateNearest(img: RasterImage, angle: number, shiftX: number, shiftY: number): RasterImage {
  const out = createRaster(img.width, img.height);
  const cx = img.width / 2, cy = img.height / 2;
  const c = Math.cos(angle), s = Math.sin(angle);
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      const dx = x + 0.5 - cx - shiftX, dy = y + 0.5 - cy - shiftY;
      const sx = c * dx + s * dy + cx - 0.5, sy = -s * dx + c * dy + cy - 0.5;
      const x0 = Math.floor(sx), y0 = Math.floor(sy);
      const fx = sx - x0, fy = sy - y0;
      const o = (y * img.width + x) * 4;
      const acc = [0, 0, 0, 0];
      for (const [xx, yy, w] of [[x0, y0, (1 - fx) * (1 - fy)], [x0 + 1, y0, fx * (1 - fy)], [x0, y0 + 1, (1 - fx) * fy], [x0 + 1, y0 + 1, fx * fy]]) {
        if (xx < 0 || yy < 0 || xx >= img.width || yy >= img.height) continue;
        const k = (yy * img.width + xx) * 4;
        const a = img.data[k + 3] * w;
        acc[0] += img.data[k] * a; acc[1] += img.data[k + 1] * a; acc[2] += img.data[k + 2] * a; acc[3] += a;
      }
      if (acc[3] > 0) {
        out.data[o] = Math.round(acc[0] / acc[3]);
        out.data[o + 1] = Math.round(acc[1] / acc[3]);
        out.data[o + 2] = Math.round(acc[2] / acc[3]);
        out.data[o + 3] = Math.round(acc[3]);
      }
    }
  }
  return out;
}

/** Deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Area-weighted random points on a triangle mesh (flat xyz array). */
export function samplePoints(positions: Float32Array, indices: Uint32Array, count: number, seed = 1): Float32Array {
  const nf = indices.length / 3;
  const cdf = new Float64Array(nf);
  let total = 0;
  for (let f = 0; f < nf; f++) {
    const a = indices[f * 3] * 3, b = indices[f * 3 + 1] * 3, c = indices[f * 3 + 2] * 3;
    const ux = positions[b] - positions[a], uy = positions[b + 1] - positions[a + 1], uz = positions[b + 2] - positions[a + 2];
    const vx = positions[c] - positions[a], vy = positions[c + 1] - positions[a + 1], vz = positions[c + 2] - positions[a + 2];
    total += 0.5 * Math.hypot(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx);
    cdf[f] = total;
  }
  const rand = rng(seed);
  const out = new Float32Array(count * 3);
  for (let i = 0; i < count; i++) {
    const r = rand() * total;
    let lo = 0, hi = nf - 1;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (cdf[mid] < r) lo = mid + 1; else hi = mid; }
    let u = rand(), v = rand();
    if (u + v > 1) { u = 1 - u; v = 1 - v; }
    const a = indices[lo * 3] * 3, b = indices[lo * 3 + 1] * 3, c = indices[lo * 3 + 2] * 3;
    for (let k = 0; k < 3; k++) out[i * 3 + k] = positions[a + k] + u * (positions[b + k] - positions[a + k]) + v * (positions[c + k] - positions[a + k]);
  }
  return out;
}

/** Squared distance from p to triangle abc (closest point by Voronoi regions, Ericson 5.1.5). */
function pointTriangle2(px: number, py: number, pz: number, t: Float32Array, o: number): number {
  const ax = t[o], ay = t[o + 1], az = t[o + 2], bx = t[o + 3], by = t[o + 4], bz = t[o + 5], cx = t[o + 6], cy = t[o + 7], cz = t[o + 8];
  const abx = bx - ax, aby = by - ay, abz = bz - az, acx = cx - ax, acy = cy - ay, acz = cz - az;
  const apx = px - ax, apy = py - ay, apz = pz - az;
  const d1 = abx * apx + aby * apy + abz * apz, d2 = acx * apx + acy * apy + acz * apz;
  let qx: number, qy: number, qz: number;
  if (d1 <= 0 && d2 <= 0) { qx = ax; qy = ay; qz = az; }
  else {
    const bpx = px - bx, bpy = py - by, bpz = pz - bz;
    const d3 = abx * bpx + aby * bpy + abz * bpz, d4 = acx * bpx + acy * bpy + acz * bpz;
    if (d3 >= 0 && d4 <= d3) { qx = bx; qy = by; qz = bz; }
    else {
      const vc = d1 * d4 - d3 * d2;
      if (vc <= 0 && d1 >= 0 && d3 <= 0) { const v = d1 / (d1 - d3); qx = ax + v * abx; qy = ay + v * aby; qz = az + v * abz; }
      else {
        const cpx = px - cx, cpy = py - cy, cpz = pz - cz;
        const d5 = abx * cpx + aby * cpy + abz * cpz, d6 = acx * cpx + acy * cpy + acz * cpz;
        if (d6 >= 0 && d5 <= d6) { qx = cx; qy = cy; qz = cz; }
        else {
          const vb = d5 * d2 - d1 * d6;
          if (vb <= 0 && d2 >= 0 && d6 <= 0) { const w = d2 / (d2 - d6); qx = ax + w * acx; qy = ay + w * acy; qz = az + w * acz; }
          else {
            const va = d3 * d6 - d5 * d4;
            if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) { const w = (d4 - d3) / (d4 - d3 + (d5 - d6)); qx = bx + w * (cx - bx); qy = by + w * (cy - by); qz = bz + w * (cz - bz); }
            else { const den = 1 / (va + vb + vc); const v = vb * den, w = vc * den; qx = ax + abx * v + acx * w; qy = ay + aby * v + acy * w; qz = az + abz * v + acz * w; }
          }
        }
      }
    }
  }
  return (px - qx) ** 2 + (py - qy) ** 2 + (pz - qz) ** 2;
}

/** Distance from every point to the nearest point of a triangle mesh surface (uniform grid of triangles). */
export function surfaceDistances(points: Float32Array, mesh: { positions: Float32Array; indices: Uint32Array }, cell: number): Float64Array {
  const nf = mesh.indices.length / 3;
  const tri = new Float32Array(nf * 9);
  const grid = new Map<string, number[]>();
  for (let f = 0; f < nf; f++) {
    let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
    for (let k = 0; k < 3; k++) {
      const v = mesh.indices[f * 3 + k] * 3;
      const x = mesh.positions[v], y = mesh.positions[v + 1], z = mesh.positions[v + 2];
      tri[f * 9 + k * 3] = x; tri[f * 9 + k * 3 + 1] = y; tri[f * 9 + k * 3 + 2] = z;
      x0 = Math.min(x0, x); y0 = Math.min(y0, y); z0 = Math.min(z0, z); x1 = Math.max(x1, x); y1 = Math.max(y1, y); z1 = Math.max(z1, z);
    }
    for (let i = Math.floor(x0 / cell); i <= Math.floor(x1 / cell); i++) for (let j = Math.floor(y0 / cell); j <= Math.floor(y1 / cell); j++) for (let k = Math.floor(z0 / cell); k <= Math.floor(z1 / cell); k++) {
      const key = `${i},${j},${k}`;
      let list = grid.get(key);
      if (!list) grid.set(key, (list = []));
      list.push(f);
    }
  }
  const out = new Float64Array(points.length / 3);
  for (let p = 0; p < points.length / 3; p++) {
    const x = points[p * 3], y = points[p * 3 + 1], z = points[p * 3 + 2];
    const ci = Math.floor(x / cell), cj = Math.floor(y / cell), ck = Math.floor(z / cell);
    let best = Infinity;
    for (let r = 0; r < 64; r++) {
      for (let di = -r; di <= r; di++) for (let dj = -r; dj <= r; dj++) for (let dk = -r; dk <= r; dk++) {
        if (Math.max(Math.abs(di), Math.abs(dj), Math.abs(dk)) !== r) continue;
        const list = grid.get(`${ci + di},${cj + dj},${ck + dk}`);
        if (!list) continue;
        for (const f of list) { const d = pointTriangle2(x, y, z, tri, f * 9); if (d < best) best = d; }
      }
      if (best <= (r * cell) ** 2) break;
    }
    out[p] = Math.sqrt(best);
  }
  return out;
}

export interface ShapeMetrics {
  /** Symmetric mean point-to-surface distance, metres: (mean(recon->truth) + mean(truth->recon)) / 2. */
  chamfer: number;
  precision: number;
  recall: number;
  fscore: number;
  threshold: number;
}

export interface Surface {
  positions: Float32Array;
  indices: Uint32Array;
}

/**
 * Chamfer distance and F-score at `threshold` between a reconstructed and a ground-truth surface:
 * area-uniform samples of each surface, measured to the other surface (not to its samples, so the
 * figures do not depend on the sample density). Both are first grounded and centred.
 */
export function shapeMetrics(recon: Surface, truth: Surface, threshold: number, samples = 20000): ShapeMetrics {
  const r = grounded(recon), t = grounded(truth);
  const rp = samplePoints(r.positions, r.indices, samples, 7);
  const tp = samplePoints(t.positions, t.indices, samples, 3);
  const cell = threshold * 2;
  const dr = surfaceDistances(rp, t, cell);
  const dt = surfaceDistances(tp, r, cell);
  const mean = (d: Float64Array) => d.reduce((s, v) => s + v, 0) / d.length;
  const within = (d: Float64Array) => d.reduce((s, v) => s + (v <= threshold ? 1 : 0), 0) / d.length;
  const precision = within(dr);
  const recall = within(dt);
  return {
    chamfer: (mean(dr) + mean(dt)) / 2,
    precision,
    recall,
    fscore: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0,
    threshold,
  };
}

function grounded(s: Surface): Surface {
  return { positions: groundAndCentre(s.positions), indices: s.indices };
}

/** Translates points so their bounding-box centre in x/z is at the origin and their minimum y is 0. */
export function groundAndCentre(points: Float32Array): Float32Array {
  const { min, max } = meshBounds(points);
  const out = new Float32Array(points.length);
  const cx = (min[0] + max[0]) / 2, cz = (min[2] + max[2]) / 2;
  for (let i = 0; i < points.length; i += 3) {
    out[i] = points[i] - cx;
    out[i + 1] = points[i + 1] - min[1];
    out[i + 2] = points[i + 2] - cz;
  }
  return out;
}
