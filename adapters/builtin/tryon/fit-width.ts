/**
 * Where a garment's side edge lands on the body. A flat packshot is about 1.4 times wider than the
 * same garment seen on a person from the front, so widths are not copied: the garment's width
 * relative to its own reference width (chest for upper garments, hip for bottoms) is applied to
 * the body's reference half-width plus ease. The result is never tighter than the body at that row
 * plus a minimum ease, so the garment always covers the body under it.
 */
import { BodyFrame, type ImageSide } from './body-frame.ts';

export interface WidthRule {
  /** Garment half-width at its reference row (packshot pixels). */
  garmentRef: number;
  /** Body half-width at its reference row (output pixels). */
  bodyRef: number;
  /** Ease added at the reference width. */
  ease: number;
  /** Least distance between the body's edge and the garment's edge. */
  minEase: number;
  /** Most distance between the body's edge and the garment's edge (loose fits, flares). */
  maxEase: number;
}

/**
 * Half-width of the body from its centre line on one side at row y, arms left out. Above the chest
 * line the arms join the torso in the mask, so the chest's width stands for the torso there; below
 * it the mask's run is used, bounded by the landmarks' widest girth.
 */
export function bodyHalfAt(frame: BodyFrame, side: ImageSide, y: number): number {
  const sd = frame.side(side);
  const half = (p: { x: number; y: number }) => Math.abs(p.x - frame.centreX(p.y));
  const chest = half(sd.chest);
  if (y < sd.chest.y) return chest;
  const c = frame.centreX(y);
  const span = frame.spanOr(y, frame.shoulderWidth * 0.4);
  const widest = Math.max(chest, half(sd.waist), half(sd.hip));
  return Math.min(Math.abs((side === 'left' ? span[0] : span[1]) - c), widest * 1.25);
}

export function sideX(frame: BodyFrame, side: ImageSide, by: number, garmentHalf: number, rule: WidthRule): number {
  const bodyHalf = bodyHalfAt(frame, side, by);
  const wanted = rule.bodyRef * (garmentHalf / Math.max(1, rule.garmentRef)) + rule.ease;
  const half = Math.min(Math.max(wanted, bodyHalf + rule.minEase), bodyHalf + rule.maxEase);
  return frame.centreX(by) + BodyFrame.sign(side) * half;
}
