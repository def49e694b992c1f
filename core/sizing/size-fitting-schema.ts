import { DIMENSIONS } from '../twins/body.ts';
import { CHART_UNITS, FIT_PREFERENCES, MAX_PRODUCTS, MAX_SIZES_PER_CHART, PRODUCT_CATEGORIES } from './size-chart.ts';

/**
 * JSON Schemas (draft 2020-12) of POST /api/v1/size-fitting, self-contained (no $ref) so they
 * can be embedded in the OpenAPI document as they are. Rules a schema cannot state (unique
 * labels, max >= min, a relevant dimension per category) are checked by
 * validateSizeFittingRequest, which also covers everything below.
 */
const DRAFT = 'https://json-schema.org/draft/2020-12/schema';
const TWIN_ID = { type: 'string', pattern: '^[a-f0-9]{64}$', description: 'Digital twin id (SHA-256 hex).' } as const;

const range = {
  type: 'object',
  additionalProperties: false,
  required: ['min', 'max'],
  properties: { min: { type: 'number' }, max: { type: 'number', description: 'Must be >= min.' } },
} as const;

export const SIZE_FITTING_REQUEST_SCHEMA = {
  $schema: DRAFT,
  title: 'SizeFittingRequest',
  type: 'object',
  additionalProperties: false,
  required: ['digitalTwinId', 'products'],
  properties: {
    digitalTwinId: TWIN_ID,
    products: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_PRODUCTS,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'category', 'sizeChart'],
        properties: {
          id: { type: 'string', minLength: 1 },
          category: { enum: [...PRODUCT_CATEGORIES] },
          fitPreference: {
            enum: [...FIT_PREFERENCES],
            default: 'regular',
            description:
              'How this product should fit. regular: the size the body misses by the fewest centimetres in total over the chart\'s dimensions. loose: a body above a range (tight garment) counts double and below it half, so conflicts go to the larger size; snug: the reverse.',
          },
          sizeChart: {
            type: 'object',
            additionalProperties: false,
            required: ['version', 'basis', 'unit', 'sizes'],
            properties: {
              version: { const: 1 },
              basis: { const: 'body', description: 'Body ranges, not garment dimensions.' },
              unit: { enum: [...CHART_UNITS], description: 'Inches are converted to cm before evaluation.' },
              sizes: {
                type: 'array',
                minItems: 1,
                maxItems: MAX_SIZES_PER_CHART,
                description:
                  'Labels are unique. Each row gives at least one dimension relevant to the category: top chest|waist; bottom waist|hip|inseam; fullBody chest|waist|hip|height.',
                items: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['label', 'measurements'],
                  properties: {
                    label: { type: 'string', minLength: 1 },
                    measurements: {
                      type: 'object',
                      additionalProperties: false,
                      properties: Object.fromEntries(DIMENSIONS.map((d) => [d, range])),
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
} as const;

const dimensionFit = {
  type: 'object',
  additionalProperties: false,
  required: ['dimension', 'status', 'distanceCm', 'supplied', 'fitProbability'],
  properties: {
    dimension: { enum: [...DIMENSIONS] },
    status: { enum: ['fit', 'loose', 'tight'] },
    distanceCm: {
      type: 'number',
      description: 'Body minus the nearest bound of the range (cm): negative below it (loose), positive above it (tight), 0 inside.',
    },
    supplied: { type: 'boolean', description: 'false when the value was imputed from reference bodies.' },
    fitProbability: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      description: 'Probability that the body\'s value lies within this size\'s range, given its uncertainty (a tape\'s error for supplied values, the model\'s spread for imputed ones).',
    },
  },
} as const;

export const SIZE_FITTING_RESPONSE_SCHEMA = {
  $schema: DRAFT,
  title: 'SizeFittingResponse',
  type: 'object',
  additionalProperties: false,
  required: ['success', 'available', 'digitalTwinId'],
  properties: {
    success: { const: true },
    available: { type: 'boolean', description: 'false when the twin has no body profile (photo or direct mode).' },
    digitalTwinId: TWIN_ID,
    reason: { type: 'string', description: 'Why sizing is unavailable; present when available is false.' },
    products: {
      type: 'array',
      description: 'Present when available is true, in request order.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'recommendedSize', 'confidence', 'alternatives', 'dimensions', 'decidedBy', 'reason', 'fitPreference'],
        properties: {
          id: { type: 'string' },
          recommendedSize: { type: 'string' },
          confidence: {
            type: 'number',
            minimum: 0,
            maximum: 1,
            description: 'Probability that the recommended size is the one the body would get with every measurement known.',
          },
          alternatives: {
            type: 'array',
            description: 'The next most likely sizes, best first (up to 3).',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['label', 'score'],
              properties: { label: { type: 'string' }, score: { type: 'number', minimum: 0, maximum: 1, description: 'The same probability as confidence, for this size.' } },
            },
          },
          dimensions: { type: 'array', description: 'Each dimension the recommended size gives.', items: dimensionFit },
          decidedBy: {
            anyOf: [{ enum: [...DIMENSIONS] }, { type: 'null' }],
            description: 'The dimension that chose the recommended size over the runner-up (for a body in M by chest and L by waist, the one whose miss weighed more); null when no other size competed.',
          },
          reason: { type: 'string', description: 'Plain-language summary, e.g. "M: chest fits, waist (estimated) fits, close to the upper edge."' },
          fitPreference: { enum: [...FIT_PREFERENCES], description: 'The preference applied (the request\'s, or regular).' },
        },
      },
    },
  },
} as const;
