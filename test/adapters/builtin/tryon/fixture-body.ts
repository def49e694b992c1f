/**
 * A drawn front-view body (head, neck, torso, arms down, legs, feet) with its mask, an ellipsoidal
 * depth map and landmarks, for try-on tests that must not depend on the parametric renderer.
 * 768x1024 like the renderer's standard size; about 170 cm from head top to sole.
 */
import type { BodyLandmarks, BodyRender, Point } from '../../../../core/twins/body.ts';

interface Capsule {
  a: Point;
  b: Point;
  ra: number;
  rb: number;
}

const W = 768;
const H = 1024;
const CX = W / 2;

/** Torso half width by row (knots), subject centred at CX. */
const TORSO: [number, number][] = [
  [184, 24],
  [196, 58],
  [210, 94],
  [228, 100],
  [290, 90],
  [320, 90],
  [440, 72],
  [540, 96],
  [578, 94],
];

function torsoHalfWidth(y: number): number {
  if (y < TORSO[0][0] || y > TORSO[TORSO.length - 1][0]) return -1;
  for (let i = 1; i < TORSO.length; i++) {
    const [y0, w0] = TORSO[i - 1];
    const [y1, w1] = TORSO[i];
    if (y <= y1) return w0 + ((w1 - w0) * (y - y0)) / (y1 - y0);
  }
  return -1;
}

function capsules(): Capsule[] {
  const out: Capsule[] = [];
  for (const s of [1, -1]) {
    const P = (x: number, y: number): Point => ({ x: CX + s * x, y });
    out.push({ a: P(102, 230), b: P(128, 400), ra: 23, rb: 18 }); // upper arm
    out.push({ a: P(128, 400), b: P(140, 545), ra: 18, rb: 13 }); // forearm
    out.push({ a: P(142, 560), b: P(146, 610), ra: 17, rb: 14 }); // hand
    out.push({ a: P(48, 560), b: P(44, 770), ra: 48, rb: 31 }); // thigh
    out.push({ a: P(44, 770), b: P(40, 950), ra: 29, rb: 16 }); // shin
    out.push({ a: P(42, 962), b: P(58, 982), ra: 17, rb: 14 }); // foot, toes turned slightly out
  }
  out.push({ a: { x: CX, y: 150 }, b: { x: CX, y: 196 }, ra: 25, rb: 27 }); // neck
  return out;
}

/** Depth (towards the viewer) of a point inside a tapered capsule, or -1 outside. */
function capsuleDepth(c: Capsule, x: number, y: number): number {
  const vx = c.b.x - c.a.x;
  const vy = c.b.y - c.a.y;
  const len2 = vx * vx + vy * vy;
  let t = ((x - c.a.x) * vx + (y - c.a.y) * vy) / len2;
  t = Math.max(0, Math.min(1, t));
  const px = c.a.x + t * vx;
  const py = c.a.y + t * vy;
  const r = c.ra + (c.rb - c.ra) * t;
  const d2 = (x - px) ** 2 + (y - py) ** 2;
  if (d2 > r * r) return -1;
  return Math.sqrt(r * r - d2) * 0.9 + 4;
}

function sample(x: number, y: number, parts: Capsule[]): { depth: number; part: 'skin' | 'briefs' | 'hair' } | null {
  let depth = -1;
  // head: an ellipse
  const hx = (x - CX) / 52;
  const hy = (y - 102) / 64;
  if (hx * hx + hy * hy <= 1) depth = Math.max(depth, Math.sqrt(1 - hx * hx - hy * hy) * 46 + 6);
  const hw = torsoHalfWidth(y);
  if (hw > 0 && Math.abs(x - CX) <= hw) {
    const u = (x - CX) / hw;
    depth = Math.max(depth, Math.sqrt(1 - u * u) * 52 + 6);
  }
  for (const c of parts) depth = Math.max(depth, capsuleDepth(c, x, y));
  if (depth < 0) return null;
  const hair = hy < -0.35 && hx * hx + hy * hy <= 1;
  const thighs = Math.abs(x - CX) < 98 && y > 520 && y < 612 - Math.abs(x - CX) * 0.25;
  return { depth, part: hair ? 'hair' : thighs ? 'briefs' : 'skin' };
}

const COLOURS = { skin: [222, 178, 146], briefs: [86, 88, 96], hair: [62, 44, 34] } as const;

/** Renders the fixture body; `background` picks the backdrop colour (to test background handling). */
export function fixtureBody(opts: { background?: [number, number, number] } = {}): BodyRender {
  const parts = capsules();
  const bg = opts.background ?? [214, 222, 232];
  const data = new Uint8Array(W * H * 4);
  const mask = new Uint8Array(W * H);
  const depth = new Float32Array(W * H);
  const light = { x: -0.35, y: -0.45, z: 0.82 };
  const subs = [0.25, 0.75];
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      let r = 0;
      let g = 0;
      let b = 0;
      let inside = 0;
      for (const sy of subs) {
        for (const sx of subs) {
          const s = sample(x + sx, y + sy, parts);
          let c: readonly number[];
          if (!s) {
            const k = 1 - 0.08 * (y / H);
            c = [bg[0] * k, bg[1] * k, bg[2] * k];
          } else {
            inside++;
            // simple Lambert shading from the local depth slope
            const dzx = (sample(x + sx + 1, y + sy, parts)?.depth ?? 0) - s.depth;
            const dzy = (sample(x + sx, y + sy + 1, parts)?.depth ?? 0) - s.depth;
            const nx = -Math.max(-3, Math.min(3, dzx));
            const ny = -Math.max(-3, Math.min(3, dzy));
            const nl = Math.hypot(nx, ny, 1);
            const lam = Math.max(0, (nx * light.x + ny * light.y + light.z) / nl);
            const k = 0.45 + 0.6 * lam;
            const base = COLOURS[s.part];
            c = [base[0] * k, base[1] * k, base[2] * k];
          }
          r += c[0];
          g += c[1];
          b += c[2];
        }
      }
      data[i * 4] = Math.min(255, Math.round(r / 4));
      data[i * 4 + 1] = Math.min(255, Math.round(g / 4));
      data[i * 4 + 2] = Math.min(255, Math.round(b / 4));
      data[i * 4 + 3] = 255;
      if (inside >= 2) {
        mask[i] = 255;
        depth[i] = sample(x + 0.5, y + 0.5, parts)?.depth ?? 1;
      }
    }
  }
  return { image: { width: W, height: H, data }, mask, depth, landmarks: LANDMARKS, pixelsPerCm: 950 / 170, pose: 'standing_arms_down' };
}

const P = (dx: number, y: number): Point => ({ x: CX + dx, y });

/** Subject's left is image right. */
export const LANDMARKS: BodyLandmarks = {
  headTop: P(0, 38),
  chin: P(0, 164),
  faceCenter: P(0, 108),
  faceSize: 96,
  neck: P(0, 188),
  leftShoulder: P(104, 214),
  rightShoulder: P(-104, 214),
  leftElbow: P(128, 400),
  rightElbow: P(-128, 400),
  leftWrist: P(140, 545),
  rightWrist: P(-140, 545),
  chestLeft: P(90, 320),
  chestRight: P(-90, 320),
  waistLeft: P(72, 440),
  waistRight: P(-72, 440),
  hipLeft: P(96, 540),
  hipRight: P(-96, 540),
  crotch: P(0, 596),
  leftKnee: P(44, 770),
  rightKnee: P(-44, 770),
  leftAnkle: P(40, 950),
  rightAnkle: P(-40, 950),
  leftToe: P(62, 988),
  rightToe: P(-62, 988),
};

/** Which fixture pixels belong to the torso (between the shoulders and the waist, arms excluded). */
export function torsoRegion(x: number, y: number): boolean {
  const hw = torsoHalfWidth(y);
  return hw > 0 && Math.abs(x - CX) <= hw;
}

export { W as FIXTURE_WIDTH, H as FIXTURE_HEIGHT };
