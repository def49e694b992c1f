/**
 * Shoes on a person photo (learned parsing available). Each foot is the person's pixels below its
 * ankle keypoint (split between the two ankles): its box gives the sole line, the visible width
 * and whether the foot is seen from the side (much wider than high; the toe on the side away from
 * the ankle) or from the front or three quarters. The packshot's side view is scaled so that its
 * upper reaches from just above the ankle to the sole: laid heel to toe along a side-seen foot,
 * squeezed to the foot's width (toe outwards) otherwise. Nothing is drawn above the ankle line
 * (the collar is cut there), so the legs stay as they were; what shows of the old shoes beside the
 * new ones is repainted with the floor beside the foot.
 */
import type { PersonBody } from '../../../core/ports/person-analyzer.ts';
import type { Point } from '../../../core/twins/body.ts';
import { prepareSource, sampleBilinear } from './garment-source.ts';
import { componentMask, MaskShape } from './mask-shape.ts';
import { backgroundBeside, looksLikeSkin, skinColour } from './photo-fill.ts';
import type { GarmentCutout } from './segment-garment.ts';
import { detectShoe } from './shoe-landmarks.ts';
import type { Layer } from './warp-piece.ts';

type Body = PersonBody & { parts: Uint8Array };

export interface PhotoFoot {
  ankle: Point;
  /** Box of the foot's pixels below the ankle: x0, y0, x1, sole y. */
  box: [number, number, number, number];
  view: 'side' | 'front';
  /** Image direction the toe points to (side view), or 0. */
  toe: -1 | 0 | 1;
}

/** The two feet of a person photo, from the ankle keypoints and the person mask. */
export function photoFeet(body: Body): PhotoFoot[] {
  const { width: w, height: h } = body.image;
  const L = body.landmarks;
  const sw = Math.hypot(L.leftShoulder.x - L.rightShoulder.x, L.leftShoulder.y - L.rightShoulder.y);
  const ankles = [L.leftAnkle, L.rightAnkle];
  const feet: PhotoFoot[] = [];
  for (const [k, a] of ankles.entries()) {
    const other = ankles[1 - k];
    let x0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    let sx = 0;
    let count = 0;
    const top = Math.max(0, Math.round(a.y));
    for (let y = top; y < Math.min(h, Math.round(a.y + 0.7 * sw)); y++) {
      for (let x = Math.max(0, Math.round(a.x - 0.45 * sw)); x <= Math.min(w - 1, Math.round(a.x + 0.45 * sw)); x++) {
        if (!body.mask[y * w + x]) continue;
        // the pixel belongs to the nearer ankle (the other foot may be close by)
        if (Math.hypot(x - a.x, y - a.y) > Math.hypot(x - other.x, y - other.y)) continue;
        x0 = Math.min(x0, x);
        x1 = Math.max(x1, x);
        y1 = Math.max(y1, y);
        sx += x;
        count++;
      }
    }
    if (count < 20 || y1 - a.y < 4) continue;
    const height = y1 - a.y;
    const width = x1 - x0;
    const lean = sx / count - a.x;
    const side = width > 1.7 * height && Math.abs(lean) > 0.12 * width;
    feet.push({ ankle: a, box: [x0, Math.round(a.y), x1, y1], view: side ? 'side' : 'front', toe: side ? (lean > 0 ? 1 : -1) : 0 });
  }
  return feet;
}

/**
 * Draws the shoes into `layer` (premultiplied linear RGBA) over the feet and repaints in `canvas`
 * (linear RGB) what stays visible of the old shoes. Throws when the packshot holds no shoe.
 */
export function drawPhotoShoes(layer: Layer, canvas: Float32Array, cut: GarmentCutout, body: Body, toLinear: ArrayLike<number>): void {
  const { width: w, height: h } = layer;
  const { width: cw, height: ch } = cut.image;
  if (!cut.components.length) throw new Error('the shoe packshot holds no shoe to place');
  // the packshot's shoes left to right; one shoe serves both feet
  const shapes = cut.components.map((_, k) => new MaskShape(componentMask(cut.labels, k), cw, ch));
  const order = shapes.map((_, k) => k).sort((a, b) => shapes[a].centreX - shapes[b].centreX);
  const feet = photoFeet(body);
  const midX = feet.reduce((t, f) => t + f.ankle.x, 0) / Math.max(1, feet.length);
  const skin = skinColour(body, toLinear);
  const lab = [0, 0, 0];
  const px = new Float32Array(4);
  for (const foot of feet) {
    const [fx0, fy0, fx1, sole] = foot.box;
    // the packshot shoe nearer this foot's side of the image
    const k = order.length >= 2 && foot.ankle.x > (feet[0].ankle.x + (feet[1]?.ankle.x ?? feet[0].ankle.x)) / 2 ? order[order.length - 1] : order[0];
    const shape = shapes[k];
    const shoe = detectShoe(shape, k);
    const gLen = Math.max(1, Math.abs(shoe.toe.x - shoe.heel.x));
    const footH = sole - fy0;
    // the shoe's height on the body: from a little above the ankle line to just below the sole
    const top = fy0 - 0.15 * footH;
    const bottom = sole + 0.03 * footH;
    // the upper's typical top (the middle of its length) meets the line just above the ankle; the
    // collar and heel tab above it are cut off there, so the legs above the ankles stay as they were
    const tops: number[] = [];
    for (let x = Math.round(shape.x0 + 0.2 * shape.boxWidth); x <= shape.x0 + 0.8 * shape.boxWidth; x++) if (shape.top(x) >= 0) tops.push(shape.top(x));
    tops.sort((a, b) => a - b);
    const gTop = tops.length ? tops[tops.length >> 1] : shoe.topY;
    let bx0: number;
    let bx1: number;
    // the image direction the toe points to: a side-seen foot's, else outwards (feet stand splayed)
    const toe = foot.toe || (foot.ankle.x >= midX ? 1 : -1);
    if (foot.view === 'side') {
      // heel to toe along the foot, the length at the shoe's own proportions, heel behind the ankle
      const len = (gLen * (bottom - top)) / Math.max(1, shoe.soleY - gTop);
      const heel = foot.ankle.x - toe * 0.2 * len;
      bx0 = Math.min(heel, heel + toe * len);
      bx1 = Math.max(heel, heel + toe * len);
    } else {
      // from the front or three quarters: the whole side view squeezed to the foot's width
      const width = Math.max((fx1 - fx0) * 1.25, 0.9 * footH);
      const c = (fx0 + fx1) / 2;
      bx0 = c - width / 2;
      bx1 = c + width / 2;
    }
    // the packshot's columns at the box's left and right ends
    const gx0 = toe > 0 ? shoe.heel.x : shoe.toe.x;
    const gx1 = toe > 0 ? shoe.toe.x : shoe.heel.x;
    const s = (bottom - top) / Math.max(1, shoe.soleY - gTop);
    const src = prepareSource(cut.image, Math.min(s, (bx1 - bx0) / Math.max(1, Math.abs(gx1 - gx0))));
    for (let y = Math.max(0, Math.floor(top)); y <= Math.min(h - 1, Math.ceil(bottom)); y++) {
      const gy = gTop + (y - top) / s;
      for (let x = Math.max(0, Math.floor(bx0)); x <= Math.min(w - 1, Math.ceil(bx1)); x++) {
        const gx = gx0 + ((x - bx0) / Math.max(1, bx1 - bx0)) * (gx1 - gx0);
        const gi = Math.round(gy) * cw + Math.round(gx);
        if (gy < 0 || gy >= ch || gx < 0 || gx >= cw || cut.labels[gi] !== k) continue;
        sampleBilinear(src, gx, gy, px);
        const i = y * w + x;
        if (px[3] > layer.data[i * 4 + 3]) layer.data.set(px, i * 4);
      }
    }
    // the old shoe beside the new one: the floor beside the foot in the same row
    const fills: { i: number; k: number }[] = [];
    for (let y = Math.round(fy0); y <= sole; y++) {
      for (let x = fx0; x <= fx1; x++) {
        const i = y * w + x;
        if (!body.mask[i] || layer.data[i * 4 + 3] > 0.5 || looksLikeSkin(body, i, skin, lab)) continue;
        if (Math.hypot(x - foot.ankle.x, y - foot.ankle.y) > Math.min(...feet.map((f) => Math.hypot(x - f.ankle.x, y - f.ankle.y))) + 0.5) continue;
        const b = backgroundBeside(body.mask, w, x, y);
        if (b >= 0) fills.push({ i, k: b });
      }
    }
    for (const { i, k: b } of fills) for (let c = 0; c < 3; c++) canvas[i * 3 + c] = canvas[b * 3 + c];
  }
}
