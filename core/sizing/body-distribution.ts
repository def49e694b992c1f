import { DIMENSIONS } from '../twins/body.ts';
import type { BodyProfile, Dimension, Gender } from '../twins/body.ts';

/**
 * What is known about a body: a mixture of multivariate normals over the five dimensions in
 * DIMENSIONS order, either their natural logarithms (`log`, the cross-validated choice) or cm. A supplied dimension has variance 0 in every
 * component. One component for measurements with a known gender; one per gender when the gender
 * is unknown; several along the chest band for a clothing size.
 */
export interface BodyDistribution {
  space: DistributionSpace;
  components: BodyComponent[];
}

export type DistributionSpace = 'log' | 'cm';

/** From cm into the distribution's space and back. */
export const toSpace = (space: DistributionSpace, cm: number): number => (space === 'log' ? Math.log(cm) : cm);
export const fromSpace = (space: DistributionSpace, v: number): number => (space === 'log' ? Math.exp(v) : v);

export interface BodyComponent {
  /** Mixture weight; the weights sum to 1. */
  weight: number;
  gender: Gender;
  mean: number[];
  cov: number[][];
}

/** Standard deviation (cm) assumed for a value someone measured with a tape. */
export const MEASURED_SD = 1.5;

/**
 * For profiles stored before they carried a distribution: independent log-normals from each
 * value and its uncertainty (supplied values exact).
 */
export function distributionOf(profile: BodyProfile & { distribution?: BodyDistribution; uncertainty?: Partial<Record<Dimension, number>> }): BodyDistribution {
  if (profile.distribution) return profile.distribution;
  const mean = DIMENSIONS.map((d) => Math.log(profile.measurements[d]));
  const cov = DIMENSIONS.map((d, i) =>
    DIMENSIONS.map((_, j) => {
      if (i !== j || profile.supplied[d]) return 0;
      const sd = profile.uncertainty?.[d] ?? 4;
      return (sd / profile.measurements[d]) ** 2;
    }),
  );
  return { space: 'log', components: [{ weight: 1, gender: profile.gender ?? 'female', mean, cov }] };
}

/** Median (cm; for a mixture, of the weighted mean) and standard deviation (cm) of each dimension. */
export function summarise(dist: BodyDistribution): { median: Record<Dimension, number>; sd: Record<Dimension, number> } {
  const median = {} as Record<Dimension, number>;
  const sd = {} as Record<Dimension, number>;
  DIMENSIONS.forEach((d, i) => {
    let centre = 0;
    let m1 = 0;
    let m2 = 0;
    for (const c of dist.components) {
      const mu = c.mean[i];
      const v = c.cov[i][i];
      centre += c.weight * mu;
      // Raw moments of each component: log-normal or normal.
      m1 += c.weight * (dist.space === 'log' ? Math.exp(mu + v / 2) : mu);
      m2 += c.weight * (dist.space === 'log' ? Math.exp(2 * mu + 2 * v) : v + mu * mu);
    }
    median[d] = fromSpace(dist.space, centre);
    sd[d] = Math.sqrt(Math.max(0, m2 - m1 * m1));
  });
  return { median, sd };
}
