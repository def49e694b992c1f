/**
 * The inside back of a packshot's neck opening (neck-opening.ts): a front packshot shows the
 * inside of the back (and its label) through the opening, which a worn top does not.
 */
import { describe, expect, it } from 'vitest';
import { insideBackOfNeck } from '../../../../adapters/builtin/tryon/neck-opening.ts';

/**
 * A cardigan flat on white: a grey body, a green band down both sides of a V from the shoulders'
 * inner ends to a point at 40 % of its height and on down the placket, the inside back in the V of
 * the front's grey with a white label below the back collar's green band.
 */
function cardigan() {
  const w = 300;
  const h = 400;
  const data = new Uint8Array(w * h * 4);
  const mask = new Uint8Array(w * h);
  const GREY = [150, 152, 156];
  const GREEN = [160, 200, 170];
  const WHITE = [250, 250, 250];
  const LABEL = [245, 245, 245];
  const cx = 150;
  const top = 20;
  const point = 180;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      let c = WHITE;
      if (y >= top && y < 380 && x >= 20 && x < 280) {
        mask[i] = 1;
        c = GREY;
        // the V's inner edge half width at row y, the band 10 px wide outside it
        const half = y < point ? 60 * (1 - (y - top) / (point - top)) : 0;
        const d = Math.abs(x - cx);
        if (y < top + 8 && d < 72) c = GREEN; // the back collar's band
        else if (y < point && d < half) c = y > top + 14 && y < top + 34 && d < 15 ? LABEL : GREY;
        else if (y < point && d < half + 10) c = GREEN;
        else if (y >= point && d < 8) c = GREEN; // the placket
      }
      data.set([...c, 255], i * 4);
    }
  }
  return { img: { width: w, height: h, data }, mask, cx, top, point };
}

describe('insideBackOfNeck', () => {
  it('a V edged by a trim, its inside of the front colour: the whole V down to its point, the label in it, not the trim', () => {
    const { img, mask, cx, top, point } = cardigan();
    const region = insideBackOfNeck(img, mask, [20, top, 279, 379]);
    expect(region).not.toBeNull();
    const at = (x: number, y: number) => region![y * img.width + x];
    // the label, the inside just above the point, the back collar's band
    expect(at(cx, top + 24)).toBe(1);
    expect(at(cx, point - 12)).toBe(1);
    expect(at(cx, top + 3)).toBe(1);
    // the front band beside the V and the placket below it stay
    expect(at(cx - 65, top + 40)).toBe(0);
    expect(at(cx, point + 10)).toBe(0);
    // the front's cloth beside the band stays
    expect(at(cx - 100, top + 40)).toBe(0);
  });

  it('a plain crew neck with no inside of another colour: nothing', () => {
    const w = 300;
    const h = 400;
    const data = new Uint8Array(w * h * 4).fill(255);
    const mask = new Uint8Array(w * h);
    for (let y = 20; y < 380; y++) {
      for (let x = 20; x < 280; x++) {
        if (y < 50 && Math.hypot((x - 150) / 50, (y - 20) / 30) < 1) continue;
        mask[y * w + x] = 1;
        data.set([150, 152, 156, 255], (y * w + x) * 4);
      }
    }
    expect(insideBackOfNeck({ width: w, height: h, data }, mask, [20, 20, 279, 379])).toBeNull();
  });
});
