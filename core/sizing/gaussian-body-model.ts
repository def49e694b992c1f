import { DIMENSIONS } from '../twins/body.ts';
import type { Dimension, Gender } from '../twins/body.ts';
import { summarise, toSpace } from './body-distribution.ts';
import type { BodyComponent, BodyDistribution, DistributionSpace } from './body-distribution.ts';
import { normalLogDensity } from './imputation.ts';
import type { BodyImputer, Imputation } from './imputation.ts';
import { logDetSpd, solveSpd } from './linear-algebra.ts';
import type { ReferenceBody } from './reference/reference-body.ts';

interface GenderModel {
  prior: number;
  mean: number[];
  cov: number[][];
}

/** Supplied values (cm); each pins its dimension exactly. */
export type Known = Partial<Record<Dimension, number>>;

/**
 * Conditional Gaussian: each gender's five dimensions are modelled as a multivariate normal,
 * either of the centimetres or of their logarithms (`space`; the log model is the
 * cross-validated choice, see PROVENANCE.md: girths spread in proportion to their size), and the
 * missing dimensions follow the conditional normal given the supplied ones. Its mean is the
 * least-squares prediction from the supplied subset (fitted for every subset at once); its
 * covariance is the uncertainty size fitting integrates over. Being linear, it extrapolates
 * beyond the data instead of rejecting a query.
 *
 * Without a gender the two models form a mixture: each is weighted by its prior times the
 * likelihood of the supplied values, so a 190 cm, 130 cm-chest query leans male on its own.
 */
export class GaussianBodyModel implements BodyImputer {
  readonly space: DistributionSpace;
  readonly #models: Record<Gender, GenderModel>;

  constructor(bodies: readonly ReferenceBody[], space: DistributionSpace = 'log') {
    this.space = space;
    const total = bodies.length;
    const fit = (gender: Gender): GenderModel => {
      const rows = bodies.filter((b) => b.gender === gender).map((b) => DIMENSIONS.map((d) => toSpace(space, b.measurements[d])));
      if (rows.length < DIMENSIONS.length + 1) throw new Error(`not enough ${gender} reference bodies`);
      const mean = DIMENSIONS.map((_, j) => rows.reduce((s, r) => s + r[j], 0) / rows.length);
      const cov = DIMENSIONS.map((_, i) =>
        DIMENSIONS.map((_, j) => rows.reduce((s, r) => s + (r[i] - mean[i]) * (r[j] - mean[j]), 0) / (rows.length - 1)),
      );
      return { prior: rows.length / total, mean, cov };
    };
    this.#models = { female: fit('female'), male: fit('male') };
  }

  /** The body given the supplied values (cm): one component per candidate gender, weighted. */
  distribution(known: Known, gender: Gender | null): BodyDistribution {
    const s = DIMENSIONS.map((d, i) => [d, i] as const).filter(([d]) => known[d] !== undefined).map(([, i]) => i);
    const x = s.map((i) => toSpace(this.space, known[DIMENSIONS[i]]!));
    const genders: Gender[] = gender ? [gender] : ['female', 'male'];
    const parts = genders.map((g) => ({ gender: g, ...this.#condition(this.#models[g], s, x) }));
    // Mixture weights from log prior + log likelihood, normalised stably.
    const maxLog = Math.max(...parts.map((p) => p.logWeight));
    const w = parts.map((p) => Math.exp(p.logWeight - maxLog));
    const wSum = w.reduce((a, b) => a + b, 0);
    const components: BodyComponent[] = parts.map((p, k) => ({ weight: w[k] / wSum, gender: p.gender, mean: p.mean, cov: p.cov }));
    return { space: this.space, components };
  }

  impute(known: Known, gender: Gender | null): Imputation {
    const { median, sd } = summarise(this.distribution(known, gender));
    const mean = {} as Record<Dimension, number>;
    for (const d of DIMENSIONS) mean[d] = known[d] ?? median[d];
    return { mean, sd };
  }

  logDensity(known: Known, gender: Gender | null, d: Dimension, value: number): number {
    const i = DIMENSIONS.indexOf(d);
    const t = toSpace(this.space, value);
    // Change of variables: a density over log cm is divided by the value to be per cm.
    const jacobian = this.space === 'log' ? -Math.log(value) : 0;
    let p = 0;
    for (const c of this.distribution(known, gender).components) p += c.weight * Math.exp(normalLogDensity(t, c.mean[i], Math.sqrt(c.cov[i][i])));
    return Math.log(Math.max(p, Number.MIN_VALUE)) + jacobian;
  }

  #condition(model: GenderModel, s: readonly number[], x: readonly number[]) {
    const n = DIMENSIONS.length;
    if (s.length === 0) return { mean: model.mean.slice(), cov: model.cov.map((r) => r.slice()), logWeight: Math.log(model.prior) };
    const sss = s.map((i) => s.map((j) => model.cov[i][j]));
    const resid = s.map((i, k) => x[k] - model.mean[i]);
    // Columns: the residual, then the cross-covariances with every dimension.
    const rhs = s.map((i, k) => [resid[k], ...Array.from({ length: n }, (_, j) => model.cov[i][j])]);
    const sol = solveSpd(sss, rhs);
    const mean = new Array<number>(n);
    const cov: number[][] = Array.from({ length: n }, () => new Array<number>(n).fill(0));
    const fixed = new Set(s);
    for (let j = 0; j < n; j++) {
      let m = model.mean[j];
      for (let k = 0; k < s.length; k++) m += model.cov[j][s[k]] * sol[k][0];
      mean[j] = m;
      if (fixed.has(j)) continue;
      for (let l = 0; l < n; l++) {
        if (fixed.has(l)) continue;
        let c = model.cov[j][l];
        for (let k = 0; k < s.length; k++) c -= model.cov[j][s[k]] * sol[k][1 + l];
        cov[j][l] = c;
      }
      cov[j][j] = Math.max(1e-12, cov[j][j]);
    }
    s.forEach((i, k) => (mean[i] = x[k]));
    const mahalanobis = resid.reduce((acc, r, k) => acc + r * sol[k][0], 0);
    const logLik = -0.5 * (mahalanobis + logDetSpd(sss) + s.length * Math.log(2 * Math.PI));
    return { mean, cov, logWeight: Math.log(model.prior) + logLik };
  }
}
