import type { JsonSchema } from '../../core/plugin.ts';
import { IMAGE_STRING, WEBHOOK_URL, ref } from '../../core/schemas.ts';

/** A GLB given inline (data URL) or by URL (for example one returned by POST /api/v1/files/upload). */
export const GLB_STRING: JsonSchema = {
  type: 'string',
  minLength: 1,
  pattern: '^(https?://|data:(model/gltf-binary|application/octet-stream);base64,)',
  'x-pattern-message': 'must be an http(s) URL or a data URL of the form data:model/gltf-binary;base64,<data>',
};

export const SHOE3D_OPTIONS: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    uploadToService: { type: 'boolean', description: 'After generation, upload the model to the AR host (GLB compressed to at most 20 MB).' },
    sessionId: { type: 'string', minLength: 1, maxLength: 256, description: 'Ownership session id for the upload; takes precedence over the credential\'s account and is then the only ownership claim.' },
    enhanceTexture: { type: 'boolean', description: 'Texture-enhancement pass: renders several views, enhances them, projects the change back.' },
    correctImage: { type: 'boolean', description: 'Packshot correction of the inputs (white balance, exposure, straightening, centring).' },
    productType: { enum: ['shoe', 'other', 'auto'], default: 'auto' },
    refineLogo: { type: 'boolean', description: 'Second pass on logos and brand text; non-fatal.' },
    genaiQuality: { enum: ['default', 'high'], description: '`default`: 4 views, 3-minute timeout; `high`: 6 views, 5-minute timeout. Defaults to `high` when enhanceTexture is on.' },
    views: {
      type: 'array',
      maxItems: 12,
      description: 'Optional hints, one entry per photo of `images` (same order): which side of the product each photo shows and from how high. Without them the builtin engine estimates both from the silhouettes (a shoe photo taken from straight above is recognised by its footprint outline); a hinted photo keeps its azimuth, the others are estimated around it. Azimuths turn around the product seen from above: 0 = a side with the toe to the right, 90 = the toe facing the camera, 180 = the other side, 270 = the heel. Extension of this service (not in the original contract).',
      items: {
        type: 'object',
        additionalProperties: false,
        properties: {
          view: { enum: ['side', 'front', 'other-side', 'back', 'front-three-quarter', 'back-three-quarter', 'top'], description: 'Named azimuth: side 0, front-three-quarter 45, front 90, back-three-quarter 135, other-side 180, back 270; `top`: taken from straight above (elevation 90), with `azimuthDeg` optionally saying where the toe points in the photo (0 right, 90 down, 180 left, 270 up).' },
          azimuthDeg: { type: 'number', minimum: 0, maximum: 360, description: 'Azimuth in degrees (instead of `view`; with `view: top`, the toe direction).' },
          elevationDeg: { type: 'number', minimum: 0, maximum: 60, description: 'How far above the horizon the camera looked down, degrees; the builtin engine uses one elevation for the photos taken from the side (the mean of the hints). Not with `view: top`.' },
        },
      },
    },
  },
};

export const SHOE3D_REQUEST: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['images'],
  properties: {
    images: {
      type: 'array',
      maxItems: 12,
      items: IMAGE_STRING,
      description: 'Product photos (URLs or base64 data URLs), several angles recommended. Up to 8 photos may come in any order: the builtin engine estimates the angle of each photo from the silhouettes (a half turn such as 0/45/90/135, or both sides with front and back 0/90/180/270; the widest silhouette is a side) and the camera elevation; more are taken to follow the product round in equal steps. `options.views` may say which side each photo shows. May be empty only with `glbInput`.',
    },
    glbInput: { ...GLB_STRING, description: 'An existing GLB to texture-enhance (and upload) instead of generating one from the photos.' },
    options: ref('Shoe3dOptions'),
    webhookUrl: WEBHOOK_URL,
  },
};

export const FILE_UPLOAD_RESULT: JsonSchema = {
  type: 'object',
  required: ['url'],
  properties: {
    url: { type: 'string', format: 'uri', description: 'Signed URL of the stored file; usable as `glbInput`.' },
    expiresAt: { type: 'string', format: 'date-time' },
    bytes: { type: 'integer' },
  },
};

export const SHOE3D_RESULT: JsonSchema = {
  type: 'object',
  required: ['glbUrl', 'viewerUrl', 'previewGrid'],
  properties: {
    glbUrl: { type: 'string', format: 'uri' },
    viewerUrl: { type: 'string' },
    previewGrid: { type: 'string', format: 'uri' },
    expiresAt: { type: 'string', format: 'date-time' },
    productType: { enum: ['shoe', 'other'] },
    arObject: { type: 'object', description: 'The AR host object made from the model (with options.uploadToService).', properties: { id: { type: 'string' }, color_id: { type: 'string' }, viewer_url: { type: 'string' } } },
    arObjectHint: { type: 'string', description: 'Without options.uploadToService: how to make the model an AR host object.' },
  },
};
