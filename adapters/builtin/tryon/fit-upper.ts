/**
 * Fits an upper garment (top or dress) to a body: garment landmarks are paired with body points
 * (collar at the neck, shoulder seams at the shoulders, armpits at the armpits, side seams along
 * the torso with some ease, the hem at the garment's own length scaled by the shoulder widths,
 * a dress's waist at the body's waist) and each sleeve becomes its own piece laid along the arm.
 */
import type { RasterImage } from '../../../core/images.ts';
import type { Point } from '../../../core/twins/body.ts';
import { alongPolyline, BodyFrame, type ImageSide, polylineLength } from './body-frame.ts';
import type { DressLandmarks, Sleeve, UpperLandmarks } from './garment-landmarks.ts';
import { sideX, type WidthRule } from './fit-width.ts';
import { prepareSource } from './garment-source.ts';
import type { MaskShape } from './mask-shape.ts';
import { dilate } from '../raster/morphology.ts';
import { polygonMask } from './polygon-mask.ts';
import type { Pair, Piece } from './warp-piece.ts';

const dist = (a: Point, b: Point) => Math.hypot(a.x - b.x, a.y - b.y);
const lerp = (a: Point, b: Point, t: number): Point => ({ x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t });
const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));

export function fitUpper(cut: RasterImage, lm: UpperLandmarks | DressLandmarks, shape: MaskShape, frame: BodyFrame): Piece[] {
  const L = frame.landmarks;
  const Sb = frame.shoulderWidth;
  const c = lm.centreX;
  const pairs: Pair[] = [];
  const H = frame.height;
  const dress = 'waistLeft' in lm ? lm : null;
  const sleeved = { left: lm.sleeveLeft !== null, right: lm.sleeveRight !== null };

  // shoulder targets first: their spacing against the garment's gives the scale
  const target = {
    shoulder: { left: shoulderTarget(frame, 'left', sleeved.left), right: shoulderTarget(frame, 'right', sleeved.right) },
    armpit: {} as Record<ImageSide, Point>,
  };
  const Sg = Math.max(1, dist(lm.shoulderLeft, lm.shoulderRight));
  const s = dist(target.shoulder.left, target.shoulder.right) / Sg;

  // collar: around the base of the neck, as wide as the garment's neckline allows
  const neckY = L.neck.y - 0.12 * (L.neck.y - L.chin.y);
  const neckMidY = (L.neck.y + L.chin.y) / 2;
  const neckHalfB = (frame.march({ x: L.neck.x, y: neckMidY }, { x: 1, y: 0 }, Sb) + frame.march({ x: L.neck.x, y: neckMidY }, { x: -1, y: 0 }, Sb)) / 2;
  const nh = clamp(((lm.neckRight.x - lm.neckLeft.x) / 2) * s, neckHalfB * 1.1, Math.max(neckHalfB * 1.1, Sb * 0.38));
  // the collar's corners sit on the shoulder line where it meets the neck
  const lowest = L.neck.y + Sb * 0.1;
  const onShoulderLine = (x: number) => clamp(frame.topAt(x, L.chin.y, lowest) + 2, L.chin.y + 0.5 * (L.neck.y - L.chin.y), lowest);
  pairs.push({ g: lm.neckLeft, b: { x: L.neck.x - nh, y: onShoulderLine(L.neck.x - nh) } });
  pairs.push({ g: lm.neckRight, b: { x: L.neck.x + nh, y: onShoulderLine(L.neck.x + nh) } });
  const neckDepth = Math.max(0, lm.neckline.y - (lm.neckLeft.y + lm.neckRight.y) / 2) * s;
  pairs.push({ g: lm.neckline, b: { x: L.neck.x, y: neckY + neckDepth } });

  // widths relative to the garment's chest (armpit) width, applied to the body's chest
  const rules = {} as Record<ImageSide, WidthRule>;
  for (const side of ['left', 'right'] as const) {
    const sd = frame.side(side);
    const gArmpit = side === 'left' ? lm.armpitLeft : lm.armpitRight;
    rules[side] = {
      garmentRef: Math.abs(gArmpit.x - c),
      bodyRef: Math.abs(sd.chest.x - frame.centreX(sd.chest.y)),
      ease: Sb * 0.04,
      minEase: Sb * 0.02,
      maxEase: dress ? Sb * 1.2 : Sb * 0.25,
    };
    // a garment's armhole is usually deeper than the body's armpit: keep its depth below the shoulder
    const gShoulder = side === 'left' ? lm.shoulderLeft : lm.shoulderRight;
    const depth = (gArmpit.y - gShoulder.y) * s;
    const ay = clamp(target.shoulder[side].y + depth, sd.armpit.y, sd.chest.y + 0.5 * (sd.waist.y - sd.chest.y));
    target.armpit[side] = { x: sideX(frame, side, ay, rules[side].garmentRef, rules[side]), y: ay };
    pairs.push({ g: side === 'left' ? lm.shoulderLeft : lm.shoulderRight, b: target.shoulder[side] });
    pairs.push({ g: gArmpit, b: target.armpit[side] });
  }

  // vertical mapping below the armpits: a top's length scales with the shoulders; a dress's waist
  // lands on the body's waist and its skirt keeps its length relative to the bodice
  const gArmpitY = (lm.armpitLeft.y + lm.armpitRight.y) / 2;
  const bArmpitY = (target.armpit.left.y + target.armpit.right.y) / 2;
  const gHemY = (lm.hemLeft.y + lm.hemRight.y) / 2;
  const bWaistY = (L.waistLeft.y + L.waistRight.y) / 2;
  const gWaistY = dress ? (dress.waistLeft.y + dress.waistRight.y) / 2 : 0;
  const gShoulderY = (lm.shoulderLeft.y + lm.shoulderRight.y) / 2;
  const bShoulderY = (target.shoulder.left.y + target.shoulder.right.y) / 2;
  const legLen = Math.max(1, (L.leftAnkle.y + L.rightAnkle.y) / 2 - L.crotch.y);
  const maxHem = dress ? (L.leftAnkle.y + L.rightAnkle.y) / 2 - legLen * 0.04 : L.crotch.y + legLen * 0.3;
  const bodice = dress ? (bWaistY - bShoulderY) / Math.max(1, gWaistY - gShoulderY) : s;
  const rawHem = dress ? bWaistY + (gHemY - gWaistY) * (bodice + s) / 2 : bArmpitY + (gHemY - gArmpitY) * s;
  const bHemY = clamp(rawHem, bArmpitY + (L.crotch.y - bArmpitY) * 0.4, maxHem);
  const mapY = (gy: number): number => {
    if (dress) {
      if (gy <= gWaistY) return bArmpitY + ((gy - gArmpitY) / Math.max(1, gWaistY - gArmpitY)) * (bWaistY - bArmpitY);
      return bWaistY + ((gy - gWaistY) / Math.max(1, gHemY - gWaistY)) * (bHemY - bWaistY);
    }
    return bArmpitY + ((gy - gArmpitY) / Math.max(1, gHemY - gArmpitY)) * (bHemY - bArmpitY);
  };

  // side seams and the centre line, sampled down to the hem
  const fractions = dress ? [0.12, 0.25, 0.4, 0.55, 0.7, 0.85, 1] : [0.2, 0.45, 0.7, 1];
  const rows = fractions.map((f) => (f === 1 ? gHemY : gArmpitY + f * (gHemY - gArmpitY)));
  if (dress) rows.push(gWaistY);
  for (const gy of rows) {
    const by = mapY(gy);
    const span = shape.spanAt(gy, c);
    if (!span) continue;
    const gl = gy === gHemY ? lm.hemLeft : { x: span[0], y: gy };
    const gr = gy === gHemY ? lm.hemRight : { x: span[1], y: gy };
    pairs.push({ g: gl, b: { x: sideX(frame, 'left', by, c - gl.x, rules.left), y: by } });
    pairs.push({ g: gr, b: { x: sideX(frame, 'right', by, gr.x - c, rules.right), y: by } });
    pairs.push({ g: { x: c, y: gy }, b: { x: frame.centreX(by), y: by } });
  }
  pairs.push({ g: { x: c, y: gArmpitY }, b: { x: frame.centreX(bArmpitY), y: bArmpitY } });

  const scale = s;
  const source = prepareSource(cut, scale);
  const box: [number, number, number, number] = [shape.x0, shape.y0, shape.x1, shape.y1];
  const minY = L.chin.y + 0.35 * (L.neck.y - L.chin.y);
  const reach = dress ? H : Sb * 0.2;

  // sleeves are separate pieces: select their outline, and leave it out of the torso piece
  const sleeves: { side: ImageSide; sleeve: Sleeve; select: Uint8Array }[] = [];
  const torsoSelect = new Uint8Array(cut.width * cut.height).fill(255);
  for (const side of ['left', 'right'] as const) {
    const sleeve = side === 'left' ? lm.sleeveLeft : lm.sleeveRight;
    if (!sleeve) continue;
    // the torso piece leaves out the sleeve and its soft edge; the sleeve reaches a little into the
    // torso so the two pieces overlap along the armhole instead of leaving a crack
    const poly = polygonMask(sleeve.outline, cut.width, cut.height);
    const halo = dilate(poly, cut.width, cut.height, 3, { shape: 'disk' });
    for (let i = 0; i < halo.length; i++) if (halo[i]) torsoSelect[i] = 0;
    sleeves.push({ side, sleeve, select: dilate(poly, cut.width, cut.height, Math.max(4, Sg * 0.03), { shape: 'disk' }) });
  }

  const pieces: Piece[] = [{ source, pairs, box, select: torsoSelect, reach, exclude: frame.armMask, minY }];
  for (const { side, sleeve, select } of sleeves) {
    pieces.push({
      source,
      pairs: sleevePairs(sleeve, side, target.shoulder[side], target.armpit[side], s, frame),
      box: outlineBox(sleeve.outline),
      select,
      reach: Sb * 0.08,
      minY,
    });
  }
  return pieces;
}

function outlineBox(pts: Point[]): [number, number, number, number] {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const p of pts) {
    x0 = Math.min(x0, p.x);
    y0 = Math.min(y0, p.y);
    x1 = Math.max(x1, p.x);
    y1 = Math.max(y1, p.y);
  }
  return [x0, y0, x1, y1];
}

/**
 * Where a garment's shoulder point lands: a sleeve's seam sits on top of the deltoid, at the
 * arm's outer edge; a strap (sleeveless) sits over the shoulder joint.
 */
function shoulderTarget(frame: BodyFrame, side: ImageSide, sleeved: boolean): Point {
  const joint = frame.shoulderJoint(side);
  const half = frame.armHalfWidth(side);
  const { u, n } = frame.upperArm(side);
  const out = sleeved ? half : -half * 0.3;
  const up = sleeved ? half * 0.1 : half * 0.2;
  const p = { x: joint.x + n.x * out - u.x * up, y: joint.y + n.y * out - u.y * up };
  // on the shoulder's top outline when the body's outline is higher there (estimated landmarks)
  const L = frame.landmarks;
  const x = p.x - BodyFrame.sign(side) * 2;
  const top = frame.topAt(x, L.chin.y, p.y);
  return top < p.y - 2 ? { x: p.x, y: top + 2 } : p;
}

/**
 * A sleeve laid along the hanging arm: its shoulder-side edge runs from the seam on the deltoid
 * down the arm's outer side, its underarm edge from the armpit down the inner side; both end at
 * the cuff, across the arm at the sleeve's length scaled like the rest of the garment.
 */
function sleevePairs(sleeve: Sleeve, side: ImageSide, bShoulder: Point, bArmpit: Point, s: number, frame: BodyFrame): Pair[] {
  const sd = frame.side(side);
  const half = frame.armHalfWidth(side);
  const { u, n } = frame.upperArm(side);
  const joint = frame.shoulderJoint(side);
  const axis = [joint, sd.elbow, sd.wrist];
  const tTip = (bShoulder.x - joint.x) * u.x + (bShoulder.y - joint.y) * u.y;
  const tIn = Math.abs(u.y) > 0.2 ? (sd.armpit.y - joint.y) / u.y : half * 2;
  // the underarm seam starts at the torso's armpit when the arm hangs close to the body
  const armInner = { x: joint.x + u.x * tIn - n.x * half * 1.1, y: joint.y + u.y * tIn - n.y * half * 1.1 };
  const inRoot = dist(armInner, bArmpit) < half * 2.5 ? bArmpit : armInner;
  const outerLen = dist(sleeve.shoulder, sleeve.outerCuff) * s;
  const innerLen = dist(sleeve.armpit, sleeve.innerCuff) * s;
  const tCuff = Math.min(Math.max((tTip + outerLen + tIn + innerLen) / 2, tIn + half), polylineLength(axis) * 1.02);
  const pairs: Pair[] = [
    { g: sleeve.shoulder, b: bShoulder },
    { g: sleeve.armpit, b: inRoot },
  ];
  const normalAt = (dir: Point): Point => {
    let m = { x: -dir.y, y: dir.x };
    if (m.x * n.x + m.y * n.y < 0) m = { x: -m.x, y: -m.y };
    return m;
  };
  // the underarm edge leaves the root at its own offset from the axis (the torso's armpit may lie
  // further in than the arm) and reaches the arm's width gradually, so it covers the arm's top
  const rootAxis = alongPolyline(axis, tIn);
  const rootOffset = Math.max(half * 1.1, (rootAxis.p.x - inRoot.x) * n.x + (rootAxis.p.y - inRoot.y) * n.y);
  // the arm's own half-width along it (the forearm is thinner than the upper arm)
  const localHalf = (p: Point, dir: Point): number => {
    const m = { x: -dir.y, y: dir.x };
    const w = Math.min(frame.march(p, m, half * 2), frame.march(p, { x: -m.x, y: -m.y }, half * 2));
    return clamp(w, half * 0.5, half * 1.2);
  };
  for (const f of [0.25, 0.5, 0.75, 1]) {
    const mid = alongPolyline(axis, (tTip + tIn) / 2 + f * (tCuff - (tTip + tIn) / 2));
    const armHere = localHalf(mid.p, mid.dir) * 1.15 + 2;
    const garmentHere = ((dist(lerp(sleeve.shoulder, sleeve.outerCuff, f), lerp(sleeve.armpit, sleeve.innerCuff, f)) / 2) * s) * 0.9;
    const hw = Math.max(armHere, Math.min(garmentHere, armHere * 1.6));
    const t = Math.min(1, f / 0.75);
    const hwIn = rootOffset + (hw - rootOffset) * t * t * (3 - 2 * t);
    const o = alongPolyline(axis, tTip + f * (tCuff - tTip));
    const i = alongPolyline(axis, tIn + f * (tCuff - tIn));
    const no = normalAt(o.dir);
    const ni = normalAt(i.dir);
    // the outer edge covers the arm's outline there (the deltoid is wider than the arm below it)
    const hwOut = Math.max(hw, Math.min(frame.march(o.p, no, half * 2) + 2, half * 2));
    pairs.push({ g: lerp(sleeve.shoulder, sleeve.outerCuff, f), b: { x: o.p.x + no.x * hwOut, y: o.p.y + no.y * hwOut } });
    pairs.push({ g: lerp(sleeve.armpit, sleeve.innerCuff, f), b: { x: i.p.x - ni.x * hwIn, y: i.p.y - ni.y * hwIn } });
  }
  return pairs;
}
