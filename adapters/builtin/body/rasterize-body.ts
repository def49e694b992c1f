import type { RasterImage } from '../../../core/images.ts';
import type { BodyLandmarks, Point } from '../../../core/twins/body.ts';
import type { BodyModel, Ellipsoid, LandmarkName, OrientedEllipsoid, Sweep, Torso, Vec3 } from './body-model.ts';
import { PART, hermite, pchipSlopes, torsoSectionAt } from './body-model.ts';

export interface RenderSize {
  width: number;
  height: number;
}

export interface Framing {
  marginTop: number;
  marginBottom: number;
}

/** A rendered body plus the per-pixel part labels (PART) that garment engines can use. */
export interface BodyRaster {
  image: RasterImage;
  mask: Uint8Array;
  /** cm in front of a plane 1 cm behind the rearmost visible surface; 0 outside the body. */
  depth: Float32Array;
  parts: Uint8Array;
  /** Lambert shade 0..1 of each body pixel (0 outside); the face compositor follows it. */
  shade: Float32Array;
  landmarks: BodyLandmarks;
  pixelsPerCm: number;
}

/** Neutral light skin tone and a clean, slightly warm light grey background. */
export const SKIN_RGB: readonly [number, number, number] = [216, 176, 150];
export const BACKGROUND_RGB: readonly [number, number, number] = [241, 240, 237];

/** Supersampling factor per axis: edges are anti-aliased by averaging SS x SS samples. */
const SS = 2;
/** Key light from the upper left front and a weak fill from the right. */
const KEY = normalize({ x: -0.38, y: 0.42, z: 0.82 });
const FILL = normalize({ x: 0.7, y: 0.05, z: 0.45 });
const AMBIENT = 0.36;

function normalize(v: Vec3): Vec3 {
  const l = Math.hypot(v.x, v.y, v.z);
  return { x: v.x / l, y: v.y / l, z: v.z / l };
}

export function lambert(nx: number, ny: number, nz: number): number {
  const inv = 1 / Math.hypot(nx, ny, nz);
  nx *= inv;
  ny *= inv;
  nz *= inv;
  const k = nx * KEY.x + ny * KEY.y + nz * KEY.z;
  const f = nx * FILL.x + ny * FILL.y + nz * FILL.z;
  return Math.min(1, AMBIENT + 0.6 * (k > 0 ? k : 0) + 0.14 * (f > 0 ? f : 0));
}

/** Z-buffered supersampled canvas; normals are kept (quantised) and shaded once at the end. */
class Canvas {
  readonly w: number;
  readonly h: number;
  /** pixels per cm on this (supersampled) canvas */
  readonly scale: number;
  readonly x0: number;
  readonly floorY: number;
  readonly z: Float32Array;
  /** unit normal * 127, three bytes per sample */
  readonly normal: Int8Array;
  readonly part: Uint8Array;

  constructor(w: number, h: number, scale: number, x0: number, floorY: number) {
    this.w = w;
    this.h = h;
    this.scale = scale;
    this.x0 = x0;
    this.floorY = floorY;
    this.z = new Float32Array(w * h).fill(-Infinity);
    this.normal = new Int8Array(w * h * 3);
    this.part = new Uint8Array(w * h);
  }

  private put(idx: number, z: number, nx: number, ny: number, nz: number, part: number): void {
    this.z[idx] = z;
    const k = 127 / Math.hypot(nx, ny, nz);
    this.normal[idx * 3] = Math.round(nx * k);
    this.normal[idx * 3 + 1] = Math.round(ny * k);
    this.normal[idx * 3 + 2] = Math.round(nz * k);
    this.part[idx] = part;
  }

  shadeAt(idx: number): number {
    return lambert(this.normal[idx * 3], this.normal[idx * 3 + 1], this.normal[idx * 3 + 2]);
  }

  /** Row range whose centres lie within [yTopCm .. yBottomCm] and above the floor. */
  rows(yTopCm: number, yBottomCm: number): [number, number] {
    const top = Math.max(0, Math.ceil(this.floorY - yTopCm * this.scale - 0.5));
    const bottom = Math.min(this.h - 1, Math.floor(this.floorY - Math.max(0, yBottomCm) * this.scale - 0.5));
    return [top, bottom];
  }

  /**
   * One sphere of a sweep. With an axis, points on the swept envelope get the tube's exact normal
   * (radial, tilted by the taper slope) instead of the sphere's, so spheres can be spaced widely
   * without ripples; points beyond the neighbouring spheres (end caps) keep the sphere normal.
   */
  sphere(c: Vec3, r: number, part: number, axis?: Vec3, slope = 0, step = 0): void {
    const s = this.scale;
    const cx = this.x0 + c.x * s;
    const [top, bottom] = this.rows(c.y + r, c.y - r);
    const r2 = r * r;
    const zb = this.z;
    const w = this.w;
    const envelopeAxial = -r * slope;
    const tilt = Math.sqrt(Math.max(0, 1 - slope * slope));
    for (let j = top; j <= bottom; j++) {
      const dy = (this.floorY - (j + 0.5)) / s - c.y;
      const rem = r2 - dy * dy;
      if (rem <= 0) continue;
      const half = Math.sqrt(rem) * s;
      const i0 = Math.max(0, Math.ceil(cx - half - 0.5));
      const i1 = Math.min(w - 1, Math.floor(cx + half - 0.5));
      for (let i = i0, idx = j * w + i0; i <= i1; i++, idx++) {
        const dx = (i + 0.5 - cx) / s;
        const q = rem - dx * dx;
        if (q < 0) continue;
        const dz = Math.sqrt(q);
        const zz = c.z + dz;
        if (zz <= zb[idx]) continue;
        if (axis) {
          const va = dx * axis.x + dy * axis.y + dz * axis.z;
          if (Math.abs(va - envelopeAxial) <= step) {
            const rx = dx - va * axis.x;
            const ry = dy - va * axis.y;
            const rz = dz - va * axis.z;
            const rl = Math.hypot(rx, ry, rz) || 1;
            const k = tilt / rl;
            this.put(idx, zz, rx * k - slope * axis.x, ry * k - slope * axis.y, rz * k - slope * axis.z, part);
            continue;
          }
        }
        this.put(idx, zz, dx, dy, dz, part);
      }
    }
  }

  /**
   * A sweep: spheres every third of a radius along a cubic Hermite curve through the chain's points
   * (Catmull-Rom tangents over arc length, so elbows and knees bend smoothly), with the radius
   * interpolated by a monotone cubic so outline and shading have no seams at joints.
   */
  sweep(sw: Sweep): void {
    const pts = sw.points;
    const n = pts.length;
    const arc = [0];
    for (let k = 1; k < n; k++) arc.push(arc[k - 1] + Math.hypot(pts[k].x - pts[k - 1].x, pts[k].y - pts[k - 1].y, pts[k].z - pts[k - 1].z));
    const slopes = pchipSlopes(arc, sw.radii);
    const tangents = pts.map((_, k) => {
      const a = pts[Math.max(0, k - 1)];
      const b = pts[Math.min(n - 1, k + 1)];
      const ds = arc[Math.min(n - 1, k + 1)] - arc[Math.max(0, k - 1)] || 1;
      return { x: (b.x - a.x) / ds, y: (b.y - a.y) / ds, z: (b.z - a.z) / ds };
    });
    for (let k = 0; k < n - 1; k++) {
      const len = arc[k + 1] - arc[k];
      if (len <= 0) continue;
      const rMin = Math.min(sw.radii[k], sw.radii[k + 1]);
      // dense enough that the tube normal turns by under a degree between spheres at bends
      const ta = tangents[k];
      const tb = tangents[k + 1];
      const cos = (ta.x * tb.x + ta.y * tb.y + ta.z * tb.z) / ((Math.hypot(ta.x, ta.y, ta.z) * Math.hypot(tb.x, tb.y, tb.z)) || 1);
      const turnDeg = (Math.acos(Math.min(1, Math.max(-1, cos))) * 180) / Math.PI;
      const steps = Math.max(1, Math.ceil(len / (rMin / 3)), Math.ceil(turnDeg / 0.7));
      const step = len / steps;
      for (let t = k === 0 ? 0 : 1; t <= steps; t++) {
        const f = t / steps;
        const hx = hermite(pts[k].x, pts[k + 1].x, tangents[k].x * len, tangents[k + 1].x * len, f);
        const hy = hermite(pts[k].y, pts[k + 1].y, tangents[k].y * len, tangents[k + 1].y * len, f);
        const hz = hermite(pts[k].z, pts[k + 1].z, tangents[k].z * len, tangents[k + 1].z * len, f);
        const speed = Math.hypot(hx.d, hy.d, hz.d) || 1;
        const axis = { x: hx.d / speed, y: hy.d / speed, z: hz.d / speed };
        const r = hermite(sw.radii[k], sw.radii[k + 1], slopes[k] * len, slopes[k + 1] * len, f);
        // interior spheres always take the tube normal (also on the outside of bends, between
        // spheres); the two end spheres keep their own normal beyond the tube (round caps)
        const end = (k === 0 && t === 0) || (k === n - 2 && t === steps);
        this.sphere({ x: hx.v, y: hy.v, z: hz.v }, r.v, sw.part, axis, r.d / speed, end ? step * 1.5 : Infinity);
      }
    }
  }

  /**
   * Ellipsoids joined by a smooth union of their front surfaces (polynomial smooth maximum over
   * `blend` cm), so the cranium and jaw of the head meet without a crease. Normals come from
   * central differences of that closed-form surface.
   */
  ellipsoids(list: Ellipsoid[], blend: number): void {
    const s = this.scale;
    const front = (x: number, y: number): number => {
      let best = -Infinity;
      for (const e of list) {
        const tx = (x - e.center.x) / e.radii.x;
        const ty = (y - e.center.y) / e.radii.y;
        const q = 1 - tx * tx - ty * ty;
        if (q < 0) continue;
        const z = e.center.z + e.radii.z * Math.sqrt(q);
        if (best === -Infinity) best = z;
        else {
          const d = Math.abs(z - best);
          best = Math.max(z, best) + (d < blend ? (blend * (1 - d / blend) ** 2) / 4 : 0);
        }
      }
      return best;
    };
    let top = -Infinity;
    let bottomY = Infinity;
    let x0 = Infinity;
    let x1 = -Infinity;
    for (const e of list) {
      top = Math.max(top, e.center.y + e.radii.y);
      bottomY = Math.min(bottomY, e.center.y - e.radii.y);
      x0 = Math.min(x0, e.center.x - e.radii.x);
      x1 = Math.max(x1, e.center.x + e.radii.x);
    }
    const [r0, r1] = this.rows(top, bottomY);
    const i0 = Math.max(0, Math.floor(this.x0 + x0 * s));
    const i1 = Math.min(this.w - 1, Math.ceil(this.x0 + x1 * s));
    const d = 0.5 / s;
    for (let j = r0; j <= r1; j++) {
      const y = (this.floorY - (j + 0.5)) / s;
      for (let i = i0, idx = j * this.w + i0; i <= i1; i++, idx++) {
        const x = (i + 0.5 - this.x0) / s;
        const z = front(x, y);
        if (z === -Infinity || z <= this.z[idx]) continue;
        const zl = front(x - d, y);
        const zr = front(x + d, y);
        const zd = front(x, y - d);
        const zu = front(x, y + d);
        const gx = zl === -Infinity ? (zr - z) / d : zr === -Infinity ? (z - zl) / d : (zr - zl) / (2 * d);
        const gy = zd === -Infinity ? (zu - z) / d : zu === -Infinity ? (z - zd) / d : (zu - zd) / (2 * d);
        // at the very rim the surface is vertical: fall back to the outward direction
        const steep = !Number.isFinite(gx) || !Number.isFinite(gy);
        this.put(idx, z, steep ? x : -gx, steep ? y - list[0].center.y : -gy, steep ? 0 : 1, PART.head);
      }
    }
  }

  /** An ellipsoid with arbitrary axes: per pixel, the nearer root of its quadric along the view ray. */
  orientedEllipsoid(e: OrientedEllipsoid): void {
    const s = this.scale;
    const { center: c, axes, radii } = e;
    const reach = Math.max(...radii);
    const [top, bottom] = this.rows(c.y + reach, c.y - reach);
    const i0 = Math.max(0, Math.floor(this.x0 + (c.x - reach) * s));
    const i1 = Math.min(this.w - 1, Math.ceil(this.x0 + (c.x + reach) * s));
    const inv2 = radii.map((r) => 1 / (r * r));
    // local coordinate k = axes[k] . (p - c) = ax * X + ay * Y + az * Z
    let A = 0;
    for (let k = 0; k < 3; k++) A += axes[k].z * axes[k].z * inv2[k];
    for (let j = top; j <= bottom; j++) {
      const Y = (this.floorY - (j + 0.5)) / s - c.y;
      for (let i = i0, idx = j * this.w + i0; i <= i1; i++, idx++) {
        const X = (i + 0.5 - this.x0) / s - c.x;
        let B = 0;
        let C = -1;
        for (let k = 0; k < 3; k++) {
          const a = axes[k].x * X + axes[k].y * Y;
          B += 2 * a * axes[k].z * inv2[k];
          C += a * a * inv2[k];
        }
        const disc = B * B - 4 * A * C;
        if (disc < 0) continue;
        const Z = (-B + Math.sqrt(disc)) / (2 * A);
        const zz = c.z + Z;
        if (zz <= this.z[idx]) continue;
        let nx = 0;
        let ny = 0;
        let nz = 0;
        for (let k = 0; k < 3; k++) {
          const q = (axes[k].x * X + axes[k].y * Y + axes[k].z * Z) * inv2[k];
          nx += axes[k].x * q;
          ny += axes[k].y * q;
          nz += axes[k].z * q;
        }
        this.put(idx, zz, nx, ny, nz, e.part);
      }
    }
  }

  /** The torso: elliptical cross-sections x²/a(y)² + z²/b(y)² = 1 from the crotch to the neck base. */
  torso(torso: Torso): void {
    const s = this.scale;
    const [top, bottom] = this.rows(torso.levels[torso.levels.length - 1].y, torso.crotchY);
    const { z: zb, w } = this;
    for (let j = top; j <= bottom; j++) {
      const sec = torsoSectionAt(torso, (this.floorY - (j + 0.5)) / s);
      if (!sec || sec.a <= 0) continue;
      const { a, b, da, db } = sec;
      const half = a * s;
      const i0 = Math.max(0, Math.ceil(this.x0 - half - 0.5));
      const i1 = Math.min(w - 1, Math.floor(this.x0 + half - 0.5));
      for (let i = i0, idx = j * w + i0; i <= i1; i++, idx++) {
        const x = (i + 0.5 - this.x0) / s;
        const t = x / a;
        const q = 1 - t * t;
        if (q < 0) continue;
        const zz = b * Math.sqrt(q);
        if (zz <= zb[idx]) continue;
        // gradient of x²/a² + z²/b² - 1, including how the section changes with height
        this.put(idx, zz, x / (a * a), -(x * x * da) / (a * a * a) - (zz * zz * db) / (b * b * b), zz / (b * b), PART.torso);
      }
    }
  }
}

function bounds(model: BodyModel): { xAbs: number; top: number } {
  let xAbs = 0;
  let top = 0;
  for (const e of model.head) {
    top = Math.max(top, e.center.y + e.radii.y);
    xAbs = Math.max(xAbs, Math.abs(e.center.x) + e.radii.x);
  }
  for (const l of model.torso.levels) xAbs = Math.max(xAbs, l.halfWidth);
  for (const f of model.feet) xAbs = Math.max(xAbs, Math.abs(f.center.x) + Math.max(...f.radii));
  for (const s of model.sweeps) {
    s.points.forEach((p, k) => {
      xAbs = Math.max(xAbs, Math.abs(p.x) + s.radii[k]);
      top = Math.max(top, p.y + s.radii[k]);
    });
  }
  return { xAbs, top };
}

/** Reach of the ambient occlusion around a pixel (cm) and the depth difference (cm) that darkens fully. */
const AO_REACH_CM = 4;
const AO_DEPTH_CM = 2.5;
/** Darkening of a fully occluded pixel. */
const AO_STRENGTH = 0.5;

/** Occlusion groups: the trunk with head and neck, each arm with its hand, each leg with its foot. */
function groupOf(part: number): number {
  if (part === PART.leftArm || part === PART.leftHand) return 1;
  if (part === PART.rightArm || part === PART.rightHand) return 2;
  if (part === PART.leftLeg || part === PART.leftFoot) return 3;
  if (part === PART.rightLeg || part === PART.rightFoot) return 4;
  return 0;
}

/**
 * Soft ambient occlusion from the depth buffer: a pixel is occluded by how far the other parts of
 * the body near it (a box of AO_REACH_CM) stand in front of it, so the torso darkens where the arms
 * hang beside it and at the armpits, and the thighs where they meet. Only other parts count (a
 * limb's own curvature is the key light's business), by summed-area tables of all body depth and of
 * the pixel's own group. Returns a factor per pixel, 1 where nothing occludes.
 */
function ambientOcclusion(depth: Float32Array, parts: Uint8Array, w: number, h: number, pxPerCm: number): Float32Array {
  // occlusion varies slowly: the tables are built at half resolution, one per group
  const hw = (w + 1) >> 1;
  const hh = (h + 1) >> 1;
  const r = Math.max(1, Math.round((AO_REACH_CM * pxPerCm) / 2));
  const W1 = hw + 1;
  const size = W1 * (hh + 1);
  const GROUPS = 5;
  const sz = Array.from({ length: GROUPS + 1 }, () => new Float64Array(size));
  const sn = Array.from({ length: GROUPS + 1 }, () => new Float64Array(size));
  const rz = new Float64Array(GROUPS + 1);
  const rn = new Float64Array(GROUPS + 1);
  for (let y = 0; y < hh; y++) {
    rz.fill(0);
    rn.fill(0);
    const src = Math.min(h - 1, 2 * y) * w;
    for (let x = 0; x < hw; x++) {
      const i = src + Math.min(w - 1, 2 * x);
      if (depth[i] > 0 && parts[i]) {
        const g = groupOf(parts[i]);
        rz[g] += depth[i];
        rn[g]++;
        rz[GROUPS] += depth[i];
        rn[GROUPS]++;
      }
      const o = (y + 1) * W1 + x + 1;
      const above = y * W1 + x + 1;
      for (let g = 0; g <= GROUPS; g++) {
        sz[g][o] = sz[g][above] + rz[g];
        sn[g][o] = sn[g][above] + rn[g];
      }
    }
  }
  const out = new Float32Array(w * h).fill(1);
  const area = (2 * r + 1) * (2 * r + 1);
  const allZ = sz[GROUPS];
  const allN = sn[GROUPS];
  for (let y = 0; y < h; y++) {
    const hy = y >> 1;
    const y0 = Math.max(0, hy - r) * W1;
    const y1 = Math.min(hh, hy + r + 1) * W1;
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (!(depth[i] > 0 && parts[i])) continue;
      const g = groupOf(parts[i]);
      const hx = x >> 1;
      const x0 = Math.max(0, hx - r);
      const x1 = Math.min(hw, hx + r + 1);
      const a = y1 + x1;
      const b = y0 + x1;
      const c = y1 + x0;
      const d = y0 + x0;
      const ownN = sn[g];
      const ownZ = sz[g];
      const cnt = allN[a] - allN[b] - allN[c] + allN[d] - (ownN[a] - ownN[b] - ownN[c] + ownN[d]);
      if (cnt <= 0) continue;
      const sum = allZ[a] - allZ[b] - allZ[c] + allZ[d] - (ownZ[a] - ownZ[b] - ownZ[c] + ownZ[d]);
      const above = (sum - cnt * depth[i]) / area;
      if (above > 0) out[i] = 1 - AO_STRENGTH * Math.min(1, above / AO_DEPTH_CM);
    }
  }
  return out;
}

/**
 * The backdrop's brightness factor at a pixel: a broad soft shadow on the floor under the body and
 * a darker contact shadow under each foot (Gaussian falloffs, floor pixels only).
 */
function floorShadowOf(model: BodyModel, toPx: (v: Vec3) => Point, w: number, floorY: number, scale: number, xAbs: number): (x: number, y: number) => number {
  const broadRx = Math.max(xAbs * 0.6, 15) * scale;
  const broadRy = 3.6 * scale;
  const feet = (['left', 'right'] as const).map((s) => {
    const ankle = toPx(model.landmarks[`${s}Ankle`]);
    const toe = toPx(model.landmarks[`${s}Toe`]);
    return { cx: (ankle.x * 2 + toe.x) / 3, rx: Math.max(Math.abs(toe.x - ankle.x) * 1.6, 6 * scale), ry: 1.6 * scale };
  });
  const top = floorY - 2 * broadRy;
  return (x, y) => {
    if (y < top) return 1;
    const py = y + 0.5 - floorY;
    const sx = (x + 0.5 - w / 2) / broadRx;
    const sy = py / broadRy;
    let k = 1 - 0.2 * Math.exp(-1.6 * (sx * sx + sy * sy));
    for (const f of feet) {
      const fx = (x + 0.5 - f.cx) / f.rx;
      const fy = py / f.ry;
      k *= 1 - 0.38 * Math.exp(-2.2 * (fx * fx + fy * fy));
    }
    return k;
  };
}

/**
 * Renders the model orthographically from the front: the body stands on the floor line at the
 * bottom margin, centred horizontally and scaled to fill the frame's height (or width for wide poses).
 */
export function rasterizeBody(model: BodyModel, size: RenderSize, framing: Framing): BodyRaster {
  const { width: W, height: H } = size;
  const { xAbs, top } = bounds(model);
  const usableH = H * (1 - framing.marginTop - framing.marginBottom);
  const scale = Math.min(usableH / top, (W * 0.46) / xAbs);
  const floorY = H * (1 - framing.marginBottom);
  const canvas = new Canvas(W * SS, H * SS, scale * SS, (W / 2) * SS, floorY * SS);
  canvas.torso(model.torso);
  for (const sw of model.sweeps) canvas.sweep(sw);
  canvas.ellipsoids(model.head, 2.5);
  for (const f of model.feet) canvas.orientedEllipsoid(f);
  for (const e of model.palms) canvas.orientedEllipsoid(e);

  const n = W * H;
  const data = new Uint8Array(n * 4);
  const mask = new Uint8Array(n);
  const depth = new Float32Array(n);
  const parts = new Uint8Array(n);
  const shadeOut = new Float32Array(n);
  const coverage = new Float32Array(n);
  const lit = new Float32Array(n);
  const inv = 1 / (SS * SS);
  let zMin = Infinity;
  for (let k = 0; k < canvas.z.length; k++) if (canvas.z[k] > -Infinity && canvas.z[k] < zMin) zMin = canvas.z[k];
  const zOffset = 1 - zMin;
  const cw = canvas.w;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      let covered = 0;
      let shadeSum = 0;
      let zSum = 0;
      let bestZ = -Infinity;
      let bestPart = 0;
      for (let dy = 0; dy < SS; dy++) {
        let idx = (y * SS + dy) * cw + x * SS;
        for (let dx = 0; dx < SS; dx++, idx++) {
          const z = canvas.z[idx];
          if (z === -Infinity) continue;
          covered++;
          shadeSum += canvas.shadeAt(idx);
          zSum += z;
          if (z > bestZ) {
            bestZ = z;
            bestPart = canvas.part[idx];
          }
        }
      }
      const o = y * W + x;
      coverage[o] = covered * inv;
      lit[o] = shadeSum * inv;
      if (covered) depth[o] = zSum / covered + zOffset;
      if (covered * 2 >= SS * SS) {
        mask[o] = 255;
        parts[o] = bestPart;
        shadeOut[o] = shadeSum / covered;
      }
    }
  }
  const occlusion = ambientOcclusion(depth, parts, W, H, scale);
  const toPx = (v: Vec3): Point => ({ x: W / 2 + v.x * scale, y: floorY - v.y * scale });
  const floorShadow = floorShadowOf(model, toPx, W, floorY, scale, xAbs);
  for (let o = 0; o < n; o++) {
    const ao = occlusion[o];
    const bg = floorShadow(o % W, (o / W) | 0) * (1 - coverage[o]);
    for (let c = 0; c < 3; c++) data[o * 4 + c] = Math.round(SKIN_RGB[c] * lit[o] * ao + BACKGROUND_RGB[c] * bg);
    data[o * 4 + 3] = 255;
    shadeOut[o] *= ao;
    if (!mask[o]) depth[o] = 0;
  }

  const lm = {} as Record<LandmarkName, Point>;
  for (const key of Object.keys(model.landmarks) as LandmarkName[]) lm[key] = toPx(model.landmarks[key]);
  const landmarks: BodyLandmarks = { ...lm, faceCenter: toPx(model.faceCenter), faceSize: model.faceWidth * scale };
  return { image: { width: W, height: H, data }, mask, depth, parts, shade: shadeOut, landmarks, pixelsPerCm: scale };
}
