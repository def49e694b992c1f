/**
 * Decides a product image's category from its shape alone (productCategory `auto`): shoes are
 * wider than tall with a sole spanning the whole length and a lower toe end; bottoms split into
 * legs below a crotch or start with a wide straight waistband (skirts); long garments whose length
 * is well above their chest width are dresses; the rest are tops.
 */
import type { GarmentCutout } from './segment-garment.ts';
import { componentMask, MaskShape } from './mask-shape.ts';
import { detectBottom } from './bottom-landmarks.ts';
import { detectUpper } from './upper-landmarks.ts';

export type GarmentCategory = 'top' | 'bottom' | 'full-body' | 'shoe';

function maxRunWidth(shape: MaskShape, from: number, to: number): number {
  let w = 0;
  for (let y = Math.round(from); y <= Math.round(to); y++) {
    const runs = shape.runs(y);
    if (runs.length) w = Math.max(w, runs[runs.length - 1][1] - runs[0][0] + 1);
  }
  return w;
}

export function isShoeShape(shape: MaskShape): boolean {
  const W = shape.boxWidth;
  const H = shape.boxHeight;
  if (W < H * 1.15) return false;
  const sole = maxRunWidth(shape, shape.y1 - H * 0.15, shape.y1);
  const upper = maxRunWidth(shape, shape.y0, shape.y0 + H * 0.2);
  return sole >= W * 0.75 && upper <= W * 0.75;
}

export function classifyGarment(cut: GarmentCutout): GarmentCategory {
  const { width, height } = cut.image;
  const shape = new MaskShape(componentMask(cut.labels, 0), width, height);
  if (isShoeShape(shape)) return 'shoe';
  const H = shape.boxHeight;
  const bottom = detectBottom(shape);
  if (bottom.crotch && bottom.crotch.y < shape.y0 + H * 0.8) return 'bottom';
  // a skirt starts with one wide, straight waistband run
  const topRuns = shape.runs(shape.y0 + Math.max(1, Math.round(H * 0.01)));
  const hipWidth = maxRunWidth(shape, shape.y0, shape.y0 + H * 0.4);
  const upper = detectUpper(shape);
  const waistband = topRuns.length === 1 && topRuns[0][1] - topRuns[0][0] + 1 >= hipWidth * 0.6;
  if (waistband && !upper.sleeveLeft && !upper.sleeveRight) return 'bottom';
  const chest = Math.max(upper.armpitRight.x - upper.armpitLeft.x, upper.shoulderRight.x - upper.shoulderLeft.x, 1);
  return H / chest >= 2.5 ? 'full-body' : 'top';
}
