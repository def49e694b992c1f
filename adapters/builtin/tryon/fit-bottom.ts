/**
 * Fits trousers, shorts or a skirt to a body: the waistband sits between the body's waist and hip
 * lines, the garment's rise (waistband to crotch) maps onto the body's, each leg follows the body's
 * leg with ease (full-length legs end over the top of the feet) and a skirt keeps its flare.
 */
import type { RasterImage } from '../../../core/images.ts';
import { BodyFrame } from './body-frame.ts';
import { sideX, type WidthRule } from './fit-width.ts';
import type { BottomLandmarks, Leg } from './garment-landmarks.ts';
import { prepareSource } from './garment-source.ts';
import type { MaskShape } from './mask-shape.ts';
import type { Pair, Piece } from './warp-piece.ts';

/** A flat garment is about this much wider than the same garment seen from the front. */
const FLAT_TO_FRONT = 1.35;

export function fitBottom(cut: RasterImage, lm: BottomLandmarks, shape: MaskShape, frame: BodyFrame): Piece[] {
  const L = frame.landmarks;
  const Sb = frame.shoulderWidth;
  const c = lm.centreX;
  const waistY = (L.waistLeft.y + L.waistRight.y) / 2;
  const hipY = (L.hipLeft.y + L.hipRight.y) / 2;
  const ankleY = (L.leftAnkle.y + L.rightAnkle.y) / 2;
  const toeY = (L.leftToe.y + L.rightToe.y) / 2;
  const legLen = Math.max(1, ankleY - L.crotch.y);
  const bandY = waistY + 0.3 * (hipY - waistY);
  const gWaistY = (lm.waistLeft.y + lm.waistRight.y) / 2;
  const hipB = Math.abs(L.hipLeft.x - L.hipRight.x);
  const hipG = Math.max(1, lm.hipRight.x - lm.hipLeft.x);
  // packshot pixels to output pixels, judged from the hip widths
  const kw = (hipB * FLAT_TO_FRONT) / hipG;
  const pairs: Pair[] = [];
  const rule = (side: 'left' | 'right', maxEase: number): WidthRule => ({
    garmentRef: side === 'left' ? c - lm.hipLeft.x : lm.hipRight.x - c,
    bodyRef: Math.abs((side === 'left' ? frame.left.hip.x : frame.right.hip.x) - frame.centreX(hipY)),
    ease: Sb * 0.02,
    minEase: Sb * 0.015,
    maxEase,
  });

  let mapY: (gy: number) => number;
  let gHemY: number;
  const crotch = lm.crotch;
  if (crotch && lm.legLeft && lm.legRight) {
    const crotchB = L.crotch.y + legLen * 0.01;
    gHemY = (lm.legLeft.hemOuter.y + lm.legRight.hemOuter.y) / 2;
    // leg length: mostly the width-based scale (bodies differ a lot in where the crotch landmark
    // sits, so the rise says less), a quarter the rise-based one
    const kRise = (crotchB - bandY) / Math.max(1, crotch.y - gWaistY);
    let hemB = crotchB + (gHemY - crotch.y) * (0.25 * kRise + 0.75 * kw);
    // long enough to reach the ankle: end over the top of the feet
    if (hemB > crotchB + legLen * 0.75) hemB = ankleY + 0.35 * (toeY - ankleY);
    const hB = hemB;
    mapY = (gy) =>
      gy <= crotch.y
        ? bandY + ((gy - gWaistY) / Math.max(1, crotch.y - gWaistY)) * (crotchB - bandY)
        : crotchB + ((gy - crotch.y) / Math.max(1, gHemY - crotch.y)) * (hB - crotchB);
    pairs.push({ g: crotch, b: { x: L.crotch.x, y: crotchB } });
  } else {
    gHemY = (lm.hemLeft.y + lm.hemRight.y) / 2;
    const hemB = Math.min(bandY + (gHemY - gWaistY) * kw, ankleY - legLen * 0.03);
    mapY = (gy) => bandY + ((gy - gWaistY) / Math.max(1, gHemY - gWaistY)) * (hemB - bandY);
  }

  // waistband, hips and the centre line
  const hipPairs = {} as Record<'left' | 'right', Pair>;
  for (const [gl, gr] of [
    [lm.waistLeft, lm.waistRight],
    [lm.hipLeft, lm.hipRight],
  ]) {
    const by = mapY(gl.y);
    hipPairs.left = { g: gl, b: { x: sideX(frame, 'left', by, c - gl.x, rule('left', Sb * 0.12)), y: by } };
    hipPairs.right = { g: gr, b: { x: sideX(frame, 'right', by, gr.x - c, rule('right', Sb * 0.12)), y: by } };
    pairs.push(hipPairs.left, hipPairs.right);
  }
  pairs.push({ g: { x: c, y: gWaistY }, b: { x: frame.centreX(bandY), y: bandY } });

  const source = prepareSource(cut, kw);
  const box: [number, number, number, number] = [shape.x0, shape.y0, shape.x1, shape.y1];
  if (crotch && lm.legLeft && lm.legRight) {
    // trousers: a seat piece above the crotch and one piece per leg, so the two inner seams, far
    // apart in the packshot but side by side on the body, do not fight inside one spline
    const seat = [...pairs];
    const legs: Record<'left' | 'right', Pair[]> = { left: [], right: [] };
    for (const side of ['left', 'right'] as const) {
      const leg = (side === 'left' ? lm.legLeft : lm.legRight) as Leg;
      const sign = BodyFrame.sign(side);
      const gRef = rule(side, 0).garmentRef;
      const bRef = rule(side, 0).bodyRef;
      legs[side].push({ g: crotch, b: { x: L.crotch.x, y: mapY(crotch.y) } }, hipPairs[side]);
      for (const f of [0, 0.12, 0.4, 0.7, 1]) {
        const gy = crotch.y + f * (leg.hemOuter.y - crotch.y);
        let gOuter = leg.hemOuter;
        let gInner = leg.hemInner;
        if (f < 1) {
          const runs = shape.runs(gy).filter((r) => ((r[0] + r[1]) / 2 - crotch.x) * sign > 0);
          const run = runs.length ? runs.reduce((a, b) => (b[1] - b[0] > a[1] - a[0] ? b : a)) : shape.spanAt(gy, crotch.x);
          if (!run) continue;
          gOuter = { x: sign < 0 ? run[0] : run[1], y: gy };
          // at the crotch row the legs have not split yet: the leg ends at the crotch
          gInner = f === 0 ? { x: crotch.x, y: gy } : { x: sign < 0 ? run[1] : run[0], y: gy };
        }
        const by = mapY(gy);
        const edges = frame.legEdges(side, Math.min(by, frame.height - 1));
        const mid = (edges.outer + edges.inner) / 2;
        const bodyHalf = Math.abs(edges.outer - edges.inner) / 2;
        // the leg's width relative to the garment's hip, never tighter than the leg
        const wanted = (Math.abs(gOuter.x - gInner.x) / 2 / Math.max(1, gRef)) * bRef;
        const half = Math.min(Math.max(wanted, bodyHalf * 1.08 + 2), bodyHalf + Sb * 0.2);
        // the inner seam never crosses the centre line
        let inner = mid - sign * half;
        inner = sign < 0 ? Math.min(inner, L.crotch.x - 1) : Math.max(inner, L.crotch.x + 1);
        const outer = { g: gOuter, b: { x: mid + sign * half, y: by } };
        legs[side].push(outer);
        if (f > 0) legs[side].push({ g: gInner, b: { x: inner, y: by } });
        if (f === 0.12) seat.push(outer);
      }
    }
    const { width: cw, height: ch } = cut;
    const margin = Math.max(3, shape.boxHeight * 0.02);
    const seatSelect = new Uint8Array(cw * ch);
    const leftSelect = new Uint8Array(cw * ch);
    const rightSelect = new Uint8Array(cw * ch);
    for (let y = 0; y < ch; y++) {
      for (let x = 0; x < cw; x++) {
        const i = y * cw + x;
        if (y <= crotch.y + margin) seatSelect[i] = 255;
        if (y >= crotch.y - margin) (x < crotch.x ? leftSelect : rightSelect)[i] = 255;
      }
    }
    const reach = Sb * 0.1;
    return [
      { source, pairs: seat, box, select: seatSelect, reach, exclude: frame.armMask },
      { source, pairs: legs.left, box: [shape.x0, crotch.y, crotch.x, shape.y1], select: leftSelect, reach, exclude: frame.armMask },
      { source, pairs: legs.right, box: [crotch.x, crotch.y, shape.x1, shape.y1], select: rightSelect, reach, exclude: frame.armMask },
    ];
  }
  for (const f of [0.25, 0.5, 0.75, 1]) {
    const gy = lm.hipLeft.y + f * (gHemY - lm.hipLeft.y);
    const span = f === 1 ? [lm.hemLeft.x, lm.hemRight.x] : shape.spanAt(gy, c);
    if (!span) continue;
    const by = mapY(gy);
    pairs.push({ g: { x: span[0], y: gy }, b: { x: sideX(frame, 'left', by, c - span[0], rule('left', Sb)), y: by } });
    pairs.push({ g: { x: span[1], y: gy }, b: { x: sideX(frame, 'right', by, span[1] - c, rule('right', Sb)), y: by } });
    pairs.push({ g: { x: c, y: gy }, b: { x: frame.centreX(by), y: by } });
  }
  return [{ source, pairs, box, reach: frame.height, exclude: frame.armMask }];
}
