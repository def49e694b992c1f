import type { FootDimensions } from '../../core/ports/foot-measurement-store.ts';

/**
 * Shoe sizes from a foot's length, with the formulas of the Wikipedia article "Shoe size"
 * (https://en.wikipedia.org/wiki/Shoe_size, sections "Foot versus shoe and last", "Paris point",
 * "United Kingdom" and "United States"):
 * - sizes count the length of the last, which is about 2 size units longer than the foot;
 * - EU (Paris point = 2/3 cm): size = 3/2 × last length in cm;
 * - UK adults (barleycorn = 1/3 inch): size = 3 × last length in inches − 25;
 * - US men = UK + 1 (3 × last − 24); US women = US men + 1.5 (3 × last − 22.5, the "common" scale);
 * - Mondopoint (ISO 9407:2019, "Shoe sizes — Mondopoint system of sizing and marking"): the foot's own
 *   length and width in millimetres, marked length/width; the length is rounded up to 5 mm here.
 * ISO/TS 19407 publishes conversion tables between these systems; its tables are not freely
 * available, so the formulas above are used. Sizes are rounded up (to a whole EU size, to half
 * UK and US sizes): a shoe a little long fits, one a little short does not.
 */
const ALLOWANCE_UNITS = 2;
const MM_PER_INCH = 25.4;

export interface ShoeSizes {
  eu: number;
  uk: number;
  usMen: number;
  usWomen: number;
  /** ISO 9407 marking `length/width` in mm. */
  mondopoint: string;
}

const up = (x: number, step: number) => Math.ceil(x / step - 1e-9) * step;

export function shoeSizes(foot: FootDimensions): ShoeSizes {
  const lengthCm = foot.lengthMm / 10;
  const lengthIn = foot.lengthMm / MM_PER_INCH;
  const eu = 1.5 * lengthCm + ALLOWANCE_UNITS;
  const uk = 3 * lengthIn + ALLOWANCE_UNITS - 25;
  return {
    eu: up(eu, 1),
    uk: up(uk, 0.5),
    usMen: up(uk + 1, 0.5),
    usWomen: up(uk + 2.5, 0.5),
    mondopoint: `${up(foot.lengthMm, 5)}/${Math.round(foot.widthMm)}`,
  };
}

export const SIZE_SOURCE =
  'Wikipedia, "Shoe size" (https://en.wikipedia.org/wiki/Shoe_size): last = foot + 2 size units; EU = 1.5 × last (cm); UK = 3 × last (in) − 25; US men = UK + 1; US women = US men + 1.5. Mondopoint per ISO 9407:2019 (foot length/width in mm, length rounded up to 5 mm).';

/** Recommended sizes for a pair: from the longer foot, as shoes are bought in pairs. */
export function recommendSizes(feet: { left?: FootDimensions; right?: FootDimensions }) {
  const { left, right } = feet;
  const basis: 'left' | 'right' = !right || (left && left.lengthMm > right.lengthMm) ? 'left' : 'right';
  const foot = feet[basis]!;
  return { basis, footLengthMm: foot.lengthMm, footWidthMm: foot.widthMm, ...shoeSizes(foot), perFoot: { ...(left ? { left: shoeSizes(left) } : {}), ...(right ? { right: shoeSizes(right) } : {}) }, source: SIZE_SOURCE };
}
