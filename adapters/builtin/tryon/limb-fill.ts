/**
 * Forearms a shorter new top leaves bare where the old top had long sleeves. The old sleeve is
 * wider than the arm inside it, so filling its shape with skin draws a mannequin's tube: instead
 * the arm's outline is drawn from the visible hand it joins (its wrist's width and centre) and the
 * elbow, the forearm starting where the upper arm ends (one round joint) and tapering as a forearm
 * does; what lies outside it becomes backdrop, the sleeve's soft edge with it. Its skin grows from
 * the hand's own pixels (no seam at the wrist) and carries, up the arm, the light the hand shows
 * across the wrist (its lit side, its shaded side, its tone), darker towards the outline as a
 * round limb; its outline is anti-aliased.
 */
import { largestComponent } from '../raster/components.ts';
import { distanceTransform } from '../raster/distance-transform.ts';
import { dilate } from '../raster/morphology.ts';
import type { PersonBody } from '../../../core/ports/person-analyzer.ts';
import { PERSON_PART } from '../../../core/ports/person-analyzer.ts';
import type { Point } from '../../../core/twins/body.ts';
import { isSkin } from '../body/face.ts';
import { boxBlur } from './box-blur.ts';
import { deltaE76, linearToSrgb, SRGB_TO_LINEAR, srgbToLab } from './color.ts';

/** Half-widths of an arm along it, relative to the wrist's: shoulder, elbow, the forearm's bulk (30 % down), wrist. */
const SHOULDER = 1.5;
const ELBOW = 1.32;
const BULK = 1.38;
/** Bins of the light across the wrist (-1..1 edge to edge), and the middle stretch of it read off the hand (beyond it the hand's outline mixes in the backdrop). */
const BINS = 20;
const INNER = 0.7;
/** The backdrop a sleeve's repainted surroundings grow from: within this CIE76 distance of its median beside the arm. */
const BACKDROP_NEAR = 8;

/**
 * A stretch of limb along an axis from a to b (unit direction d): its drawn edges across the axis
 * (`lo` < 0 < `hi`, px), per px along it, the anatomical half-width held inside the old sleeve's
 * outline and smoothed along the limb. Its ends are round (a capsule), so two stretches meeting at
 * a joint with the same width there join without a corner.
 */
interface Ribbon {
  ax: number;
  ay: number;
  dx: number;
  dy: number;
  len: number;
  lo: Float32Array;
  hi: Float32Array;
}

/**
 * Where (x, y) lies against one ribbon: signed distance to its outline (negative inside), position
 * across it (-1..1 edge to edge; radial in its round ends), its half-width, and the outward normal.
 */
function place(rb: Ribbon, x: number, y: number) {
  const ox = x - rb.ax;
  const oy = y - rb.ay;
  const along = ox * rb.dx + oy * rb.dy;
  const across = rb.dx * oy - rb.dy * ox;
  const k = Math.max(0, Math.min(rb.len, Math.round(along)));
  const c = (rb.lo[k] + rb.hi[k]) / 2;
  const r = Math.max(0.5, (rb.hi[k] - rb.lo[k]) / 2);
  const end = along < 0 ? along : along > rb.len ? along - rb.len : 0;
  const off = across - c;
  const sgn = off >= 0 ? 1 : -1;
  if (end === 0) return { sd: Math.abs(off) - r, u: Math.max(-1, Math.min(1, off / r)), r, gx: -rb.dy * sgn, gy: rb.dx * sgn };
  const d = Math.hypot(end, off) || 1;
  // in a round end: the normal points away from the end's centre (along the axis and across it)
  return { sd: d - r, u: Math.max(-1, Math.min(1, (sgn * d) / r)), r, gx: (rb.dx * end - rb.dy * off) / d, gy: (rb.dy * end + rb.dx * off) / d };
}

/** Position across the limb at (x, y) for its light: of the ribbons holding it, the one it lies nearest the middle of (no step where two meet at a joint). */
function acrossAt(ribbons: Ribbon[], x: number, y: number, fallback: number): number {
  let best = fallback;
  for (const rb of ribbons) {
    const q = place(rb, x, y);
    if (q.sd <= 0.75 && Math.abs(q.u) < Math.abs(best)) best = q.u;
  }
  return best;
}

/** Where (x, y) lies against the nearest ribbon (see place). */
function nearest(ribbons: Ribbon[], x: number, y: number) {
  let best = { sd: Infinity, u: 0, r: 1, gx: 0, gy: 0 };
  for (const rb of ribbons) {
    const q = place(rb, x, y);
    if (q.sd < best.sd) best = q;
  }
  return best;
}

/**
 * A ribbon from a to b with the half-width `radius(t)` (t from 0 at a to 1 at b), each side held
 * 1.5 px inside the person (`depth`: distance inside it, a crop at bx0, by0 of bw px wide).
 */
function ribbon(a: Point, b: Point, radius: (t: number) => number, depth: Float32Array, bx0: number, by0: number, bw: number): Ribbon {
  const len = Math.max(1, Math.round(Math.hypot(b.x - a.x, b.y - a.y)));
  const dx = (b.x - a.x) / len;
  const dy = (b.y - a.y) / len;
  const bh = depth.length / bw;
  const lo = new Float32Array(len + 1);
  const hi = new Float32Array(len + 1);
  const inside = (x: number, y: number) => {
    const cx = Math.round(x) - bx0;
    const cy = Math.round(y) - by0;
    return cx >= 0 && cy >= 0 && cx < bw && cy < bh ? depth[cy * bw + cx] : 0;
  };
  for (let k = 0; k <= len; k++) {
    const R = radius(k / len);
    const px = a.x + dx * k;
    const py = a.y + dy * k;
    const reach = (sgn: number) => {
      if (inside(px, py) < 1) return R;
      let v = 0;
      while (v < R + 2 && inside(px - dy * sgn * (v + 1), py + dx * sgn * (v + 1)) >= 1) v++;
      return Math.min(R, v - 1.5);
    };
    hi[k] = reach(1);
    lo[k] = -reach(-1);
  }
  // smoothed along the limb (a sleeve's jagged outline is not the arm's)
  const smooth = (v: Float32Array) => {
    const out = new Float32Array(v.length);
    const r = 6;
    for (let k = 0; k < v.length; k++) {
      let s = 0;
      let c = 0;
      for (let j = Math.max(0, k - r); j <= Math.min(v.length - 1, k + r); j++) {
        s += v[j];
        c++;
      }
      out[k] = s / c;
    }
    return out;
  };
  return { ax: a.x, ay: a.y, dx, dy, len, lo: smooth(lo), hi: smooth(hi) };
}

/** One forearm drawn anew: the pixels it paints and what they are drawn from. */
export interface Forearm {
  /** 1 where the forearm's skin is synthesised (fill value 1), else 0. */
  skin: Uint8Array;
  /** The visible hand's skin it grows from. */
  source: Uint8Array;
  /** The backdrop beside the arm (outside the person) the backdrop replacing the sleeve grows from. */
  backdrop: Uint8Array;
  /** The old sleeve's dark edge line (its colour mixed with the trousers'), a pixel wide between repainted backdrop: outline pixels that take the backdrop's colour around them. */
  sleeveLine: number[];
  /** The hand's tone, linear RGB (the median of its pixels). */
  tone: number[];
  /** The light across the arm, linear RGB per bin of its width (BINS, edge to edge): the hand's own across the wrist, darker towards the outline. */
  profile: Float32Array;
  /** Per pixel of `skin`: its position across the arm (-1..1 edge to edge). */
  across: Float32Array;
  /** The box [x0, y0, x1, y1) holding `skin` and its outline. */
  box: [number, number, number, number];
  /** Pixels on the outline: their coverage by the arm (0..1) and the unit normal pointing out of it. */
  band: { i: number; a: number; gx: number; gy: number }[];
  /** Skin pixels where the arm meets the photo's own pixels other than the hand (trousers the old sleeve hung beside), and those pixels: their staircase is softened. */
  seam: number[];
  /** The wrist's width where the hand leaves the old sleeve (px), and the forearm's ends. */
  wristWidth: number;
  elbow: Point;
  wrist: Point;
}

/**
 * Light across a round limb at position u (-1..1 edge to edge) with its ridge at `ridge`: a soft
 * Lambert-like falloff from 1 on the ridge to 0.62 at the outline (linear light).
 */
export function limbProfile(u: number, ridge: number): number {
  const t = Math.min(1, Math.abs(u - ridge) / (u > ridge ? 1 - ridge : 1 + ridge));
  return 0.62 + 0.38 * Math.cos((t * Math.PI) / 2) ** 0.8;
}

const quantile = (v: number[], q: number) => {
  const s = v.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

/**
 * The light across the forearm, read off the hand just beyond the seam (`fore` the forearm's
 * ribbon, `seamK` the seam's position along it): per bin across the wrist, the median linear RGB of
 * the hand's inner pixels there (the same light falls on the forearm above it: a lit side, a shaded
 * side, the skin's own tone), over the middle stretch (|u| <= INNER); beyond it, towards the
 * outline, darkened as a round limb's profile falls. Too little hand seen: the hand's tone shaded
 * by that profile around the lit side's ridge.
 */
function wristProfile(img: Uint8Array, w: number, hand: Uint8Array, box: [number, number, number, number], fore: Ribbon, seamK: number, tone: number[], ridge: number): Float32Array {
  const k0 = Math.max(0, Math.min(fore.len, Math.round(seamK)));
  const c0 = (fore.lo[k0] + fore.hi[k0]) / 2;
  const r0 = Math.max(1, (fore.hi[k0] - fore.lo[k0]) / 2);
  const bins: number[][][] = Array.from({ length: BINS }, () => [[], [], []]);
  const [x0, y0, x1, y1] = box;
  for (let y = y0 + 1; y < y1; y++) {
    for (let x = x0 + 1; x < x1; x++) {
      const i = y * w + x;
      if (!hand[i] || !hand[i - 1] || !hand[i + 1] || !hand[i - w] || !hand[i + w]) continue;
      const ox = x - fore.ax;
      const oy = y - fore.ay;
      const along = ox * fore.dx + oy * fore.dy;
      if (along < seamK + 2 || along > seamK + 14) continue;
      const u = (fore.dx * oy - fore.dy * ox - c0) / r0;
      if (Math.abs(u) > INNER) continue;
      const b = Math.min(BINS - 1, Math.floor(((u + 1) / 2) * BINS));
      for (let c = 0; c < 3; c++) bins[b][c].push(SRGB_TO_LINEAR[img[i * 4 + c]]);
    }
  }
  const centre = (b: number) => ((b + 0.5) / BINS) * 2 - 1;
  const inner: number[] = [];
  for (let b = 0; b < BINS; b++) if (Math.abs(centre(b)) <= INNER) inner.push(b);
  const seen = inner.filter((b) => bins[b][0].length >= 3);
  const out = new Float32Array(BINS * 3);
  if (seen.length < inner.length / 2) {
    let mean = 0;
    for (let b = 0; b < BINS; b++) mean += limbProfile(centre(b), ridge) / BINS;
    for (let b = 0; b < BINS; b++) for (let c = 0; c < 3; c++) out[b * 3 + c] = (tone[c] * limbProfile(centre(b), ridge)) / mean;
    return out;
  }
  // the middle: each bin's median (an empty one the nearest seen bin's), smoothed [1 2 1]
  const raw = new Float32Array(BINS * 3);
  for (const b of inner) {
    const from = seen.reduce((best, s) => (Math.abs(s - b) < Math.abs(best - b) ? s : best), seen[0]);
    for (let c = 0; c < 3; c++) raw[b * 3 + c] = quantile(bins[from][c], 0.5);
  }
  const first = inner[0];
  const last = inner[inner.length - 1];
  for (const b of inner) {
    for (let c = 0; c < 3; c++) {
      const l = raw[Math.max(first, b - 1) * 3 + c];
      const r = raw[Math.min(last, b + 1) * 3 + c];
      out[b * 3 + c] = (l + 2 * raw[b * 3 + c] + r) / 4;
    }
  }
  // towards the outline: the nearest middle bin's light, falling as a round limb's does
  for (let b = 0; b < BINS; b++) {
    if (b >= first && b <= last) continue;
    const from = b < first ? first : last;
    const fall = limbProfile(centre(b), 0) / limbProfile(centre(from), 0);
    for (let c = 0; c < 3; c++) out[b * 3 + c] = out[from * 3 + c] * fall;
  }
  return out;
}

/** A forearm's light (linear RGB) at position u across it (-1..1), interpolated between its profile's bins. */
export function forearmLight(profile: Float32Array, u: number, out: number[] = [0, 0, 0]): number[] {
  const t = Math.max(0, Math.min(BINS - 1, ((u + 1) / 2) * BINS - 0.5));
  const b = Math.min(BINS - 2, Math.floor(t));
  const f = t - b;
  for (let c = 0; c < 3; c++) out[c] = profile[b * 3 + c] * (1 - f) + profile[(b + 1) * 3 + c] * f;
  return out;
}

/**
 * What planning either limb needs of the photo: its size, parsing and keypoints, the shoulders'
 * width, whether a pixel is skin (near `skinLab`, else by the skin rule) and the two arms' keypoints.
 */
function armsOf(body: PersonBody & { parts: Uint8Array }, skinLab: number[] | null) {
  const { width, height, data: img } = body.image;
  const L = body.landmarks;
  const lab = [0, 0, 0];
  const skinAt = (i: number) => {
    if (!skinLab) return isSkin(img[i * 4], img[i * 4 + 1], img[i * 4 + 2]);
    srgbToLab(img[i * 4], img[i * 4 + 1], img[i * 4 + 2], lab);
    return deltaE76(lab, skinLab) < 20 || isSkin(img[i * 4], img[i * 4 + 1], img[i * 4 + 2]);
  };
  return {
    width,
    height,
    img,
    parts: body.parts,
    mask: body.mask,
    L,
    n: width * height,
    sw: Math.hypot(L.leftShoulder.x - L.rightShoulder.x, L.leftShoulder.y - L.rightShoulder.y),
    skinAt,
    arms: [
      { S: L.leftShoulder, E: L.leftElbow, W: L.leftWrist },
      { S: L.rightShoulder, E: L.rightElbow, W: L.rightWrist },
    ],
  };
}

/** Above this 5x5 luminance spread (sRGB levels) an arm-labelled pixel by an old sleeve is a print seen through it, not skin. */
const SHEER_PRINT = 14;

/** The 5x5 standard deviation of the photo's luminance (sRGB levels) over the box [x0..x1] x [y0..y1] (edges clamped). */
function localSpread(img: Uint8Array, w: number, x0: number, y0: number, x1: number, y1: number): Float32Array {
  const bw = x1 - x0 + 1;
  const bh = y1 - y0 + 1;
  const v = new Float32Array(bw * bh);
  const v2 = new Float32Array(bw * bh);
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      const i = ((y + y0) * w + x + x0) * 4;
      const l = 0.2126 * img[i] + 0.7152 * img[i + 1] + 0.0722 * img[i + 2];
      v[y * bw + x] = l;
      v2[y * bw + x] = l * l;
    }
  }
  const m = boxBlur(v, bw, bh, 2, 1);
  const m2 = boxBlur(v2, bw, bh, 2, 1);
  for (let k = 0; k < m.length; k++) m[k] = Math.sqrt(Math.max(0, m2[k] - m[k] * m[k]));
  return m;
}

/**
 * Plans the forearms under old sleeves that the skin fill (`fill` 1) would paint, arm by arm: where
 * the fill of an arm meets its visible hand, the hand's wrist gives the arm's width and centre; the
 * arm's outline runs from there to the elbow and shoulder keypoints, and fill pixels of that arm
 * outside it become backdrop (`fill` set to 2, in place). `grown` marks the old top (and its rim);
 * `skinLab` is the person's skin colour. An arm whose hand is not seen is left as it was.
 */
export function planForearms(fill: Uint8Array, grown: Uint8Array, oldTop: Uint8Array, covered: (i: number) => boolean, body: PersonBody & { parts: Uint8Array }, skinLab: number[] | null): Forearm[] {
  const { width: w, height: h, img, parts, mask, n, sw, skinAt, arms } = armsOf(body, skinLab);
  const lab = [0, 0, 0];
  // the arms' skin the photo shows (not the old top, not repainted; the parsing counts hands as arm)
  const bare = (i: number) => mask[i] > 0 && !grown[i] && !fill[i] && parts[i] === PERSON_PART.arm && skinAt(i);
  // each arm's fill: its skin-fill pixels on the arm, nearer its own elbow-wrist line than the other's
  const lineDist = (a: Point, b: Point, x: number, y: number) => {
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const t = Math.max(0, Math.min(1, ((x - a.x) * dx + (y - a.y) * dy) / (dx * dx + dy * dy || 1)));
    return Math.hypot(x - a.x - t * dx, y - a.y - t * dy);
  };
  const before = fill.slice();
  const owner = new Int8Array(n).fill(-1);
  // each arm's fill's box [x0, y0, x1, y1] (inclusive)
  const boxes = [[w, h, -1, -1], [w, h, -1, -1]];
  const grow = (b: number[], x: number, y: number) => {
    if (x < b[0]) b[0] = x;
    if (y < b[1]) b[1] = y;
    if (x > b[2]) b[2] = x;
    if (y > b[3]) b[3] = y;
  };
  for (let i = 0; i < n; i++) {
    if (fill[i] !== 1 || parts[i] !== PERSON_PART.arm) continue;
    const x = i % w;
    const y = (i / w) | 0;
    const d0 = Math.min(lineDist(arms[0].S, arms[0].E, x, y), lineDist(arms[0].E, arms[0].W, x, y));
    const d1 = Math.min(lineDist(arms[1].S, arms[1].E, x, y), lineDist(arms[1].E, arms[1].W, x, y));
    owner[i] = d0 <= d1 ? 0 : 1;
    grow(boxes[owner[i]], x, y);
  }
  // the trousers' or skirt's colour (Lab median of the legs' pixels, sampled)
  const legs: number[][] = [[], [], []];
  for (let i = 0; i < n; i += 7) {
    if (parts[i] !== PERSON_PART.legs) continue;
    srgbToLab(img[i * 4], img[i * 4 + 1], img[i * 4 + 2], lab);
    for (let c = 0; c < 3; c++) legs[c].push(lab[c]);
  }
  const bottoms = legs[0].length >= 50 ? legs.map((v) => quantile(v, 0.5)) : null;
  const out: Forearm[] = [];
  for (const [k, { S, E, W }] of arms.entries()) {
    const forearmLen = Math.hypot(W.x - E.x, W.y - E.y);
    if (forearmLen < 0.25 * sw) continue;
    // the hand: the largest piece of bare skin within 60 % of the forearm's length of the wrist
    // keypoint (specks of a skirt's print the parsing calls arm are left out)
    const reach2 = (0.6 * forearmLen) ** 2;
    const x0 = Math.max(0, Math.floor(W.x - 0.6 * forearmLen));
    const x1 = Math.min(w - 1, Math.ceil(W.x + 0.6 * forearmLen));
    const y0 = Math.max(0, Math.floor(W.y - 0.6 * forearmLen));
    const y1 = Math.min(h - 1, Math.ceil(W.y + 0.6 * forearmLen));
    // (a wrist off the picture has no hand to join)
    if (x1 < x0 || y1 < y0) continue;
    const cw = x1 - x0 + 1;
    const ch = y1 - y0 + 1;
    const near = new Uint8Array(cw * ch);
    for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) if ((x - W.x) ** 2 + (y - W.y) ** 2 < reach2 && bare(y * w + x)) near[(y - y0) * cw + x - x0] = 1;
    const piece = largestComponent(near, cw, ch, { connectivity: 8 });
    const hand = new Uint8Array(n);
    let handCount = 0;
    for (let k2 = 0; k2 < piece.length; k2++) {
      if (!piece[k2]) continue;
      hand[(y0 + ((k2 / cw) | 0)) * w + x0 + (k2 % cw)] = 1;
      handCount++;
    }
    if (handCount < 60) continue;
    // where the sleeve's fill meets the hand (across the old top's rim of a few pixels, left as it was)
    const reachHand = dilate(piece, cw, ch, 5);
    let sx = 0;
    let sy = 0;
    let seam = 0;
    const seamPx: number[] = [];
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        if (owner[y * w + x] !== k || !reachHand[(y - y0) * cw + x - x0]) continue;
        seamPx.push(y * w + x);
        sx += x;
        sy += y;
        seam++;
      }
    }
    if (seam < 4) continue;
    const seamAt = { x: sx / seam, y: sy / seam };
    const axisLen = Math.hypot(seamAt.x - E.x, seamAt.y - E.y);
    if (axisLen < 0.2 * sw) continue;
    const ux = (seamAt.x - E.x) / axisLen;
    const uy = (seamAt.y - E.y) / axisLen;
    const nx = -uy;
    const ny = ux;
    // only a sleeve that reached the wrist: the seam near the wrist keypoint, and the sleeve's
    // fill running most of the way up from it to the elbow (a short sleeve's rim above a bare
    // forearm keeps the fill as it was)
    if (Math.hypot(seamAt.x - W.x, seamAt.y - W.y) > 0.35 * forearmLen) continue;
    // and the hand beyond the seam, not beside it (a bare forearm alongside an old top's side)
    let above = 0;
    for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) if (hand[y * w + x] && (x - seamAt.x) * ux + (y - seamAt.y) * uy < -0.1 * forearmLen) above++;
    if (above > 0.05 * handCount) continue;
    const bins = new Uint8Array(20);
    let area = 0;
    const ob = boxes[k];
    for (let y = ob[1]; y <= ob[3]; y++) for (let x = ob[0]; x <= ob[2]; x++) {
      const i = y * w + x;
      if (owner[i] !== k) continue;
      area++;
      const t = (((i % w) - E.x) * ux + (((i / w) | 0) - E.y) * uy) / axisLen;
      if (t >= 0 && t < 1) bins[Math.floor(t * 20)] = 1;
    }
    // (and as wide as a forearm on average, not a rim of other cloth along a bare arm)
    if (bins.reduce((a, b) => a + b, 0) < 14 || area < 0.6 * axisLen * 0.1 * sw) continue;
    // the wrist: as wide as the hand where it leaves the sleeve (the seam's extent across the
    // forearm), held to what a wrist can be for the person's shoulders
    // (the hand's first rows beyond the seam; the seam's own extent when they are too few)
    let across: number[] = [];
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        if (!hand[y * w + x]) continue;
        const along = (x - seamAt.x) * ux + (y - seamAt.y) * uy;
        if (along >= 0 && along <= 8) across.push((x - seamAt.x) * nx + (y - seamAt.y) * ny);
      }
    }
    if (across.length < 10) across = seamPx.map((i) => ((i % w) - seamAt.x) * nx + (((i / w) | 0) - seamAt.y) * ny);
    const lo = quantile(across, 0.03);
    const hi = quantile(across, 0.97);
    const wristWidth = Math.min(0.24 * sw, Math.max(0.11 * sw, hi - lo + 1));
    const rw = wristWidth / 2;
    const wrist = { x: seamAt.x + (nx * (lo + hi)) / 2, y: seamAt.y + (ny * (lo + hi)) / 2 };
    // the light: which side of the hand's first stretch is brighter (the ridge moves towards it)
    let litPos = 0;
    let litNeg = 0;
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const i = y * w + x;
        if (!hand[i]) continue;
        const along = (x - wrist.x) * ux + (y - wrist.y) * uy;
        if (along < 0 || along > 0.25 * forearmLen) continue;
        const v = (x - wrist.x) * nx + (y - wrist.y) * ny;
        const lum = 0.299 * img[i * 4] + 0.587 * img[i * 4 + 1] + 0.114 * img[i * 4 + 2];
        if (v > rw / 3) litPos += lum;
        else if (v < -rw / 3) litNeg += lum;
      }
    }
    const ridge = litPos > 0 && litNeg > 0 ? Math.max(-0.35, Math.min(0.35, (3 * (litPos - litNeg)) / (litPos + litNeg))) : 0;
    // the old top's rim between the sleeve's fill and the hand, and the hand's first pixels (a
    // cuff's shadow on them), join the forearm: the wrist is drawn across the seam
    const ownCrop = new Uint8Array(cw * ch);
    for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) if (owner[y * w + x] === k) ownCrop[(y - y0) * cw + x - x0] = 1;
    const nearOwn = dilate(ownCrop, cw, ch, 3);
    const source = hand.slice();
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const c = (y - y0) * cw + x - x0;
        const i = y * w + x;
        if (!nearOwn[c] || !reachHand[c] || owner[i] >= 0) continue;
        if (hand[i] || (grown[i] && !before[i] && mask[i] && parts[i] === PERSON_PART.arm)) {
          owner[i] = k;
          grow(ob, x, y);
          fill[i] = 1;
          source[i] = 0;
        }
      }
    }
    // the arm stays inside the old sleeve's outline (its depth inside the person, the backdrop
    // the fill will show counting as outside): a sleeve narrower than the drawn arm clips it
    // the old sleeve where the fill left it (the parsing took it for the trousers it hangs
    // beside, or its shaded folds fell outside the old top's colours): the arm's cloth in the
    // sleeve's colours (and the old top's where the parsing says legs) joined to its fill within
    // the forearm's reach is the sleeve's too
    const reachR = 2.2 * rw + 4;
    const sleeveLab = [[], [], []] as number[][];
    for (let y = ob[1]; y <= ob[3]; y += 2) {
      for (let x = ob[0]; x <= ob[2]; x += 2) {
        const i = y * w + x;
        if (owner[i] !== k || !oldTop[i]) continue;
        srgbToLab(img[i * 4], img[i * 4 + 1], img[i * 4 + 2], lab);
        for (let c = 0; c < 3; c++) sleeveLab[c].push(lab[c]);
      }
    }
    const ref = sleeveLab[0].length >= 20 ? sleeveLab.map((v) => quantile(v, 0.5)) : null;
    // a coloured sleeve in the shade of the arm's side (against the hip): darker, less saturated,
    // of the same hue (a red sleeve's dark maroon edge, far from its median by ΔE76 though it is it)
    const refChroma = ref ? Math.hypot(ref[1], ref[2]) : 0;
    const inShade = (c: number[]) => {
      if (!ref || refChroma < 20 || c[0] > ref[0]) return false;
      const chroma = Math.hypot(c[1], c[2]);
      if (chroma < Math.max(8, 0.35 * refChroma)) return false;
      const cos = (c[1] * ref[1] + c[2] * ref[2]) / (chroma * refChroma);
      return cos > Math.cos((15 * Math.PI) / 180);
    };
    // (not when the trousers or skirt share the sleeve's colours: they would be taken for it)
    if (ref && !(bottoms && deltaE76(bottoms, ref) < 25)) {
      const rx0 = Math.max(1, Math.floor(Math.min(E.x, wrist.x) - reachR));
      const rx1 = Math.min(w - 2, Math.ceil(Math.max(E.x, wrist.x) + reachR));
      const ry0 = Math.max(1, Math.floor(Math.min(E.y, wrist.y) - reachR));
      const ry1 = Math.min(h - 2, Math.ceil(Math.max(E.y, wrist.y) + reachR));
      // a sheer sleeve shows what it hangs over: a print's spots, darkened, in colours of neither
      // the sleeve nor the skin; no arm is that busy (5x5 luminance std, sRGB levels)
      const busy = localSpread(img, w, rx0, ry0, rx1, ry1);
      const bw0 = rx1 - rx0 + 1;
      const cand = (i: number) => {
        const p = parts[i];
        if (!(p === PERSON_PART.arm || (p === PERSON_PART.legs && oldTop[i])) || !mask[i] || before[i] || owner[i] >= 0 || hand[i] || covered(i)) return false;
        const x = i % w;
        const y = (i / w) | 0;
        if (x < rx0 || x > rx1 || y < ry0 || y > ry1 || lineDist(E, wrist, x, y) > reachR) return false;
        if ((x - E.x) * ux + (y - E.y) * uy > axisLen - 2) return false;
        if (p === PERSON_PART.arm && busy[(y - ry0) * bw0 + x - rx0] > SHEER_PRINT) return true;
        srgbToLab(img[i * 4], img[i * 4 + 1], img[i * 4 + 2], lab);
        return (deltaE76(lab, ref) < 22 || inShade(lab)) && !skinAt(i);
      };
      const queue: number[] = [];
      for (let y = ry0; y <= ry1; y++) {
        for (let x = rx0; x <= rx1; x++) {
          const i = y * w + x;
          if (owner[i] === k) for (const j of [i - 1, i + 1, i - w, i + w]) if (owner[j] < 0 && cand(j)) { owner[j] = k; queue.push(j); }
        }
      }
      for (let q = 0; q < queue.length; q++) {
        const i = queue[q];
        fill[i] = 1;
        grow(ob, i % w, (i / w) | 0);
        for (const j of [i - 1, i + 1, i - w, i + w]) if (owner[j] < 0 && cand(j)) { owner[j] = k; queue.push(j); }
      }
    }
    const bx0 = Math.max(0, ob[0] - 4);
    const by0 = Math.max(0, ob[1] - 4);
    const bw = Math.min(w, ob[2] + 5) - bx0;
    const bh = Math.min(h, ob[3] + 5) - by0;
    const inPerson = new Uint8Array(bw * bh);
    for (let y = 0; y < bh; y++) for (let x = 0; x < bw; x++) inPerson[y * bw + x] = mask[(y + by0) * w + x + bx0] && before[(y + by0) * w + x + bx0] !== 2 ? 1 : 0;
    const depth = distanceTransform(inPerson, bw, bh, 'unset');
    // the outline: shoulder to elbow and elbow to the wrist, round-ended and as wide at the elbow
    // (no corner at the bend), the forearm's bulk a third of the way down, tapering to the wrist
    // (and a little past the seam, so the wrist is not rounded off before the hand)
    const upperArm = ribbon(S, E, (t) => rw * (SHOULDER + (ELBOW - SHOULDER) * t), depth, bx0, by0, bw);
    // the forearm starts where the upper arm ends, as wide and on the same centre (held inside the
    // old sleeve's and the arm's measured outline): one round joint, no lump at the elbow; and it
    // is no wider than that further down (a hand seen slanting into a pocket is wider than its wrist)
    let cEnd = 0;
    let rEnd = 0;
    let kn = 0;
    for (let q = Math.max(0, upperArm.len - 8); q <= upperArm.len; q++, kn++) {
      cEnd += (upperArm.hi[q] + upperArm.lo[q]) / 2;
      rEnd += (upperArm.hi[q] - upperArm.lo[q]) / 2;
    }
    cEnd /= kn;
    rEnd = Math.max(0.75 * ELBOW * rw, Math.min(ELBOW * rw, rEnd / kn));
    const joint = { x: E.x - upperArm.dy * cEnd, y: E.y + upperArm.dx * cEnd };
    const rf = Math.min(rw, rEnd / ELBOW);
    const ribbons = [
      upperArm,
      ribbon(joint, { x: wrist.x + ux * rw, y: wrist.y + uy * rw }, (t) => {
        // position along the forearm, 0 at the elbow, 1 at the wrist
        const f = (t * (axisLen + rw)) / axisLen;
        if (f < 0.3) return rEnd + ((BULK * rf - rEnd) * f) / 0.3;
        return rf * Math.max(1, BULK - ((BULK - 1) * (f - 0.3)) / 0.7);
      }, depth, bx0, by0, bw),
    ];
    // the old sleeve's soft outline beside the person (its colour mixed into the backdrop's) goes
    // with it: repainted as backdrop
    const sleeve = new Uint8Array(bw * bh);
    for (let y = 0; y < bh; y++) for (let x = 0; x < bw; x++) if (owner[(y + by0) * w + x + bx0] === k) sleeve[y * bw + x] = 1;
    const halo = dilate(sleeve, bw, bh, 3);
    // and the backdrop around (outside the person) is what the backdrop there is grown from, lit
    // as it is on that side (a row's backdrop elsewhere can be darker or lighter)
    const around = new Uint8Array(n);
    const aroundReach = dilate(sleeve, bw, bh, Math.round(0.06 * sw));
    const bgLab: number[][] = [[], [], []];
    for (let y = 0; y < bh; y++) {
      for (let x = 0; x < bw; x++) {
        const i = (y + by0) * w + x + bx0;
        if (halo[y * bw + x] && !sleeve[y * bw + x] && !mask[i] && !before[i]) fill[i] = 2;
        else if (aroundReach[y * bw + x] && !mask[i] && !before[i]) {
          around[i] = 1;
          if ((x + y) % 3) continue;
          srgbToLab(img[i * 4], img[i * 4 + 1], img[i * 4 + 2], lab);
          for (let c = 0; c < 3; c++) bgLab[c].push(lab[c]);
        }
      }
    }
    const bg = bgLab[0].length >= 20 ? bgLab.map((v) => quantile(v, 0.5)) : null;
    // the backdrop grown from is the backdrop's colour only: the old sleeve's soft outline outside
    // the person's mask (under the new sleeve's edge, or beside it) would smear the sleeve's colour
    // into the repainted backdrop (pink smudges beside a navy sleeve's cap)
    for (let y = 0; y < bh && bg; y++) {
      for (let x = 0; x < bw; x++) {
        const i = (y + by0) * w + x + bx0;
        if (!around[i]) continue;
        srgbToLab(img[i * 4], img[i * 4 + 1], img[i * 4 + 2], lab);
        if (deltaE76(lab, bg) > BACKDROP_NEAR || covered(i)) around[i] = 0;
      }
    }
    // and the sleeve's edge the parsing put inside the person as arm (the sleeve's colour mixed
    // into the backdrop's, between the sleeve and a gap to the body): its colours lie between the
    // two, and left as they were they are specks of the old sleeve beside the arm (a coloured
    // sleeve only: between a black or grey one and the backdrop lies every grey, a print's too)
    const sleeveLine: number[] = [];
    if (ref && refChroma >= 20 && bg) {
      const seg = [0, 1, 2].map((c) => ref[c] - bg[c]);
      const seg2 = seg[0] ** 2 + seg[1] ** 2 + seg[2] ** 2 || 1;
      const rim = dilate(sleeve, bw, bh, Math.round(0.04 * sw));
      for (let y = 0; y < bh; y++) {
        for (let x = 0; x < bw; x++) {
          const i = (y + by0) * w + x + bx0;
          if (!rim[y * bw + x] || sleeve[y * bw + x] || before[i] || fill[i] || owner[i] >= 0 || hand[i] || (mask[i] && parts[i] !== PERSON_PART.arm && parts[i] !== PERSON_PART.torso) || covered(i)) continue;
          srgbToLab(img[i * 4], img[i * 4 + 1], img[i * 4 + 2], lab);
          // (a dark red passes the RGB skin rule: only the person's own skin tone is kept)
          if (skinLab ? deltaE76(lab, skinLab) < 20 : isSkin(img[i * 4], img[i * 4 + 1], img[i * 4 + 2])) continue;
          const t = Math.max(0, Math.min(1, ((lab[0] - bg[0]) * seg[0] + (lab[1] - bg[1]) * seg[1] + (lab[2] - bg[2]) * seg[2]) / seg2));
          if (Math.hypot(lab[0] - bg[0] - t * seg[0], lab[1] - bg[1] - t * seg[1], lab[2] - bg[2] - t * seg[2]) < 18) fill[i] = 2;
          else if (bottoms && deltaE76(bottoms, ref) >= 25) {
            // (or between the sleeve and the trousers it hung against: the sleeve's dark edge line,
            // a pixel wide, between the backdrop repainted on either side of it, the sleeve's share
            // in it at least a sixth: an outline pixel, it takes the repainted backdrop's colour)
            const sb = [0, 1, 2].map((c) => ref[c] - bottoms[c]);
            const sb2 = sb[0] ** 2 + sb[1] ** 2 + sb[2] ** 2 || 1;
            const u = ((lab[0] - bottoms[0]) * sb[0] + (lab[1] - bottoms[1]) * sb[1] + (lab[2] - bottoms[2]) * sb[2]) / sb2;
            if (u >= 1 / 6 && u <= 1 && Math.hypot(lab[0] - bottoms[0] - u * sb[0], lab[1] - bottoms[1] - u * sb[1], lab[2] - bottoms[2] - u * sb[2]) < 10) sleeveLine.push(i);
          }
        }
      }
    }
    // the wrist meets the hand edge to edge: over the forearm's last third its outline bends to
    // the hand's own edges just beyond the seam
    const fore = ribbons[1];
    const seamK = fore.len - rw;
    const edges: number[] = [];
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const i = y * w + x;
        // (the whole hand: its first pixels, repainted, are its width where a slanted cuff ended)
        if (!hand[i]) continue;
        const ox = x - fore.ax;
        const oy = y - fore.ay;
        const along = ox * fore.dx + oy * fore.dy;
        if (along >= seamK + 3 && along <= seamK + 14) edges.push(fore.dx * oy - fore.dy * ox);
      }
    }
    if (edges.length >= 10) {
      const handLo = quantile(edges, 0.02);
      const handHi = quantile(edges, 0.98);
      const from = seamK - 0.35 * axisLen;
      for (let k = Math.max(0, Math.ceil(from)); k <= fore.len; k++) {
        const t = Math.min(1, (k - from) / (seamK - from));
        const wt = t * t * (3 - 2 * t);
        fore.lo[k] += (handLo - fore.lo[k]) * wt;
        fore.hi[k] += (handHi - fore.hi[k]) * wt;
      }
    }
    const drawn = paintRibbons(owner, k, ob, ribbons, hand, fill, mask, covered, w, h, [bx0, by0, bw, bh]);
    if (!drawn) continue;
    const { skin, across: acrossArm, band, seam: join } = drawn;
    const lin: number[][] = [[], [], []];
    // the tone of the hand's first stretch beyond the seam (the wrist's, not the fingers' in shade)
    for (const pass of [0.15, 0.35, Infinity]) {
      for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) {
        const i = y * w + x;
        if (!source[i]) continue;
        const along = (x - wrist.x) * ux + (y - wrist.y) * uy;
        if (along <= pass * forearmLen) for (let c = 0; c < 3; c++) lin[c].push(SRGB_TO_LINEAR[img[i * 4 + c]]);
      }
      if (lin[0].length >= 40) break;
    }
    const tone = lin.map((v) => quantile(v, 0.5));
    const profile = wristProfile(img, w, hand, [x0, y0, x1, y1], fore, seamK, tone, ridge);
    out.push({ skin, source, backdrop: around, sleeveLine, tone, profile, across: acrossArm, box: [bx0, by0, bx0 + bw, by0 + bh], band, seam: join, wristWidth, elbow: { x: E.x, y: E.y }, wrist });
  }
  return out;
}

/** The stretch of bare arm below an old short sleeve's hem its light and width are read over (px, beyond 2 px off the hem). */
const BELOW = 12;
/** The old hem's contact shadow on the arm just below it (relative to the shoulders' width): drawn over, and the light read beyond it. */
const SHADOW = 0.035;

/**
 * Plans the upper arms under old short sleeves that the skin fill (`fill` 1) would paint, arm by
 * arm, drawn from the arm the photo shows below the sleeve's hem (as planForearms draws forearms
 * from the hands): its width and centre just below the hem, carried up the arm's axis to the
 * shoulder and widening as the photo's arm widens towards the hem (a round end at the shoulder),
 * and the light across it there (its lit side, its shaded side, its tone). Fill pixels of that arm
 * outside the outline become backdrop (`fill` 2, in place). `taken` marks skin already drawn (the
 * forearms); `grown` the old top and its rim. An arm with no bare arm seen below its sleeve, or no
 * sleeve over it, is left as it was.
 */
export function planUpperArms(fill: Uint8Array, grown: Uint8Array, taken: Uint8Array, covered: (i: number) => boolean, body: PersonBody & { parts: Uint8Array }, skinLab: number[] | null): Forearm[] {
  const { width: w, height: h, img, parts, mask, L, n, sw, skinAt, arms } = armsOf(body, skinLab);
  // squared distances (the arm a pixel belongs to is the nearer one)
  const lineDist2 = (a: Point, b: Point, x: number, y: number) => {
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const t = Math.max(0, Math.min(1, ((x - a.x) * dx + (y - a.y) * dy) / (dx * dx + dy * dy || 1)));
    return (x - a.x - t * dx) ** 2 + (y - a.y - t * dy) ** 2;
  };
  const armDist2 = (a: (typeof arms)[number], x: number, y: number) => Math.min(lineDist2(a.S, a.E, x, y), lineDist2(a.E, a.W, x, y));
  let before: Uint8Array | undefined;
  let owner: Int8Array | undefined;
  // (no backdrop of their own: one empty map for all)
  let noBackdrop: Uint8Array | undefined;
  const out: Forearm[] = [];
  for (const [k, { S, E }] of arms.entries()) {
    const len = Math.hypot(E.x - S.x, E.y - S.y);
    if (len < 0.3 * sw) continue;
    const dx = (E.x - S.x) / len;
    const dy = (E.y - S.y) / len;
    const other = arms[1 - k];
    // the window around the upper arm and the elbow below it
    const reach = 0.25 * sw;
    const x0 = Math.max(1, Math.floor(Math.min(S.x, E.x) - reach));
    const x1 = Math.min(w - 2, Math.ceil(Math.max(S.x, E.x) + reach));
    const y0 = Math.max(1, Math.floor(Math.min(S.y, E.y) - reach));
    const y1 = Math.min(h - 2, Math.ceil(Math.max(S.y, E.y) + reach));
    if (x1 <= x0 || y1 <= y0) continue;
    const cw = x1 - x0 + 1;
    const ch = y1 - y0 + 1;
    const along = (x: number, y: number) => (x - S.x) * dx + (y - S.y) * dy;
    const acrossOf = (x: number, y: number) => dx * (y - S.y) - dy * (x - S.x);
    const mine = (x: number, y: number) => {
      const d = lineDist2(S, E, x, y);
      return d < reach * reach && d <= armDist2(other, x, y);
    };
    // the parsing can call the arm's outer rim torso (a strip of its lit edge beside the
    // backdrop): beyond the arm's axis, away from the chest, nothing is torso
    const away = (S.x - (L.leftShoulder.x + L.rightShoulder.x) / 2) * -dy >= 0 ? 1 : -1;
    const armAt = (i: number, x: number, y: number) => parts[i] === PERSON_PART.arm || (parts[i] === PERSON_PART.torso && acrossOf(x, y) * away > 0);
    // the sleeve's skin fill on this arm (counted first: most photos have none to draw)
    let owned = 0;
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const i = y * w + x;
        if (fill[i] === 1 && armAt(i, x, y) && !taken[i] && along(x, y) <= len && mine(x, y)) owned++;
      }
    }
    // (a rim of the old sleeve under a new one is the membrane's: only a stretch of arm is drawn)
    if (owned < 0.05 * sw * 0.1 * sw) continue;
    before ??= fill.slice();
    owner ??= new Int8Array(n).fill(-1);
    // the fill, and the bare arm the photo shows beside it
    const ob = [w, h, -1, -1];
    const bareCrop = new Uint8Array(cw * ch);
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const i = y * w + x;
        if (!armAt(i, x, y)) continue;
        if (fill[i] === 1 && !taken[i]) {
          if (along(x, y) > len || !mine(x, y)) continue;
          owner[i] = k;
          if (x < ob[0]) ob[0] = x;
          if (y < ob[1]) ob[1] = y;
          if (x > ob[2]) ob[2] = x;
          if (y > ob[3]) ob[3] = y;
        } else if (mask[i] && !fill[i] && !grown[i] && !covered(i) && mine(x, y) && skinAt(i)) bareCrop[(y - y0) * cw + x - x0] = 1;
      }
    }
    // the hem: going down the arm, where the bare arm becomes wider than the fill beside it (a rim
    // of fill along the arm's side below the hem is not the sleeve) and stays so
    const t0 = -Math.ceil(reach);
    const steps = Math.ceil(len + reach) - t0 + 1;
    const fillW = new Float32Array(steps);
    const bareW = new Float32Array(steps);
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const own = owner[y * w + x] === k;
        if (!own && !bareCrop[(y - y0) * cw + x - x0]) continue;
        const q = Math.round(along(x, y)) - t0;
        if (q < 0 || q >= steps) continue;
        if (own) fillW[q]++;
        else bareW[q]++;
      }
    }
    let seamK0 = -1;
    const run = 8;
    for (let q = 0; q + run < steps && seamK0 < 0; q++) {
      let ok = true;
      for (let r = 0; r < run && ok; r++) ok = bareW[q + r] >= 0.08 * sw && bareW[q + r] > 2 * fillW[q + r];
      // (and the sleeve above it: fill over most of the stretch just before)
      let above = 0;
      for (let r = 1; r <= 2 * run; r++) if (q - r >= 0 && fillW[q - r] >= 0.05 * sw) above++;
      if (ok && above >= run / 2) seamK0 = q + t0;
    }
    if (seamK0 < 0) continue;
    // and a sleeve's stretch of arm above it, the fill as wide as an arm over a quarter of the way
    // up to the shoulder at least (not an old sleeveless top's edge, nor a rim under a new sleeve)
    let rows = 0;
    for (let q = Math.max(0, -t0); q < seamK0 - t0; q++) if (fillW[q] >= 0.05 * sw) rows++;
    if (rows < Math.max(0.25 * seamK0, 0.1 * sw)) continue;
    // the sleeve's fill ends there: what lies along the arm below it is the membrane's
    // (a slanting hem reaches a little further down on one side)
    const hemEnd = seamK0 + Math.max(3, 0.05 * sw);
    for (let y = ob[1]; y <= ob[3]; y++) for (let x = ob[0]; x <= ob[2]; x++) if (owner[y * w + x] === k && along(x, y) > hemEnd) owner[y * w + x] = -1;
    if (seamK0 < 0.12 * sw) continue;
    // the bare arm just beyond the hem (down the arm from the seam): its width and centre
    const bareAt: number[] = [];
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        if (!bareCrop[(y - y0) * cw + x - x0]) continue;
        const t = along(x, y) - seamK0;
        if (t >= 0 && t <= 0.15 * sw + 2 + BELOW) bareAt.push(t, acrossOf(x, y));
      }
    }
    const below = (lo: number, hi: number) => {
      const v: number[] = [];
      for (let j = 0; j < bareAt.length; j += 2) if (bareAt[j] >= lo && bareAt[j] <= hi) v.push(bareAt[j + 1]);
      return v;
    };
    // (past a slanting hem's lower side)
    const first = below(0.05 * sw + 2, 0.05 * sw + 2 + BELOW);
    // (the bare arm lies below the hem, as wide as an arm: not the torso's skin beside a sleeve)
    if (first.length < 4 * BELOW) continue;
    const lo = quantile(first, 0.03);
    const hi = quantile(first, 0.97);
    const rb = Math.min(0.16 * sw, Math.max(0.06 * sw, (hi - lo + 1) / 2));
    if (first.length < 0.8 * BELOW * rb) continue;
    const cb = (lo + hi) / 2;
    // how the arm widens towards the hem (its width a stretch further down), carried up to the
    // shoulder: no narrower than at the hem, at most a quarter wider
    // (at least a tenth wider: the shoulder's muscle), and its line carried up too (the arm's
    // centre below the hem and further down give its slant), held near the shoulder joint
    const lower = below(0.15 * sw + 2, 0.15 * sw + 2 + BELOW);
    let rs = 1.12 * rb;
    let slope = 0;
    if (lower.length >= 2 * BELOW) {
      const ll = quantile(lower, 0.03);
      const lh = quantile(lower, 0.97);
      const rl = (lh - ll + 1) / 2;
      rs = Math.max(1.1 * rb, Math.min(1.25 * rb, rb + ((rb - rl) / (0.1 * sw)) * (seamK0 + 0.05 * sw)));
      slope = ((ll + lh) / 2 - cb) / (0.1 * sw);
    }
    const cHem = cb - slope * (0.05 * sw + 2 + BELOW / 2);
    const cTop = Math.max(-0.5 * rs, Math.min(0.5 * rs, cHem - slope * seamK0));
    const grow = (x: number, y: number) => {
      if (x < ob[0]) ob[0] = x;
      if (y < ob[1]) ob[1] = y;
      if (x > ob[2]) ob[2] = x;
      if (y > ob[3]) ob[3] = y;
    };
    // the axis: from the shoulder to the arm's centre at the hem, and on past it over the bare arm
    // (its light is read there)
    const A = { x: S.x - dy * cTop, y: S.y + dx * cTop };
    const B = { x: S.x + dx * seamK0 - dy * cHem, y: S.y + dy * seamK0 + dx * cHem };
    const seamK = Math.hypot(B.x - A.x, B.y - A.y);
    const ux = (B.x - A.x) / seamK;
    const uy = (B.y - A.y) / seamK;
    const past = SHADOW * sw + 2 + BELOW + 2;
    const end = { x: B.x + ux * past, y: B.y + uy * past };
    // the bare arm the skin grows from (its piece beside the seam) and its light across the arm
    const source = new Uint8Array(n);
    const lin: number[][] = [[], [], []];
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        if (!bareCrop[(y - y0) * cw + x - x0]) continue;
        const i = y * w + x;
        const t = (x - A.x) * ux + (y - A.y) * uy - seamK;
        if (t < -3 || t > 0.15 * sw) continue;
        source[i] = 1;
        if (t >= SHADOW * sw + 2 && t <= SHADOW * sw + 2 + BELOW) for (let c = 0; c < 3; c++) lin[c].push(SRGB_TO_LINEAR[img[i * 4 + c]]);
      }
    }
    if (lin[0].length < 20) continue;
    // and the old top's rim the fill left between it and the bare arm (the hem's shadow on the
    // skin, kept as skin by its colour) is the drawn arm's too: it is drawn across the hem
    const ownCrop = new Uint8Array(cw * ch);
    for (let y = ob[1]; y <= ob[3]; y++) for (let x = ob[0]; x <= ob[2]; x++) if (owner[y * w + x] === k) ownCrop[(y - y0) * cw + x - x0] = 1;
    const nearOwn = dilate(ownCrop, cw, ch, 5);
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const i = y * w + x;
        if (owner[i] >= 0 || !nearOwn[(y - y0) * cw + x - x0] || !grown[i] || before[i] || !mask[i] || !armAt(i, x, y) || covered(i) || taken[i] || along(x, y) > hemEnd) continue;
        owner[i] = k;
        fill[i] = 1;
        grow(x, y);
      }
    }
    // (the box holds the fill, the arm's round end at the shoulder and its stretch past the hem)
    const bx0 = Math.max(0, Math.min(ob[0], Math.floor(end.x - rb), Math.floor(A.x - 1.5 * rs)) - 4);
    const by0 = Math.max(0, Math.min(ob[1], Math.floor(end.y - rb), Math.floor(A.y - 1.5 * rs)) - 4);
    const bw = Math.min(w, Math.max(ob[2], Math.ceil(end.x + rb), Math.ceil(A.x + 1.5 * rs)) + 5) - bx0;
    const bh = Math.min(h, Math.max(ob[3], Math.ceil(end.y + rb), Math.ceil(A.y + 1.5 * rs)) + 5) - by0;
    const inPerson = new Uint8Array(bw * bh);
    // (the old sleeve the fill turned to backdrop beyond the arm's edge measured further down,
    // or the parsing left out of the person, is the arm's to take: the arm is as wide at the hem
    // as the bare arm just below it shows)
    for (let y = 0; y < bh; y++) {
      for (let x = 0; x < bw; x++) {
        const i = (y + by0) * w + x + bx0;
        inPerson[y * bw + x] = (mask[i] && before[i] !== 2) || (before[i] && along(x + bx0, y + by0) <= hemEnd) ? 1 : 0;
      }
    }
    const depth = distanceTransform(inPerson, bw, bh, 'unset');
    const total = seamK + past;
    const arm = ribbon(A, end, (t) => {
      const q = t * total;
      return q >= seamK ? rb : rs + ((rb - rs) * q) / seamK;
    }, depth, bx0, by0, bw);
    // the sleeve's fill the parsing calls torso (its cap over the shoulder): inside the arm's
    // outline it is the arm's skin, beyond it on the arm's outer side backdrop; on its inner side
    // (towards the chest) it stays the membrane's
    const midX = (L.leftShoulder.x + L.rightShoulder.x) / 2;
    const outward = (S.x - midX) * -uy >= 0 ? 1 : -1;
    for (let y = by0; y < by0 + bh; y++) {
      for (let x = bx0; x < bx0 + bw; x++) {
        const i = y * w + x;
        const trimmed = fill[i] === 2 && before[i] === 2;
        if ((fill[i] !== 1 && !trimmed) || owner[i] >= 0 || taken[i] || (!trimmed && parts[i] !== PERSON_PART.torso && parts[i] !== PERSON_PART.arm) || !mine(x, y)) continue;
        const t = (x - A.x) * ux + (y - A.y) * uy;
        if (t > hemEnd) continue;
        const q = place(arm, x, y);
        const side = (ux * (y - A.y) - uy * (x - A.x)) * outward;
        if (q.sd <= 0.75 || (!trimmed && side > 0 && t >= -rs && t <= seamK)) {
          owner[i] = k;
          fill[i] = 1;
          grow(x, y);
        }
      }
    }
    // the hem's contact shadow on the bare arm (no sleeve casts it now): the bare arm inside the
    // drawn outline down to SHADOW past where the fill ends on its line along the arm (a slanting
    // hem ends lower on one side), drawn over
    const acrossArm = (x: number, y: number) => Math.round(ux * (y - A.y) - uy * (x - A.x));
    const span = Math.ceil(1.5 * rs) + 2;
    const hemAt = new Float32Array(2 * span + 1).fill(-Infinity);
    for (let y = ob[1]; y <= ob[3]; y++) {
      for (let x = ob[0]; x <= ob[2]; x++) {
        if (owner[y * w + x] !== k) continue;
        const c = acrossArm(x, y) + span;
        if (c >= 0 && c <= 2 * span) hemAt[c] = Math.max(hemAt[c], (x - A.x) * ux + (y - A.y) * uy);
      }
    }
    const shadow = Math.max(4, SHADOW * sw);
    for (let y = Math.max(y0, by0); y <= Math.min(y1, by0 + bh - 1); y++) {
      for (let x = Math.max(x0, bx0); x <= Math.min(x1, bx0 + bw - 1); x++) {
        const i = y * w + x;
        if (!bareCrop[(y - y0) * cw + x - x0] || owner[i] >= 0) continue;
        const c = acrossArm(x, y) + span;
        if (c < 0 || c > 2 * span || (x - A.x) * ux + (y - A.y) * uy > hemAt[c] + shadow || place(arm, x, y).sd > 0) continue;
        owner[i] = k;
        fill[i] = 1;
        source[i] = 0;
        grow(x, y);
      }
    }
    // the old sleeve's soft outline beside the person (its colour mixed into the backdrop's) goes
    // with it: repainted as backdrop
    const halo = dilate(ownCrop, cw, ch, 4);
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const i = y * w + x;
        if (halo[(y - y0) * cw + x - x0] && !mask[i] && !before[i] && !covered(i) && along(x, y) <= hemEnd) fill[i] = 2;
      }
    }
    const drawn = paintRibbons(owner, k, ob, [arm], source, fill, mask, covered, w, h, [bx0, by0, bw, bh]);
    if (!drawn) continue;
    const tone = lin.map((v) => quantile(v, 0.5));
    const profile = wristProfile(img, w, source, [x0, y0, x1 + 1, y1 + 1], arm, seamK + SHADOW * sw, tone, 0);
    out.push({ skin: drawn.skin, source, backdrop: (noBackdrop ??= new Uint8Array(n)), sleeveLine: [], tone, profile, across: drawn.across, box: [bx0, by0, bx0 + bw, by0 + bh], band: drawn.band, seam: drawn.seam, wristWidth: 2 * rb, elbow: { x: E.x, y: E.y }, wrist: B });
  }
  return out;
}

/**
 * Paints one limb's ribbons over the fill pixels it owns (`owner` k, in box `ob`, inclusive):
 * inside the outline (anti-aliased over 1.5 px) skin, outside it backdrop (`fill` 2, in place);
 * skin cut off from the limb's main piece (within the crop [bx0, by0, bw, bh]) is backdrop too.
 * `own` marks the photo's skin the limb grows from (its first pixels are skin whatever the outline
 * says). Returns the skin, each skin pixel's position across the limb, the outline's pixels and
 * where the skin meets the photo's other pixels; null when nothing is painted.
 */
function paintRibbons(owner: Int8Array, k: number, ob: number[], ribbons: Ribbon[], own: Uint8Array, fill: Uint8Array, mask: Uint8Array, covered: (i: number) => boolean, w: number, h: number, crop: [number, number, number, number]) {
  const n = w * h;
  const [bx0, by0, bw, bh] = crop;
  const skin = new Uint8Array(n);
  // per pixel of the skin: its position across the limb (-1..1 edge to edge)
  const across = new Float32Array(n);
  const band: Forearm['band'] = [];
  let painted = 0;
  for (let y = ob[1]; y <= ob[3]; y++) for (let x = ob[0]; x <= ob[2]; x++) {
    const i = y * w + x;
    if (owner[i] !== k) continue;
    const q = nearest(ribbons, x, y);
    // a ramp of 1.5 px across the outline
    const a = Math.max(0, Math.min(1, (0.75 - q.sd) / 1.5));
    if (a >= 0.5 || own[i]) {
      skin[i] = 1;
      painted++;
      across[i] = acrossAt(ribbons, x, y, q.u);
    } else fill[i] = 2;
    if (a > 0 && a < 1) band.push({ i, a, gx: q.gx, gy: q.gy });
  }
  // the limb is one piece: skin cut off from it (the old sleeve's rim beside a new puffed sleeve
  // that hides the upper arm) is backdrop
  const skinCrop = new Uint8Array(bw * bh);
  for (let y = 0; y < bh; y++) for (let x = 0; x < bw; x++) skinCrop[y * bw + x] = skin[(y + by0) * w + x + bx0];
  const main = largestComponent(skinCrop, bw, bh, { connectivity: 8 });
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      const i = (y + by0) * w + x + bx0;
      if (!skin[i] || main[y * bw + x]) continue;
      skin[i] = 0;
      fill[i] = 2;
      painted--;
    }
  }
  if (!painted) return null;
  // where the skin meets what the photo keeps beside it (not the skin it grows from, not a fill):
  // a staircase of the old sleeve's parsing, softened
  const seam = new Set<number>();
  for (let y = Math.max(1, ob[1]); y <= Math.min(h - 2, ob[3]); y++) {
    for (let x = Math.max(1, ob[0]); x <= Math.min(w - 2, ob[2]); x++) {
      const i = y * w + x;
      if (!skin[i]) continue;
      for (const j of [i - 1, i + 1, i - w, i + w]) {
        if (skin[j] || fill[j] || own[j] || !mask[j] || covered(j)) continue;
        seam.add(i);
        seam.add(j);
      }
    }
  }
  return { skin, across, band, seam: [...seam] };
}

/**
 * Anti-aliases each forearm's outline once its skin (in the light across it) and the backdrop
 * beside it are synthesised on the canvas (linear RGB): a pixel on it mixes the arm's colour and
 * what lies beyond by its coverage, each taken from the nearest pixel of its side along the
 * outline's normal; where the arm meets the photo's own pixels instead, the two sides are blended
 * over 3 px. The old sleeve's edge line between repainted backdrop (`backdrop`) takes its colour.
 */
export function finishForearms(canvas: Float32Array, forearms: Forearm[], w: number, h: number, backdrop: (i: number) => boolean = () => false): void {
  for (const f of forearms) {
    const mixed: { i: number; v: number[] }[] = [];
    const pick = (i: number, gx: number, gy: number, inside: boolean) => {
      const x = i % w;
      const y = (i / w) | 0;
      for (let s = 1; s <= 3; s++) {
        const xx = Math.round(x + gx * s);
        const yy = Math.round(y + gy * s);
        if (xx < 0 || yy < 0 || xx >= w || yy >= h) break;
        const j = yy * w + xx;
        if (!!f.skin[j] === inside) return j;
      }
      return -1;
    };
    for (const { i, a, gx, gy } of f.band) {
      const own = !!f.skin[i];
      const j = own ? pick(i, gx, gy, false) : pick(i, -gx, -gy, true);
      if (j < 0) continue;
      const arm = own ? i : j;
      const beyond = own ? j : i;
      mixed.push({ i, v: [0, 1, 2].map((c) => a * canvas[arm * 3 + c] + (1 - a) * canvas[beyond * 3 + c]) });
    }
    for (const { i, v } of mixed) for (let c = 0; c < 3; c++) canvas[i * 3 + c] = v[c];
    // the join with the photo's own pixels beside the arm: each side's pixel the mean of its 3x3
    const soft = f.seam.map((i) => {
      const v = [0, 0, 0];
      for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) for (let c = 0; c < 3; c++) v[c] += canvas[(i + dy * w + dx) * 3 + c] / 9;
      return v;
    });
    f.seam.forEach((i, k) => {
      for (let c = 0; c < 3; c++) canvas[i * 3 + c] = soft[k][c];
    });
    // the sleeve's edge line: the median of the repainted backdrop within 2 px
    const line = new Set(f.sleeveLine);
    const edge = f.sleeveLine.map((i) => {
      const x = i % w;
      const y = (i / w) | 0;
      const v: number[][] = [[], [], []];
      for (let dy = -2; dy <= 2; dy++) {
        for (let dx = -2; dx <= 2; dx++) {
          const xx = x + dx;
          const yy = y + dy;
          const j = yy * w + xx;
          if (xx < 0 || yy < 0 || xx >= w || yy >= h || line.has(j) || !backdrop(j)) continue;
          for (let c = 0; c < 3; c++) v[c].push(canvas[j * 3 + c]);
        }
      }
      return v[0].length ? v.map((q) => quantile(q, 0.5)) : null;
    });
    f.sleeveLine.forEach((i, k) => {
      const v = edge[k];
      if (v) for (let c = 0; c < 3; c++) canvas[i * 3 + c] = v[c];
    });
  }
}

/** The wrist's join is read over this many px each side of where the painted skin meets the hand's own. */
const JOIN_BAND = 4;

/**
 * How well a drawn forearm joins its hand once painted (canvas: linear RGB): the CIE76 distance
 * between the median colour of the painted skin within JOIN_BAND px of the hand's own pixels and
 * the median of the hand's own pixels within JOIN_BAND px of the painted skin, both off the arm's
 * outline (pixels within 2 px of anything but the two, backdrop or trousers, left out). A forearm
 * drawn in the hand's light joins it without a step; a flat band of another tone does not. null:
 * too few pixels on either side to tell.
 */
export function wristJoin(canvas: Float32Array, f: Forearm, w: number, h: number): number | null {
  const band = JOIN_BAND;
  const [x0, y0, x1, y1] = f.box;
  // the box around the hand and the arm: the hand's pixels may lie beyond the forearm's box
  let hx0 = x0;
  let hy0 = y0;
  let hx1 = x1;
  let hy1 = y1;
  for (let i = 0; i < f.source.length; i++) {
    if (!f.source[i]) continue;
    const x = i % w;
    const y = (i / w) | 0;
    if (x < hx0) hx0 = x;
    if (y < hy0) hy0 = y;
    if (x + 1 > hx1) hx1 = x + 1;
    if (y + 1 > hy1) hy1 = y + 1;
  }
  const bx0 = Math.max(0, hx0 - band);
  const by0 = Math.max(0, hy0 - band);
  const bw = Math.min(w, hx1 + band) - bx0;
  const bh = Math.min(h, hy1 + band) - by0;
  const painted = new Uint8Array(bw * bh);
  const own = new Uint8Array(bw * bh);
  const other = new Uint8Array(bw * bh);
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      const i = (y + by0) * w + x + bx0;
      const c = y * bw + x;
      if (f.skin[i]) painted[c] = 1;
      else if (f.source[i]) own[c] = 1;
      else other[c] = 1;
    }
  }
  const nearPainted = dilate(painted, bw, bh, band);
  const nearOwn = dilate(own, bw, bh, band);
  const nearOther = dilate(other, bw, bh, 2);
  const sides: number[][][] = [[[], [], []], [[], [], []]];
  const lab = [0, 0, 0];
  for (let c = 0; c < bw * bh; c++) {
    if (nearOther[c]) continue;
    const side = painted[c] && nearOwn[c] ? 0 : own[c] && nearPainted[c] ? 1 : -1;
    if (side < 0) continue;
    const i = (((c / bw) | 0) + by0) * w + (c % bw) + bx0;
    srgbToLab(linearToSrgb(canvas[i * 3]), linearToSrgb(canvas[i * 3 + 1]), linearToSrgb(canvas[i * 3 + 2]), lab);
    for (let k = 0; k < 3; k++) sides[side][k].push(lab[k]);
  }
  if (sides[0][0].length < 15 || sides[1][0].length < 15) return null;
  return deltaE76(sides[0].map((v) => quantile(v, 0.5)), sides[1].map((v) => quantile(v, 0.5)));
}
