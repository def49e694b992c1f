import type { JsonSchema } from '../../core/plugin.ts';
import { IMAGE_STRING, ref, SUBMISSION_PROPERTIES, WEBHOOK_URL } from '../../core/schemas.ts';
import { BODY_MEASUREMENTS_SCHEMA, CLOTHING_SIZE_SCHEMA } from '../../core/sizing/body-source-schema.ts';
import { SIZE_FITTING_REQUEST_SCHEMA, SIZE_FITTING_RESPONSE_SCHEMA } from '../../core/sizing/size-fitting-schema.ts';
import { POSE_IDS } from '../../core/twins/body.ts';

/** Component schemas are embedded in one OpenAPI document: drop the per-schema dialect marker. */
function component(schema: Record<string, unknown>): JsonSchema {
  const { $schema: _dialect, ...rest } = schema;
  return JSON.parse(JSON.stringify(rest)) as JsonSchema;
}

export const TWIN_SCHEMAS: Record<string, JsonSchema> = {
  BodyMeasurements: component(BODY_MEASUREMENTS_SCHEMA),
  ClothingSize: component(CLOTHING_SIZE_SCHEMA),
  DigitalTwinRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['faceImage'],
    description: 'A face image plus exactly one body source: bodyPhotoUrl, silhouetteImage, bodyMeasurements or clothingSize.',
    properties: {
      faceImage: { ...IMAGE_STRING, description: 'Well-lit, front-facing face photo: image URL or base64 data URL.' },
      bodyPhotoUrl: { ...IMAGE_STRING, description: 'Photo mode: full-body standing photo, head to feet visible.' },
      silhouetteImage: { ...IMAGE_STRING, description: 'Direct mode: a pre-rendered depth/silhouette image of a 3D body mesh; the pose is ignored.' },
      bodyMeasurements: ref('BodyMeasurements'),
      clothingSize: ref('ClothingSize'),
      gender: { enum: ['male', 'female'] },
      poseId: {
        enum: [...POSE_IDS, 'default'],
        default: 'default',
        description: '`default` is resolved from the deployment configuration and the gender. Each resolved pose is a separate twin.',
      },
      webhookUrl: WEBHOOK_URL,
    },
  },
  DigitalTwinResponse: {
    type: 'object',
    required: ['success', 'status', 'estimatedProcessingTime', 'mode'],
    description: 'Queued: poll statusUrl; the twin id is in the completed job. Completed (cached twin): digitalTwinId at once; the job is already completed and no work runs.',
    properties: {
      ...SUBMISSION_PROPERTIES,
      mode: { enum: ['direct', 'photo', 'measurements', 'clothing_size'] },
      digitalTwinId: ref('DigitalTwinId'),
    },
  },
  DigitalTwinValidity: {
    type: 'object',
    required: ['valid'],
    properties: { valid: { const: true } },
  },
  SizeFittingRequest: component(SIZE_FITTING_REQUEST_SCHEMA),
  SizeFittingResponse: component(SIZE_FITTING_RESPONSE_SCHEMA),
};
