import type { BodyProfile, Dimension } from '../twins/body.ts';
import type { BodyDistribution } from './body-distribution.ts';

/**
 * A body profile with the standard deviation (cm) of every value: small for measured values,
 * wider for a girth derived from a clothing size, widest for imputed ones. `distribution` is the
 * joint uncertainty size fitting integrates over (profiles stored without one fall back to
 * independent values with these standard deviations).
 */
export interface EstimatedBodyProfile extends BodyProfile {
  uncertainty?: Partial<Record<Dimension, number>>;
  distribution?: BodyDistribution;
}
