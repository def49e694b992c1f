/**
 * A dress (full-body garment) on a person photo (learned parsing available). The packshot is
 * mapped row by row: its top onto the person's shoulder line, its waist (the narrowest row of the
 * bodice) onto the body's waist and its hem to the length the garment has at that scale (kept
 * between mid-thigh and the ankles). Down to the hips each garment row is fitted to the torso's
 * edges (arms left out); below them the skirt keeps its own width at the hip's scale, never
 * narrower than the legs. Face, hair and bare arms stay in front. What the dress leaves visible of
 * the old clothes (trouser legs below a short hem, sleeves, a wider or longer old skirt) is
 * repainted: skin on the legs' and arms' own shape, the background beside the body elsewhere.
 */
import type { RasterImage } from '../../../core/images.ts';
import { PERSON_PART, type PersonBody } from '../../../core/ports/person-analyzer.ts';
import type { Point } from '../../../core/twins/body.ts';
import { prepareSource, sampleBilinear } from './garment-source.ts';
import { distanceTransform } from '../raster/distance-transform.ts';
import { looksLikeSkin, skinColour, skinGrainStd, synthesiseFill } from './photo-fill.ts';
import { createWarpMaps, type WarpMaps } from './warp-quality.ts';
import type { GarmentCutout } from './segment-garment.ts';
import { putSample, type Layer } from './warp-piece.ts';

type Body = PersonBody & { parts: Uint8Array };
const median = (v: number[]) => {
  const s = v.slice().sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : 0;
};
const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));

/** The packshot's dress: its rows, centre, the run through the centre per row, waist and bust rows. */
interface DressShape {
  top: number;
  hem: number;
  centre: number;
  waistY: number;
  waistHalf: number;
  /** First row of the full-width bodice (above it: straps, neckline, shoulders). */
  bustY: number;
  /** The garment run through the centre column of each row (x0, x1), or null. */
  runs: ([number, number] | null)[];
}

function dressShape(cut: GarmentCutout): DressShape | null {
  const w = cut.image.width;
  const box = cut.components[0]?.box;
  if (!box) return null;
  const [bx0, by0, bx1, by1] = box;
  const H = by1 - by0;
  if (H < 16 || bx1 - bx0 < 8) return null;
  const on = (x: number, y: number) => x >= 0 && x < w && cut.labels[y * w + x] === 0;
  // the centre: the middle of the garment's extent over its lower two thirds
  const mids: number[] = [];
  for (let y = Math.round(by0 + 0.35 * H); y < by1 - 0.05 * H; y += 2) {
    let x0 = bx0;
    let x1 = bx1;
    while (x0 < x1 && !on(x0, y)) x0++;
    while (x1 > x0 && !on(x1, y)) x1--;
    if (x1 > x0) mids.push((x0 + x1) / 2);
  }
  const centre = mids.length ? median(mids) : (bx0 + bx1) / 2;
  const runs: DressShape['runs'] = [];
  const c = Math.round(centre);
  for (let y = 0; y < cut.image.height; y++) {
    if (y < by0 || y > by1 || !on(c, y)) {
      runs.push(null);
      continue;
    }
    let x0 = c;
    let x1 = c;
    while (on(x0 - 1, y)) x0--;
    while (on(x1 + 1, y)) x1++;
    runs.push([x0, x1]);
  }
  // the waist: the narrowest run between 15 % and 50 % of the length
  let waistY = Math.round(by0 + 0.3 * H);
  let waistW = Infinity;
  for (let y = Math.round(by0 + 0.15 * H); y <= by0 + 0.5 * H; y++) {
    const r = runs[y];
    if (r && r[1] - r[0] < waistW) {
      waistW = r[1] - r[0];
      waistY = y;
    }
  }
  if (!Number.isFinite(waistW)) return null;
  // the bust: the first row below the neckline whose run is close to the waist's width or wider
  let bustY = Math.round(by0 + 0.5 * (waistY - by0));
  for (let y = by0; y < waistY; y++) {
    const r = runs[y];
    if (r && r[1] - r[0] >= 0.85 * waistW) {
      bustY = Math.max(y, Math.round(by0 + 0.2 * (waistY - by0)));
      break;
    }
  }
  return { top: by0, hem: by1, centre, waistY, waistHalf: waistW / 2, bustY, runs };
}

function opaque(img: RasterImage): RasterImage {
  const data = new Uint8Array(img.data);
  for (let i = 3; i < data.length; i += 4) data[i] = 255;
  return { ...img, data };
}

/** What drawing the dress measured: the packshot point drawn at each pixel, and the fill map (1 skin, 2 background). */
export interface DressFit {
  maps: WarpMaps;
  fill: Uint8Array;
  /** The region the dress must cover: the person (face, hair and bare arms left out) from its top to its hem. */
  target: Uint8Array;
}

/**
 * Draws the dress into `layer` (premultiplied linear RGBA) and repaints in `canvas` (linear RGB)
 * what stays visible of the old clothes. Throws when the packshot holds no recognisable dress.
 */
export function drawPhotoDress(layer: Layer, canvas: Float32Array, cut: GarmentCutout, packshot: RasterImage, body: Body, toLinear: ArrayLike<number>): DressFit {
  const shape = dressShape(cut);
  if (!shape) throw new Error('the dress packshot holds no garment shape to fit');
  const { width: w, height: h } = layer;
  const { parts, mask } = body;
  const L = body.landmarks;
  const n = w * h;
  const mid = (a: Point, b: Point): Point => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });
  const shoulderMid = mid(L.leftShoulder, L.rightShoulder);
  const hipMid = mid(L.hipLeft, L.hipRight);
  const kneeMid = mid(L.leftKnee, L.rightKnee);
  const ankleMid = mid(L.leftAnkle, L.rightAnkle);
  const sw = Math.hypot(L.leftShoulder.x - L.rightShoulder.x, L.leftShoulder.y - L.rightShoulder.y);
  const trunk = Math.max(1, hipMid.y - shoulderMid.y);
  const lab = [0, 0, 0];

  const skin = skinColour(body, toLinear);
  const isSkin = (i: number) => looksLikeSkin(body, i, skin, lab);
  // arms in front of the dress: bare arm pixels (a sleeve of the old top is repainted instead)
  const armFront = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (parts[i] === PERSON_PART.arm && isSkin(i)) armFront[i] = 1;

  // the centre line: shoulders to hips, then down to the ankles' middle
  const centreAt = (y: number) =>
    y <= hipMid.y ? shoulderMid.x + ((hipMid.x - shoulderMid.x) * (y - shoulderMid.y)) / trunk : hipMid.x + ((ankleMid.x - hipMid.x) * (y - hipMid.y)) / Math.max(1, ankleMid.y - hipMid.y);
  // per row: the torso's edges walking out from the centre line, and the person's extent (legs apart)
  const waistLine = (L.waistLeft.y + L.waistRight.y) / 2;
  const torso: [number, number][] = [];
  const extent: [number, number][] = [];
  for (let y = 0; y < h; y++) {
    const c = Math.round(clamp(centreAt(y), 0, w - 1));
    const row = y * w;
    let x0 = c;
    let x1 = c;
    // the torso stops at bare arms and, above the waist, at the shoulder joints' width (the old top's
    // sleeves beyond it are repainted)
    const cap = y < waistLine ? 0.56 * sw : sw;
    while (x0 > 0 && mask[row + x0 - 1] && !armFront[row + x0 - 1] && c - x0 < cap) x0--;
    while (x1 < w - 1 && mask[row + x1 + 1] && !armFront[row + x1 + 1] && x1 - c < cap) x1++;
    torso.push([x0, x1]);
    let e0 = -1;
    let e1 = -1;
    for (let x = Math.max(0, Math.round(c - 0.9 * sw)); x <= Math.min(w - 1, Math.round(c + 0.9 * sw)); x++) {
      if (!mask[row + x] || armFront[row + x]) continue;
      if (e0 < 0) e0 = x;
      e1 = x;
    }
    extent.push(e0 < 0 ? [c, c] : [e0, e1]);
  }
  const smooth = (rows: [number, number][], y: number, k: 0 | 1, r = 6) => median(rows.slice(Math.max(0, y - r), Math.min(h, y + r + 1)).map((e) => e[k]));

  // vertical anchors: the garment's top onto the shoulder line, its waist onto the body's waist
  const shoulderTop = (p: Point) => {
    const xi = Math.round(clamp(p.x, 0, w - 1));
    for (let yy = Math.max(0, Math.round(p.y - 0.4 * sw)); yy <= p.y; yy++) if (mask[yy * w + xi] && parts[yy * w + xi] !== PERSON_PART.hair) return yy;
    return p.y;
  };
  const topY = (shoulderTop(L.leftShoulder) + shoulderTop(L.rightShoulder)) / 2;
  const waistY = (L.waistLeft.y + L.waistRight.y) / 2;
  const waistHalfBody = Math.max(4, (smooth(torso, Math.round(waistY), 1) - smooth(torso, Math.round(waistY), 0)) / 2);
  // a flat packshot is wider than the body seen from the front: about 1.12 times at the waist
  const sWidth = (waistHalfBody * 1.12) / shape.waistHalf;
  let s1 = (waistY - topY) / Math.max(1, shape.waistY - shape.top);
  if (s1 > sWidth * 1.35 || s1 < sWidth / 1.35) s1 = sWidth;
  const gWaistAt = topY + (shape.waistY - shape.top) * s1;
  const hemNatural = gWaistAt + (shape.hem - shape.waistY) * s1;
  const hemY = clamp(hemNatural, hipMid.y + 0.3 * (kneeMid.y - hipMid.y), Math.min(h - 1, ankleMid.y - 0.04 * trunk));
  const s2 = (hemY - gWaistAt) / Math.max(1, shape.hem - shape.waistY);
  const gyAt = (y: number) => (y < gWaistAt ? shape.top + (y - topY) / s1 : shape.waistY + (y - gWaistAt) / s2);
  const bustBody = topY + (shape.bustY - shape.top) * s1;

  const tipL = Math.min(L.rightShoulder.x, L.leftShoulder.x) - 0.12 * sw;
  const tipR = Math.max(L.rightShoulder.x, L.leftShoulder.x) + 0.12 * sw;
  const ease = 0.015 * sw;
  const runAt = (gy: number) => shape.runs[clamp(Math.round(gy), shape.top, shape.hem)];
  // the bodice panel's half width per garment row: no wider than the bust allows (sleeves beside it drop out)
  const bustRun = runAt(shape.bustY) ?? [shape.centre - shape.waistHalf, shape.centre + shape.waistHalf];
  const panelCap = Math.max((bustRun[1] - bustRun[0]) / 2, shape.waistHalf * 1.25);
  const panel = (gy: number): { c: number; half: number } => {
    const r = gy < shape.bustY ? bustRun : runAt(gy);
    if (!r) return { c: shape.centre, half: shape.waistHalf };
    return { c: (r[0] + r[1]) / 2, half: Math.min((r[1] - r[0]) / 2, panelCap) };
  };

  const src = prepareSource(cut.image, s1);
  const solid = prepareSource(opaque(packshot), s1);
  const maps = createWarpMaps(n);
  const px = new Float32Array(4);
  const blocked = (i: number) => parts[i] === PERSON_PART.face || parts[i] === PERSON_PART.hair || armFront[i] === 1;
  const solidTo = shape.hem - 0.02 * (shape.hem - shape.top);
  // the skirt's scale: body pixels per garment pixel at the hip row (continuous with the bodice)
  const hipRow = Math.round(hipMid.y);
  const hipPanel = panel(gyAt(hipRow));
  const kHip = ((smooth(torso, hipRow, 1) - smooth(torso, hipRow, 0)) / 2 + ease) / Math.max(1, hipPanel.half);

  const y0 = Math.max(0, Math.floor(topY));
  for (let y = y0; y <= Math.min(h - 1, Math.ceil(hemY)); y++) {
    const gy = gyAt(y);
    let xl: number;
    let xr: number;
    let gc: number;
    let gHalf: number;
    if (y < hipRow) {
      // the bodice, fitted to the torso; above the bust (straps, neckline, shoulders) at the bust's
      // scale, out to the shoulder tips
      const at = y < bustBody ? Math.round(bustBody) : y;
      xl = smooth(torso, at, 0) - ease;
      xr = smooth(torso, at, 1) + ease;
      ({ c: gc, half: gHalf } = panel(gy));
      if (y < bustBody) {
        const k = (xr - xl) / 2 / Math.max(1, gHalf);
        const cB = (xl + xr) / 2;
        gHalf = (Math.max(cB - tipL, tipR - cB) + ease) / k;
        xl = cB - gHalf * k;
        xr = cB + gHalf * k;
      }
    } else {
      // the skirt: its own width at the hip's scale, at least the legs' extent
      const r = runAt(gy);
      gc = r ? (r[0] + r[1]) / 2 : shape.centre;
      gHalf = r ? (r[1] - r[0]) / 2 : shape.waistHalf;
      const e0 = smooth(extent, y, 0, 12);
      const e1 = smooth(extent, y, 1, 12);
      // hanging from the hips, then centred on the legs
      const t = clamp((y - hipRow) / (0.4 * trunk), 0, 1);
      const cS = centreAt(y) * (1 - t) + ((e0 + e1) / 2) * t;
      const half = Math.max(gHalf * kHip, (e1 - e0) / 2 + ease, 1);
      xl = cS - half;
      xr = cS + half;
    }
    const cT = (xl + xr) / 2;
    const half = Math.max(1, (xr - xl) / 2);
    const run = runAt(gy);
    for (let x = Math.max(0, Math.floor(xl)); x <= Math.min(w - 1, Math.ceil(xr)); x++) {
      const i = y * w + x;
      if (blocked(i)) continue;
      const gx = gc + ((x - cT) / half) * gHalf;
      const inside = run && gy >= shape.bustY && gy < solidTo && gx > run[0] + 1 && gx < run[1] - 1;
      sampleBilinear(inside ? solid : src, gx, gy, px);
      putSample(layer, i, px);
      if (px[3] > 0.01) {
        maps.gx[i] = gx;
        maps.gy[i] = gy;
        maps.piece[i] = 1;
      }
    }
  }
  const insideTorso = (x: number, y: number) => y < hipMid.y && x > torso[y][0] && x < torso[y][1];
  const fill = hideOldClothes(canvas, layer, body, { skin, isSkin, insideTorso, sw, trunk, hipY: hipMid.y });
  const target = new Uint8Array(n);
  for (let y = Math.max(0, Math.ceil(topY)); y <= Math.min(h - 1, Math.floor(hemY)); y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (mask[i] && !blocked(i)) target[i] = 1;
    }
  }
  return { maps, fill, target };
}

interface HideContext {
  skin: ReturnType<typeof skinColour>;
  isSkin: (i: number) => boolean;
  /** Inside the torso's edges (above the hips): skin shows there when the dress does not cover it. */
  insideTorso: (x: number, y: number) => boolean;
  sw: number;
  trunk: number;
  hipY: number;
}

/**
 * Repaints the old clothes the dress leaves visible: on the legs' shape (hip, knee, ankle capsules)
 * and the arms, and on the neck and torso, with skin synthesised from the person's own visible
 * skin (photo-fill.ts: its colour, texture and the limb's shading across the new limb's width);
 * elsewhere with the backdrop around. The feet (below each ankle) stay as they were. Returns the
 * fill map (1 skin, 2 background).
 */
function hideOldClothes(canvas: Float32Array, layer: Layer, body: Body, ctx: HideContext): Uint8Array {
  const { width: w, height: h } = layer;
  const n = w * h;
  const { parts, mask } = body;
  const L = body.landmarks;
  const { sw, trunk, hipY } = ctx;
  const hipJoint = (contour: Point, other: Point): Point => ({ x: contour.x * 0.65 + other.x * 0.35, y: hipY });
  // the limbs' axes (hip or shoulder, knee or elbow, ankle or wrist) and half widths along them
  const legs = [
    [hipJoint(L.hipLeft, L.hipRight), L.leftKnee, L.leftAnkle],
    [hipJoint(L.hipRight, L.hipLeft), L.rightKnee, L.rightAnkle],
  ];
  const arms = [
    [L.leftShoulder, L.leftElbow, L.leftWrist],
    [L.rightShoulder, L.rightElbow, L.rightWrist],
  ];
  const legRadius = (t: number) => sw * (t <= 1 ? 0.21 + (0.135 - 0.21) * t : t < 1.35 ? 0.135 + 0.01 * ((t - 1) / 0.35) : 0.145 + (0.075 - 0.145) * ((t - 1.35) / 0.65));
  const armRadius = (t: number) => sw * (t <= 1 ? 0.15 + (0.1 - 0.15) * t : 0.1 + (0.075 - 0.1) * (t - 1));
  /** The distance to the nearest limb axis over its half width there (< 1 inside), or Infinity. */
  const inLimb = (limbs: Point[][], radius: (t: number) => number, x: number, y: number): number => {
    let best = Infinity;
    for (const axis of limbs) {
      for (let k = 1; k < 3; k++) {
        const a = axis[k - 1];
        const b = axis[k];
        const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
        const t = clamp(((x - a.x) * (b.x - a.x) + (y - a.y) * (b.y - a.y)) / (len * len), 0, 1);
        const d = Math.hypot(x - a.x - t * (b.x - a.x), y - a.y - t * (b.y - a.y));
        best = Math.min(best, d / radius(k - 1 + t));
      }
    }
    return best;
  };
  const footFrom = (x: number) => {
    const near = Math.abs(x - L.leftAnkle.x) < Math.abs(x - L.rightAnkle.x) ? L.leftAnkle : L.rightAnkle;
    return near.y - 0.02 * trunk;
  };
  const chestY = L.chestLeft.y;
  const shoulderX = (L.leftShoulder.x + L.rightShoulder.x) / 2;
  const fill = new Uint8Array(n);
  // the person's visible skin (the fill's source) and the new silhouette (skin shown or synthesised)
  const skinSource = new Uint8Array(n);
  const shape = new Uint8Array(n);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const p = parts[i];
      if (!mask[i]) continue;
      const skinPart = p === PERSON_PART.torso || p === PERSON_PART.legs || p === PERSON_PART.arm || p === PERSON_PART.neck || p === PERSON_PART.feet || p === PERSON_PART.face;
      if (!skinPart) {
        if (p !== PERSON_PART.background) shape[i] = 1;
        continue;
      }
      const bare = ctx.isSkin(i);
      if (bare && p !== PERSON_PART.face) skinSource[i] = 1;
      if (layer.data[i * 4 + 3] > 0.5 || p === PERSON_PART.face || y >= footFrom(x) || bare) {
        shape[i] = 1;
        continue;
      }
      const limb = Math.min(y > hipY ? inLimb(legs, legRadius, x, y) : Infinity, inLimb(arms, armRadius, x, y));
      if (limb < 1 || p === PERSON_PART.neck || ctx.insideTorso(x, y) || (y < chestY && p !== PERSON_PART.arm && Math.abs(x - shoulderX) < 0.55 * sw)) {
        fill[i] = 1;
        shape[i] = 1;
      } else fill[i] = 2;
    }
  }
  // the limb's shading follows the new silhouette (a leg's own width, not the old trouser's)
  const depth = distanceTransform(shape, w, h, 'unset');
  const own = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (skinSource[i] || (parts[i] === PERSON_PART.face && ctx.isSkin(i))) own[i] = 1;
  const skinStd = skinGrainStd(body.image.data, w, own);
  const backdrop = new Uint8Array(n);
  for (let i = 0; i < n; i++) backdrop[i] = mask[i] ? 0 : 1;
  synthesiseFill(canvas, fill, body, skinSource, depth, (i) => (parts[i] === PERSON_PART.legs ? 0.16 : 0.1) * sw, ctx.skin?.linear, skinStd, backdrop);
  return fill;
}
