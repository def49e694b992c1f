import { viewBasis, type Vec3 } from '../../gltf/render.ts';
import { HullField } from './hull-field.ts';
import { silhouetteSpan, viewRayPoint, viewTrig, viewUV, type Silhouette } from './silhouettes.ts';

/**
 * Registration of photos taken around the product (azimuths known, elevation e shared by the
 * photos except those fixed at their own, such as a top view): each photo's scale and offset, from
 * frontier planes.
 *
 * Two orthographic views i and j share the planes that contain both viewing directions; the two
 * such planes tangent to the object touch both silhouettes. Along the normal n of those planes the
 * object's extent is the same seen from either photo, so the support widths of the two silhouettes
 * along n's image direction give the ratio of their scales, and the midpoints of the supports
 * relate their offsets. Level views reduce this to "every photo shows the same height"; raised
 * views see the height foreshortened and the depth along the line of sight, which this accounts for
 * exactly. Scales come from least squares on the logarithms, offsets from linear least squares.
 * The frame: the mean scale is the mean image height (height about 1) and the photos' lowest
 * points sit near v = 0; the reconstruction places the final mesh on the ground itself.
 * Frontier planes are exact for orthographic photos only: `refinePerspective` corrects the
 * registration for a close camera and `alignByRays` finishes it on the photos' outlines (and
 * scores the camera hypothesis, view-angles.ts `estimateCamera`).
 */
export function registerViews(sils: Silhouette[], angles: number[], elevationDeg: number, fixed: readonly (number | undefined)[] = []): void {
  const n = sils.length;
  // photos with an elevation of their own (a top view) keep it; the others share elevationDeg
  const elevations = sils.map((_, i) => fixed[i] ?? elevationDeg);
  const bases = angles.map((a, i) => viewBasis(a, elevations[i]));
  const points = sils.map(contourPoints);
  // pairs: normal of the plane of both viewing directions, its image direction in each photo
  const pairs: { i: number; j: number; gi: [number, number]; gj: [number, number] }[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const c = cross(bases[i].back, bases[j].back);
      const len = Math.hypot(c[0], c[1], c[2]);
      if (len < 0.2) continue; // nearly the same or opposite directions: no frontier
      const nrm: Vec3 = [c[0] / len, c[1] / len, c[2] / len];
      pairs.push({ i, j, gi: [dot(bases[i].right, nrm), dot(bases[i].up, nrm)], gj: [dot(bases[j].right, nrm), dot(bases[j].up, nrm)] });
    }
  }
  // support of a silhouette along an image direction g (x right, y up), in pixels
  const support = (k: number, g: [number, number]) => {
    let hi = -Infinity, lo = Infinity;
    const p = points[k];
    for (let m = 0; m < p.length; m += 2) {
      const s = g[0] * p[m] - g[1] * p[m + 1];
      if (s > hi) hi = s;
      if (s < lo) lo = s;
    }
    return [lo, hi];
  };
  // 1. scales: log s_i - log s_j = log W_i - log W_j; gauge: mean log scale = mean log height
  const rows: number[][] = [], rhs: number[] = [];
  const sup = pairs.map((p) => ({ a: support(p.i, p.gi), b: support(p.j, p.gj) }));
  pairs.forEach((p, k) => {
    const wi = sup[k].a[1] - sup[k].a[0], wj = sup[k].b[1] - sup[k].b[0];
    if (wi <= 0 || wj <= 0) return;
    const row = new Array<number>(n).fill(0);
    row[p.i] = 1;
    row[p.j] = -1;
    rows.push(row);
    rhs.push(Math.log(wi) - Math.log(wj));
  });
  // gauge: the shared-elevation photos' mean log scale is their mean log height (a top view's
  // image height is the product's width)
  const gauge = sils.map((_, i) => (fixed[i] === undefined ? 1 : 0));
  if (!gauge.some(Boolean)) gauge.fill(1);
  const m = gauge.reduce((a: number, g) => a + g, 0);
  rows.push(gauge.map((g) => g / m));
  rhs.push(sils.reduce((a, s, i) => a + gauge[i] * Math.log(Math.max(1, s.bottom - s.top)), 0) / m);
  const logS = leastSquares(rows, rhs, n, 1e-9);
  const scales = logS.map(Math.exp);
  // 2. offsets: the support midpoints agree in world units. Unknowns ou_i (pixel column of the
  // axis) and ov_i (pixel row of v = 0), pulled weakly to the silhouette centre and bottom
  const orows: number[][] = [], orhs: number[] = [];
  pairs.forEach((p, k) => {
    const mi = (sup[k].a[0] + sup[k].a[1]) / 2, mj = (sup[k].b[0] + sup[k].b[1]) / 2;
    const row = new Array<number>(2 * n).fill(0);
    // (mi - gi.x ou_i + gi.y ov_i) / s_i = (mj - gj.x ou_j + gj.y ov_j) / s_j
    row[2 * p.i] = -p.gi[0] / scales[p.i];
    row[2 * p.i + 1] = p.gi[1] / scales[p.i];
    row[2 * p.j] = p.gj[0] / scales[p.j];
    row[2 * p.j + 1] = -p.gj[1] / scales[p.j];
    orows.push(row);
    orhs.push(mj / scales[p.j] - mi / scales[p.i]);
  });
  const prior = 0.01;
  sils.forEach((s, i) => {
    const ru = new Array<number>(2 * n).fill(0);
    ru[2 * i] = prior / scales[i];
    orows.push(ru);
    orhs.push((prior * (s.left + s.right)) / 2 / scales[i]);
    const rv = new Array<number>(2 * n).fill(0);
    rv[2 * i + 1] = prior / scales[i];
    orows.push(rv);
    orhs.push((prior * s.bottom) / scales[i]);
  });
  const off = leastSquares(orows, orhs, 2 * n, 0);
  sils.forEach((s, i) => {
    s.ppu = scales[i];
    s.elevationDeg = elevations[i];
    s.shift = (off[2 * i] - s.axisX) / scales[i];
    s.vMin = (off[2 * i + 1] - s.bottom) / scales[i];
  });
}

/**
 * Perspective on top of an orthographic registration. A photo taken from nearby shows the near end
 * of the product larger than the far end, so the extents that the orthographic registration
 * matched belong to points at different depths in different photos (a shoe's collar is at the far
 * end in a front view and at mid-depth in a side view). Given the camera distance
 * (`inverseDistance`, world units; one camera for every photo), the orthographic hull is sampled
 * on a lattice and each photo's extreme points are projected both ways: the silhouette's extents
 * stay where they are, so the photo's scale is corrected by the ratio of the orthographic to the
 * perspective extents (geometric mean of width and height) and its offsets keep the extents'
 * centre on the same pixel. Both projections use the same points, so the lattice's coarseness
 * cancels. The mean log scale is kept (it fixes the world unit).
 */
export function refinePerspective(sils: Silhouette[], angles: number[], inverseDistance: number): void {
  for (const s of sils) s.inverseDistance = 0;
  if (inverseDistance === 0 || sils.length < 2) return;
  const logMean = sils.reduce((a, s) => a + Math.log(s.ppu), 0) / sils.length;
  const hull = new HullField(sils.map((sil, i) => ({ sil, azimuthDeg: angles[i] })));
  const pts = latticeInside(hull, hull.bounds(), 40);
  if (pts.length < 30) return;
  const uv = [0, 0];
  const extents = (s: Silhouette, i: number) => {
    const t = viewTrig(angles[i], s.elevationDeg);
    let u0 = Infinity, u1 = -Infinity, v0 = Infinity, v1 = -Infinity;
    for (let m = 0; m < pts.length; m += 3) {
      viewUV(s, t, pts[m], pts[m + 1], pts[m + 2], uv);
      if (uv[0] < u0) u0 = uv[0];
      if (uv[0] > u1) u1 = uv[0];
      if (uv[1] < v0) v0 = uv[1];
      if (uv[1] > v1) v1 = uv[1];
    }
    return { cu: (u0 + u1) / 2, cv: (v0 + v1) / 2, wu: u1 - u0, wv: v1 - v0 };
  };
  const ortho = sils.map(extents);
  for (const s of sils) s.inverseDistance = inverseDistance;
  sils.forEach((s, i) => {
    const o = ortho[i], p = extents(s, i);
    const r = Math.sqrt((o.wu / p.wu) * (o.wv / p.wv));
    if (!(r > 0) || !Number.isFinite(r)) return;
    const ppu = s.ppu * r;
    // the extents' centre stays on its pixel: axisX + (c + shift) ppu and bottom - (c - vMin) ppu
    s.shift = ((o.cu + s.shift) * s.ppu) / ppu - p.cu;
    s.vMin = p.cv - ((o.cv - s.vMin) * s.ppu) / ppu;
    s.ppu = ppu;
  });
  keepWorldUnit(sils, logMean);
}

/**
 * Rescales the world so the photos' mean log scale is `logMean` again: scales, offsets, the
 * perspective centre and the camera distance follow, and every pixel keeps its ray.
 */
function keepWorldUnit(sils: Silhouette[], logMean: number): void {
  const f = Math.exp(logMean - sils.reduce((a, s) => a + Math.log(s.ppu), 0) / sils.length);
  for (const s of sils) {
    s.ppu *= f;
    s.shift /= f;
    s.vMin /= f;
    s.centreY /= f;
    s.inverseDistance *= f;
  }
}

/**
 * Registration by rays, an ICP for silhouettes: with the right cameras, the ray through every
 * silhouette pixel meets the hull of the other photos. Rays through the pixels near each photo's
 * outline are cast through that hull; a ray that misses by m asks for the photo's outline to move
 * inwards there by m (along the outline's normal), a ray that meets it asks for no move. Each
 * photo's scale and offsets follow from those requests by least squares (three unknowns per
 * photo), damped, for a few rounds; the mean log scale is kept. Returns the mean miss of the
 * outline rays in pixels after the last round (0 for silhouettes a hull explains exactly), the
 * score the camera search compares.
 */
export function alignByRays(sils: Silhouette[], angles: number[], rounds = 5): number {
  if (sils.length < 2) return 0;
  const logMean = sils.reduce((a, s) => a + Math.log(s.ppu), 0) / sils.length;
  const hull = new HullField(sils.map((sil, i) => ({ sil, azimuthDeg: angles[i] })));
  const trig = sils.map((s, i) => viewTrig(angles[i], s.elevationDeg));
  const start = sils.map((s) => Math.log(s.ppu));
  let score = 0;
  for (let round = 0; round <= rounds; round++) {
    let r = 0;
    for (const s of sils) for (const v of silhouetteSpan(s)) r = Math.max(r, Math.abs(v));
    const rays = sils.map((s, i) => outlineRays(hull, s, i, trig[i], r));
    score = rays.reduce((a, x) => a + x.meanMissPx, 0) / sils.length;
    if (round === rounds) break;
    sils.forEach((s, i) => {
      const { A, b } = rays[i];
      const x = solve3(A, b);
      if (!x) return;
      const [sigma, da, db] = x.map((v) => Math.max(-MAX_STEP, Math.min(MAX_STEP, v * RAY_DAMPING)));
      s.ppu *= Math.exp(sigma);
      s.shift += da;
      s.vMin += db;
    });
    keepWorldUnit(sils, logMean);
  }
  // a registration that had to rescale a photo this much is not a camera that explains the
  // photos (a wrong hypothesis can shrink one photo until the others swallow its rays)
  const moved = Math.max(...sils.map((s, i) => Math.abs(Math.log(s.ppu) - start[i])));
  return moved > MAX_RESCALE ? Infinity : score;
}

const RAY_DAMPING = 0.8;
/** Largest change of a log scale or an offset (world units) in one round. */
const MAX_STEP = 0.1;
/** Largest change of a photo's log scale over the alignment (about 25 %). */
const MAX_RESCALE = 0.22;
/** Weight of an outline ray that meets the hull (asks for no move) against one that misses. */
const HIT_WEIGHT = 0.25;
/** Outline band, working pixels inside the silhouette's edge. */
const OUTLINE_BAND = 2.5;

/**
 * The normal equations of one photo's outline rays. Unknowns: sigma (log scale change), a (shift
 * change) and b (vMin change); a pixel at view coordinates (u, v) moves by
 * (-(u + shift) sigma - a, -(v - vMin) sigma + b), and its request is n . move = -miss, n the
 * outline's outward normal in view coordinates.
 */
function outlineRays(hull: HullField, sil: Silhouette, index: number, t: ReturnType<typeof viewTrig>, r: number): { A: number[]; b: number[]; meanMissPx: number } {
  const g = sil.work;
  const steps = 48;
  const p = [0, 0, 0];
  const A = new Array<number>(9).fill(0), b = [0, 0, 0];
  let missSum = 0, count = 0;
  for (let gy = 1; gy < g.height - 1; gy += 2) {
    for (let gx = 1; gx < g.width - 1; gx += 2) {
      const k = gy * g.width + gx;
      const d = g.sdf[k];
      if (d > 0 || d < -OUTLINE_BAND) continue;
      // outward normal in pixels (x right, y down), then in view coordinates (v up)
      const nx = g.sdf[k + 1] - g.sdf[k - 1], ny = g.sdf[k + g.width] - g.sdf[k - g.width];
      const len = Math.hypot(nx, ny);
      if (len < 1e-6) continue;
      const nu = nx / len, nv = -ny / len;
      const px = g.x0 + (gx + 0.5) / g.scale, py = g.y0 + (gy + 0.5) / g.scale;
      const u = (px - sil.axisX) / sil.ppu - sil.shift, v = (sil.bottom - py) / sil.ppu + sil.vMin;
      let miss = Infinity;
      for (let s = 0; s <= steps && miss > 0; s++) {
        viewRayPoint(sil, t, u, v, -r + (2 * r * s) / steps, p);
        miss = Math.min(miss, hull.at(p[0], p[1], p[2], false, index));
      }
      miss = Math.max(0, miss);
      missSum += miss * sil.ppu;
      count++;
      const w = miss > 0 ? 1 : HIT_WEIGHT;
      // request: j . x = -miss, j = (-(nu (u + shift) + nv (v - vMin)), -nu, nv)
      const j = [-(nu * (u + sil.shift) + nv * (v - sil.vMin)), -nu, nv];
      for (let a = 0; a < 3; a++) {
        for (let c = 0; c < 3; c++) A[a * 3 + c] += w * j[a] * j[c];
        b[a] += w * j[a] * -miss;
      }
    }
  }
  for (let a = 0; a < 3; a++) A[a * 4] += 1e-6 * count + 1e-9;
  return { A, b, meanMissPx: count ? missSum / count : 0 };
}

/** Solves a 3x3 system (row-major) by Cramer's rule; null when singular. */
function solve3(A: number[], b: number[]): number[] | null {
  const det = (m: number[]) => m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
  const D = det(A);
  if (Math.abs(D) < 1e-18) return null;
  return [0, 1, 2].map((c) => {
    const m = A.slice();
    for (let rr = 0; rr < 3; rr++) m[rr * 3 + c] = b[rr];
    return det(m) / D;
  });
}

/** Inside points of the coarse hull on an n^3 lattice over the box, as x, y, z triples. */
function latticeInside(hull: HullField, b: { min: [number, number, number]; max: [number, number, number] }, n: number): Float64Array {
  const out: number[] = [];
  for (let i = 0; i <= n; i++) for (let j = 0; j <= n; j++) for (let k = 0; k <= n; k++) {
    const x = b.min[0] + ((b.max[0] - b.min[0]) * i) / n, y = b.min[1] + ((b.max[1] - b.min[1]) * j) / n, z = b.min[2] + ((b.max[2] - b.min[2]) * k) / n;
    if (hull.at(x, y, z, true) <= 0) out.push(x, y, z);
  }
  return Float64Array.from(out);
}

/** Full-resolution pixel centres on the outline of the working mask (x, y pairs). */
function contourPoints(sil: Silhouette): Float64Array {
  const g = sil.work;
  const out: number[] = [];
  for (let y = 0; y < g.height; y++) {
    for (let x = 0; x < g.width; x++) {
      const k = y * g.width + x;
      if (!g.mask[k]) continue;
      const edge = x === 0 || y === 0 || x === g.width - 1 || y === g.height - 1 || !g.mask[k - 1] || !g.mask[k + 1] || !g.mask[k - g.width] || !g.mask[k + g.width];
      if (edge) out.push(g.x0 + (x + 0.5) / g.scale, g.y0 + (y + 0.5) / g.scale);
    }
  }
  return Float64Array.from(out);
}

/** Solves min |A x - b|^2 + ridge |x|^2 through the normal equations (small systems). */
function leastSquares(A: number[][], b: number[], n: number, ridge: number): number[] {
  const M = Array.from({ length: n }, () => new Array<number>(n + 1).fill(0));
  A.forEach((row, r) => {
    for (let i = 0; i < n; i++) {
      if (row[i] === 0) continue;
      for (let j = 0; j < n; j++) M[i][j] += row[i] * row[j];
      M[i][n] += row[i] * b[r];
    }
  });
  for (let i = 0; i < n; i++) M[i][i] += ridge;
  // Gaussian elimination with partial pivoting
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r;
    [M[c], M[p]] = [M[p], M[c]];
    const d = M[c][c] || 1e-12;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = M[r][c] / d;
      if (f === 0) continue;
      for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
    }
  }
  return M.map((row, i) => row[n] / (row[i] || 1e-12));
}

function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

function dot(a: readonly number[], b: readonly number[]): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
