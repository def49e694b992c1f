import { DIMENSIONS } from '../twins/body.ts';
import { CLOTHING_SIZES } from './en13402.ts';
import { MEASUREMENT_BOUNDS, MIN_SUPPLIED_MEASUREMENTS } from './measurement-bounds.ts';

/**
 * JSON Schemas (draft 2020-12, self-contained) of the spec's BodyMeasurements and ClothingSize,
 * shared by every request that accepts an inline body source.
 */
export const BODY_MEASUREMENTS_SCHEMA = {
  title: 'BodyMeasurements',
  description: `Body measurements in centimetres; each optional, at least ${MIN_SUPPLIED_MEASUREMENTS} required. The bounds are validation bounds only: matching against the reference bodies never rejects an in-bounds query.`,
  type: 'object',
  additionalProperties: false,
  minProperties: MIN_SUPPLIED_MEASUREMENTS,
  properties: Object.fromEntries(
    DIMENSIONS.map((d) => [d, { type: 'number', minimum: MEASUREMENT_BOUNDS[d].min, maximum: MEASUREMENT_BOUNDS[d].max }]),
  ),
} as const;

export const CLOTHING_SIZE_SCHEMA = {
  title: 'ClothingSize',
  description: 'Height and an EN 13402-3 letter size, converted to measurements from the letter\'s chest/bust band. Uses `gender`; defaults to female.',
  type: 'object',
  additionalProperties: false,
  required: ['height', 'size'],
  properties: {
    height: { type: 'number', minimum: MEASUREMENT_BOUNDS.height.min, maximum: MEASUREMENT_BOUNDS.height.max },
    size: { enum: [...CLOTHING_SIZES] },
  },
} as const;
