/**
 * From a packshot to warp pieces for one body: segment the garment, find its landmarks for the
 * category and fit them to the body.
 */
import type { RasterImage } from '../../../core/images.ts';
import type { BodyFrame } from './body-frame.ts';
import { detectBottom } from './bottom-landmarks.ts';
import type { GarmentCategory } from './classify-garment.ts';
import { detectDress } from './dress-landmarks.ts';
import { fitBottom } from './fit-bottom.ts';
import { fitShoes } from './fit-shoes.ts';
import { fitUpper } from './fit-upper.ts';
import { componentMask, MaskShape } from './mask-shape.ts';
import { cachedSegmentGarment } from './cutout-cache.ts';
import type { GarmentCutout } from './segment-garment.ts';
import { detectTop } from './top-landmarks.ts';
import type { Piece } from './warp-piece.ts';

export function cutOut(packshot: RasterImage, category: GarmentCategory): GarmentCutout {
  // a pair of shoes is two components of similar size; other garments keep sizeable parts only.
  // The same packshot is cut once per process (cutout-cache.ts). A noiseless backdrop (a cut-out pasted
  // on white) separates light cloth by a couple of levels; tops and dresses mark the inside back of the
  // neck, which is left out when the garment is drawn on a person.
  return cachedSegmentGarment(packshot, { keepRatio: category === 'shoe' ? 0.3 : 0.2, flatBackdrop: true, insideBack: category === 'top' || category === 'full-body' });
}

export function garmentPieces(cut: GarmentCutout, category: GarmentCategory, frame: BodyFrame): Piece[] {
  if (category === 'shoe') return fitShoes(cut, frame);
  const { width, height } = cut.image;
  const shape = new MaskShape(componentMask(cut.labels, 0), width, height);
  if (category === 'top') return fitUpper(cut.image, detectTop(shape), shape, frame);
  if (category === 'full-body') return fitUpper(cut.image, detectDress(shape), shape, frame);
  return fitBottom(cut.image, detectBottom(shape), shape, frame);
}
