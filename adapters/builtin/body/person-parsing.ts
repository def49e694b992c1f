/**
 * From learned keypoints, a person mask and faces to what try-on works with: body landmarks in the
 * BodyRender convention, a depth proxy, a scale, and an approximate parsing into face, hair, neck,
 * arms, torso, legs and feet (the mask split by the limbs as capsules and the face outline, hair
 * grown by colour from above the face).
 */
import type { RasterImage } from '../../../core/images.ts';
import { PERSON_PART, type FaceBox, type Keypoint, type KeypointName } from '../../../core/ports/person-analyzer.ts';
import type { BodyLandmarks, Point } from '../../../core/twins/body.ts';
import { largestComponent } from '../raster/components.ts';
import { srgbToLab } from '../../builtin/tryon/color.ts';
import { polygonMask } from '../../builtin/tryon/polygon-mask.ts';
import { inflateDepth } from './inflate-depth.ts';
import { faceSkinLab, isSkin } from './face.ts';

/** Keypoints below this score are not visible (out of frame or hidden). */
export const VISIBLE = 0.3;

/** Shoulder-to-hip-joint distance of an adult of 170 cm, for the scale (ANSUR II medians, about 52 cm). */
const TRUNK_CM = 52;

export interface ParsedPerson {
  mask: Uint8Array;
  parts: Uint8Array;
  depth: Float32Array;
  landmarks: BodyLandmarks;
  pixelsPerCm: number;
  notes: string[];
}

export type KeypointMap = Partial<Record<KeypointName, Keypoint>>;

export function visibleKeypoints(keypoints: Keypoint[]): KeypointMap {
  const out: KeypointMap = {};
  for (const k of keypoints) if (k.score >= VISIBLE) out[k.name] = k;
  return out;
}

const mid = (a: Point, b: Point): Point => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });
const add = (a: Point, b: Point, t = 1): Point => ({ x: a.x + b.x * t, y: a.y + b.y * t });
const sub = (a: Point, b: Point): Point => ({ x: a.x - b.x, y: a.y - b.y });

/** Calls `paint` for every pixel of a capsule (a segment with a radius). */
function capsule(w: number, h: number, a: Point, b: Point, r: number, paint: (i: number) => void): void {
  const x0 = Math.max(0, Math.floor(Math.min(a.x, b.x) - r));
  const x1 = Math.min(w - 1, Math.ceil(Math.max(a.x, b.x) + r));
  const y0 = Math.max(0, Math.floor(Math.min(a.y, b.y) - r));
  const y1 = Math.min(h - 1, Math.ceil(Math.max(a.y, b.y) + r));
  const vx = b.x - a.x;
  const vy = b.y - a.y;
  const len2 = vx * vx + vy * vy || 1;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const t = Math.max(0, Math.min(1, ((x - a.x) * vx + (y - a.y) * vy) / len2));
      if ((x - a.x - t * vx) ** 2 + (y - a.y - t * vy) ** 2 <= r * r) paint(y * w + x);
    }
  }
}

/** Within ΔE76 of the face's skin (and of at least this share of its chroma) a pixel can be the hand's skin. */
const HAND_SKIN = 28;
const HAND_CHROMA = 0.4;
/** A hand this much nearer the body's middle than its wrist (shoulder widths, across) is bent in front of the body. */
const HAND_INWARD = 0.1;

/**
 * Whether a pixel has the colour of the person's skin: near the face's (faceSkinLab), lit or shaded,
 * and not grey (black trousers and a white top beside a dark or pale hand are told apart by their
 * chroma). Without a face, the generic skin test.
 */
function skinOfFace(img: RasterImage, parts: Uint8Array): (i: number) => boolean {
  const d = img.data;
  const face = faceSkinLab({ image: img, parts });
  if (!face) return (i) => isSkin(d[i * 4], d[i * 4 + 1], d[i * 4 + 2]);
  const chroma = Math.hypot(face[1], face[2]);
  const lab = [0, 0, 0];
  return (i) => {
    srgbToLab(d[i * 4], d[i * 4 + 1], d[i * 4 + 2], lab);
    return Math.hypot(lab[0] - face[0], lab[1] - face[1], lab[2] - face[2]) <= HAND_SKIN && Math.hypot(lab[1], lab[2]) >= HAND_CHROMA * chroma;
  };
}

/** The outer edge of the mask walking from `from` along x by `dir` (first off pixel), skipping `skip`. */
function edgeX(mask: Uint8Array, skip: Uint8Array, w: number, y: number, from: number, dir: -1 | 1, cap: number): number {
  const yi = Math.round(y);
  let x = Math.round(from);
  const row = yi * w;
  for (let d = 0; d < cap; d++) {
    const nx = x + dir;
    if (nx < 0 || nx >= w || !mask[row + nx] || skip[row + nx]) break;
    x = nx;
  }
  return x;
}

/**
 * Joints of the body with the ones not visible filled in from body proportions (a leg below the
 * frame continues the trunk's direction), so that landmarks always exist; `missing` lists them.
 */
function completeJoints(kp: KeypointMap): { j: Record<KeypointName, Point>; missing: KeypointName[] } {
  const missing: KeypointName[] = [];
  const j = {} as Record<KeypointName, Point>;
  for (const name of Object.keys(kp) as KeypointName[]) j[name] = kp[name]!;
  const need = (n: KeypointName, guess: () => Point) => {
    if (!j[n]) {
      j[n] = guess();
      missing.push(n);
    }
  };
  // the caller makes sure both shoulders exist
  const sw = Math.hypot(j.leftShoulder.x - j.rightShoulder.x, j.leftShoulder.y - j.rightShoulder.y);
  const down = { x: 0, y: 1 };
  need('leftHip', () => add(j.leftShoulder, { x: -0.18 * (j.leftShoulder.x - j.rightShoulder.x), y: 1.45 * sw }));
  need('rightHip', () => add(j.rightShoulder, { x: 0.18 * (j.leftShoulder.x - j.rightShoulder.x), y: 1.45 * sw }));
  const trunk = Math.hypot(...Object.values(sub(mid(j.leftHip, j.rightHip), mid(j.leftShoulder, j.rightShoulder)))) || sw * 1.45;
  for (const s of ['left', 'right'] as const) {
    const sh = j[`${s}Shoulder`];
    need(`${s}Elbow`, () => add(sh, down, trunk * 0.6));
    need(`${s}Wrist`, () => add(j[`${s}Elbow`], down, trunk * 0.5));
    need(`${s}Knee`, () => add(j[`${s}Hip`], down, trunk * 0.85));
    need(`${s}Ankle`, () => add(j[`${s}Knee`], down, trunk * 0.85));
  }
  need('nose', () => add(mid(j.leftShoulder, j.rightShoulder), { x: 0, y: -0.45 * sw }));
  return { j, missing };
}

/**
 * Parses a person photo. `kp` must hold both shoulders (the caller checks that a person is there).
 */
export function parsePerson(img: RasterImage, likelihood: Uint8Array, keypoints: Keypoint[], faces: (FaceBox & { outline: Point[] })[]): ParsedPerson {
  const { width: w, height: h, data } = img;
  const n = w * h;
  const notes: string[] = [];
  const raw = new Uint8Array(n);
  for (let i = 0; i < n; i++) raw[i] = likelihood[i] >= 128 ? 255 : 0;
  const mask = largestComponent(raw, w, h, { connectivity: 8 });
  const kp = visibleKeypoints(keypoints);
  const { j, missing } = completeJoints(kp);
  if (missing.length) notes.push(`not visible, estimated from proportions: ${missing.join(', ')}`);

  const shoulderMid = mid(j.leftShoulder, j.rightShoulder);
  const hipMid = mid(j.leftHip, j.rightHip);
  const sw = Math.hypot(j.leftShoulder.x - j.rightShoulder.x, j.leftShoulder.y - j.rightShoulder.y);
  const trunk = Math.hypot(hipMid.x - shoulderMid.x, hipMid.y - shoulderMid.y) || sw * 1.45;
  const ppcm = trunk / TRUNK_CM;
  const face = faces.slice().sort((a, b) => b.width * b.height - a.width * a.height)[0];

  // --- parsing ---
  const parts = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (mask[i]) parts[i] = PERSON_PART.torso;
  const inMask = (i: number) => mask[i] !== 0;

  // face: the face mesh outline, or an oval in the face box
  let faceMask: Uint8Array;
  if (face && face.outline.length >= 8) faceMask = polygonMask(face.outline, w, h);
  else if (face) {
    faceMask = new Uint8Array(n);
    const cx = face.x + face.width / 2, cy = face.y + face.height / 2, rx = face.width / 2, ry = face.height / 2;
    for (let y = Math.max(0, Math.floor(cy - ry)); y < Math.min(h, Math.ceil(cy + ry)); y++) {
      for (let x = Math.max(0, Math.floor(cx - rx)); x < Math.min(w, Math.ceil(cx + rx)); x++) if (((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1) faceMask[y * w + x] = 255;
    }
  } else faceMask = new Uint8Array(n);
  let chinY = face ? face.y + face.height : shoulderMid.y - 0.3 * sw;
  if (face && face.outline.length) chinY = Math.max(...face.outline.map((p) => p.y));
  chinY = Math.min(chinY, shoulderMid.y - 0.05 * sw);

  // head and hair: everything of the person above the chin; the neck between chin and shoulders
  for (let y = 0; y < Math.min(h, Math.ceil(chinY)); y++) for (let x = 0; x < w; x++) if (mask[y * w + x]) parts[y * w + x] = PERSON_PART.hair;
  const neckHalf = 0.22 * sw;
  const shoulderLineY = (x: number) => j.rightShoulder.y + ((j.leftShoulder.y - j.rightShoulder.y) * (x - j.rightShoulder.x)) / (j.leftShoulder.x - j.rightShoulder.x || 1);
  for (let y = Math.max(0, Math.floor(chinY)); y < h; y++) {
    for (let x = Math.max(0, Math.floor(shoulderMid.x - neckHalf)); x <= Math.min(w - 1, Math.ceil(shoulderMid.x + neckHalf)); x++) {
      const i = y * w + x;
      if (mask[i] && y < shoulderLineY(x) - 0.02 * sw) parts[i] = PERSON_PART.neck;
    }
  }
  // hair that falls below the chin (over the shoulders, the chest): grown from the hair above the
  // face by colour, down to the chest line at most. Without a face found (a shop photo cut off at
  // the nose) the person above the chin is mostly the face's own skin: neither hair to sample nor
  // hair to grow into the neck and chest
  const skinHead = !face;
  const skinAt = (i: number) => skinHead && isSkin(data[i * 4], data[i * 4 + 1], data[i * 4 + 2]);
  const hairLab: number[][] = [];
  const lab = [0, 0, 0];
  for (let y = 0; y < Math.min(h, Math.ceil(chinY)); y += 2) {
    for (let x = 0; x < w; x += 2) {
      const i = y * w + x;
      if (parts[i] === PERSON_PART.hair && !faceMask[i] && !skinAt(i)) {
        srgbToLab(data[i * 4], data[i * 4 + 1], data[i * 4 + 2], lab);
        hairLab.push([lab[0], lab[1], lab[2]]);
      }
    }
  }
  const mean = [0, 1, 2].map((c) => hairLab.reduce((s, v) => s + v[c], 0) / Math.max(1, hairLab.length));
  const spread = Math.sqrt(hairLab.reduce((s, v) => s + (v[0] - mean[0]) ** 2 + (v[1] - mean[1]) ** 2 + (v[2] - mean[2]) ** 2, 0) / Math.max(1, hairLab.length));
  const limit = Math.max(10, Math.min(22, spread * 1.2));
  // the chest's colour: hair as dark as the top cannot be told from it by colour, so it is not grown
  const chestAt = Math.round(shoulderMid.y + 0.3 * (hipMid.y - shoulderMid.y)) * w + Math.round(shoulderMid.x);
  const chestLab = chestAt >= 0 && chestAt < n ? Array.from(srgbToLab(data[chestAt * 4], data[chestAt * 4 + 1], data[chestAt * 4 + 2], [0, 0, 0])) : [0, 0, 0];
  const hairLikeTop = Math.hypot(chestLab[0] - mean[0], chestLab[1] - mean[1], chestLab[2] - mean[2]) < limit * 1.5;
  if (hairLikeTop) notes.push('hair below the chin not separated: it has the colour of the top');
  if (hairLab.length > 50 && !hairLikeTop) {
    const stopY = Math.min(h - 1, Math.round(shoulderMid.y + 0.45 * (hipMid.y - shoulderMid.y)));
    // breadth-first growth from hair pixels on the chin line
    const queue: number[] = [];
    const seen = new Uint8Array(n);
    const yc = Math.max(0, Math.min(h - 1, Math.floor(chinY) - 1));
    for (let x = 0; x < w; x++) if (parts[yc * w + x] === PERSON_PART.hair && !faceMask[yc * w + x] && !skinAt(yc * w + x)) { queue.push(yc * w + x); seen[yc * w + x] = 1; }
    while (queue.length) {
      const i = queue.pop()!;
      const x = i % w, y = (i - x) / w;
      for (const [dx, dy] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
        const nx = x + dx, ny = y + dy;
        if (nx < 0 || ny < 0 || nx >= w || ny > stopY) continue;
        const k = ny * w + nx;
        if (seen[k] || !inMask(k) || faceMask[k] || skinAt(k)) continue;
        seen[k] = 1;
        srgbToLab(data[k * 4], data[k * 4 + 1], data[k * 4 + 2], lab);
        if (Math.hypot(lab[0] - mean[0], lab[1] - mean[1], lab[2] - mean[2]) > limit) continue;
        parts[k] = PERSON_PART.hair;
        queue.push(k);
      }
    }
  }
  for (let i = 0; i < n; i++) if (faceMask[i] && mask[i]) parts[i] = PERSON_PART.face;

  // arms: capsules along shoulder - elbow - wrist - hand within the mask
  const armR = 0.14 * sw;
  // the hand carries on from the forearm only when it hangs straight; a hand on the hip bends at
  // the wrist, and a capsule carried on over the belly put the trousers' belt in front of the new
  // top: where the forearm points across the body, beyond the wrist only pixels of the person's
  // skin are the hand
  const handSkin = skinOfFace(img, parts);
  for (const s of ['left', 'right'] as const) {
    const sh = j[`${s}Shoulder`], el = j[`${s}Elbow`], wr = j[`${s}Wrist`];
    const hand = add(wr, sub(wr, el), 0.45);
    const paint = (i: number) => {
      if (inMask(i) && parts[i] !== PERSON_PART.face && parts[i] !== PERSON_PART.hair) parts[i] = PERSON_PART.arm;
    };
    capsule(w, h, add(sh, sub(el, sh), 0.25), el, armR, paint);
    capsule(w, h, el, wr, armR * 0.85, paint);
    // (a hand hanging beside the body keeps its capsule: an old sleeve's cuff over it is the arm's)
    const inward = Math.abs(hand.x - shoulderMid.x) < Math.abs(wr.x - shoulderMid.x) - HAND_INWARD * sw;
    const wristR2 = (armR * 0.85) ** 2;
    capsule(w, h, wr, hand, armR * 1.1, (i) => {
      const x = i % w;
      const y = (i - x) / w;
      if (!inward || (x - wr.x) ** 2 + (y - wr.y) ** 2 <= wristR2 || handSkin(i)) paint(i);
    });
  }
  // legs below the hip line, feet below the ankles
  for (let y = Math.max(0, Math.round(hipMid.y)); y < h; y++) {
    const feetY = Math.min(j.leftAnkle.y, j.rightAnkle.y) - 0.02 * trunk;
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (parts[i] === PERSON_PART.torso) parts[i] = y >= feetY && !missing.includes('leftAnkle') ? PERSON_PART.feet : PERSON_PART.legs;
    }
  }

  // --- landmarks in the BodyRender convention ---
  const armOnly = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (parts[i] === PERSON_PART.arm) armOnly[i] = 1;
  const centreAt = (y: number) => shoulderMid.x + ((hipMid.x - shoulderMid.x) * (y - shoulderMid.y)) / (hipMid.y - shoulderMid.y || 1);
  const contour = (t: number): { left: Point; right: Point } => {
    const y = shoulderMid.y + t * (hipMid.y - shoulderMid.y);
    const c = centreAt(y);
    const yi = Math.max(0, Math.min(h - 1, Math.round(y)));
    const cap = Math.round(sw);
    // image right is the subject's left
    return { left: { x: edgeX(mask, armOnly, w, yi, c, 1, cap), y }, right: { x: edgeX(mask, armOnly, w, yi, c, -1, cap), y } };
  };
  const chest = contour(0.3);
  const waist = contour(0.65);
  const hip = contour(1.0);
  // the top of the head: the mask's first row in the head's column range
  let headTopY = face ? face.y : j.nose.y - 0.4 * sw;
  const hx0 = Math.round(face ? face.x : j.nose.x - 0.2 * sw), hx1 = Math.round(face ? face.x + face.width : j.nose.x + 0.2 * sw);
  search: for (let y = 0; y < Math.round(headTopY); y++) for (let x = Math.max(0, hx0); x <= Math.min(w - 1, hx1); x++) if (mask[y * w + x]) { headTopY = y; break search; }
  const faceCenter = face ? { x: face.x + face.width / 2, y: face.y + face.height / 2 } : j.nose;
  const knee = (s: 'left' | 'right') => j[`${s}Knee`];
  const toe = (s: 'left' | 'right') => add(j[`${s}Ankle`], { x: 0, y: 0.12 * trunk });
  const landmarks: BodyLandmarks = {
    headTop: { x: faceCenter.x, y: headTopY },
    chin: { x: faceCenter.x, y: chinY },
    faceCenter,
    faceSize: face ? face.width : 0.45 * sw,
    neck: { x: shoulderMid.x, y: chinY + 0.45 * (shoulderMid.y - chinY) },
    leftShoulder: j.leftShoulder,
    rightShoulder: j.rightShoulder,
    leftElbow: j.leftElbow,
    rightElbow: j.rightElbow,
    leftWrist: j.leftWrist,
    rightWrist: j.rightWrist,
    chestLeft: chest.left,
    chestRight: chest.right,
    waistLeft: waist.left,
    waistRight: waist.right,
    hipLeft: hip.left,
    hipRight: hip.right,
    crotch: { x: hipMid.x, y: hipMid.y + 0.12 * (mid(knee('left'), knee('right')).y - hipMid.y) },
    leftKnee: knee('left'),
    rightKnee: knee('right'),
    leftAnkle: j.leftAnkle,
    rightAnkle: j.rightAnkle,
    leftToe: toe('left'),
    rightToe: toe('right'),
  };
  const dome = inflateDepth(mask, w, h);
  const depth = new Float32Array(n);
  for (let i = 0; i < n; i++) if (mask[i]) depth[i] = dome[i] / ppcm + 1;
  return { mask, parts, depth, landmarks, pixelsPerCm: ppcm, notes };
}
