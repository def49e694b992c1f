import type { BodyLandmarks, Point } from '../../../core/twins/body.ts';
import { maskBounds } from '../raster/mask.ts';

/** Proportions read from a front-view silhouette, in pixels of that silhouette. */
export interface SilhouetteAnalysis {
  landmarks: BodyLandmarks;
  /** Head top to the lowest foot pixel. */
  heightPx: number;
  topY: number;
  bottomY: number;
  crotchY: number;
  /** Torso widths (outer contour, arms excluded when they hang free) at the landmark rows. */
  widths: { shoulder: number; chest: number; waist: number; hip: number };
  /** False when the arms touch the torso at the waist rows (then widths include the arms). */
  armsFree: boolean;
  notes: string[];
}

interface Run {
  x0: number;
  x1: number;
}

/** Relative positions along the body, from the ANSUR medians used by the parametric body. */
const REL = {
  neckSearch: [0.09, 0.2],
  shoulderBand: 0.34,
  chest: 0.3, // between shoulder and crotch
  waistSearch: [0.42, 0.8],
  knee: 0.46, // between crotch and ankle
  ankle: 0.045, // above the sole, of the height
  crotchFallback: 0.52,
} as const;

function rowRuns(mask: Uint8Array, w: number, y: number): Run[] {
  const runs: Run[] = [];
  const row = y * w;
  let x = 0;
  while (x < w) {
    if (!mask[row + x]) {
      x++;
      continue;
    }
    const x0 = x;
    while (x < w && mask[row + x]) x++;
    runs.push({ x0, x1: x - 1 });
  }
  return runs;
}

/** The run containing x, else the nearest one. */
function runAt(runs: Run[], x: number): Run | null {
  let best: Run | null = null;
  let bestD = Infinity;
  for (const r of runs) {
    const d = x < r.x0 ? r.x0 - x : x > r.x1 ? x - r.x1 : 0;
    if (d < bestD) {
      bestD = d;
      best = r;
    }
  }
  return best;
}

/**
 * Landmarks of a standing person from a front-view mask: head top, neck (narrowest row under the
 * head), shoulders (top of the widest upper band), crotch (highest point of the gap between the
 * legs, open to the bottom), waist (narrowest torso row), hips (widest torso row above the
 * crotch), knees and ankles (leg run centres at ANSUR relative heights) and toes (lowest pixels).
 * Contour landmarks are run ends, so every landmark lies on the mask.
 */
export function analyzeSilhouette(mask: Uint8Array, w: number, h: number): SilhouetteAnalysis {
  const box = maskBounds(mask, w, h);
  if (!box) throw new Error('empty silhouette');
  const notes: string[] = [];
  const top = box.y0;
  const bottom = box.y1;
  const H = bottom - top + 1;
  const runs: Run[][] = [];
  for (let y = 0; y < h; y++) runs.push(y >= top && y <= bottom ? rowRuns(mask, w, y) : []);
  const rowY = (f: number) => Math.min(bottom, Math.max(top, Math.round(top + f * H)));

  // Body axis from the head rows.
  let sx = 0;
  let sn = 0;
  for (let y = top; y <= rowY(0.08); y++) for (const r of runs[y]) { sx += ((r.x0 + r.x1) / 2) * (r.x1 - r.x0 + 1); sn += r.x1 - r.x0 + 1; }
  const axis = sn ? sx / sn : (box.x0 + box.x1) / 2;
  const width = (y: number, x = axis) => {
    const r = runAt(runs[y], x);
    return r ? r.x1 - r.x0 + 1 : 0;
  };

  // Head and neck.
  let headW = 0;
  let headWideY = top;
  for (let y = top; y <= rowY(0.1); y++) if (width(y) > headW) { headW = width(y); headWideY = y; }
  let neckY = rowY(REL.neckSearch[0]);
  for (let y = rowY(REL.neckSearch[0]); y <= rowY(REL.neckSearch[1]); y++) if (width(y) < width(neckY)) neckY = y;
  const neckW = width(neckY);
  let chinY = neckY;
  for (let y = headWideY; y <= neckY; y++) {
    if (width(y) <= neckW + 0.25 * (headW - neckW)) { chinY = y; break; }
  }

  // Shoulders: top of the widest band under the neck.
  let bandMax = 0;
  for (let y = neckY; y <= rowY(REL.shoulderBand); y++) bandMax = Math.max(bandMax, width(y));
  let shoulderY = neckY;
  for (let y = neckY; y <= rowY(REL.shoulderBand); y++) if (width(y) >= 0.9 * bandMax) { shoulderY = y; break; }

  // Crotch: the highest background pixel open to the bottom near the axis.
  const halfSearch = Math.max(2, Math.round(0.05 * H));
  let crotchY = -1;
  let crotchX = Math.round(axis);
  for (let x = Math.max(0, Math.round(axis) - halfSearch); x <= Math.min(w - 1, Math.round(axis) + halfSearch); x++) {
    let gapTop = bottom + 1;
    for (let yy = bottom; yy > top; yy--) {
      if (mask[yy * w + x]) break;
      gapTop = yy;
    }
    if (gapTop <= bottom && (crotchY < 0 || gapTop < crotchY)) {
      crotchY = gapTop;
      crotchX = x;
    }
  }
  if (crotchY < 0 || crotchY < rowY(0.35) || crotchY > rowY(0.75)) {
    notes.push('legs are not separated in the silhouette; crotch placed at the typical height');
    crotchY = rowY(REL.crotchFallback);
    crotchX = Math.round(axis);
  } else {
    crotchY -= 1; // the last body row above the gap
  }

  // Torso rows: the run containing the axis, interpolated from the neck to the crotch.
  const torsoX = (y: number) => axis + ((crotchX - axis) * (y - neckY)) / Math.max(1, crotchY - neckY);
  const torsoRun = (y: number) => runAt(runs[y], torsoX(y))!;
  const torsoW = (y: number) => {
    const r = torsoRun(y);
    return r ? r.x1 - r.x0 + 1 : 0;
  };
  const span = crotchY - shoulderY;
  let waistY = shoulderY + Math.round(REL.waistSearch[0] * span);
  for (let y = waistY; y <= shoulderY + Math.round(REL.waistSearch[1] * span); y++) if (torsoW(y) < torsoW(waistY)) waistY = y;
  let hipY = waistY;
  for (let y = waistY; y < crotchY; y++) if (torsoW(y) >= torsoW(hipY)) hipY = y;
  const chestY = shoulderY + Math.round(REL.chest * span);
  const armsFree = runs[waistY].length >= 3;
  if (!armsFree) notes.push('arms touch the torso at the waist; torso widths include the arms');

  const pt = (x: number, y: number): Point => ({ x, y });
  const ends = (y: number) => {
    const r = torsoRun(y);
    return { left: pt(r.x1, y), right: pt(r.x0, y) }; // subject's left is the image's right
  };

  // Arms: runs beside the torso run below the shoulders (beside the hip span below the crotch);
  // the lowest such row is the fingertip.
  const hipSpan = torsoRun(hipY);
  const arm = (side: 1 | -1) => {
    let tipY = -1;
    let tipX = 0;
    for (let y = shoulderY + 1; y <= bottom; y++) {
      const t = y <= crotchY ? torsoRun(y) : hipSpan;
      const beside = runs[y].filter((r) => (side === 1 ? r.x0 > t.x1 : r.x1 < t.x0));
      if (!beside.length) {
        if (y > crotchY) break;
        continue;
      }
      const r = side === 1 ? beside[0] : beside[beside.length - 1];
      tipY = y;
      tipX = (r.x0 + r.x1) / 2;
    }
    const sh = ends(shoulderY)[side === 1 ? 'left' : 'right'];
    const shoulder = pt(sh.x - side * 0.12 * (ends(shoulderY).left.x - ends(shoulderY).right.x) * 0.5, shoulderY);
    if (tipY < 0) {
      const wrist = pt(shoulder.x, rowY(0.48));
      return { shoulder, elbow: pt(shoulder.x, rowY(0.37)), wrist, free: false };
    }
    const hand = 0.08 * H;
    const wristY = Math.max(shoulderY, tipY - hand);
    const wr = runAt(runs[Math.round(wristY)], tipX);
    const wrist = pt(wr ? (wr.x0 + wr.x1) / 2 : tipX, Math.round(wristY));
    const elbowY = Math.round((shoulderY + wristY) / 2 + 0.02 * H);
    const er = runAt(runs[elbowY], (shoulder.x + wrist.x) / 2 + side * 0.01 * H);
    return { shoulder, elbow: pt(er ? (er.x0 + er.x1) / 2 : shoulder.x, elbowY), wrist, free: true };
  };
  const leftArm = arm(1);
  const rightArm = arm(-1);

  // Legs below the crotch.
  const ankleY = Math.round(bottom - REL.ankle * H);
  const kneeY = Math.round(crotchY + REL.knee * (ankleY - crotchY));
  const legPoint = (side: 1 | -1, y: number) => {
    const rs = runs[y].filter((r) => (side === 1 ? r.x1 > crotchX : r.x0 < crotchX));
    const r = side === 1 ? rs.find((q) => q.x1 > crotchX) : rs.reverse().find((q) => q.x0 < crotchX);
    if (!r) return pt(crotchX, y);
    const a = side === 1 ? Math.max(r.x0, crotchX) : r.x0;
    const b = side === 1 ? r.x1 : Math.min(r.x1, crotchX);
    return pt((a + b) / 2, y);
  };
  const toe = (side: 1 | -1) => {
    for (let y = bottom; y > crotchY; y--) {
      const rs = runs[y].filter((r) => (side === 1 ? r.x1 > crotchX : r.x0 < crotchX));
      if (rs.length) {
        const r = side === 1 ? rs[rs.length - 1] : rs[0];
        return pt((r.x0 + r.x1) / 2, y);
      }
    }
    return pt(crotchX, bottom);
  };

  const headRun = runAt(runs[top], axis)!;
  const faceY = Math.round(chinY - 0.37 * (chinY - top));
  const faceRun = runAt(runs[faceY], axis)!;
  const landmarks: BodyLandmarks = {
    headTop: pt((headRun.x0 + headRun.x1) / 2, top),
    chin: pt(axis, chinY),
    faceCenter: pt((faceRun.x0 + faceRun.x1) / 2, faceY),
    faceSize: 0.8 * headW,
    neck: pt(torsoX(neckY), Math.round(neckY + 0.4 * (shoulderY - neckY))),
    leftShoulder: leftArm.shoulder,
    rightShoulder: rightArm.shoulder,
    leftElbow: leftArm.elbow,
    rightElbow: rightArm.elbow,
    leftWrist: leftArm.wrist,
    rightWrist: rightArm.wrist,
    chestLeft: ends(chestY).left,
    chestRight: ends(chestY).right,
    waistLeft: ends(waistY).left,
    waistRight: ends(waistY).right,
    hipLeft: ends(hipY).left,
    hipRight: ends(hipY).right,
    crotch: pt(crotchX, crotchY),
    leftKnee: legPoint(1, kneeY),
    rightKnee: legPoint(-1, kneeY),
    leftAnkle: legPoint(1, ankleY),
    rightAnkle: legPoint(-1, ankleY),
    leftToe: toe(1),
    rightToe: toe(-1),
  };
  snapInside(landmarks, mask, w, h);
  return {
    landmarks,
    heightPx: H,
    topY: top,
    bottomY: bottom,
    crotchY,
    widths: { shoulder: torsoW(shoulderY), chest: torsoW(chestY), waist: torsoW(waistY), hip: torsoW(hipY) },
    armsFree,
    notes,
  };
}

/** Moves any landmark that fell outside the mask to the nearest mask pixel in its row (or nearby rows). */
function snapInside(lm: BodyLandmarks, mask: Uint8Array, w: number, h: number): void {
  for (const key of Object.keys(lm) as (keyof BodyLandmarks)[]) {
    if (key === 'faceSize') continue;
    const p = lm[key] as Point;
    const x = Math.round(p.x);
    const y = Math.round(p.y);
    if (x >= 0 && y >= 0 && x < w && y < h && mask[y * w + x]) continue;
    let best: Point | null = null;
    let bestD = Infinity;
    for (let dy = -6; dy <= 6; dy++) {
      const yy = y + dy;
      if (yy < 0 || yy >= h) continue;
      for (const r of rowRuns(mask, w, yy)) {
        const xx = Math.min(r.x1, Math.max(r.x0, x));
        const d = (xx - x) ** 2 + dy * dy;
        if (d < bestD) {
          bestD = d;
          best = { x: xx, y: yy };
        }
      }
    }
    if (best) (lm[key] as Point) = best;
  }
}
