/**
 * Places shoes on the feet: each foot's extent is read from the body mask below the ankle, the
 * shoe's side view is scaled to a foot length from the body's stature (about 15% of it) for its
 * height and squeezed to the foot's visible width (a foreshortened side view), toe towards the
 * foot's toe landmark and sole on the ground line.
 */
import type { Point } from '../../../core/twins/body.ts';
import { BodyFrame } from './body-frame.ts';
import { prepareSource } from './garment-source.ts';
import { componentMask, MaskShape } from './mask-shape.ts';
import type { GarmentCutout } from './segment-garment.ts';
import { detectShoe } from './shoe-landmarks.ts';
import type { Piece } from './warp-piece.ts';

export function fitShoes(cut: GarmentCutout, frame: BodyFrame): Piece[] {
  const { width: W, height: H } = frame;
  const { width: cw, height: ch } = cut.image;
  const L = frame.landmarks;
  const shapes = cut.components.map((_, k) => new MaskShape(componentMask(cut.labels, k), cw, ch));
  // left-to-right order of the shoes in the packshot
  const order = shapes.map((_, k) => k).sort((a, b) => shapes[a].centreX - shapes[b].centreX);
  const midX = (frame.left.ankle.x + frame.right.ankle.x) / 2;
  const pieces: Piece[] = [];
  for (const side of ['left', 'right'] as const) {
    const sd = frame.side(side);
    const sign = BodyFrame.sign(side);
    // the foot: body pixels below the ankle on this side of the feet's midline
    const R = H * 0.04;
    const xa = Math.max(0, Math.floor(Math.min(sd.ankle.x, sd.toe.x) - R));
    const xb = Math.min(W - 1, Math.ceil(Math.max(sd.ankle.x, sd.toe.x) + R));
    let fx0 = Infinity;
    let fx1 = -Infinity;
    let fy1 = -Infinity;
    for (let y = Math.max(0, Math.floor(sd.ankle.y - H * 0.01)); y < H; y++) {
      for (let x = xa; x <= xb; x++) {
        if ((x - midX) * sign <= 0 || frame.body.mask[y * W + x] < 128) continue;
        fx0 = Math.min(fx0, x);
        fx1 = Math.max(fx1, x);
        fy1 = Math.max(fy1, y);
      }
    }
    if (!Number.isFinite(fy1)) continue; // feet outside the image
    const k = order.length >= 2 ? (side === 'left' ? order[0] : order[order.length - 1]) : order[0];
    const shape = shapes[k];
    const shoe = detectShoe(shape, k);
    const footLen = 0.152 * (fy1 - L.headTop.y);
    const dx = sd.toe.x - sd.ankle.x;
    const dir = Math.abs(dx) > 0.15 * Math.abs(sd.toe.y - sd.ankle.y) ? Math.sign(dx) : sign;
    const gLen = Math.max(1, Math.abs(shoe.toe.x - shoe.heel.x));
    const gH = Math.max(1, shoe.soleY - shoe.topY);
    const sy = (footLen * 1.05) / gLen;
    const hB = gH * sy;
    const widthB = Math.max((fx1 - fx0) * 1.18, footLen * 0.45);
    const centre = (fx0 + fx1) / 2 + dir * footLen * 0.04;
    const soleB = fy1 + H * 0.006;
    const toeX = centre + (dir * widthB) / 2;
    const heelX = centre - (dir * widthB) / 2;
    const g = (x: number, y: number): Point => ({ x, y });
    pieces.push({
      source: prepareSource(cut.image, Math.min(sy, widthB / gLen)),
      pairs: [
        { g: g(shoe.heel.x, shoe.soleY), b: g(heelX, soleB) },
        { g: g(shoe.toe.x, shoe.soleY), b: g(toeX, soleB) },
        { g: g(shoe.heel.x, shoe.topY), b: g(heelX, soleB - hB) },
        { g: g(shoe.toe.x, shoe.topY), b: g(toeX, soleB - hB) },
      ],
      box: [shape.x0, shape.y0, shape.x1, shape.y1],
      select: shape.mask,
      reach: H * 0.06,
    });
  }
  return pieces;
}
