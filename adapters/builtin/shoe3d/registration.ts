import { viewBasis, type Vec3 } from '../../gltf/render.ts';
import type { Silhouette } from './silhouettes.ts';

/**
 * Registration of photos taken from one camera height around the product (azimuths known,
 * elevation e the same for every photo): each photo's scale and offset, from frontier planes.
 *
 * Two orthographic views i and j share the planes that contain both viewing directions; the two
 * such planes tangent to the object touch both silhouettes. Along the normal n of those planes the
 * object's extent is the same seen from either photo, so the support widths of the two silhouettes
 * along n's image direction give the ratio of their scales, and the midpoints of the supports
 * relate their offsets. Level views reduce this to "every photo shows the same height"; raised
 * views see the height foreshortened and the depth along the line of sight, which this accounts for
 * exactly. Scales come from least squares on the logarithms, offsets from linear least squares;
 * the residual of the scale ratios measures how well an elevation explains the photos.
 * The frame: the mean scale is the mean image height (height about 1) and the photos' lowest
 * points sit near v = 0; the reconstruction places the final mesh on the ground itself.
 */
export interface Registration {
  elevationDeg: number;
  /** RMS of the log scale-ratio residuals over the view pairs (0 for exact silhouettes). */
  residual: number;
}

export function registerViews(sils: Silhouette[], angles: number[], elevationDeg: number): Registration {
  const n = sils.length;
  const bases = angles.map((a) => viewBasis(a, elevationDeg));
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
  const heights = sils.map((s) => Math.max(1, s.bottom - s.top));
  rows.push(new Array<number>(n).fill(1 / n));
  rhs.push(heights.reduce((a, h) => a + Math.log(h), 0) / n);
  const logS = leastSquares(rows, rhs, n, 1e-9);
  let residual = 0;
  for (let r = 0; r < rows.length - 1; r++) residual += (rows[r].reduce((a, v, c) => a + v * logS[c], 0) - rhs[r]) ** 2;
  residual = rows.length > 1 ? Math.sqrt(residual / (rows.length - 1)) : 0;
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
    s.elevationDeg = elevationDeg;
    s.shift = (off[2 * i] - s.axisX) / scales[i];
    s.vMin = (off[2 * i + 1] - s.bottom) / scales[i];
  });
  return { elevationDeg, residual };
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
