import { DIMENSIONS } from '../twins/body.ts';
import type { Dimension } from '../twins/body.ts';
import { normalLogDensity } from './imputation.ts';
import type { BodyImputer } from './imputation.ts';
import type { ReferenceBody } from './reference/reference-body.ts';

export type ImputerFactory = (training: readonly ReferenceBody[]) => BodyImputer;

export interface CrossValidation {
  methods: string[];
  /** Mean absolute error (cm) per method and imputed dimension, averaged over every input subset. */
  mae: Record<string, Record<Dimension, number>>;
  /** The same, for queries that omit the gender. */
  maeNoGender: Record<string, Record<Dimension, number>>;
  /** Mean negative log predictive density (per cm; lower is better), gender known: how well the spread fits too. */
  logLoss: Record<string, Record<Dimension, number>>;
  subsets: Dimension[][];
  folds: number;
  count: number;
}

/** Every subset of 2 to 4 dimensions: the inputs a request can supply with something left to impute. */
export function inputSubsets(): Dimension[][] {
  const out: Dimension[][] = [];
  for (let mask = 1; mask < 1 << DIMENSIONS.length; mask++) {
    const s = DIMENSIONS.filter((_, i) => mask & (1 << i));
    if (s.length >= 2 && s.length <= 4) out.push(s);
  }
  return out;
}

/**
 * k-fold cross-validation of imputers: each body of a fold is reduced to every input subset and
 * its missing dimensions are predicted from the other folds. Per dimension, the MAE over all
 * subsets lacking it is averaged with equal weight per subset.
 */
export function crossValidateImputation(bodies: readonly ReferenceBody[], methods: Record<string, ImputerFactory>, folds = 5): CrossValidation {
  const subsets = inputSubsets();
  const names = Object.keys(methods);
  const zero = () => Object.fromEntries(DIMENSIONS.map((d) => [d, 0])) as Record<Dimension, number>;
  // err[method][subset][dimension]: sum of absolute errors.
  const err = (): number[][][] => names.map(() => subsets.map(() => DIMENSIONS.map(() => 0)));
  const withGender = err();
  const noGender = err();
  const loss = err();
  for (let f = 0; f < folds; f++) {
    const training = bodies.filter((_, i) => i % folds !== f);
    const test = bodies.filter((_, i) => i % folds === f);
    names.forEach((name, mi) => {
      const imputer = methods[name](training);
      for (const body of test) {
        subsets.forEach((subset, si) => {
          const known = Object.fromEntries(subset.map((d) => [d, body.measurements[d]]));
          for (const [acc, gender] of [[withGender, body.gender], [noGender, null]] as const) {
            const { mean, sd } = imputer.impute(known, gender);
            DIMENSIONS.forEach((d, di) => {
              if (subset.includes(d)) return;
              const v = body.measurements[d];
              acc[mi][si][di] += Math.abs(mean[d] - v);
              if (gender === null) return;
              loss[mi][si][di] -= imputer.logDensity ? imputer.logDensity(known, gender, d, v) : normalLogDensity(v, mean[d], sd[d]);
            });
          }
        });
      }
    });
  }
  const summarise = (acc: number[][][]) =>
    Object.fromEntries(
      names.map((name, mi) => {
        const out = zero();
        DIMENSIONS.forEach((d, di) => {
          const lacking = subsets.map((s, si) => [s, si] as const).filter(([s]) => !s.includes(d));
          out[d] = lacking.reduce((sum, [, si]) => sum + acc[mi][si][di] / bodies.length, 0) / lacking.length;
        });
        return [name, out];
      }),
    );
  return { methods: names, mae: summarise(withGender), maeNoGender: summarise(noGender), logLoss: summarise(loss), subsets, folds, count: bodies.length };
}
