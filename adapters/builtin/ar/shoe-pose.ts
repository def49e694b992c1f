import { basisToRows, cross, dot, multiply4, normalize, scale, symmetricEigen3, translation4, transformPoint } from './linalg.ts';
import type { Mat4, Vec3 } from './linalg.ts';
import type { TriangleSoup } from './surface.ts';

export type ShoeSide = 'left' | 'right';

export interface ShoePose {
  /** Model coordinates → canonical frame (+Y up, toe towards +Z, heel at the origin), model units. */
  matrix: Mat4;
  /** Extents in the canonical frame, model units. */
  length: number;
  width: number;
  height: number;
  side: ShoeSide;
  /** 0..1 margins of each decision (0 = coin toss). */
  confidence: { up: number; forward: number; side: number };
}

interface SurfaceStats {
  area: Float64Array;
  normal: Float64Array;
  centroid: Float64Array;
  total: number;
  mean: Vec3;
  /** Area-weighted covariance, row-major 3x3. */
  cov: number[];
}

/**
 * Exact area-weighted moments of the surface: the same PCA as sampling points uniformly over
 * the triangles, without the sampling noise. For a triangle (a, b, c) with s = a + b + c,
 * E[x xᵀ] = (a aᵀ + b bᵀ + c cᵀ + s sᵀ) / 12.
 */
function surfaceStats(soup: TriangleSoup): SurfaceStats {
  const T = soup.triangles;
  const n = soup.count;
  const area = new Float64Array(n);
  const normal = new Float64Array(n * 3);
  const centroid = new Float64Array(n * 3);
  let total = 0;
  const m1: Vec3 = [0, 0, 0];
  const m2 = new Array<number>(9).fill(0);
  for (let t = 0; t < n; t++) {
    const o = t * 9;
    const a: Vec3 = [T[o], T[o + 1], T[o + 2]];
    const b: Vec3 = [T[o + 3], T[o + 4], T[o + 5]];
    const c: Vec3 = [T[o + 6], T[o + 7], T[o + 8]];
    const nrm = cross([b[0] - a[0], b[1] - a[1], b[2] - a[2]], [c[0] - a[0], c[1] - a[1], c[2] - a[2]]);
    const len = Math.hypot(nrm[0], nrm[1], nrm[2]);
    const A = len / 2;
    area[t] = A;
    if (len > 0) normal.set([nrm[0] / len, nrm[1] / len, nrm[2] / len], t * 3);
    const s: Vec3 = [a[0] + b[0] + c[0], a[1] + b[1] + c[1], a[2] + b[2] + c[2]];
    centroid.set([s[0] / 3, s[1] / 3, s[2] / 3], t * 3);
    total += A;
    for (let i = 0; i < 3; i++) {
      m1[i] += (A * s[i]) / 3;
      for (let j = 0; j < 3; j++) m2[i * 3 + j] += (A * (a[i] * a[j] + b[i] * b[j] + c[i] * c[j] + s[i] * s[j])) / 12;
    }
  }
  if (total <= 0) throw new Error('the mesh has no surface area');
  const mean: Vec3 = [m1[0] / total, m1[1] / total, m1[2] / total];
  const cov = m2.map((v, k) => v / total - mean[Math.floor(k / 3)] * mean[k % 3]);
  return { area, normal, centroid, total, mean, cov };
}

const COS_FLAT = Math.cos((20 * Math.PI) / 180);
const COS_FINE = Math.cos((10 * Math.PI) / 180);

/** Roughly uniform unit directions (Fibonacci sphere). */
function sphereDirections(n: number): Vec3[] {
  const out: Vec3[] = [];
  const golden = Math.PI * (3 - Math.sqrt(5));
  for (let i = 0; i < n; i++) {
    const y = 1 - (2 * (i + 0.5)) / n;
    const r = Math.sqrt(1 - y * y);
    out.push([Math.cos(golden * i) * r, y, Math.sin(golden * i) * r]);
  }
  return out;
}

/**
 * Area of the flat region at the far end of direction `down` (the candidate sole): triangles
 * whose normal is parallel to `down` (either winding) and which lie within 5% of the extent
 * from the extreme plane.
 */
function flatSupportArea(s: SurfaceStats, soup: TriangleSoup, down: Vec3, cosTolerance: number): { area: number; normal: Vec3 } {
  const T = soup.triangles;
  let hi = -Infinity;
  let lo = Infinity;
  for (let i = 0; i < T.length; i += 3) {
    const d = T[i] * down[0] + T[i + 1] * down[1] + T[i + 2] * down[2];
    if (d > hi) hi = d;
    if (d < lo) lo = d;
  }
  const band = 0.05 * (hi - lo);
  let area = 0;
  const acc: Vec3 = [0, 0, 0];
  for (let t = 0; t < soup.count; t++) {
    const n: Vec3 = [s.normal[3 * t], s.normal[3 * t + 1], s.normal[3 * t + 2]];
    const nd = dot(n, down);
    if (Math.abs(nd) < cosTolerance) continue;
    const cd = s.centroid[3 * t] * down[0] + s.centroid[3 * t + 1] * down[1] + s.centroid[3 * t + 2] * down[2];
    if (hi - cd > band) continue;
    area += s.area[t];
    const w = s.area[t] * Math.sign(nd);
    acc[0] += n[0] * w;
    acc[1] += n[1] * w;
    acc[2] += n[2] * w;
  }
  return { area, normal: normalize(acc) };
}

/** Vertices of the soup mapped by `m`, as a flat array. */
function mapVertices(soup: TriangleSoup, m: Mat4): Float64Array {
  const T = soup.triangles;
  const out = new Float64Array(T.length);
  for (let i = 0; i < T.length; i += 3) out.set(transformPoint(m, [T[i], T[i + 1], T[i + 2]]), i);
  return out;
}

function bounds(P: Float64Array): { min: Vec3; max: Vec3 } {
  const min: Vec3 = [Infinity, Infinity, Infinity];
  const max: Vec3 = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < P.length; i += 3) {
    for (let k = 0; k < 3; k++) {
      if (P[i + k] < min[k]) min[k] = P[i + k];
      if (P[i + k] > max[k]) max[k] = P[i + k];
    }
  }
  return { min, max };
}

/** Largest-eigenvalue direction of a symmetric 2x2 matrix [[a, b], [b, c]]. */
function majorAxis2(a: number, b: number, c: number): [number, number] {
  const angle = 0.5 * Math.atan2(2 * b, a - c);
  return [Math.cos(angle), Math.sin(angle)];
}

/**
 * Mean over bins of the highest point per bin, for the bins in [from, to) of the length.
 * Used for the side profile: the heel counter is the tall end, the toe box tapers.
 */
function profileHeight(P: Float64Array, z0: number, len: number, y0: number, from: number, to: number): number {
  const bins = 12;
  const top = new Array<number>(bins).fill(-Infinity);
  for (let i = 0; i < P.length; i += 3) {
    const t = (P[i + 2] - z0) / len;
    if (t < from || t >= to) continue;
    const b = Math.min(bins - 1, Math.floor(((t - from) / (to - from)) * bins));
    top[b] = Math.max(top[b], P[i + 1] - y0);
  }
  const filled = top.filter((v) => v > -Infinity);
  return filled.length ? filled.reduce((x, y) => x + y, 0) / filled.length : 0;
}

/**
 * Left or right from the footprint of the lower part in the canonical frame. The medial side
 * is the one whose outline is pulled in at the arch (relative to the straight line between heel
 * and ball) and towards which the toe tip leans. Right shoe: medial side +X.
 */
function detectSide(P: Float64Array, len: number, height: number): { side: ShoeSide; margin: number; width: number } {
  const bins = 50;
  const xmin = new Array<number>(bins).fill(Infinity);
  const xmax = new Array<number>(bins).fill(-Infinity);
  let tipX = 0;
  let tipN = 0;
  for (let i = 0; i < P.length; i += 3) {
    const t = P[i + 2] / len;
    if (P[i + 1] > 0.4 * height || t < 0 || t > 1) continue;
    const b = Math.min(bins - 1, Math.floor(t * bins));
    if (P[i] < xmin[b]) xmin[b] = P[i];
    if (P[i] > xmax[b]) xmax[b] = P[i];
    if (t > 0.94) {
      tipX += P[i];
      tipN++;
    }
  }
  const windowMean = (arr: number[], from: number, to: number) => {
    const vals = arr.slice(Math.floor(from * bins), Math.ceil(to * bins)).filter((v) => Number.isFinite(v));
    return vals.length ? vals.reduce((x, y) => x + y, 0) / vals.length : NaN;
  };
  const [th, tm, tb] = [0.16, 0.45, 0.68];
  const edgeConcavity = (edge: number[]) => {
    const heel = windowMean(edge, 0.1, 0.22);
    const mid = windowMean(edge, 0.38, 0.52);
    const ball = windowMean(edge, 0.62, 0.74);
    const line = heel + ((ball - heel) * (tm - th)) / (tb - th);
    return line - mid; // > 0: the edge is pulled towards the centre line
  };
  const plus = edgeConcavity(xmax);
  const minus = edgeConcavity(xmin.map((v) => -v));
  const ballCentre = (windowMean(xmax, 0.62, 0.74) + windowMean(xmin, 0.62, 0.74)) / 2;
  const tipLean = tipN ? tipX / tipN - ballCentre : 0;
  const width = Math.max(...xmax.filter(Number.isFinite)) - Math.min(...xmin.filter(Number.isFinite));
  const score = ((plus - minus) + 0.5 * tipLean) / (width || 1);
  const margin = Number.isFinite(score) ? score : 0;
  return { side: margin >= 0 ? 'right' : 'left', margin, width };
}

/**
 * Finds the shoe's canonical frame from its structural surface (floor and overlay parts excluded
 * by the caller): PCA gives the length axis; the flat wide side at the bottom is the sole; the
 * tall end of the side profile is the heel; the footprint's arch tells left from right.
 */
export function estimateShoePose(soup: TriangleSoup): ShoePose {
  if (soup.count < 4) throw new Error('too few triangles to align');
  const s = surfaceStats(soup);
  const { values, vectors } = symmetricEigen3(s.cov);
  const length0 = vectors[0];

  // Sole: the flat, wide side at an extreme of the surface. Directions over the sphere are scored
  // by the flat area at their extreme (directions near a well-defined length axis are skipped,
  // the sole runs along the length); the best few are refined with the mean normal of those faces
  // and judged by the flat area minus the flat area on the opposite side: a shoe is nearly
  // mirror-symmetric left/right, so its sides cancel, while the sole faces an open or curved top.
  const elongated = values[0] > 1.5 * values[1];
  const coarse = sphereDirections(400)
    .filter((d) => !elongated || Math.abs(dot(d, length0)) < 0.5)
    .map((d) => ({ d, area: flatSupportArea(s, soup, d, COS_FLAT).area }))
    .sort((a, b) => b.area - a.area);
  const seeds: Vec3[] = [];
  for (const c of coarse) {
    if (seeds.length >= 8 || c.area <= 0) break;
    if (seeds.every((d) => dot(d, c.d) < 0.9)) seeds.push(c.d);
  }
  if (seeds.length === 0) seeds.push(scale(vectors[2], -1));
  const refined = seeds
    .map((seed) => {
      let d = seed;
      for (let i = 0; i < 3; i++) {
        const r = flatSupportArea(s, soup, d, COS_FLAT);
        if (r.area <= 0 || dot(r.normal, d) < 0.8) break;
        d = r.normal;
      }
      const here = flatSupportArea(s, soup, d, COS_FINE).area;
      const opposite = flatSupportArea(s, soup, scale(d, -1), COS_FINE).area;
      return { d, score: here - opposite };
    })
    .sort((a, b) => b.score - a.score);
  const down = refined[0].d;
  const rival = refined.find((c) => dot(c.d, down) < 0.9);
  const upConfidence = rival && refined[0].score > 0 ? (refined[0].score - Math.max(0, rival.score)) / refined[0].score : refined[0].score > 0 ? 1 : 0;
  const up = scale(down, -1);

  // Length axis: 2D PCA of the surface projected on the ground plane.
  const u1 = normalize([length0[0] - dot(length0, up) * up[0], length0[1] - dot(length0, up) * up[1], length0[2] - dot(length0, up) * up[2]]);
  const u2 = cross(up, u1);
  const C = s.cov;
  const q = (a: Vec3, b: Vec3) => {
    let r = 0;
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) r += a[i] * C[i * 3 + j] * b[j];
    return r;
  };
  const [ca, cb] = majorAxis2(q(u1, u1), q(u1, u2), q(u2, u2));
  let forward = normalize([u1[0] * ca + u2[0] * cb, u1[1] * ca + u2[1] * cb, u1[2] * ca + u2[2] * cb]);

  // Heel or toe: the heel end of the side profile is taller.
  let R = basisToRows(cross(up, forward), up, forward);
  let P = mapVertices(soup, R);
  let bb = bounds(P);
  const len = bb.max[2] - bb.min[2];
  const back = profileHeight(P, bb.min[2], len, bb.min[1], 0, 0.3);
  const front = profileHeight(P, bb.min[2], len, bb.min[1], 0.7, 1.0001);
  if (front > back) {
    forward = scale(forward, -1);
    R = basisToRows(cross(up, forward), up, forward);
    P = mapVertices(soup, R);
    bb = bounds(P);
  }
  const forwardConfidence = Math.abs(back - front) / Math.max(back, front, 1e-12);

  // Heel at the origin: back of the heel on z = 0, sole on y = 0, heel centred on x = 0.
  let hx0 = Infinity;
  let hx1 = -Infinity;
  for (let i = 0; i < P.length; i += 3) {
    if (P[i + 2] - bb.min[2] > 0.15 * len) continue;
    hx0 = Math.min(hx0, P[i]);
    hx1 = Math.max(hx1, P[i]);
  }
  const shift: Vec3 = [-(hx0 + hx1) / 2, -bb.min[1], -bb.min[2]];
  const matrix = multiply4(translation4(shift), R);
  for (let i = 0; i < P.length; i += 3) {
    P[i] += shift[0];
    P[i + 1] += shift[1];
    P[i + 2] += shift[2];
  }
  const height = bb.max[1] - bb.min[1];
  const side = detectSide(P, len, height);
  return {
    matrix,
    length: len,
    width: bb.max[0] - bb.min[0],
    height,
    side: side.side,
    confidence: { up: clamp01(upConfidence), forward: clamp01(forwardConfidence * 4), side: clamp01(Math.abs(side.margin) / 0.03) },
  };
}

function clamp01(v: number): number {
  return Math.max(0, Math.min(1, v));
}
