import type { TopLandmarks } from './garment-landmarks.ts';
import type { MaskShape } from './mask-shape.ts';
import { detectUpper } from './upper-landmarks.ts';

/** Landmarks of a top (t-shirt, shirt, sweater): the upper-garment landmarks as they are. */
export function detectTop(shape: MaskShape): TopLandmarks {
  return { kind: 'top', ...detectUpper(shape) };
}
