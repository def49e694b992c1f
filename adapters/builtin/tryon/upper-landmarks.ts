/**
 * Landmarks of an upper-body garment (t-shirt, shirt, the bodice of a dress) from its outline:
 * the neckline is the top concavity near the centre line, the armpits are the deepest side
 * concavities, shoulders sit on the upper outline above the armpits (or at the strap corners when
 * sleeveless), sleeve cuffs are the far end of the region beyond the shoulder-armpit line and the
 * hem corners are the extremes of the lowest rows.
 */
import type { Point } from '../../../core/twins/body.ts';
import type { Sleeve, UpperLandmarks } from './garment-landmarks.ts';
import type { MaskShape } from './mask-shape.ts';

function nearestIndex(contour: Point[], p: Point): number {
  let best = 0;
  let bestD = Infinity;
  for (let i = 0; i < contour.length; i++) {
    const d = (contour[i].x - p.x) ** 2 + (contour[i].y - p.y) ** 2;
    if (d < bestD) {
      bestD = d;
      best = i;
    }
  }
  return best;
}

/** Douglas-Peucker simplification of an open polyline; returns the kept indices in order. */
function simplify(pts: Point[], tolerance: number): number[] {
  const keep = new Uint8Array(pts.length);
  keep[0] = 1;
  keep[pts.length - 1] = 1;
  const stack: [number, number][] = [[0, pts.length - 1]];
  while (stack.length) {
    const [i, j] = stack.pop()!;
    const a = pts[i];
    const b = pts[j];
    const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
    let far = -1;
    let farD = tolerance;
    for (let k = i + 1; k < j; k++) {
      const d = Math.abs((b.x - a.x) * (a.y - pts[k].y) - (a.x - pts[k].x) * (b.y - a.y)) / len;
      if (d > farD) {
        farD = d;
        far = k;
      }
    }
    if (far >= 0) {
      keep[far] = 1;
      stack.push([i, far], [far, j]);
    }
  }
  const out: number[] = [];
  for (let k = 0; k < pts.length; k++) if (keep[k]) out.push(k);
  return out;
}

/**
 * The sleeve outline is the contour arc between the shoulder and the armpit that does not pass the
 * hem; its cuff is the simplified arc's segment farthest from the root. Returns null when the
 * arc stays close to the root (sleeveless).
 */
function findSleeve(shape: MaskShape, shoulder: Point, armpit: Point): Sleeve | null {
  const contour = shape.contour;
  const n = contour.length;
  const rootLen = Math.hypot(shoulder.x - armpit.x, shoulder.y - armpit.y);
  if (rootLen < 2 || n < 8) return null;
  const iS = nearestIndex(contour, shoulder);
  const iA = nearestIndex(contour, armpit);
  const iH = nearestIndex(contour, { x: shape.centreX, y: shape.y1 });
  const within = (from: number, to: number, i: number) => (i - from + n) % n <= (to - from + n) % n;
  const [from, to] = within(iS, iA, iH) ? [iA, iS] : [iS, iA];
  const pts: Point[] = [];
  for (let k = 0, len = (to - from + n) % n; k <= len; k++) pts.push(contour[(from + k) % n]);
  const root = { x: (shoulder.x + armpit.x) / 2, y: (shoulder.y + armpit.y) / 2 };
  let farD = 0;
  for (const p of pts) farD = Math.max(farD, Math.hypot(p.x - root.x, p.y - root.y));
  if (farD < rootLen * 0.6) return null; // a cap at most: treat as sleeveless
  // the cuff: the segment of the simplified arc farthest from the root and running across it
  const simple = simplify(pts, Math.max(2, farD * 0.03));
  let best = -1;
  let bestD = -Infinity;
  for (let k = 0; k + 1 < simple.length; k++) {
    const a = pts[simple[k]];
    const b = pts[simple[k + 1]];
    const mx = (a.x + b.x) / 2 - root.x;
    const my = (a.y + b.y) / 2 - root.y;
    const md = Math.hypot(mx, my) || 1;
    const sl = Math.hypot(b.x - a.x, b.y - a.y) || 1;
    const across = Math.abs(((b.x - a.x) * mx + (b.y - a.y) * my) / (sl * md)) < 0.6;
    if (across && md > bestD) {
      bestD = md;
      best = k;
    }
  }
  if (best < 0) return null;
  // the corner nearer the shoulder end of the arc is on the shoulder-side (outer) edge
  const startsAtShoulder = from === iS;
  const c1 = pts[simple[best]];
  const c2 = pts[simple[best + 1]];
  const [outer, inner] = startsAtShoulder ? [c1, c2] : [c2, c1];
  return { shoulder, armpit, outerCuff: outer, innerCuff: inner, outline: pts };
}

/**
 * Follows the torso's side edge up from the hem; where a sleeve's underside joins, the row's run
 * jumps outwards: the row below the jump is the armpit. Null when the side never jumps.
 */
function trackArmpit(shape: MaskShape, c: number, sign: number, topY: number): Point | null {
  const H = shape.boxHeight;
  const jump = Math.max(3, shape.boxWidth * 0.04);
  let y = Math.round(shape.y1 - H * 0.03);
  let span = shape.spanAt(y, c);
  if (!span) return null;
  let prev = sign < 0 ? span[0] : span[1];
  for (y -= 1; y > topY; y--) {
    span = shape.spanAt(y, c);
    if (!span) return null;
    const e = sign < 0 ? span[0] : span[1];
    if ((e - prev) * sign > jump) return { x: prev, y: y + 1 };
    prev = e;
  }
  return null;
}

/** Sleeveless: the armpit is the top of the bust-width part of the bodice. */
function widthArmpit(shape: MaskShape, c: number, topY: number): [Point, Point] {
  const H = shape.boxHeight;
  const end = shape.y0 + H * 0.45;
  let maxW = 0;
  for (let y = Math.round(topY); y <= end; y++) {
    const s = shape.spanAt(y, c);
    if (s) maxW = Math.max(maxW, s[1] - s[0]);
  }
  for (let y = Math.round(topY); y <= end; y++) {
    const s = shape.spanAt(y, c);
    if (s && s[1] - s[0] >= maxW * 0.95) return [{ x: s[0], y }, { x: s[1], y }];
  }
  const s = shape.spanAt(end, c) ?? [shape.x0, shape.x1];
  return [{ x: s[0], y: end }, { x: s[1], y: end }];
}

export function detectUpper(shape: MaskShape): UpperLandmarks {
  const { x0, y0, y1 } = shape;
  const H = shape.boxHeight;
  const W = shape.boxWidth;
  const c = shape.centreX;
  const contour = shape.contour;
  const defects = shape.defects(H * 0.02);

  // neckline: the deepest top concavity near the centre line
  const neck = defects.find((d) => {
    const p = contour[d.deepest];
    return p.y < y0 + H * 0.35 && Math.abs(p.x - c) < W * 0.2 && contour[d.start].y < y0 + H * 0.3 && contour[d.end].y < y0 + H * 0.3;
  });
  let neckline: Point;
  let neckLeft: Point;
  let neckRight: Point;
  if (neck) {
    neckline = contour[neck.deepest];
    const a = contour[neck.start];
    const b = contour[neck.end];
    [neckLeft, neckRight] = a.x < b.x ? [a, b] : [b, a];
  } else {
    // a straight top edge (boat neck, tube top): centre of the top edge
    const span = shape.spanAt(y0, c) ?? [x0, shape.x1];
    neckline = { x: c, y: y0 };
    const half = (span[1] - span[0]) * 0.25;
    neckLeft = { x: c - half, y: y0 };
    neckRight = { x: c + half, y: y0 };
  }

  // armpits: where the sleeves join the torso's side edges, else the top of the bust width
  let armpitLeft = trackArmpit(shape, c, -1, neckline.y);
  let armpitRight = trackArmpit(shape, c, 1, neckline.y);
  if (!armpitLeft && armpitRight) armpitLeft = { x: 2 * c - armpitRight.x, y: armpitRight.y };
  if (!armpitRight && armpitLeft) armpitRight = { x: 2 * c - armpitLeft.x, y: armpitLeft.y };
  if (!armpitLeft || !armpitRight) [armpitLeft, armpitRight] = widthArmpit(shape, c, Math.max(neckLeft.y, neckRight.y));

  // shoulders: on the upper outline above the armpit; at the strap corner when that is the armpit itself
  const shoulderOn = (armpit: Point, sign: number): Point => {
    const top = shape.top(armpit.x);
    if (top >= 0 && armpit.y - top > H * 0.1) return { x: armpit.x, y: top };
    // the top outer corner of the strap: far out and high up
    let best: Point = { x: c, y: y0 };
    let bestScore = -Infinity;
    for (const p of contour) {
      if (p.y > y0 + H * 0.12) continue;
      const score = (p.x - c) * sign - (p.y - y0);
      if (score > bestScore) {
        bestScore = score;
        best = p;
      }
    }
    return best;
  };
  const shoulderLeft = shoulderOn(armpitLeft, -1);
  const shoulderRight = shoulderOn(armpitRight, 1);

  const sleeveLeft = findSleeve(shape, shoulderLeft, armpitLeft);
  const sleeveRight = findSleeve(shape, shoulderRight, armpitRight);

  // hem corners: the torso run just above the lowest row
  const hy = y1 - Math.max(1, Math.round(H * 0.015));
  const hem = shape.spanAt(hy, c) ?? [x0, shape.x1];
  return {
    neckline,
    neckLeft,
    neckRight,
    shoulderLeft,
    shoulderRight,
    armpitLeft,
    armpitRight,
    hemLeft: { x: hem[0], y: hy },
    hemRight: { x: hem[1], y: hy },
    sleeveLeft,
    sleeveRight,
    centreX: c,
  };
}
