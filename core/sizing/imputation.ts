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
}
