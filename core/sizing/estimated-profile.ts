import type { BodyProfile, Dimension } from '../twins/body.ts';

/**
 * A body profile with the standard deviation (cm) of every value: small for measured values,
 * wider for a girth derived from a clothing size, widest for imputed ones. Size fitting turns it
 * into how sure each fit verdict is.
 */
export interface EstimatedBodyProfile extends BodyProfile {
  uncertainty?: Partial<Record<Dimension, number>>;
}
