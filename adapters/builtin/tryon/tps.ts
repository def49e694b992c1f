/**
 * Thin-plate spline interpolation between two point sets (Bookstein): an affine part plus radial
 * r^2 log r^2 terms, solved once with Gaussian elimination; coordinates are normalised for
 * conditioning and a small regularisation smooths near-duplicate controls.
 */
import type { Point } from '../../../core/twins/body.ts';

export interface Tps {
  map(x: number, y: number, out: Float64Array): void;
}

function kernel(r2: number): number {
  return r2 <= 1e-12 ? 0 : r2 * Math.log(r2);
}

function solve(A: Float64Array, B: Float64Array, n: number, rhs: number): void {
  for (let col = 0; col < n; col++) {
    let piv = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(A[r * n + col]) > Math.abs(A[piv * n + col])) piv = r;
    if (Math.abs(A[piv * n + col]) < 1e-12) throw new Error('thin-plate spline: degenerate control points');
    if (piv !== col) {
      for (let c = 0; c < n; c++) {
        const t = A[col * n + c];
        A[col * n + c] = A[piv * n + c];
        A[piv * n + c] = t;
      }
      for (let c = 0; c < rhs; c++) {
        const t = B[col * rhs + c];
        B[col * rhs + c] = B[piv * rhs + c];
        B[piv * rhs + c] = t;
      }
    }
    const d = A[col * n + col];
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = A[r * n + col] / d;
      if (f === 0) continue;
      for (let c = col; c < n; c++) A[r * n + c] -= f * A[col * n + c];
      for (let c = 0; c < rhs; c++) B[r * rhs + c] -= f * B[col * rhs + c];
    }
  }
  for (let r = 0; r < n; r++) for (let c = 0; c < rhs; c++) B[r * rhs + c] /= A[r * n + r];
}

/** A spline mapping every `from[i]` (approximately, with regularisation) onto `to[i]`. */
export function fitTps(from: Point[], to: Point[], regularization = 1e-4): Tps {
  const n = from.length;
  let mx = 0;
  let my = 0;
  for (const p of from) {
    mx += p.x / n;
    my += p.y / n;
  }
  let scale = 0;
  for (const p of from) scale += ((p.x - mx) ** 2 + (p.y - my) ** 2) / n;
  scale = Math.sqrt(scale) || 1;
  const fx = from.map((p) => (p.x - mx) / scale);
  const fy = from.map((p) => (p.y - my) / scale);
  const m = n + 3;
  const A = new Float64Array(m * m);
  const B = new Float64Array(m * 2);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) A[i * m + j] = kernel((fx[i] - fx[j]) ** 2 + (fy[i] - fy[j]) ** 2);
    A[i * m + i] += regularization;
    A[i * m + n] = 1;
    A[i * m + n + 1] = fx[i];
    A[i * m + n + 2] = fy[i];
    A[n * m + i] = 1;
    A[(n + 1) * m + i] = fx[i];
    A[(n + 2) * m + i] = fy[i];
    B[i * 2] = to[i].x;
    B[i * 2 + 1] = to[i].y;
  }
  solve(A, B, m, 2);
  return {
    map(x, y, out) {
      const u = (x - mx) / scale;
      const v = (y - my) / scale;
      let ox = B[n * 2] + B[(n + 1) * 2] * u + B[(n + 2) * 2] * v;
      let oy = B[n * 2 + 1] + B[(n + 1) * 2 + 1] * u + B[(n + 2) * 2 + 1] * v;
      for (let i = 0; i < n; i++) {
        const k = kernel((u - fx[i]) ** 2 + (v - fy[i]) ** 2);
        ox += B[i * 2] * k;
        oy += B[i * 2 + 1] * k;
      }
      out[0] = ox;
      out[1] = oy;
    },
  };
}

/** Least-squares affine transform from `from` to `to` (used for the far anchors of a warp). */
export function fitAffine(from: Point[], to: Point[]): (p: Point) => Point {
  // normal equations for [a b c; d e f] with rows (x, y, 1)
  const M = new Float64Array(9);
  const bx = new Float64Array(3);
  const by = new Float64Array(3);
  for (let i = 0; i < from.length; i++) {
    const r = [from[i].x, from[i].y, 1];
    for (let a = 0; a < 3; a++) {
      for (let b = 0; b < 3; b++) M[a * 3 + b] += r[a] * r[b];
      bx[a] += r[a] * to[i].x;
      by[a] += r[a] * to[i].y;
    }
  }
  for (let a = 0; a < 3; a++) M[a * 3 + a] += 1e-9;
  const B = new Float64Array(6);
  for (let a = 0; a < 3; a++) {
    B[a * 2] = bx[a];
    B[a * 2 + 1] = by[a];
  }
  solve(M, B, 3, 2);
  return (p) => ({ x: B[0] * p.x + B[2] * p.y + B[4], y: B[1] * p.x + B[3] * p.y + B[5] });
}
