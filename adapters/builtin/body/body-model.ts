import type { BodyLandmarks, BodyProfile, Gender } from '../../../core/twins/body.ts';
import type { LimbAngles, PoseSpec } from './poses.ts';
import { HEAD_HEIGHT_RATIO, ellipseWidthFromCircumference, proportionsFor } from './proportions.ts';

/** Centimetres; x towards the subject's left (image right), y up from the floor, z towards the viewer. */
export interface Vec3 {
  x: number;
  y: number;
  z: number;
}

/** Part labels of the rendered body, one byte per pixel in BodyRaster.parts. */
export const PART = {
  background: 0,
  head: 1,
  neck: 2,
  torso: 3,
  leftArm: 4,
  rightArm: 5,
  leftHand: 6,
  rightHand: 7,
  leftLeg: 8,
  rightLeg: 9,
  leftFoot: 10,
  rightFoot: 11,
} as const;
export type PartId = (typeof PART)[keyof typeof PART];

/** One elliptical cross-section of the torso: half width (x) and half depth (z) at height y. */
export interface TorsoLevel {
  y: number;
  halfWidth: number;
  halfDepth: number;
}

/** A limb as a chain of spheres swept along straight segments with linearly varying radius. */
export interface Sweep {
  part: PartId;
  points: Vec3[];
  radii: number[];
}

export interface Ellipsoid {
  part: PartId;
  center: Vec3;
  /** Semi-axes along x, y, z. */
  radii: Vec3;
}

/** An ellipsoid with its own axes (unit vectors; radii along each), for the feet. */
export interface OrientedEllipsoid {
  part: PartId;
  center: Vec3;
  axes: [Vec3, Vec3, Vec3];
  radii: [number, number, number];
}

export type LandmarkName = Exclude<keyof BodyLandmarks, 'faceCenter' | 'faceSize'>;

export interface Torso {
  /** Sorted by height, from the hip level up to the base of the neck. */
  levels: TorsoLevel[];
  crotchY: number;
  slopesA: number[];
  slopesB: number[];
}

export interface BodyModel {
  torso: Torso;
  /** Cranium and jaw: two ellipsoids, so the head is wider above the eyes than at the chin. */
  head: Ellipsoid[];
  feet: OrientedEllipsoid[];
  /** The palms (flat ellipsoids); the fingers and thumbs are sweeps. */
  palms: OrientedEllipsoid[];
  sweeps: Sweep[];
  landmarks: Record<LandmarkName, Vec3>;
  /** Centre and width (cm) of the face oval on the front of the head. */
  faceCenter: Vec3;
  faceWidth: number;
  stature: number;
  /** Half widths of the torso at the profile's girth levels (what the silhouette must show). */
  girthHalfWidths: { chest: number; waist: number; hip: number };
}

/**
 * The torso section at height y: monotone cubic (PCHIP) interpolation between the levels, so key
 * girth levels stay exact extremes and shading has no seams. Below the lowest level the pelvis
 * closes with an elliptical cap down to the crotch, flattening fast in depth so the thighs take over
 * along a V from the hips to the crotch; its front is treated as vertical (da = db = 0).
 */
export function torsoSectionAt(torso: Torso, y: number): { a: number; b: number; da: number; db: number } | null {
  const { levels, crotchY } = torso;
  const first = levels[0];
  if (y < crotchY || y > levels[levels.length - 1].y) return null;
  if (y < first.y) {
    const t = (first.y - y) / (first.y - crotchY);
    const k = Math.sqrt(Math.max(0, 1 - t * t));
    return { a: first.halfWidth * k, b: first.halfDepth * k * k, da: 0, db: 0 };
  }
  for (let i = 0; i < levels.length - 1; i++) {
    const lo = levels[i];
    const hi = levels[i + 1];
    if (y > hi.y) continue;
    const h = hi.y - lo.y;
    const t = h > 0 ? (y - lo.y) / h : 0;
    const a = hermite(lo.halfWidth, hi.halfWidth, torso.slopesA[i] * h, torso.slopesA[i + 1] * h, t);
    const b = hermite(lo.halfDepth, hi.halfDepth, torso.slopesB[i] * h, torso.slopesB[i + 1] * h, t);
    return { a: a.v, b: b.v, da: h > 0 ? a.d / h : 0, db: h > 0 ? b.d / h : 0 };
  }
  return null;
}

export function hermite(p0: number, p1: number, m0: number, m1: number, t: number): { v: number; d: number } {
  const t2 = t * t;
  const t3 = t2 * t;
  return {
    v: (2 * t3 - 3 * t2 + 1) * p0 + (t3 - 2 * t2 + t) * m0 + (-2 * t3 + 3 * t2) * p1 + (t3 - t2) * m1,
    d: (6 * t2 - 6 * t) * p0 + (3 * t2 - 4 * t + 1) * m0 + (-6 * t2 + 6 * t) * p1 + (3 * t2 - 2 * t) * m1,
  };
}

/** Fritsch-Carlson slopes: a monotone cubic that keeps every local extreme at its key. */
export function pchipSlopes(xs: number[], ys: number[]): number[] {
  const n = xs.length;
  const d = new Array<number>(n - 1);
  for (let i = 0; i < n - 1; i++) d[i] = (ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i]);
  const m = new Array<number>(n).fill(0);
  for (let i = 1; i < n - 1; i++) {
    if (d[i - 1] * d[i] <= 0) continue;
    const w1 = 2 * (xs[i + 1] - xs[i]) + (xs[i] - xs[i - 1]);
    const w2 = (xs[i + 1] - xs[i]) + 2 * (xs[i] - xs[i - 1]);
    m[i] = (w1 + w2) / (w1 / d[i - 1] + w2 / d[i]);
  }
  return m;
}

export function makeTorso(levels: TorsoLevel[], crotchY: number): Torso {
  const ys = levels.map((l) => l.y);
  return {
    levels,
    crotchY,
    slopesA: pchipSlopes(ys, levels.map((l) => l.halfWidth)),
    slopesB: pchipSlopes(ys, levels.map((l) => l.halfDepth)),
  };
}

const add = (a: Vec3, b: Vec3, k = 1): Vec3 => ({ x: a.x + b.x * k, y: a.y + b.y * k, z: a.z + b.z * k });
const norm = (a: Vec3): Vec3 => {
  const l = Math.hypot(a.x, a.y, a.z) || 1;
  return { x: a.x / l, y: a.y / l, z: a.z / l };
};
const rad = (deg: number) => (deg * Math.PI) / 180;

/** Direction of an upper limb segment hanging down, swung out (abduction) then forwards (flexion). */
function limbDirection(side: 1 | -1, angles: LimbAngles): Vec3 {
  const ab = rad(angles.abduction);
  const fl = rad(angles.flexion);
  const down = { x: side * Math.sin(ab), y: -Math.cos(ab), z: 0 };
  return norm({ x: down.x, y: down.y * Math.cos(fl), z: -down.y * Math.sin(fl) });
}

/** Bends `dir` by `deg` towards +z (elbow) or -z (knee) within the plane holding dir and z. */
function bend(dir: Vec3, deg: number, forward: boolean): Vec3 {
  const zAxis = { x: 0, y: 0, z: forward ? 1 : -1 };
  const dot = dir.z * zAxis.z;
  const perp = norm({ x: -dir.x * dot, y: -dir.y * dot, z: zAxis.z - dir.z * dot });
  const a = rad(deg);
  return norm(add({ x: dir.x * Math.cos(a), y: dir.y * Math.cos(a), z: dir.z * Math.cos(a) }, perp, Math.sin(a)));
}

const dot = (a: Vec3, b: Vec3) => a.x * b.x + a.y * b.y + a.z * b.z;
const cross = (a: Vec3, b: Vec3): Vec3 => ({ x: a.y * b.z - a.z * b.y, y: a.z * b.x - a.x * b.z, z: a.x * b.y - a.y * b.x });

/** How far the palms turn from facing the thighs towards the viewer, so the fingers show apart. */
const PALM_TURN_DEG = 38;
/** Fingers from the thumb side (index) to the little finger: offset across the palm, length, spread. */
const FINGERS = [
  { across: 0.36, length: 0.4, spread: 0.1 },
  { across: 0.12, length: 0.44, spread: 0.03 },
  { across: -0.12, length: 0.41, spread: -0.04 },
  { across: -0.35, length: 0.33, spread: -0.12 },
];

/**
 * A hand at the wrist pointing along `dir`: a flat palm (an ellipsoid) turned part way towards the
 * viewer, four slightly spread and curled fingers and a thumb (sweeps pushed onto `sweeps`), so the
 * silhouette reads as a hand rather than a mitten. Returns the palm.
 */
function handOf(side: 1 | -1, wrist: Vec3, dir: Vec3, length: number, breadth: number, rWrist: number, u: number, sweeps: Sweep[]): OrientedEllipsoid {
  const part = side === 1 ? PART.leftHand : PART.rightHand;
  const t = rad(PALM_TURN_DEG);
  // across the palm, little finger to thumb; the palm faces `facing`
  const across0 = { x: side * Math.sin(t), y: 0, z: Math.cos(t) };
  const across = norm(add(across0, dir, -dot(across0, dir)));
  let facing = norm(cross(dir, across));
  if (facing.x * side > 0) facing = { x: -facing.x, y: -facing.y, z: -facing.z };
  const palm: OrientedEllipsoid = {
    part,
    center: add(wrist, dir, 0.27 * length),
    axes: [across, dir, facing],
    radii: [breadth * 0.47, 0.3 * length, Math.max(1.1 * u, rWrist * 0.55)],
  };
  const knuckles = add(wrist, dir, 0.47 * length);
  const rFinger = 0.105 * breadth;
  for (const f of FINGERS) {
    const base = add(knuckles, across, f.across * breadth);
    const d = norm(add(dir, across, f.spread));
    const L = f.length * length;
    sweeps.push({
      part,
      points: [base, add(add(base, d, 0.55 * L), facing, 0.06 * L), add(add(base, d, 0.93 * L), facing, 0.24 * L)],
      radii: [rFinger, rFinger * 0.9, rFinger * 0.75],
    });
  }
  const thumbBase = add(add(wrist, dir, 0.12 * length), across, 0.33 * breadth);
  const td = norm(add(add({ x: dir.x * 0.75, y: dir.y * 0.75, z: dir.z * 0.75 }, across, 0.55), facing, 0.3));
  const TL = 0.42 * length;
  sweeps.push({
    part,
    points: [thumbBase, add(thumbBase, td, 0.55 * TL), add(add(thumbBase, td, 0.95 * TL), facing, 0.15 * TL)],
    radii: [rFinger * 1.35, rFinger * 1.05, rFinger * 0.85],
  });
  return palm;
}

/** Reference girths (cm) at which the limb girth ratios were taken, for gentle scaling. */
const REFERENCE_HIP = 101.8;
const REFERENCE_CHEST: Record<'female' | 'male' | 'none', number> = { female: 94.1, male: 105.7, none: 99.9 };

/**
 * Builds the parametric body of a profile in a pose. Torso girths become ellipses whose widths
 * follow ellipseWidthFromCircumference with the ANSUR depth/width ratios; heights follow the
 * stature, with the crotch at the inseam and the hip/waist/chest levels placed between crotch and
 * shoulders at their median relative positions.
 */
export function buildBodyModel(profile: BodyProfile, pose: PoseSpec): BodyModel {
  const gender: Gender | null = profile.gender;
  const p = proportionsFor(gender);
  const m = profile.measurements;
  const H = m.height;
  const u = H / 170; // scale for the few absolute sizes (feet heights)

  const headH = H * HEAD_HEIGHT_RATIO;
  const yChin = H - headH;
  const yAcromion = H * p.acromionHeight;
  const yNeckBase = Math.min(yAcromion + 0.032 * H, yChin - 0.02 * H);
  const yCrotch = Math.min(Math.max(m.inseam, 0.4 * H), 0.54 * H);
  const rel = (f: number) => (f - p.crotchHeight) / (p.acromionHeight - p.crotchHeight);
  const at = (f: number) => yCrotch + rel(f) * (yAcromion - yCrotch);
  const yHip = at(p.hipHeight);
  const yWaist = at(p.waistHeight);
  const yChest = at(p.chestHeight);
  const yAxilla = at(p.axillaHeight);
  const ySternum = H * p.suprasternaleHeight;

  const chestHalf = ellipseWidthFromCircumference(m.chest, p.chestDepthRatio) / 2;
  const waistHalf = ellipseWidthFromCircumference(m.waist, p.waistDepthRatio) / 2;
  const hipHalf = ellipseWidthFromCircumference(m.hip, p.hipDepthRatio) / 2;
  const chestRef = REFERENCE_CHEST[gender ?? 'none'];
  const girthScale = Math.sqrt(m.chest / chestRef);
  const hipScale = Math.sqrt(m.hip / REFERENCE_HIP);

  // Arms: girths follow the chest, lengths the stature.
  const rUpper = (p.bicepsPerChest * m.chest) / (2 * Math.PI) * 0.92;
  const rElbow = (p.forearmPerChest * m.chest) / (2 * Math.PI) * 0.82;
  const rForearm = (p.forearmPerChest * m.chest) / (2 * Math.PI) * 0.95;
  const rWrist = (p.wristGirth * H) / (2 * Math.PI) * Math.sqrt(girthScale);
  const shoulderHalf = Math.max((p.biacromialBreadth * H) / 2 * Math.pow(m.chest / chestRef, 0.25), chestHalf * 0.92) - 0.35 * rUpper;
  const neckR = (p.neckGirth * H) / (2 * Math.PI) * Math.sqrt(girthScale);

  const levels: TorsoLevel[] = [];
  levels.push(
    { y: yHip, halfWidth: hipHalf, halfDepth: hipHalf * p.hipDepthRatio },
    { y: yWaist, halfWidth: waistHalf, halfDepth: waistHalf * p.waistDepthRatio },
    { y: yChest, halfWidth: chestHalf, halfDepth: chestHalf * p.chestDepthRatio },
    { y: yAxilla, halfWidth: Math.max(chestHalf * 0.98, Math.min(shoulderHalf, chestHalf)), halfDepth: chestHalf * p.chestDepthRatio * 0.97 },
    { y: yAcromion, halfWidth: shoulderHalf + 0.25 * rUpper, halfDepth: chestHalf * p.chestDepthRatio * 0.62 },
    { y: yAcromion + 0.45 * (yNeckBase - yAcromion), halfWidth: neckR * 1.1 + 0.55 * (shoulderHalf - neckR * 1.1), halfDepth: neckR * 1.3 },
    { y: yNeckBase, halfWidth: neckR * 1.1, halfDepth: neckR },
  );

  const headW = (p.headBreadth * H) / 2;
  const headD = (p.headLength * H) / 2;
  const head: Ellipsoid[] = [
    { part: PART.head, center: { x: 0, y: H - 0.42 * headH, z: 0 }, radii: { x: headW, y: 0.42 * headH, z: headD } },
    { part: PART.head, center: { x: 0, y: yChin + 0.36 * headH, z: 0.1 * headD }, radii: { x: 0.82 * headW, y: 0.36 * headH, z: 0.88 * headD } },
  ];
  const neck: Sweep = {
    part: PART.neck,
    points: [{ x: 0, y: yNeckBase - 0.02 * H, z: -0.8 * u }, { x: 0, y: yChin + 0.03 * H, z: -0.8 * u }],
    radii: [neckR * 1.05, neckR],
  };

  const sweeps: Sweep[] = [neck];
  const lm = {} as Record<LandmarkName, Vec3>;

  // Arms.
  const upperLen = p.upperArmLength * H;
  const foreLen = p.forearmLength * H;
  const handLen = p.handLength * H;
  const handBreadth = p.handBreadth * H;
  const palms: OrientedEllipsoid[] = [];
  for (const side of [1, -1] as const) {
    const angles = side === 1 ? pose.leftArm : pose.rightArm;
    const shoulder = { x: side * shoulderHalf, y: yAcromion - 0.9 * rUpper, z: 0 };
    const d1 = limbDirection(side, angles);
    const elbow = add(shoulder, d1, upperLen);
    const d2 = bend(d1, angles.bend, true);
    const wrist = add(elbow, d2, foreLen);
    const d3 = bend(d2, 4, true);
    sweeps.push({
      part: side === 1 ? PART.leftArm : PART.rightArm,
      points: [shoulder, add(shoulder, d1, upperLen * 0.45), elbow, add(elbow, d2, foreLen * 0.3), wrist],
      radii: [rUpper * 1.05, rUpper, rElbow, rForearm, rWrist],
    });
    palms.push(handOf(side, wrist, d3, handLen, handBreadth, rWrist, u, sweeps));
    const L = side === 1 ? 'left' : 'right';
    lm[`${L}Shoulder`] = { x: shoulder.x, y: yAcromion, z: shoulder.z };
    lm[`${L}Elbow`] = elbow;
    lm[`${L}Wrist`] = wrist;
  }

  // Legs, standing on the floor after the whole body is lowered onto it.
  const rThigh = (p.thighPerHip * m.hip) / (2 * Math.PI) * 0.95;
  const rKnee = (p.kneePerHip * m.hip) / (2 * Math.PI) * 0.85;
  const rCalf = (p.calfGirth * H) / (2 * Math.PI) * hipScale;
  const rAnkle = (p.ankleGirth * H) / (2 * Math.PI) * 0.85;
  const yAnkle = p.ankleHeight * H;
  const yKnee = yAnkle + ((p.kneeHeight - p.ankleHeight) / (p.crotchHeight - p.ankleHeight)) * (yCrotch - yAnkle);
  const hipJointX = Math.max(hipHalf - rThigh * 1.02, rThigh * 0.45);
  const thighLen = yHip - yKnee;
  const shankLen = yKnee - yAnkle;
  const footLen = p.footLength * H;
  const footR = (p.footBreadth * H) / 2 * 0.95;
  const feet: OrientedEllipsoid[] = [];
  const legs = ([1, -1] as const).map((side) => {
    const angles = side === 1 ? pose.leftLeg : pose.rightLeg;
    const hip = { x: side * hipJointX, y: yHip, z: 0 };
    const d1 = limbDirection(side, angles);
    const knee = add(hip, d1, thighLen);
    const d2 = bend(d1, angles.bend, false);
    const ankle = add(knee, d2, shankLen);
    return { side, angles, hip, d1, knee, d2, ankle };
  });
  const lowest = Math.min(...legs.map((l) => l.ankle.y));
  const drop = lowest - yAnkle;
  for (const leg of legs) {
    const L = leg.side === 1 ? 'left' : 'right';
    const yaw = rad(leg.side === 1 ? pose.leftFootYaw : pose.rightFootYaw);
    const fwd = { x: leg.side * Math.sin(yaw), y: 0, z: Math.cos(yaw) };
    const ankle = { ...leg.ankle, y: leg.ankle.y - drop };
    // A raised ankle pitches the foot down about the ankle so the toes stay on the floor.
    const raise = ankle.y - yAnkle;
    const pitch = raise > 0 ? Math.asin(Math.min(0.9, raise / (0.8 * footLen))) : 0;
    const footPoint = (along: number, height: number): Vec3 => {
      const dy = height - yAnkle;
      const a2 = along * Math.cos(pitch) + dy * Math.sin(pitch);
      const h2 = -along * Math.sin(pitch) + dy * Math.cos(pitch);
      return { x: ankle.x + fwd.x * a2, y: ankle.y + h2, z: ankle.z + fwd.z * a2 };
    };
    sweeps.push({
      part: leg.side === 1 ? PART.leftLeg : PART.rightLeg,
      points: [leg.hip, add(leg.hip, leg.d1, thighLen * 0.45), leg.knee, add(leg.knee, leg.d2, shankLen * 0.32), leg.ankle].map((q) => ({ ...q, y: q.y - drop })),
      radii: [rThigh, rThigh * 0.84, rKnee, rCalf, rAnkle],
    });
    // The foot: a flattened ellipsoid from the heel (behind the ankle) to the toes, turned out by
    // its yaw and pitched with a raised ankle; the floor cuts its sole flat.
    const forward = { x: fwd.x * Math.cos(pitch), y: -Math.sin(pitch), z: fwd.z * Math.cos(pitch) };
    const up = { x: fwd.x * Math.sin(pitch), y: Math.cos(pitch), z: fwd.z * Math.sin(pitch) };
    const lateral = { x: up.y * forward.z - up.z * forward.y, y: up.z * forward.x - up.x * forward.z, z: up.x * forward.y - up.y * forward.x };
    feet.push({
      part: leg.side === 1 ? PART.leftFoot : PART.rightFoot,
      center: footPoint(0.28 * footLen, 2.6 * u),
      axes: [lateral, up, forward],
      radii: [footR, 4.6 * u, 0.52 * footLen],
    });
    lm[`${L}Knee`] = { ...leg.knee, y: leg.knee.y - drop };
    lm[`${L}Ankle`] = ankle;
    lm[`${L}Toe`] = footPoint(0.74 * footLen, 2 * u);
  }

  // Everything above the legs moves down with them.
  const lower = (v: Vec3): Vec3 => ({ ...v, y: v.y - drop });
  const torso = makeTorso(levels.map((l) => ({ ...l, y: l.y - drop })), yCrotch - drop);
  for (const s of sweeps) if (s.part < PART.leftLeg) s.points = s.points.map(lower);
  for (const e of head) e.center = lower(e.center);
  for (const e of palms) e.center = lower(e.center);
  for (const side of ['left', 'right'] as const) {
    for (const j of ['Shoulder', 'Elbow', 'Wrist'] as const) lm[`${side}${j}`] = lower(lm[`${side}${j}`]);
  }
  lm.headTop = lower({ x: 0, y: H, z: 0 });
  lm.chin = lower({ x: 0, y: yChin, z: head[1].center.z });
  lm.neck = lower({ x: 0, y: ySternum, z: 0 });
  lm.chestLeft = lower({ x: chestHalf, y: yChest, z: 0 });
  lm.chestRight = lower({ x: -chestHalf, y: yChest, z: 0 });
  lm.waistLeft = lower({ x: waistHalf, y: yWaist, z: 0 });
  lm.waistRight = lower({ x: -waistHalf, y: yWaist, z: 0 });
  lm.hipLeft = lower({ x: hipHalf, y: yHip, z: 0 });
  lm.hipRight = lower({ x: -hipHalf, y: yHip, z: 0 });
  lm.crotch = lower({ x: 0, y: yCrotch, z: 0 });

  return {
    torso,
    head,
    feet,
    palms,
    sweeps,
    landmarks: lm,
    faceCenter: lower({ x: 0, y: yChin + 0.37 * headH, z: head[1].center.z + head[1].radii.z }),
    faceWidth: headW * 2 * 0.8,
    stature: H,
    girthHalfWidths: { chest: chestHalf, waist: waistHalf, hip: hipHalf },
  };
}
