import type { Dimension } from '../twins/body.ts';

export type ImputationMethod = 'regression' | 'knn';

/**
 * Imputation method per dimension, chosen by 5-fold cross-validation on the training split
 * (3,402 bodies; every input subset of 2-4 dimensions, gender known; see PROVENANCE.md).
 * MAE in cm, regression / 10-NN mean / 1-NN (the spec's floor):
 *   height 3.50 / 3.68 / 4.98, chest 3.76 / 3.97 / 5.32, waist 4.32 / 4.54 / 6.06,
 *   hip 3.30 / 3.47 / 4.65, inseam 2.46 / 2.58 / 3.45.
 * Regression wins every dimension (10-NN errs ~5% more, 1-NN ~40% more; the same ranking with
 * the gender omitted), and it extrapolates past the data instead of clamping to its edge.
 */
export const IMPUTATION_METHOD: Readonly<Record<Dimension, ImputationMethod>> = {
  height: 'regression',
  chest: 'regression',
  waist: 'regression',
  hip: 'regression',
  inseam: 'regression',
};
