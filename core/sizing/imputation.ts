import type { Dimension, Gender } from '../twins/body.ts';

/** What a body imputer returns: a value and a standard deviation (cm) for every dimension. */
export interface Imputation {
  mean: Record<Dimension, number>;
  /** 0 for the supplied dimensions. */
  sd: Record<Dimension, number>;
}

/** Fills the dimensions missing from `known` from reference bodies. */
export interface BodyImputer {
  impute(known: Partial<Record<Dimension, number>>, gender: Gender | null): Imputation;
  /** Log predictive density (per cm) of `value` for a missing dimension; without it, a normal with the imputation's mean and sd is assumed. */
  logDensity?(known: Partial<Record<Dimension, number>>, gender: Gender | null, d: Dimension, value: number): number;
}

/** Log density (per cm) of value under N(mean, sd). */
export function normalLogDensity(value: number, mean: number, sd: number): number {
  const s = Math.max(sd, 1e-6);
  return -0.5 * ((value - mean) / s) ** 2 - Math.log(s) - 0.5 * Math.log(2 * Math.PI);
}
