/**
 * A top on a person photo (learned parsing available): the packshot's body panel is mapped row by
 * row onto the person's torso between the shoulder line and the hem (the person's own top is
 * covered: a new top shorter than it is lengthened to its hem), each sleeve is laid along its arm
 * (shoulder, elbow, wrist), and nothing is drawn over the face, the hair, arms in front of the
 * torso or the background beyond a thin margin around the person. What stays visible of the old
 * top (straps, armholes, a higher neckline) is repainted with skin or background afterwards.
 */
import type { RasterImage } from '../../../core/images.ts';
import { PERSON_PART, type PersonBody } from '../../../core/ports/person-analyzer.ts';
import type { Point } from '../../../core/twins/body.ts';
import { dilate } from '../raster/morphology.ts';
import { deltaE76, srgbToLab } from './color.ts';
import { prepareSource, sampleBilinear, type GarmentSource } from './garment-source.ts';
import type { GarmentCutout } from './segment-garment.ts';
import type { Layer } from './warp-piece.ts';

const mid = (a: Point, b: Point): Point => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });
const median = (v: number[]) => {
  const s = v.slice().sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : 0;
};

/** The packshot's body panel and sleeves, from the garment's mask. */
interface TopShape {
  centre: number;
  halfWidth: number;
  shoulderY: number;
  hemY: number;
  sleeves: { side: -1 | 1; start: Point; end: Point; halfWidth: number }[];
}

function topShape(cut: GarmentCutout): TopShape | null {
  const w = cut.image.width;
  const on = (x: number, y: number) => cut.labels[y * w + x] === 0;
  const [bx0, by0, bx1, by1] = cut.components[0]?.box ?? [0, 0, 0, 0];
  const H = by1 - by0;
  if (H < 8 || bx1 - bx0 < 8) return null;
  // the body panel: the run through the garment's middle in its lower rows (below the sleeves)
  const centreGuess = (bx0 + bx1) / 2;
  const widths: number[] = [];
  const centres: number[] = [];
  for (let y = Math.round(by0 + 0.6 * H); y <= Math.round(by0 + 0.88 * H); y++) {
    let x0 = Math.round(centreGuess);
    let x1 = x0;
    if (!on(x0, y)) continue;
    while (x0 > 0 && on(x0 - 1, y)) x0--;
    while (x1 < w - 1 && on(x1 + 1, y)) x1++;
    widths.push(x1 - x0 + 1);
    centres.push((x0 + x1) / 2);
  }
  if (!widths.length) return null;
  const halfWidth = median(widths) / 2;
  const centre = median(centres);
  // shoulder line: the first garment row above the panel's edges; hem: the last rows of the middle
  const tops: number[] = [];
  for (const f of [-0.85, -0.7, 0.7, 0.85]) {
    const x = Math.round(centre + f * halfWidth);
    for (let y = by0; y < by1; y++) if (on(x, y)) { tops.push(y); break; }
  }
  const bottoms: number[] = [];
  for (let x = Math.round(centre - 0.5 * halfWidth); x <= Math.round(centre + 0.5 * halfWidth); x += 2) {
    for (let y = by1; y > by0; y--) if (on(x, y)) { bottoms.push(y); break; }
  }
  const shoulderY = median(tops);
  const hemY = median(bottoms);
  // sleeves: garment pixels beside the panel above its lower third
  const sleeves: TopShape['sleeves'] = [];
  for (const side of [-1, 1] as const) {
    const start = { x: centre + side * halfWidth, y: shoulderY + 0.06 * H };
    const pts: { x: number; y: number; d: number }[] = [];
    for (let y = by0; y < by0 + 0.75 * H; y += 2) {
      for (let x = side < 0 ? bx0 : Math.ceil(centre + halfWidth + 2); side < 0 ? x < centre - halfWidth - 2 : x <= bx1; x += 2) {
        if (on(x, y)) pts.push({ x, y, d: Math.hypot(x - start.x, y - start.y) });
      }
    }
    if (pts.length < 20) continue;
    pts.sort((a, b) => b.d - a.d);
    const far = pts.slice(0, Math.max(3, Math.round(pts.length * 0.08)));
    const end = { x: far.reduce((s, p) => s + p.x, 0) / far.length, y: far.reduce((s, p) => s + p.y, 0) / far.length };
    const len = Math.hypot(end.x - start.x, end.y - start.y);
    if (len < 0.08 * H) continue;
    // the sleeve's half width: its pixel count over its length
    sleeves.push({ side, start, end, halfWidth: Math.max(2, (pts.length * 4) / len / 2) });
  }
  return { centre, halfWidth, shoulderY, hemY, sleeves };
}

function opaque(img: RasterImage): Uint8Array {
  const out = new Uint8Array(img.data);
  for (let i = 3; i < out.length; i += 4) out[i] = 255;
  return out;
}

/** A small palette (k-means in Lab) of the pixels given, for telling the old top apart. */
function palette(img: RasterImage, idx: number[], k: number): number[][] {
  const lab = [0, 0, 0];
  const pts = idx.map((i) => Array.from(srgbToLab(img.data[i * 4], img.data[i * 4 + 1], img.data[i * 4 + 2], lab)));
  if (!pts.length) return [];
  let centres = Array.from({ length: k }, (_, j) => pts[Math.floor(((j + 0.5) * pts.length) / k)].slice());
  for (let it = 0; it < 8; it++) {
    const sums = centres.map(() => [0, 0, 0, 0]);
    for (const p of pts) {
      let best = 0;
      for (let j = 1; j < k; j++) if (deltaE76(p, centres[j]) < deltaE76(p, centres[best])) best = j;
      const s = sums[best];
      s[0] += p[0]; s[1] += p[1]; s[2] += p[2]; s[3]++;
    }
    centres = sums.map((s, j) => (s[3] ? [s[0] / s[3], s[1] / s[3], s[2] / s[3]] : centres[j]));
  }
  return centres;
}

export interface PhotoTopResult {
  /** Pixels of the person's own top (1) as told by colour within the torso and arms. */
  oldTop: Uint8Array;
}

/**
 * Draws the top into `layer` (premultiplied linear RGBA) for a person photo with parts. Throws when
 * the packshot holds no recognisable top.
 */
export function drawPhotoTop(layer: Layer, cut: GarmentCutout, packshot: RasterImage, body: PersonBody & { parts: Uint8Array }): PhotoTopResult {
  const { width: w, height: h } = layer;
  const img = body.image;
  const parts = body.parts;
  const L = body.landmarks;
  const shape = topShape(cut);
  if (!shape) throw new Error('the top packshot holds no garment shape to fit');

  const shoulderMid = mid(L.leftShoulder, L.rightShoulder);
  const hipMid = { x: (L.hipLeft.x + L.hipRight.x) / 2, y: L.hipLeft.y };
  const sw = Math.hypot(L.leftShoulder.x - L.rightShoulder.x, L.leftShoulder.y - L.rightShoulder.y);
  const trunk = Math.max(1, hipMid.y - shoulderMid.y);
  const n = w * h;
  const lab = [0, 0, 0];

  // the person's own top: a palette from the chest's middle, matched over torso, arms and neck
  const sample: number[] = [];
  for (let y = Math.round(shoulderMid.y + 0.25 * trunk); y < shoulderMid.y + 0.6 * trunk; y += 2) {
    for (let x = Math.round(shoulderMid.x - 0.2 * sw); x < shoulderMid.x + 0.2 * sw; x += 2) {
      const i = y * w + x;
      if (y >= 0 && y < h && x >= 0 && x < w && parts[i] === PERSON_PART.torso) sample.push(i);
    }
  }
  const own = palette(img, sample, 3);
  const oldTop = new Uint8Array(n);
  const isOld = (i: number) => {
    srgbToLab(img.data[i * 4], img.data[i * 4 + 1], img.data[i * 4 + 2], lab);
    return own.some((c) => deltaE76(lab, c) < 16);
  };
  for (let i = 0; i < n; i++) {
    const p = parts[i];
    if ((p === PERSON_PART.torso || p === PERSON_PART.arm || p === PERSON_PART.neck) && isOld(i)) oldTop[i] = 1;
  }

  // the old top's hem: the lowest row in the middle of the body where it still fills most of the row
  let oldHem = Math.round(shoulderMid.y + 0.5 * trunk);
  for (let y = oldHem; y < Math.min(h, hipMid.y + 0.5 * trunk); y++) {
    let c = 0;
    let t = 0;
    for (let x = Math.round(hipMid.x - 0.25 * sw); x <= hipMid.x + 0.25 * sw; x++) {
      if (x < 0 || x >= w) continue;
      t++;
      if (oldTop[y * w + x]) c++;
    }
    if (t && c / t > 0.4) oldHem = y;
  }

  // an arm pixel counts as in front of the torso unless it has the old top's colour (a tank top's side)
  const arm = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (parts[i] === PERSON_PART.arm && !oldTop[i]) arm[i] = 1;
  const mask = body.mask;
  const near = dilate(mask, w, h, Math.max(1, Math.round(0.02 * sw)));

  // target rows: the shoulder line (top of the shoulders on the mask) down to the hem
  const shoulderTop = (x: number, y: number) => {
    const xi = Math.round(Math.max(0, Math.min(w - 1, x)));
    for (let yy = Math.max(0, Math.round(y - 0.4 * sw)); yy <= y; yy++) if (mask[yy * w + xi] && parts[yy * w + xi] !== PERSON_PART.hair) return yy;
    return y;
  };
  const topY = (shoulderTop(L.leftShoulder.x, L.leftShoulder.y) + shoulderTop(L.rightShoulder.x, L.rightShoulder.y)) / 2;
  const naturalHem = topY + ((shape.hemY - shape.shoulderY) / (2 * shape.halfWidth)) * sw * 1.05;
  // the new hem at the garment's own length, no lower than just above the hip joints, and low
  // enough to cover the old top's hem
  const hemY = Math.min(h - 1, Math.max(Math.min(naturalHem, hipMid.y - 0.08 * trunk), oldHem + 0.03 * trunk));
  const sy = (hemY - topY) / Math.max(1, shape.hemY - shape.shoulderY);

  // torso edges per row (arms left out), smoothed; above the armpits the shoulders' outer edges
  const armpitY = topY + 0.3 * (hemY - topY);
  const edges: [number, number][] = [];
  const centreAt = (y: number) => shoulderMid.x + ((hipMid.x - shoulderMid.x) * (y - shoulderMid.y)) / trunk;
  for (let y = 0; y < h; y++) {
    const c = Math.round(Math.max(0, Math.min(w - 1, centreAt(y))));
    let x0 = c;
    let x1 = c;
    const row = y * w;
    while (x0 > 0 && mask[row + x0 - 1] && !arm[row + x0 - 1] && c - x0 < sw) x0--;
    while (x1 < w - 1 && mask[row + x1 + 1] && !arm[row + x1 + 1] && x1 - c < sw) x1++;
    edges.push([x0, x1]);
  }
  const smooth = (y: number, k: 0 | 1) => median(edges.slice(Math.max(0, y - 6), Math.min(h, y + 7)).map((e) => e[k]));
  const tipL = Math.min(L.rightShoulder.x, L.leftShoulder.x) - 0.12 * sw;
  const tipR = Math.max(L.rightShoulder.x, L.leftShoulder.x) + 0.12 * sw;
  const ease = 0.015 * sw;

  const src: GarmentSource = prepareSource(cut.image, sy);
  // the panel below the collar is cloth throughout: sampled from the packshot itself, so white
  // parts of a garment on a white backdrop (lost by the matte) are not holes
  const solid: GarmentSource = prepareSource({ ...packshot, data: opaque(packshot) }, sy);
  const solidFrom = shape.shoulderY + 0.12 * (shape.hemY - shape.shoulderY);
  const solidTo = shape.hemY - 0.03 * (shape.hemY - shape.shoulderY);
  const px = new Float32Array(4);
  const put = (i: number) => {
    const a = px[3];
    if (a <= 0.01) return;
    const o = i * 4;
    // keep the more opaque sample where pieces overlap
    if (a > layer.data[o + 3]) {
      layer.data[o] = px[0];
      layer.data[o + 1] = px[1];
      layer.data[o + 2] = px[2];
      layer.data[o + 3] = a;
    }
  };
  const blocked = (i: number) => {
    const p = parts[i];
    return p === PERSON_PART.face || p === PERSON_PART.hair || !near[i];
  };

  // the body panel
  // from the collar's top (the garment's first row) down
  const y0 = Math.max(0, Math.floor(topY + (cut.components[0].box[1] - shape.shoulderY) * sy));
  for (let y = y0; y <= Math.min(h - 1, Math.ceil(hemY)); y++) {
    let xl: number;
    let xr: number;
    if (y < armpitY) {
      const t = Math.max(0, Math.min(1, (y - topY) / Math.max(1, armpitY - topY)));
      xl = tipL + (smooth(Math.round(armpitY), 0) - tipL) * t;
      xr = tipR + (smooth(Math.round(armpitY), 1) - tipR) * t;
    } else {
      xl = smooth(y, 0);
      xr = smooth(y, 1);
    }
    xl -= ease;
    xr += ease;
    const cT = (xl + xr) / 2;
    const half = Math.max(1, (xr - xl) / 2);
    const gy = shape.shoulderY + (y - topY) / sy;
    for (let x = Math.max(0, Math.floor(xl)); x <= Math.min(w - 1, Math.ceil(xr)); x++) {
      const i = y * w + x;
      if (blocked(i) || arm[i]) continue;
      // the neck shows above the collar: the panel does not climb onto it
      if (parts[i] === PERSON_PART.neck && y < topY) continue;
      const gx = shape.centre + ((x - cT) / half) * shape.halfWidth * 0.97;
      sampleBilinear(gy > solidFrom && gy < solidTo ? solid : src, gx, gy, px);
      put(i);
    }
  }

  // sleeves along the arms
  for (const sleeve of shape.sleeves) {
    // image side -1 is the subject's right
    const el = sleeve.side < 0 ? L.rightElbow : L.leftElbow;
    const wr = sleeve.side < 0 ? L.rightWrist : L.leftWrist;
    const start = { x: sleeve.side < 0 ? tipL + 0.1 * sw : tipR - 0.1 * sw, y: topY + 0.08 * sw };
    const axis = [start, el, wr, { x: wr.x + (wr.x - el.x) * 0.3, y: wr.y + (wr.y - el.y) * 0.3 }];
    const gLen = Math.hypot(sleeve.end.x - sleeve.start.x, sleeve.end.y - sleeve.start.y);
    const s = sy;
    const tLen = gLen * s;
    const gd = { x: (sleeve.end.x - sleeve.start.x) / gLen, y: (sleeve.end.y - sleeve.start.y) / gLen };
    const gn = { x: -gd.y, y: gd.x };
    const reach = sleeve.halfWidth * s * 1.6;
    const xs = axis.map((p) => p.x);
    const ys = axis.map((p) => p.y);
    const bx0 = Math.max(0, Math.floor(Math.min(...xs) - reach));
    const bx1 = Math.min(w - 1, Math.ceil(Math.max(...xs) + reach));
    const by0 = Math.max(0, Math.floor(Math.min(...ys) - reach));
    const by1 = Math.min(h - 1, Math.ceil(Math.max(...ys) + reach));
    for (let y = by0; y <= by1; y++) {
      for (let x = bx0; x <= bx1; x++) {
        const i = y * w + x;
        if (blocked(i)) continue;
        // nearest point on the arm's polyline: arc length u and signed offset v
        let best = Infinity;
        let u = 0;
        let v = 0;
        let acc = 0;
        for (let k = 1; k < axis.length; k++) {
          const a = axis[k - 1];
          const b = axis[k];
          const len = Math.hypot(b.x - a.x, b.y - a.y) || 1e-6;
          const d = { x: (b.x - a.x) / len, y: (b.y - a.y) / len };
          const t = Math.max(0, Math.min(len, (x - a.x) * d.x + (y - a.y) * d.y));
          const qx = a.x + d.x * t;
          const qy = a.y + d.y * t;
          const dist = Math.hypot(x - qx, y - qy);
          if (dist < best) {
            best = dist;
            u = acc + t;
            v = (x - qx) * -d.y + (y - qy) * d.x;
          }
          acc += len;
        }
        if (u > tLen || best > reach) continue;
        const gx = sleeve.start.x + gd.x * (u / s) + gn.x * (v / s);
        const gyy = sleeve.start.y + gd.y * (u / s) + gn.y * (v / s);
        // only the sleeve's own pixels (beside the panel)
        if (sleeve.side * (gx - shape.centre) < shape.halfWidth * 0.92) continue;
        sampleBilinear(src, gx, gyy, px);
        put(i);
      }
    }
  }
  return { oldTop };
}

/**
 * Repaints what stays visible of the person's own top after the new one is composited: with skin
 * near the neck and shoulders, elsewhere with the nearest background beside the body in its row.
 */
export function hideOldTop(canvas: Float32Array, layer: Layer, oldTop: Uint8Array, body: PersonBody & { parts: Uint8Array }, toLinear: ArrayLike<number>): void {
  const { width: w, height: h } = layer;
  const img = body.image;
  const parts = body.parts;
  const L = body.landmarks;
  // skin: the neck's median colour (else the face's)
  const skinIdx: number[] = [];
  for (let i = 0; i < parts.length; i += 3) if (parts[i] === PERSON_PART.neck && !oldTop[i]) skinIdx.push(i);
  if (skinIdx.length < 20) for (let i = 0; i < parts.length; i += 3) if (parts[i] === PERSON_PART.face) skinIdx.push(i);
  const skin = [0, 1, 2].map((c) => toLinear[median(skinIdx.map((i) => img.data[i * 4 + c]))] ?? 0.5);
  const chestY = L.chestLeft.y;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (!oldTop[i] || layer.data[i * 4 + 3] > 0.5) continue;
      let fill: number[] | null = null;
      if (y < chestY || parts[i] === PERSON_PART.arm) fill = skin;
      else {
        // the nearest pixel outside the person in this row
        for (let d = 1; d < w; d++) {
          const xl = x - d;
          const xr = x + d;
          const k = xl >= 0 && !body.mask[y * w + xl] ? y * w + xl : xr < w && !body.mask[y * w + xr] ? y * w + xr : -1;
          if (k >= 0) {
            fill = [0, 1, 2].map((c) => canvas[k * 3 + c]);
            break;
          }
        }
      }
      if (!fill) continue;
      for (let c = 0; c < 3; c++) canvas[i * 3 + c] = fill[c];
    }
  }
}
