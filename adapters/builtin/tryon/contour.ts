/**
 * Contour analysis of a binary mask: Moore-neighbour boundary tracing, the convex hull of the
 * contour and its convexity defects (the concavities between hull vertices: necklines, armpits,
 * the gap between trouser legs).
 */
import type { Point } from '../../../core/twins/body.ts';

// neighbour offsets, clockwise on screen (y grows downwards), starting west
const NX = [-1, -1, 0, 1, 1, 1, 0, -1];
const NY = [0, -1, -1, -1, 0, 1, 1, 1];

/**
 * Outer boundary of the 8-connected region of `mask` that contains the first pixel (raster
 * order) where `inside(p)` holds; points are pixel centres in clockwise order.
 */
export function traceContour(width: number, height: number, inside: (p: number) => boolean): Point[] {
  let start = -1;
  for (let p = 0; p < width * height; p++) {
    if (inside(p)) {
      start = p;
      break;
    }
  }
  if (start < 0) return [];
  const fg = (x: number, y: number) => x >= 0 && y >= 0 && x < width && y < height && inside(y * width + x);
  const sx = start % width;
  const sy = (start - sx) / width;
  const out: Point[] = [{ x: sx, y: sy }];
  let cx = sx;
  let cy = sy;
  // the pixel west of the start is background (the start is first in raster order)
  let bx = sx - 1;
  let by = sy;
  const firstB = { x: bx, y: by };
  const limit = 8 * width * height;
  for (let step = 0; step < limit; step++) {
    let idx = 0;
    for (let k = 0; k < 8; k++) {
      if (cx + NX[k] === bx && cy + NY[k] === by) {
        idx = k;
        break;
      }
    }
    let found = false;
    for (let k = 1; k <= 8; k++) {
      const d = (idx + k) % 8;
      const nx = cx + NX[d];
      const ny = cy + NY[d];
      if (fg(nx, ny)) {
        const prev = (idx + k - 1) % 8;
        bx = cx + NX[prev];
        by = cy + NY[prev];
        cx = nx;
        cy = ny;
        found = true;
        break;
      }
    }
    if (!found) break; // a single isolated pixel
    if (cx === sx && cy === sy && bx === firstB.x && by === firstB.y) break;
    out.push({ x: cx, y: cy });
  }
  // the walk may revisit the start once before the stopping criterion holds
  if (out.length > 1 && out[out.length - 1].x === sx && out[out.length - 1].y === sy) out.pop();
  return out;
}

/** Indices of the convex hull vertices of `pts`, in increasing index order (contour order). */
export function convexHull(pts: Point[]): number[] {
  const idx = pts.map((_, i) => i).sort((a, b) => pts[a].x - pts[b].x || pts[a].y - pts[b].y);
  const cross = (o: number, a: number, b: number) =>
    (pts[a].x - pts[o].x) * (pts[b].y - pts[o].y) - (pts[a].y - pts[o].y) * (pts[b].x - pts[o].x);
  const lower: number[] = [];
  for (const i of idx) {
    while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], i) <= 0) lower.pop();
    lower.push(i);
  }
  const upper: number[] = [];
  for (let k = idx.length - 1; k >= 0; k--) {
    const i = idx[k];
    while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], i) <= 0) upper.pop();
    upper.push(i);
  }
  const hull = lower.slice(0, -1).concat(upper.slice(0, -1));
  return [...new Set(hull)].sort((a, b) => a - b);
}

export interface Defect {
  /** Contour indices of the hull vertices bounding the concavity. */
  start: number;
  end: number;
  /** Contour index of the deepest point. */
  deepest: number;
  /** Distance of the deepest point from the hull edge, in pixels. */
  depth: number;
}

function segmentDistance(p: Point, a: Point, b: Point): number {
  const vx = b.x - a.x;
  const vy = b.y - a.y;
  const len2 = vx * vx + vy * vy;
  let t = len2 > 0 ? ((p.x - a.x) * vx + (p.y - a.y) * vy) / len2 : 0;
  t = Math.max(0, Math.min(1, t));
  const dx = p.x - a.x - t * vx;
  const dy = p.y - a.y - t * vy;
  return Math.sqrt(dx * dx + dy * dy);
}

/** Concavities deeper than `minDepth`, deepest first. */
export function convexityDefects(contour: Point[], hull: number[], minDepth: number): Defect[] {
  const out: Defect[] = [];
  const n = contour.length;
  for (let h = 0; h < hull.length; h++) {
    const s = hull[h];
    const e = hull[(h + 1) % hull.length];
    const span = (e - s + n) % n;
    if (span < 2) continue;
    let best = -1;
    let bestD = 0;
    for (let k = 1; k < span; k++) {
      const i = (s + k) % n;
      const d = segmentDistance(contour[i], contour[s], contour[e]);
      if (d > bestD) {
        bestD = d;
        best = i;
      }
    }
    if (best >= 0 && bestD >= minDepth) out.push({ start: s, end: e, deepest: best, depth: bestD });
  }
  return out.sort((a, b) => b.depth - a.depth);
}
