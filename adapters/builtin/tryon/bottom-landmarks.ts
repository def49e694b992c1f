/**
 * Landmarks of trousers, shorts or a skirt from the outline: waistband corners on the top rows,
 * the crotch as the deepest concavity between the legs (none for a skirt), the hip as the widest
 * row above it and each leg opening from the lowest rows of that leg.
 */
import type { Point } from '../../../core/twins/body.ts';
import type { BottomLandmarks, Leg } from './garment-landmarks.ts';
import type { MaskShape } from './mask-shape.ts';

function fitLine(ys: number[], xs: number[]): [number, number] | null {
  const n = ys.length;
  if (n < 4) return null;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  let syy = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    syy += (ys[i] - my) ** 2;
    sxy += (ys[i] - my) * (xs[i] - mx);
  }
  if (syy === 0) return null;
  const b = sxy / syy;
  return [mx - b * my, b];
}

/**
 * The top of a narrow gap between the legs closes up in the mask (anti-aliasing, clean-up), so
 * the crotch is where the two inner leg edges, fitted as lines just below it, meet.
 */
function refineCrotch(shape: MaskShape, found: Point): Point {
  const to = found.y + 0.35 * (shape.y1 - found.y);
  const ly: number[] = [];
  const lx: number[] = [];
  const ry: number[] = [];
  const rx: number[] = [];
  for (let y = Math.round(found.y + 4); y <= to; y++) {
    const runs = shape.runs(y);
    const left = runs.filter((r) => r[1] < found.x);
    const right = runs.filter((r) => r[0] > found.x);
    if (!left.length || !right.length) continue;
    ly.push(y);
    lx.push(left[left.length - 1][1]);
    ry.push(y);
    rx.push(right[0][0]);
  }
  const l = fitLine(ly, lx);
  const r = fitLine(ry, rx);
  if (!l || !r || Math.abs(l[1] - r[1]) < 1e-3) return found;
  const y = (r[0] - l[0]) / (l[1] - r[1]);
  if (!(y <= found.y && y >= found.y - shape.boxHeight * 0.15)) return found;
  return { x: (l[0] + l[1] * y + r[0] + r[1] * y) / 2, y };
}

export function detectBottom(shape: MaskShape): BottomLandmarks {
  const { x0, x1, y0, y1 } = shape;
  const H = shape.boxHeight;
  const W = shape.boxWidth;
  const c = shape.centreX;
  const contour = shape.contour;

  const wy = y0 + Math.max(1, Math.round(H * 0.01));
  const waist = shape.spanAt(wy, c) ?? [x0, x1];

  // the gap between the legs opens downwards: its hull edge lies below its deepest point
  const gap = shape.defects(H * 0.08).find((d) => {
    const p = contour[d.deepest];
    return Math.abs(p.x - c) < W * 0.15 && p.y > y0 + H * 0.12 && contour[d.start].y > p.y + H * 0.1 && contour[d.end].y > p.y + H * 0.1;
  });
  const crotch: Point | null = gap ? refineCrotch(shape, contour[gap.deepest]) : null;

  // hip: the widest row between the waistband and the crotch (or the upper third of a skirt)
  const hipEnd = crotch ? crotch.y : y0 + H * 0.35;
  let hipY = wy;
  let hipW = -1;
  for (let y = wy; y <= hipEnd; y++) {
    const s = shape.spanAt(y, c);
    if (s && s[1] - s[0] > hipW) {
      hipW = s[1] - s[0];
      hipY = y;
    }
  }
  const hip = shape.spanAt(hipY, c) ?? waist;

  let legLeft: Leg | null = null;
  let legRight: Leg | null = null;
  if (crotch) {
    const legAt = (sign: number): Leg | null => {
      // lowest row where this leg still has a run on its side of the crotch
      for (let y = y1; y > crotch.y; y--) {
        const runs = shape.runs(y).filter((r) => ((r[0] + r[1]) / 2 - crotch.x) * sign > 0);
        if (!runs.length) continue;
        const yy = y - Math.max(1, Math.round(H * 0.01));
        const r = shape.runs(yy).filter((r) => ((r[0] + r[1]) / 2 - crotch.x) * sign > 0);
        const run = (r.length ? r : runs).reduce((a, b) => (b[1] - b[0] > a[1] - a[0] ? b : a));
        const outer = sign < 0 ? run[0] : run[1];
        const inner = sign < 0 ? run[1] : run[0];
        return { hemOuter: { x: outer, y: yy }, hemInner: { x: inner, y: yy } };
      }
      return null;
    };
    legLeft = legAt(-1);
    legRight = legAt(1);
  }
  const hy = y1 - Math.max(1, Math.round(H * 0.015));
  const hem = shape.spanAt(hy, c) ?? [x0, x1];
  const hemRow = shape.runs(hy);
  const hemLeft = { x: hemRow.length ? hemRow[0][0] : hem[0], y: hy };
  const hemRight = { x: hemRow.length ? hemRow[hemRow.length - 1][1] : hem[1], y: hy };
  return {
    kind: 'bottom',
    waistLeft: { x: waist[0], y: wy },
    waistRight: { x: waist[1], y: wy },
    hipLeft: { x: hip[0], y: hipY },
    hipRight: { x: hip[1], y: hipY },
    crotch,
    legLeft,
    legRight,
    hemLeft,
    hemRight,
    centreX: c,
  };
}
