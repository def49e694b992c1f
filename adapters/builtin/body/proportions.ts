import type { Gender } from '../../../core/twins/body.ts';

/**
 * Body proportions of the parametric twin. Every ratio is the median over the ANSUR II reference
 * files in shared/data/anthropometry (1,422 women, 2,855 men); heights and lengths are fractions of
 * stature, limb girths are fractions of stature or of a profile girth as named. A profile without a
 * gender uses the mean of both tables.
 */
export interface Proportions {
  /** Depth / width of the elliptical cross-section (chestdepth/chestbreadth etc.). */
  chestDepthRatio: number;
  waistDepthRatio: number;
  hipDepthRatio: number;
  /** Heights above the floor / stature. */
  acromionHeight: number;
  suprasternaleHeight: number;
  axillaHeight: number;
  chestHeight: number;
  waistHeight: number;
  hipHeight: number;
  crotchHeight: number;
  kneeHeight: number;
  ankleHeight: number;
  /** Breadths and lengths / stature. */
  biacromialBreadth: number;
  headBreadth: number;
  headLength: number;
  upperArmLength: number;
  forearmLength: number;
  handLength: number;
  handBreadth: number;
  footLength: number;
  footBreadth: number;
  /** Girths / stature. */
  neckGirth: number;
  calfGirth: number;
  ankleGirth: number;
  wristGirth: number;
  /** Girths / a profile girth. */
  thighPerHip: number;
  kneePerHip: number;
  bicepsPerChest: number;
  forearmPerChest: number;
}

const FEMALE: Proportions = {
  chestDepthRatio: 0.915,
  waistDepthRatio: 0.705,
  hipDepthRatio: 0.654,
  acromionHeight: 0.82,
  suprasternaleHeight: 0.816,
  axillaHeight: 0.761,
  chestHeight: 0.719,
  waistHeight: 0.602,
  hipHeight: 0.512,
  crotchHeight: 0.48,
  kneeHeight: 0.276,
  ankleHeight: 0.039,
  biacromialBreadth: 0.224,
  headBreadth: 0.091,
  headLength: 0.117,
  upperArmLength: 0.191,
  forearmLength: 0.148,
  handLength: 0.111,
  handBreadth: 0.048,
  footLength: 0.151,
  footBreadth: 0.057,
  neckGirth: 0.202,
  calfGirth: 0.228,
  ankleGirth: 0.132,
  wristGirth: 0.095,
  thighPerHip: 0.603,
  kneePerHip: 0.39,
  bicepsPerChest: 0.323,
  forearmPerChest: 0.28,
};

const MALE: Proportions = {
  chestDepthRatio: 0.876,
  waistDepthRatio: 0.722,
  hipDepthRatio: 0.711,
  acromionHeight: 0.82,
  suprasternaleHeight: 0.819,
  axillaHeight: 0.756,
  chestHeight: 0.735,
  waistHeight: 0.602,
  hipHeight: 0.505,
  crotchHeight: 0.481,
  kneeHeight: 0.277,
  ankleHeight: 0.041,
  biacromialBreadth: 0.236,
  headBreadth: 0.088,
  headLength: 0.114,
  upperArmLength: 0.191,
  forearmLength: 0.152,
  handLength: 0.11,
  handBreadth: 0.05,
  footLength: 0.154,
  footBreadth: 0.058,
  neckGirth: 0.226,
  calfGirth: 0.223,
  ankleGirth: 0.13,
  wristGirth: 0.1,
  thighPerHip: 0.613,
  kneePerHip: 0.4,
  bicepsPerChest: 0.337,
  forearmPerChest: 0.29,
};

export function proportionsFor(gender: Gender | null): Proportions {
  if (gender === 'female') return FEMALE;
  if (gender === 'male') return MALE;
  const mixed = {} as Record<keyof Proportions, number>;
  for (const key of Object.keys(FEMALE) as (keyof Proportions)[]) mixed[key] = (FEMALE[key] + MALE[key]) / 2;
  return mixed;
}

/** Head height (vertex to chin) as a fraction of stature: the classical 7.5 heads figure. */
export const HEAD_HEIGHT_RATIO = 1 / 7.5;

/** Ramanujan's second approximation of an ellipse perimeter (relative error below 1e-9 here). */
export function ellipsePerimeter(semiA: number, semiB: number): number {
  const h = ((semiA - semiB) / (semiA + semiB)) ** 2;
  return Math.PI * (semiA + semiB) * (1 + (3 * h) / (10 + Math.sqrt(4 - 3 * h)));
}

/**
 * Full width of an ellipse whose perimeter is `circumference` and whose depth/width is `depthRatio`.
 * This is how a girth becomes a silhouette width: width = C / (perimeter of an ellipse of width 1).
 */
export function ellipseWidthFromCircumference(circumference: number, depthRatio: number): number {
  return circumference / ellipsePerimeter(0.5, 0.5 * depthRatio);
}

/** Inverse of ellipseWidthFromCircumference. */
export function circumferenceFromEllipseWidth(width: number, depthRatio: number): number {
  return width * ellipsePerimeter(0.5, 0.5 * depthRatio);
}
