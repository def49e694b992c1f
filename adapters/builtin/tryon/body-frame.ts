/**
 * Geometry derived from a BodyRender for fitting garments: landmarks by image side, armpits,
 * arm and leg axes with widths measured on the mask, the body's horizontal extent per row with the
 * arms left out, an arm mask (so torso garments do not paint over hanging arms) and the distance
 * of every pixel from the body.
 */
import type { BodyRender, Point } from '../../../core/twins/body.ts';
import { distanceTransform } from '../raster/distance-transform.ts';

/** Landmarks of one image side (image left is the subject's right). */
export interface SideLandmarks {
  shoulder: Point;
  elbow: Point;
  wrist: Point;
  chest: Point;
  waist: Point;
  hip: Point;
  knee: Point;
  ankle: Point;
  toe: Point;
  armpit: Point;
  /** Hip joint: between the hip outline and the crotch, at hip height. */
  hipJoint: Point;
}

export type ImageSide = 'left' | 'right';

function lerp(a: Point, b: Point, t: number): Point {
  return { x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t };
}

/** The point at arc length `dist` along a polyline (extrapolating past its end) and its unit direction. */
export function alongPolyline(pts: Point[], dist: number): { p: Point; dir: Point } {
  let left = dist;
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1];
    const b = pts[i];
    const len = Math.hypot(b.x - a.x, b.y - a.y) || 1e-9;
    const dir = { x: (b.x - a.x) / len, y: (b.y - a.y) / len };
    if (left <= len || i === pts.length - 1) return { p: { x: a.x + dir.x * left, y: a.y + dir.y * left }, dir };
    left -= len;
  }
  return { p: pts[0], dir: { x: 0, y: 1 } };
}

export function polylineLength(pts: Point[]): number {
  let s = 0;
  for (let i = 1; i < pts.length; i++) s += Math.hypot(pts[i].x - pts[i - 1].x, pts[i].y - pts[i - 1].y);
  return s;
}

/** Beyond this many shoulder widths apart, the hips' outline and their joints disagree. */
const HIPS_DISAGREE = 0.2;

/**
 * The middle of the hips at their row: their outline's, unless it lies far off the hip joints'
 * middle (the crotch's x): a seated pose's thigh reaching sideways (or a side pose) widens the
 * outline at that row, and its middle leaves the trunk. `unsure` is set then.
 */
export function hipsMiddle(L: BodyRender['landmarks']): { x: number; y: number; unsure: boolean } {
  const sw = Math.hypot(L.leftShoulder.x - L.rightShoulder.x, L.leftShoulder.y - L.rightShoulder.y);
  const outline = (L.hipLeft.x + L.hipRight.x) / 2;
  const unsure = Math.abs(outline - L.crotch.x) > HIPS_DISAGREE * sw;
  return { x: unsure ? L.crotch.x : outline, y: L.hipLeft.y, unsure };
}

export class BodyFrame {
  readonly body: BodyRender;
  readonly width: number;
  readonly height: number;
  readonly left: SideLandmarks;
  readonly right: SideLandmarks;
  readonly shoulderWidth: number;
  #armMask: Uint8Array | undefined;
  #dist: Float32Array | undefined;
  #armHalf = new Map<ImageSide, number>();

  constructor(body: BodyRender) {
    this.body = body;
    this.width = body.image.width;
    this.height = body.image.height;
    const L = body.landmarks;
    const side = (s: ImageSide): SideLandmarks => {
      // image left is the subject's right
      const r = s === 'left';
      const marked = r ? L.rightShoulder : L.leftShoulder;
      // estimated landmarks (person photos) may sit below the shoulder's outline: lift them onto it
      const shoulder = { x: marked.x, y: Math.min(marked.y, this.topAt(marked.x, L.chin.y, marked.y) + 1) };
      const chest = r ? L.chestRight : L.chestLeft;
      const hip = r ? L.hipRight : L.hipLeft;
      return {
        shoulder,
        elbow: r ? L.rightElbow : L.leftElbow,
        wrist: r ? L.rightWrist : L.leftWrist,
        chest,
        waist: r ? L.waistRight : L.waistLeft,
        hip,
        knee: r ? L.rightKnee : L.leftKnee,
        ankle: r ? L.rightAnkle : L.leftAnkle,
        toe: r ? L.rightToe : L.leftToe,
        // the armpit sits about 70% of the way from the shoulder down to the chest line
        armpit: { x: chest.x, y: shoulder.y + 0.7 * (chest.y - shoulder.y) },
        hipJoint: { x: (hip.x + L.crotch.x) / 2, y: hip.y },
      };
    };
    this.left = side('left');
    this.right = side('right');
    this.shoulderWidth = Math.hypot(this.right.shoulder.x - this.left.shoulder.x, this.right.shoulder.y - this.left.shoulder.y);
  }

  get landmarks() {
    return this.body.landmarks;
  }

  side(s: ImageSide): SideLandmarks {
    return s === 'left' ? this.left : this.right;
  }

  /** Outward sign of an image side: -1 for the left, +1 for the right. */
  static sign(s: ImageSide): number {
    return s === 'left' ? -1 : 1;
  }

  /** x of the body's centre line at row y (through the neck, the waist centre and the crotch). */
  centreX(y: number): number {
    const L = this.landmarks;
    const waistC = (L.waistLeft.x + L.waistRight.x) / 2;
    if (y <= L.neck.y) return L.neck.x;
    if (y <= L.waistLeft.y) return L.neck.x + (waistC - L.neck.x) * ((y - L.neck.y) / Math.max(1, L.waistLeft.y - L.neck.y));
    if (y <= L.crotch.y) return waistC + (L.crotch.x - waistC) * ((y - L.waistLeft.y) / Math.max(1, L.crotch.y - L.waistLeft.y));
    return L.crotch.x;
  }

  inside(x: number, y: number): boolean {
    const xi = Math.round(x);
    const yi = Math.round(y);
    return xi >= 0 && yi >= 0 && xi < this.width && yi < this.height && this.body.mask[yi * this.width + xi] >= 128;
  }

  /** First body row in column x between fromY and toY (toY when there is none). */
  topAt(x: number, fromY: number, toY: number): number {
    const xi = Math.round(Math.max(0, Math.min(this.width - 1, x)));
    for (let y = Math.max(0, Math.round(fromY)); y <= Math.min(this.height - 1, Math.round(toY)); y++) {
      if (this.body.mask[y * this.width + xi] >= 128) return y;
    }
    return toY;
  }

  /** Distance from a point along a direction to the first pixel outside the body (capped). */
  march(p: Point, dir: Point, cap: number): number {
    for (let d = 0; d <= cap; d += 1) if (!this.inside(p.x + dir.x * d, p.y + dir.y * d)) return d;
    return cap;
  }

  /**
   * Half width of one arm, measured across the forearm and the upper arm on the mask. An arm may
   * touch the torso, so each measurement is the nearer of the two edges from the axis (the elbow
   * and wrist landmarks are on the axis); the upper arm is about 15% thicker than the forearm.
   */
  armHalfWidth(s: ImageSide): number {
    const cached = this.#armHalf.get(s);
    if (cached !== undefined) return cached;
    const sd = this.side(s);
    const cap = this.shoulderWidth * 0.2;
    const across = (a: Point, b: Point) => {
      const m = lerp(a, b, 0.5);
      const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
      const n = { x: -(b.y - a.y) / len, y: (b.x - a.x) / len };
      return Math.min(this.march(m, n, cap), this.march(m, { x: -n.x, y: -n.y }, cap));
    };
    const half = Math.max(2, across(sd.elbow, sd.wrist) * 1.15, across(sd.shoulder, sd.elbow));
    this.#armHalf.set(s, half);
    return half;
  }

  /** Torso half-width on one side at row y, interpolated between the chest, waist and hip landmarks. */
  torsoHalf(s: ImageSide, y: number): number {
    const sd = this.side(s);
    const knots = [sd.chest, sd.waist, sd.hip].map((p) => ({ y: p.y, h: Math.abs(p.x - this.centreX(p.y)) }));
    if (y <= knots[0].y) return knots[0].h;
    for (let i = 1; i < knots.length; i++) {
      if (y <= knots[i].y) return knots[i - 1].h + ((knots[i].h - knots[i - 1].h) * (y - knots[i - 1].y)) / Math.max(1, knots[i].y - knots[i - 1].y);
    }
    return knots[knots.length - 1].h;
  }

  /** Direction of the upper arm and its outward normal (away from the body's centre). */
  upperArm(s: ImageSide): { u: Point; n: Point } {
    const sd = this.side(s);
    const len = Math.hypot(sd.elbow.x - sd.shoulder.x, sd.elbow.y - sd.shoulder.y) || 1;
    const u = { x: (sd.elbow.x - sd.shoulder.x) / len, y: (sd.elbow.y - sd.shoulder.y) / len };
    let n = { x: -u.y, y: u.x };
    if (n.x * BodyFrame.sign(s) < 0) n = { x: -n.x, y: -n.y };
    return { u, n };
  }

  /**
   * The outer edge of the shoulder (top of the deltoid): renderers differ in whether the shoulder
   * landmark is the joint or the outline point, so march from it to the mask's edge.
   */
  shoulderTip(s: ImageSide): Point {
    const sd = this.side(s);
    const { n } = this.upperArm(s);
    const d = this.march(sd.shoulder, n, this.armHalfWidth(s) * 2);
    return { x: sd.shoulder.x + n.x * d, y: sd.shoulder.y + n.y * d };
  }

  /** The shoulder joint: an arm's half-width in from the shoulder's outer edge. */
  shoulderJoint(s: ImageSide): Point {
    const tip = this.shoulderTip(s);
    const { n } = this.upperArm(s);
    const half = this.armHalfWidth(s);
    return { x: tip.x - n.x * half, y: tip.y - n.y * half };
  }

  /** Arm axis (shoulder joint, elbow, wrist, hand tip) of one image side. */
  armAxis(s: ImageSide): Point[] {
    const sd = this.side(s);
    const hand = { x: sd.wrist.x + (sd.wrist.x - sd.elbow.x) * 0.5, y: sd.wrist.y + (sd.wrist.y - sd.elbow.y) * 0.5 };
    return [this.shoulderJoint(s), sd.elbow, sd.wrist, hand];
  }

  /** Body pixels of both arms and hands below the armpits (capsules along the arm axes, within the mask). */
  get armMask(): Uint8Array {
    if (this.#armMask) return this.#armMask;
    const m = new Uint8Array(this.width * this.height);
    for (const s of ['left', 'right'] as const) {
      const axis = this.armAxis(s);
      const r = this.armHalfWidth(s) * 1.05 + 1.5;
      const armpitY = this.side(s).armpit.y;
      for (let i = 1; i < axis.length; i++) {
        const a = axis[i - 1];
        const b = axis[i];
        const rr = i === axis.length - 1 ? r * 1.25 : r;
        const x0 = Math.max(0, Math.floor(Math.min(a.x, b.x) - rr));
        const x1 = Math.min(this.width - 1, Math.ceil(Math.max(a.x, b.x) + rr));
        const y0 = Math.max(0, Math.floor(Math.max(armpitY, Math.min(a.y, b.y) - rr)));
        const y1 = Math.min(this.height - 1, Math.ceil(Math.max(a.y, b.y) + rr));
        const vx = b.x - a.x;
        const vy = b.y - a.y;
        const len2 = vx * vx + vy * vy || 1;
        for (let y = y0; y <= y1; y++) {
          for (let x = x0; x <= x1; x++) {
            const t = Math.max(0, Math.min(1, ((x - a.x) * vx + (y - a.y) * vy) / len2));
            const i = y * this.width + x;
            // pixels within the torso's landmark outline stay torso even where the arm's capsule overlaps it
            if (Math.abs(x - this.centreX(y)) < this.torsoHalf(s, y) - 1) continue;
            if (this.body.mask[i] >= 128 && (x - a.x - t * vx) ** 2 + (y - a.y - t * vy) ** 2 <= rr * rr) m[i] = 255;
          }
        }
      }
    }
    this.#armMask = m;
    return m;
  }

  /**
   * Horizontal extent [left, right] of the torso or legs at row y, arms left out: the run through the
   * centre line up to the first gap or arm pixel, or below the crotch the outer ends of the leg runs
   * within reach of the centre. Null when the row is empty.
   */
  span(y: number): [number, number] | null {
    const yi = Math.round(Math.max(0, Math.min(this.height - 1, y)));
    const c = this.centreX(yi);
    const reach = Math.abs(this.left.hip.x - this.right.hip.x) * 0.75 + this.shoulderWidth * 0.1;
    const row = yi * this.width;
    const arms = this.armMask;
    const on = (x: number) => x >= 0 && x < this.width && this.body.mask[row + x] >= 128 && !arms[row + x];
    const ci = Math.round(c);
    if (on(ci)) {
      // the torso's run: walk out from the centre to the first gap or arm pixel
      let lo = ci;
      let hi = ci;
      while (on(lo - 1) && ci - lo < reach) lo--;
      while (on(hi + 1) && hi - ci < reach) hi++;
      return [lo, hi];
    }
    // between the legs: the outer extent of the leg runs
    let lo = -1;
    let hi = -1;
    for (let x = Math.max(0, Math.floor(c - reach)); x <= Math.min(this.width - 1, Math.ceil(c + reach)); x++) {
      if (this.body.mask[row + x] < 128 || arms[row + x]) continue;
      if (lo < 0) lo = x;
      hi = x;
    }
    return lo < 0 ? null : [lo, hi];
  }

  /** The span at y, or the given fallback half-width around the centre when the row is empty. */
  spanOr(y: number, fallbackHalf: number): [number, number] {
    const c = this.centreX(y);
    return this.span(y) ?? [c - fallbackHalf, c + fallbackHalf];
  }

  /** Leg axis of one image side: hip joint, knee, ankle. */
  legAxis(s: ImageSide): Point[] {
    const sd = this.side(s);
    return [sd.hipJoint, sd.knee, sd.ankle];
  }

  /** x of a leg's axis at row y (linear along hip joint - knee - ankle). */
  legAxisX(s: ImageSide, y: number): number {
    const [h, k, a] = this.legAxis(s);
    if (y <= k.y) return h.x + (k.x - h.x) * ((y - h.y) / Math.max(1, k.y - h.y));
    return k.x + (a.x - k.x) * ((y - k.y) / Math.max(1, a.y - k.y));
  }

  /** Outer and inner edges of one leg at row y, measured on the mask from the leg axis. */
  legEdges(s: ImageSide, y: number): { outer: number; inner: number } {
    const sign = BodyFrame.sign(s);
    const x = this.legAxisX(s, y);
    const cap = this.shoulderWidth * 0.5;
    const out = this.march({ x, y }, { x: sign, y: 0 }, cap);
    const inn = this.march({ x, y }, { x: -sign, y: 0 }, cap);
    return { outer: x + sign * out, inner: x - sign * inn };
  }

  /** Euclidean distance of every pixel from the body mask (0 inside). */
  get distance(): Float32Array {
    if (!this.#dist) {
      const m = new Uint8Array(this.width * this.height);
      for (let i = 0; i < m.length; i++) m[i] = this.body.mask[i] >= 128 ? 255 : 0;
      this.#dist = distanceTransform(m, this.width, this.height);
    }
    return this.#dist;
  }
}
