import type { JsonSchema } from '../../core/plugin.ts';
import { ref } from '../../core/schemas.ts';
import { AUTOFIT_STATUSES, COLOR_ID_SCHEMA, COLOR_PRESET_SCHEMA, MATERIALS_DATA_SCHEMA } from '../../core/ports/ar-object-store.ts';

const OBJECT_REF = { type: 'string', minLength: 1, maxLength: 200, description: 'Object id (24 hex characters) or name' };
const COLOR_OR_NULL = { oneOf: [ref('ArColorPreset'), { type: 'null' }] };

/** Component schemas of the AR host's operations (published in the OpenAPI document). */
export const AR_SCHEMAS: Record<string, JsonSchema> = {
  ArColorPreset: COLOR_PRESET_SCHEMA,
  ArMaterialsData: MATERIALS_DATA_SCHEMA,
  ArUploadResult: {
    type: 'object',
    required: ['id', 'color_id', 'viewer_url'],
    properties: { id: { type: 'string', pattern: '^[0-9a-f]{24}$' }, color_id: { type: 'string' }, viewer_url: { type: 'string', format: 'uri' } },
  },
  ArAutofitStatus: {
    type: 'object',
    required: ['status', 'progress'],
    properties: {
      status: { enum: [...AUTOFIT_STATUSES] },
      progress: { type: 'number', minimum: 0, maximum: 100 },
      glb_url: { type: 'string', format: 'uri', description: 'Only when finished' },
      object_properties: { type: 'object', description: 'Autofit findings, when finished: dimensions (m), side, scale factor, units guess, parts' },
      error: { type: 'string', description: 'When failed' },
    },
  },
  ArObject: {
    type: 'object',
    required: ['id', 'name', 'color_ids', 'properties', 'autofit', 'viewer_url'],
    description: 'Public metadata never holds created, createdBy, modifiedBy, owner, modified, model_url, custom or materialsData; owners, group members and admins also get the first five, group, custom and model_url.',
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      color_ids: { type: 'array', items: { type: 'string' } },
      properties: { type: 'object' },
      autofit: { type: 'object' },
      viewer_url: { type: 'string' },
      glb_url: { type: 'string' },
      mirror_glb_url: { type: 'string' },
      usdz_url: { type: 'string' },
      created: { type: 'string', format: 'date-time' },
      createdBy: { type: 'string' },
      modified: { type: 'string', format: 'date-time' },
      modifiedBy: { type: 'string' },
      owner: { type: 'object', properties: { kind: { enum: ['user', 'session', 'library'] }, id: { type: 'string' } } },
      group: { type: ['string', 'null'] },
      custom: { type: 'object' },
      model_url: { type: 'string' },
    },
  },
  ArSetPropertiesRequest: {
    type: 'object',
    required: ['id'],
    additionalProperties: false,
    properties: {
      id: OBJECT_REF,
      name: { type: 'string', minLength: 1, maxLength: 200 },
      group: { type: ['string', 'null'], maxLength: 200 },
      properties: { type: 'object', maxProperties: 100, description: 'Merged into the public properties; a null value removes a key' },
      custom: { type: 'object', maxProperties: 100, description: 'Merged into the private custom data; a null value removes a key' },
    },
  },
  ArSetMaterialsRequest: {
    type: 'object',
    required: ['id'],
    additionalProperties: false,
    description: 'Either `color_id` with `preset` (null deletes the preset), or `materialsData` with several presets (a null value deletes one).',
    properties: {
      id: OBJECT_REF,
      color_id: COLOR_ID_SCHEMA,
      preset: COLOR_OR_NULL,
      materialsData: { type: 'object', maxProperties: 200, propertyNames: { pattern: '^[A-Za-z0-9_-]{1,64}$' }, additionalProperties: COLOR_OR_NULL },
    },
  },
  ArBakeRequest: {
    type: 'object',
    required: ['id'],
    additionalProperties: false,
    properties: { id: OBJECT_REF, color_ids: { type: 'array', minItems: 1, maxItems: 20, uniqueItems: true, items: COLOR_ID_SCHEMA } },
  },
  ArClaimRequest: {
    type: 'object',
    required: ['id'],
    additionalProperties: false,
    properties: { id: OBJECT_REF, session_id: { type: 'string', minLength: 1, maxLength: 200, description: 'The ownership session the object was uploaded under' } },
  },
  ArBugReportRequest: {
    type: 'object',
    required: ['message'],
    additionalProperties: false,
    properties: {
      message: { type: 'string', minLength: 1, maxLength: 5000 },
      object_id: { type: 'string', maxLength: 200 },
      page: { type: 'string', maxLength: 2000 },
      context: { type: 'object', maxProperties: 50, description: 'Browser, viewer parameters, console excerpts' },
    },
  },
  ArGarmentFitOnRequest: {
    type: 'object',
    required: ['garment'],
    additionalProperties: false,
    description: 'Applies a garment to a person photo (or a digital twin); forwarded to POST /api/v1/tryon/clothing.',
    properties: {
      image: { type: 'string', description: 'Person photo: URL or data URL' },
      digital_twin_id: { type: 'string', pattern: '^[a-f0-9]{64}$' },
      garment: { oneOf: [{ type: 'string' }, { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string' } }], description: 'Packshot, optionally followed by an on-model reference' },
      category: { enum: ['top', 'bottom', 'full-body'], default: 'top' },
      quality: { enum: ['draft', 'standard', 'high'] },
      webhook_url: { type: 'string', format: 'uri', pattern: '^https://' },
    },
  },
  ArShoesFitOnRequest: {
    type: 'object',
    required: ['shoe_images'],
    additionalProperties: false,
    description: 'Applies shoes to a person photo (or a digital twin); forwarded to POST /api/v1/tryon/shoes.',
    properties: {
      image: { type: 'string', description: 'Person photo: URL or data URL' },
      digital_twin_id: { type: 'string', pattern: '^[a-f0-9]{64}$' },
      shoe_images: { type: 'array', minItems: 1, maxItems: 4, items: { type: 'object', required: ['url'], additionalProperties: false, properties: { url: { type: 'string' }, angle: { enum: ['front', 'side', 'back'] } } } },
      quality: { enum: ['draft', 'standard', 'high'] },
      webhook_url: { type: 'string', format: 'uri', pattern: '^https://' },
    },
  },
  ArSessionRequest: {
    type: 'object',
    required: ['userId'],
    additionalProperties: false,
    properties: {
      userId: { type: 'string', minLength: 1, maxLength: 200 },
      group: { type: ['string', 'null'], maxLength: 200 },
      admin: { type: 'boolean', default: false },
      ttlSeconds: { type: 'integer', minimum: 60, maximum: 2_592_000, default: 43_200 },
    },
  },
  ArSession: {
    type: 'object',
    required: ['token', 'expiresAt', 'cookieName'],
    properties: {
      token: { type: 'string', description: 'Bearer session token and dashboard cookie value' },
      expiresAt: { type: 'string', format: 'date-time' },
      cookieName: { type: 'string' },
      loginUrl: { type: 'string', description: 'Opening it in the browser sets the session cookie on the AR host' },
    },
  },
};
