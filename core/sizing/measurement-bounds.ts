import type { Dimension } from '../twins/body.ts';

/** The spec's BodyMeasurements validation bounds (cm). Also the range imputed values are kept in. */
export const MEASUREMENT_BOUNDS: Readonly<Record<Dimension, { min: number; max: number }>> = {
  height: { min: 140, max: 210 },
  chest: { min: 70, max: 160 },
  waist: { min: 55, max: 170 },
  hip: { min: 70, max: 170 },
  inseam: { min: 60, max: 100 },
};

/** The spec requires at least this many measurements in a request. */
export const MIN_SUPPLIED_MEASUREMENTS = 2;
