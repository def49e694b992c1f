/**
 * Landmarks of a dress: the bodice landmarks of an upper garment plus the waist, the narrowest
 * row between the armpits and the upper two thirds of the length (width profile per row).
 */
import type { DressLandmarks } from './garment-landmarks.ts';
import type { MaskShape } from './mask-shape.ts';
import { detectUpper } from './upper-landmarks.ts';

export function detectDress(shape: MaskShape): DressLandmarks {
  const upper = detectUpper(shape);
  const H = shape.boxHeight;
  const from = Math.round(Math.max(upper.armpitLeft.y, upper.armpitRight.y) + H * 0.04);
  const to = Math.round(shape.y0 + H * 0.65);
  let best = from;
  let bestW = Infinity;
  for (let y = from; y <= to; y++) {
    const s = shape.spanAt(y, upper.centreX);
    if (s && s[1] - s[0] < bestW) {
      bestW = s[1] - s[0];
      best = y;
    }
  }
  const s = shape.spanAt(best, upper.centreX) ?? [upper.armpitLeft.x, upper.armpitRight.x];
  return { kind: 'full-body', ...upper, waistLeft: { x: s[0], y: best }, waistRight: { x: s[1], y: best } };
}
