import { DIMENSIONS } from '../twins/body.ts';
import type { Dimension, Gender } from '../twins/body.ts';
import type { BodyImputer, Imputation } from './imputation.ts';
import { logDetSpd, solveSpd } from './linear-algebra.ts';
import type { ReferenceBody } from './reference/reference-body.ts';

interface GenderModel {
  prior: number;
  mean: number[];
  cov: number[][];
}

/**
 * Conditional linear regression: each gender's five dimensions are modelled as a multivariate
 * normal, and the missing dimensions are predicted by their conditional mean given the supplied
 * ones (identical to ordinary least squares on the supplied subset, fitted for every subset at
 * once). The conditional covariance gives each prediction's uncertainty. Being linear, it
 * extrapolates beyond the data instead of rejecting a query.
 *
 * Without a gender the two models form a mixture: each is weighted by its prior times the
 * likelihood of the supplied values, so a 190 cm, 130 cm-chest query leans male on its own.
 */
export class GaussianBodyModel implements BodyImputer {
  readonly #models: Record<Gender, GenderModel>;

  constructor(bodies: readonly ReferenceBody[]) {
    const total = bodies.length;
    const fit = (gender: Gender): GenderModel => {
      const rows = bodies.filter((b) => b.gender === gender).map((b) => DIMENSIONS.map((d) => b.measurements[d]));
      if (rows.length < DIMENSIONS.length + 1) throw new Error(`not enough ${gender} reference bodies`);
      const mean = DIMENSIONS.map((_, j) => rows.reduce((s, r) => s + r[j], 0) / rows.length);
      const cov = DIMENSIONS.map((_, i) =>
        DIMENSIONS.map((_, j) => rows.reduce((s, r) => s + (r[i] - mean[i]) * (r[j] - mean[j]), 0) / (rows.length - 1)),
      );
      return { prior: rows.length / total, mean, cov };
    };
    this.#models = { female: fit('female'), male: fit('male') };
  }

  impute(known: Partial<Record<Dimension, number>>, gender: Gender | null): Imputation {
    const s = DIMENSIONS.map((d, i) => [d, i] as const).filter(([d]) => known[d] !== undefined).map(([, i]) => i);
    const x = s.map((i) => known[DIMENSIONS[i]]!);
    const genders: Gender[] = gender ? [gender] : ['female', 'male'];
    const parts = genders.map((g) => this.#condition(this.#models[g], s, x));
    // Mixture weights from log prior + log likelihood, normalised stably.
    const maxLog = Math.max(...parts.map((p) => p.logWeight));
    const w = parts.map((p) => Math.exp(p.logWeight - maxLog));
    const wSum = w.reduce((a, b) => a + b, 0);
    const mean = {} as Record<Dimension, number>;
    const sd = {} as Record<Dimension, number>;
    DIMENSIONS.forEach((d, i) => {
      let m = 0;
      let second = 0;
      parts.forEach((p, k) => {
        m += (w[k] / wSum) * p.mean[i];
        second += (w[k] / wSum) * (p.variance[i] + p.mean[i] * p.mean[i]);
      });
      mean[d] = m;
      sd[d] = Math.sqrt(Math.max(0, second - m * m));
    });
    return { mean, sd };
  }

  #condition(model: GenderModel, s: readonly number[], x: readonly number[]) {
    const n = DIMENSIONS.length;
    if (s.length === 0) {
      return { mean: model.mean.slice(), variance: model.cov.map((r, i) => r[i]), logWeight: Math.log(model.prior) };
    }
    const sss = s.map((i) => s.map((j) => model.cov[i][j]));
    const resid = s.map((i, k) => x[k] - model.mean[i]);
    // Columns: the residual, then the cross-covariances with every dimension.
    const rhs = s.map((i, k) => [resid[k], ...Array.from({ length: n }, (_, j) => model.cov[i][j])]);
    const sol = solveSpd(sss, rhs);
    const mean = new Array<number>(n);
    const variance = new Array<number>(n);
    for (let j = 0; j < n; j++) {
      let m = model.mean[j];
      let v = model.cov[j][j];
      for (let k = 0; k < s.length; k++) {
        m += model.cov[j][s[k]] * sol[k][0];
        v -= model.cov[j][s[k]] * sol[k][1 + j];
      }
      mean[j] = m;
      variance[j] = Math.max(0, v);
    }
    s.forEach((i, k) => {
      mean[i] = x[k];
      variance[i] = 0;
    });
    const mahalanobis = resid.reduce((acc, r, k) => acc + r * sol[k][0], 0);
    const logLik = -0.5 * (mahalanobis + logDetSpd(sss) + s.length * Math.log(2 * Math.PI));
    return { mean, variance, logWeight: Math.log(model.prior) + logLik };
  }
}
