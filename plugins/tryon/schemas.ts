import type { JsonSchema } from '../../core/plugin.ts';
import { IMAGE_STRING, ref, SUBMISSION_PROPERTIES, WEBHOOK_URL } from '../../core/schemas.ts';
import { PROVIDER_IDS } from '../../core/ports/image-model.ts';
import { PRODUCT_CATEGORIES } from '../../core/tryon/tryon-input.ts';
import { PROMPT_PRESETS } from '../../core/tryon/prompts.ts';
import { POSE_IDS } from '../../core/twins/body.ts';

const QUALITY: JsonSchema = { enum: ['draft', 'standard', 'high'], default: 'standard' };
const PROVIDER: JsonSchema = { enum: [...PROVIDER_IDS], description: 'Only models of this provider are tried.' };
const MODEL: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  description:
    'Pins one model and bypasses the default fallback chain (for testing). The pinned model must accept at least as many input references as the call sends, otherwise the call is rejected with INPUT_REFERENCE_LIMIT before any outbound request.',
};
const TWIN_ID: JsonSchema = ref('DigitalTwinId');

const GARMENT_SLOT: JsonSchema = {
  description: 'One image (the packshot) or an array of 1-2: [0] the packshot (required), [1] an optional on-model reference. Order matters.',
  oneOf: [IMAGE_STRING, { type: 'array', minItems: 1, maxItems: 2, items: IMAGE_STRING }],
};

const TRYON_OPTIONS: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    quality: QUALITY,
    preserveBackground: { type: 'boolean', default: true, description: 'false replaces the background with a clean studio backdrop.' },
    skipResultCache: { type: 'boolean', default: false, description: 'true always generates a fresh result.' },
    provider: PROVIDER,
    model: MODEL,
    promptPreset: { enum: [...PROMPT_PRESETS], default: 'clothing-1' },
  },
};

const CLOTHING_FIELDS: Record<string, JsonSchema> = {
  personImages: { type: 'array', minItems: 1, maxItems: 3, items: IMAGE_STRING, description: 'Photos of the person (1-3). Required if digitalTwinId is absent.' },
  digitalTwinId: TWIN_ID,
  topGarment: GARMENT_SLOT,
  bottomGarment: GARMENT_SLOT,
  fullBodyGarment: GARMENT_SLOT,
  shoes: GARMENT_SLOT,
  productImage: { ...IMAGE_STRING, description: 'A single product image: the direct two-image path without a garment grid. Cannot be combined with any garment slot.' },
  productCategory: { enum: [...PRODUCT_CATEGORIES], default: 'auto', description: 'Hint for productImage; `auto` decides from the garment.' },
  options: ref('TryOnOptions'),
  webhookUrl: WEBHOOK_URL,
};

export const TRYON_SCHEMAS: Record<string, JsonSchema> = {
  TryOnOptions: TRYON_OPTIONS,
  ClothingTryOnRequest: {
    type: 'object',
    additionalProperties: false,
    description: 'A person (personImages or digitalTwinId) and at least one clothing slot or a productImage; shoes are an optional add-on.',
    properties: CLOTHING_FIELDS,
  },
  VirtualFittingRequest: {
    type: 'object',
    additionalProperties: false,
    description:
      'Identity by one of: digitalTwinId; faceImage plus exactly one inline body source (photoUrl, silhouetteImage, bodyMeasurements, clothingSize), which creates or reuses a twin; or personImages. Garments: at least one clothing slot or productImage; shoes are an optional add-on.',
    properties: {
      ...CLOTHING_FIELDS,
      faceImage: { ...IMAGE_STRING, description: 'With one inline body source: the twin is created or reused.' },
      photoUrl: { ...IMAGE_STRING, description: 'Inline body source: full-body standing photo.' },
      silhouetteImage: { ...IMAGE_STRING, description: 'Inline body source: pre-rendered depth/silhouette image.' },
      bodyMeasurements: ref('BodyMeasurements'),
      clothingSize: ref('ClothingSize'),
      gender: { enum: ['male', 'female'] },
      poseId: { enum: [...POSE_IDS, 'default'], default: 'default' },
    },
  },
  ShoeTryOnRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['shoeImages'],
    properties: {
      shoeImages: {
        type: 'array',
        minItems: 1,
        maxItems: 4,
        items: { type: 'object', additionalProperties: false, required: ['url'], properties: { url: IMAGE_STRING, angle: { enum: ['front', 'side', 'back'] } } },
      },
      personImages: { type: 'array', minItems: 1, maxItems: 2, items: IMAGE_STRING, description: 'Required if digitalTwinId is absent.' },
      digitalTwinId: TWIN_ID,
      options: { type: 'object', additionalProperties: false, properties: { quality: QUALITY, provider: PROVIDER, model: MODEL } },
      webhookUrl: WEBHOOK_URL,
    },
  },
  GenerateRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['prompt'],
    properties: {
      prompt: { type: 'string', minLength: 1, maxLength: 2000 },
      inputImages: { type: 'array', maxItems: 4, items: IMAGE_STRING },
      options: { type: 'object', additionalProperties: false, properties: { model: MODEL, quality: QUALITY } },
      webhookUrl: WEBHOOK_URL,
    },
  },
  PoseTransferRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['personImage'],
    description:
      'Transfers a pose onto a person: `personImage` is the person whose identity and clothes are kept; the pose comes from exactly one of `poseImage` (a photo of someone in the wanted pose) or `poseId` (one of the standard poses).',
    properties: {
      personImage: IMAGE_STRING,
      poseImage: IMAGE_STRING,
      poseId: { enum: [...POSE_IDS] },
      options: { type: 'object', additionalProperties: false, properties: { quality: QUALITY, provider: PROVIDER, model: MODEL } },
      webhookUrl: WEBHOOK_URL,
    },
  },
  TryOnResponse: {
    type: 'object',
    required: ['success', 'jobId', 'status', 'estimatedProcessingTime', 'statusUrl'],
    properties: {
      ...SUBMISSION_PROPERTIES,
      results: { type: 'array', items: ref('JobResult'), description: 'Present on a cache hit: use it directly, do not poll.' },
      digitalTwinId: TWIN_ID,
    },
  },
  GenerateResponse: {
    type: 'object',
    required: ['success', 'jobId', 'status', 'estimatedProcessingTime', 'statusUrl'],
    properties: {
      success: { const: true },
      jobId: { type: 'string', format: 'uuid' },
      status: { const: 'queued' },
      estimatedProcessingTime: { type: 'number' },
      statusUrl: { type: 'string', format: 'uri' },
    },
  },
};
