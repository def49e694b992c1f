/**
 * Landmarks of a shoe seen from the side: the sole line (lowest row), the toe (the extreme on the
 * side where the upper is low) and the heel (the other extreme), and the top of the collar.
 */
import type { ShoeLandmarks } from './garment-landmarks.ts';
import type { MaskShape } from './mask-shape.ts';

export function detectShoe(shape: MaskShape, component: number): ShoeLandmarks {
  const { x0, x1, y0, y1 } = shape;
  const W = shape.boxWidth;
  const band = Math.max(2, Math.round(W * 0.2));
  const meanTop = (from: number, to: number) => {
    let s = 0;
    let n = 0;
    for (let x = from; x <= to; x++) {
      const t = shape.top(x);
      if (t >= 0) {
        s += t;
        n++;
      }
    }
    return n ? s / n : y0;
  };
  // the toe end of the upper is lower than the heel counter and the collar
  const leftTop = meanTop(x0, x0 + band);
  const rightTop = meanTop(x1 - band, x1);
  const toeDirection: 1 | -1 = rightTop >= leftTop ? 1 : -1;
  const midY = (x: number) => {
    const t = shape.top(x);
    const b = shape.bottom(x);
    return t >= 0 ? (t + b) / 2 : (y0 + y1) / 2;
  };
  const toeX = toeDirection > 0 ? x1 : x0;
  const heelX = toeDirection > 0 ? x0 : x1;
  return {
    kind: 'shoe',
    toeDirection,
    toe: { x: toeX, y: midY(toeX) },
    heel: { x: heelX, y: midY(heelX) },
    soleY: y1,
    topY: y0,
    component,
  };
}
