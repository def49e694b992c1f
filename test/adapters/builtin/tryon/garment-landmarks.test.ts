import { describe, expect, it } from 'vitest';
import { detectBottom } from '../../../../adapters/builtin/tryon/bottom-landmarks.ts';
import { classifyGarment } from '../../../../adapters/builtin/tryon/classify-garment.ts';
import { detectDress } from '../../../../adapters/builtin/tryon/dress-landmarks.ts';
import { componentMask, MaskShape } from '../../../../adapters/builtin/tryon/mask-shape.ts';
import { segmentGarment } from '../../../../adapters/builtin/tryon/segment-garment.ts';
import { detectShoe } from '../../../../adapters/builtin/tryon/shoe-landmarks.ts';
import { detectTop } from '../../../../adapters/builtin/tryon/top-landmarks.ts';
import type { RasterImage } from '../../../../core/images.ts';
import type { Point } from '../../../../core/twins/body.ts';
import { drawBottom, drawDress, drawShoes, drawTop } from '../../../support/garments.ts';

function shapeOf(img: RasterImage, component = 0): MaskShape {
  const cut = segmentGarment(img, { keepRatio: 0.3 });
  return new MaskShape(componentMask(cut.labels, component), img.width, img.height);
}

function near(p: Point, x: number, y: number, tol: number): void {
  expect(Math.hypot(p.x - x, p.y - y)).toBeLessThan(tol);
}

// the generators draw around these outline points (centre x 320 for tops, 260 for bottoms)
describe('garment landmarks', () => {
  it('finds a t-shirt neckline, shoulders, armpits, sleeve cuffs and hem corners', () => {
    const lm = detectTop(shapeOf(drawTop()));
    near(lm.neckline, 320, 118, 8);
    near(lm.shoulderLeft, 170, 98, 10);
    near(lm.shoulderRight, 470, 98, 10);
    near(lm.armpitLeft, 174, 228, 12);
    near(lm.armpitRight, 466, 228, 12);
    near(lm.hemLeft, 170, 556, 12);
    near(lm.hemRight, 470, 556, 12);
    expect(lm.sleeveLeft).not.toBeNull();
    near(lm.sleeveLeft!.outerCuff, 52, 228, 12);
    near(lm.sleeveLeft!.innerCuff, 108, 282, 12);
    near(lm.sleeveRight!.outerCuff, 588, 228, 12);
  });

  it('follows long sleeves down to their cuffs', () => {
    const lm = detectTop(shapeOf(drawTop({ sleeves: 'long', stripes: [28, 40, 92] })));
    near(lm.sleeveLeft!.outerCuff, 48, 548, 14);
    near(lm.sleeveLeft!.innerCuff, 108, 566, 14);
    near(lm.armpitRight, 466, 242, 25);
  });

  it('finds trouser waistband corners, crotch and both leg openings', () => {
    const lm = detectBottom(shapeOf(drawBottom()));
    near(lm.waistLeft, 112, 46, 8);
    near(lm.waistRight, 408, 46, 8);
    expect(lm.crotch).not.toBeNull();
    near(lm.crotch!, 260, 240, 25);
    near(lm.legLeft!.hemOuter, 126, 733, 10);
    near(lm.legLeft!.hemInner, 230, 733, 10);
    near(lm.legRight!.hemOuter, 394, 733, 10);
  });

  it('finds a sleeveless dress: straps as shoulders, a narrow waist and a wide hem', () => {
    const lm = detectDress(shapeOf(drawDress()));
    expect(lm.sleeveLeft).toBeNull();
    expect(lm.sleeveRight).toBeNull();
    near(lm.shoulderLeft, 188, 48, 10);
    expect(lm.waistLeft.y).toBeGreaterThan(270);
    expect(lm.waistLeft.y).toBeLessThan(330);
    expect(lm.hemRight.x - lm.hemLeft.x).toBeGreaterThan(2 * (lm.waistRight.x - lm.waistLeft.x));
  });

  it('finds a shoe toe on the low side of the upper, whichever way it points', () => {
    const right = detectShoe(shapeOf(drawShoes()), 0);
    expect(right.toeDirection).toBe(1);
    expect(right.toe.x).toBeGreaterThan(right.heel.x);
    const left = detectShoe(shapeOf(drawShoes({ toe: 'left' })), 0);
    expect(left.toeDirection).toBe(-1);
    expect(left.soleY - left.topY).toBeGreaterThan(200);
  });

  it('classifies product images by shape', () => {
    expect(classifyGarment(segmentGarment(drawTop()))).toBe('top');
    expect(classifyGarment(segmentGarment(drawTop({ sleeves: 'long' })))).toBe('top');
    expect(classifyGarment(segmentGarment(drawBottom()))).toBe('bottom');
    expect(classifyGarment(segmentGarment(drawBottom({ length: 'shorts' })))).toBe('bottom');
    expect(classifyGarment(segmentGarment(drawDress()))).toBe('full-body');
    expect(classifyGarment(segmentGarment(drawShoes()))).toBe('shoe');
    expect(classifyGarment(segmentGarment(drawShoes({ layout: 'pair' }), { keepRatio: 0.3 }))).toBe('shoe');
  });
});
