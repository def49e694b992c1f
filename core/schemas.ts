import type { JsonSchema } from './plugin.ts';
import { ERROR_CODES, JOB_ERROR_CODES } from './errors.ts';

/** The fields every submission answer has (spec, Submission responses); operations add their own. */
export const SUBMISSION_PROPERTIES: Record<string, JsonSchema> = {
  success: { const: true },
  jobId: { type: 'string', format: 'uuid' },
  status: { enum: ['queued', 'completed'] },
  estimatedProcessingTime: { type: 'number', description: 'Seconds.' },
  statusUrl: { type: 'string', format: 'uri' },
};

/** Reference to a component schema, as written inside published schemas. */
export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** A failed job's `errorCode`: the codes the job runner reports (JOB_ERROR_CODES), no others. */
export const JOB_ERROR_CODE: JsonSchema = { type: 'string', enum: Object.keys(JOB_ERROR_CODES) };

/** An image input: http(s) URL or a base64 data URL of an accepted format (spec, Image input format). */
export const IMAGE_STRING: JsonSchema = {
  // no minLength: the pattern needs a scheme already, and a length check counts every character of
  // a megabyte data URL
  type: 'string',
  pattern: '^(https?://|data:image/(png|jpeg|jpg|gif|webp|svg\\+xml);base64,)',
  'x-pattern-message': 'must be an http(s) URL or a data URL of the form data:image/<format>;base64,<data> (png, jpeg, jpg, gif, webp, svg+xml)',
  description: 'An HTTP/HTTPS URL to a publicly reachable image, or `data:image/<format>;base64,<data>` with format png, jpeg, jpg, gif, webp or svg+xml.',
};

export const WEBHOOK_URL: JsonSchema = {
  type: 'string',
  format: 'uri',
  pattern: '^https://',
  'x-pattern-message': 'must be an https URL',
  description: 'HTTPS URL that receives a signed `job.completed` or `job.failed` callback.',
};

const TWIN_ID: JsonSchema = { type: 'string', pattern: '^[a-f0-9]{64}$' };

/** Schemas of the kernel's own resources. Plugins add theirs through `api.schema`. */
export const CORE_SCHEMAS: Record<string, JsonSchema> = {
  ErrorEnvelope: {
    type: 'object',
    required: ['success', 'error'],
    properties: {
      success: { const: false },
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          // generated from the codes a FitroomError can carry: the only source of an error answer
          code: { enum: Object.keys(ERROR_CODES), description: 'Machine-readable cause; branch on this, not on `message`.' },
          message: { type: 'string' },
          details: { type: 'array', items: { type: 'object', required: ['field', 'message'], properties: { field: { type: 'string' }, message: { type: 'string' } } } },
        },
      },
    },
  },
  ImageInput: IMAGE_STRING,
  WebhookUrl: WEBHOOK_URL,
  DigitalTwinId: TWIN_ID,
  JobResult: {
    type: 'object',
    required: ['url', 'expiresAt'],
    properties: {
      url: { type: 'string', format: 'uri' },
      expiresAt: { type: 'string', format: 'date-time', description: 'Result URLs expire; copy results before.' },
      digitalTwinId: TWIN_ID,
    },
  },
  JobProgressStage: {
    type: 'object',
    required: ['stage'],
    description: 'Lifecycle stage of a virtual-fitting or digital-twin job. `percentage` is absent until completion, then 100.',
    properties: { stage: { type: 'string' }, percentage: { const: 100 } },
  },
  Job: {
    type: 'object',
    required: ['jobId', 'status', 'progress'],
    properties: {
      jobId: { type: 'string' },
      status: { enum: ['queued', 'validating', 'processing', 'uploading', 'completed', 'failed'] },
      progress: { oneOf: [{ type: 'number', minimum: 0, maximum: 100 }, ref('JobProgressStage')], description: 'Shoe-3d jobs: a number 0-100 that only grows. Other jobs: an object with `stage`.' },
      result: { type: 'object', description: 'When completed. Shoe-3d: glbUrl, viewerUrl, previewGrid. Digital twin: digitalTwinId. Virtual fitting: imageUrl.', additionalProperties: true },
      results: { type: 'array', items: ref('JobResult') },
      packshotCleanup: { ...ref('PackshotCleanup'), description: 'Shoe-3d jobs, once the packshots were checked: the cleanup of the first photo (every photo\'s is in the trace\'s diagnostics).' },
      packshotSingleShoe: { ...ref('PackshotSingleShoe'), description: 'Shoe-3d jobs, once the packshots were checked: the single-shoe guard on the first photo.' },
      digitalTwinId: TWIN_ID,
      error: { type: 'string', description: 'When failed: the cause, in plain words.' },
      errorCode: {
        ...JOB_ERROR_CODE,
        description:
          `When failed (a Fitroom extension of the Job resource): the machine-readable cause. ${Object.entries(JOB_ERROR_CODES).map(([code, meaning]) => `\`${code}\` (${meaning})`).join(', ')}. Branch on this, not on \`error\`.`,
      },
      cancelled: { type: 'boolean', description: 'Present and true when the submitter cancelled the job; its status is then `failed`.' },
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: 'string', format: 'date-time' },
    },
  },
  JobSubmitted: {
    type: 'object',
    required: ['jobId'],
    properties: SUBMISSION_PROPERTIES,
  },
  CancelResponse: { type: 'object', required: ['cancelled'], properties: { cancelled: { const: true } } },
  JobTrace: {
    type: 'object',
    required: ['jobId', 'kind', 'status', 'stages', 'timeline'],
    description: 'The stage timeline of a job: one entry per stage run (a retried job shows each attempt).',
    properties: {
      jobId: { type: 'string' },
      kind: { type: 'string' },
      status: { type: 'string' },
      cancelled: { type: 'boolean' },
      stages: { type: 'array', items: { type: 'string' }, description: 'The pipeline stages of this kind of job, in order.' },
      diagnostics: { ...ref('Shoe3dDiagnostics'), description: 'Stage diagnostics of the job. Shoe-3d jobs record the typed fields of Shoe3dDiagnostics; other kinds may add their own keys.' },
      timeline: {
        type: 'array',
        items: {
          type: 'object',
          required: ['seq', 'stage', 'status', 'attempt', 'startedAt', 'endedAt', 'outcome'],
          properties: {
            seq: { type: 'integer' },
            stage: { type: 'string' },
            status: { type: 'string' },
            attempt: { type: 'integer' },
            startedAt: { type: 'string', format: 'date-time' },
            endedAt: { type: ['string', 'null'], format: 'date-time' },
            durationMs: { type: ['number', 'null'] },
            outcome: { enum: ['running', 'ok', 'failed', 'cancelled', 'interrupted'] },
            detail: { type: 'object', additionalProperties: true },
          },
        },
      },
    },
  },
  PackshotCleanup: {
    type: 'object',
    required: ['status'],
    description: 'Background, shadow and halo cleanup of one packshot.',
    properties: {
      status: { enum: ['applied', 'noop', 'unreported', 'unavailable', 'failed'], description: '`applied`: the packshot was cleaned; `noop`: it was clean already; `failed` carries errorCode.' },
      numComponents: { type: 'integer', minimum: 0, description: 'Separate foreground objects found.' },
      areaRatio: { type: 'number', minimum: 0, maximum: 1, description: 'Share of the image the product covers.' },
      errorCode: { type: 'string' },
    },
  },
  PackshotSingleShoe: {
    type: 'object',
    required: ['status', 'attempts'],
    description: 'The single-shoe guard: a packshot of a pair is cut down to one shoe.',
    properties: {
      status: { enum: ['single', 'regenerated', 'multiple_after_retries', 'unavailable'] },
      attempts: { type: 'integer', minimum: 1, maximum: 3 },
      count: { type: 'integer', minimum: 0, description: 'Shoes counted in the (last) image.' },
      errorCode: { type: 'string' },
      stopReason: { enum: ['regeneration_failed', 'deadline', 'sync_path'] },
      regeneratedFromCount: { type: 'integer' },
    },
  },
  Shoe3dDiagnostics: {
    type: 'object',
    additionalProperties: true,
    description: 'What the shoe-3d stages found: the first packshot\'s cleanup and single-shoe guard (packshotCleanup, packshotSingleShoe), every packshot\'s, the product type decision, the reconstruction notes, the validation, logo refinement and compression.',
    properties: {
      packshotCleanup: ref('PackshotCleanup'),
      packshotSingleShoe: ref('PackshotSingleShoe'),
      packshots: { type: 'array', items: { type: 'object', required: ['image', 'cleanup', 'singleShoe'], properties: { image: { type: 'integer', minimum: 0 }, cleanup: ref('PackshotCleanup'), singleShoe: ref('PackshotSingleShoe') } } },
      productType: { type: 'object', required: ['requested'], properties: { requested: { enum: ['shoe', 'other', 'auto'] }, decided: { enum: ['shoe', 'other', null] }, reason: { type: 'string' }, features: { type: 'object', additionalProperties: true } } },
      reconstruction: { type: 'object', properties: { reconstructor: { type: 'string' }, notes: { type: 'array', items: { type: 'string' } }, glbBytes: { type: 'integer' } } },
      vendorTask: { type: 'object', description: 'The 3D vendor task the job created (stored before its first status read; a retried attempt resumes it).', required: ['reconstructor', 'id', 'createdAt'], properties: { reconstructor: { enum: ['meshy', 'tripo'] }, id: { type: 'string' }, createdAt: { type: 'string', format: 'date-time' }, outcome: { enum: ['succeeded', 'failed'] } } },
      reconstructionFallback: { type: 'string', description: 'Why the configured vendor was left for the builtin engine, e.g. "tripo failed: ...; builtin used".' },
      validation: { type: 'object', description: 'The Khronos glTF validator on the model (before compression).', properties: { errors: { type: 'integer' }, warnings: { type: 'integer' }, messages: { type: 'array', items: { type: 'string' } } } },
      logoRefinement: { type: 'object', required: ['status'], properties: { status: { enum: ['applied', 'none_found', 'failed'] }, regions: { type: 'integer' }, errorCode: { type: 'string' } } },
      compression: { type: 'object', properties: { before: { type: 'integer' }, after: { type: 'integer' }, steps: { type: 'array', items: { type: 'string' } } } },
    },
  },
  HealthResponse: {
    type: 'object',
    required: ['status', 'timestamp', 'version'],
    properties: {
      status: { const: 'ok' },
      timestamp: { type: 'string', format: 'date-time' },
      version: { type: 'string' },
      components: {
        type: 'object',
        description: 'Each dependency checked: the database and the blob store (files, images, models).',
        properties: { database: ref('ComponentHealth'), storage: ref('ComponentHealth') },
      },
    },
  },
  ComponentHealth: {
    type: 'object',
    required: ['reachable', 'latencyMs'],
    properties: { reachable: { type: 'boolean' }, latencyMs: { type: 'number' }, error: { type: 'string', description: 'Why it cannot be reached' } },
  },
  WarmupResponse: {
    type: 'object',
    required: ['status', 'timestamp', 'modal', 'queue'],
    properties: {
      status: { enum: ['ok', 'degraded'], description: '`degraded` while the database cannot be reached (see `database`).' },
      timestamp: { type: 'string', format: 'date-time' },
      modal: {
        type: 'object',
        required: ['warm'],
        description: 'The configured AI backend (first provider of the model chain).',
        properties: { warm: { type: 'boolean' }, responseTimeMs: { type: 'number' }, error: { type: 'string' }, provider: { type: 'string' } },
      },
      queue: { type: 'object', required: ['warm'], properties: { warm: { type: 'boolean' }, roundTripMs: { type: ['number', 'null'] } } },
      database: { type: 'object', required: ['reachable'], properties: { reachable: { type: 'boolean' }, latencyMs: { type: 'number' }, error: { type: 'string' } } },
      vendors: {
        type: 'object',
        description: 'The live check of the configured AI vendors (none configured: an empty list).',
        required: ['checkedAt', 'vendors', 'retiredModels'],
        properties: {
          checkedAt: { type: 'string', format: 'date-time' },
          vendors: {
            type: 'array',
            items: {
              type: 'object',
              required: ['provider', 'status'],
              properties: {
                provider: { type: 'string' },
                status: { enum: ['ok', 'account_refused', 'model_missing', 'unreachable', 'error'], description: '`account_refused`: the key, its permissions or its credits were refused; `model_missing`: a configured model does not exist there (it leaves the chain); `unreachable`: no answer (an offline deployment carries on with the builtin engines).' },
                message: { type: 'string' },
                balance: { type: 'number', description: 'Credits the vendor reports (Meshy, Tripo).' },
                models: { type: 'array', items: { type: 'object', required: ['id', 'available'], properties: { id: { type: 'string' }, available: { type: 'boolean' }, detail: { type: 'string' }, unverified: { type: 'boolean', description: 'The vendor has no model list to confirm it (Meshy, Tripo): the first task will say.' } } } },
              },
            },
          },
          retiredModels: { type: 'array', items: { type: 'object', required: ['id', 'reason'], properties: { id: { type: 'string' }, reason: { type: 'string' } } } },
          deprecatedModels: {
            type: 'array',
            description: 'Models their vendor lists as deprecated: the chain passes them over (an explicit `options.model` still runs them); `successor` is the replacement the vendor names.',
            items: { type: 'object', required: ['id', 'provider'], properties: { id: { type: 'string' }, provider: { type: 'string' }, successor: { type: 'string' } } },
          },
          families: {
            type: 'array',
            description: 'Model entries that follow a family (`follow`, `*` = version number) and the model each calls now; `source: fallback` until a vendor list has been read.',
            items: { type: 'object', required: ['id', 'follow', 'source'], properties: { id: { type: 'string' }, follow: { type: 'string' }, target: { type: 'string' }, source: { enum: ['discovery', 'fallback'] } } },
          },
          discoveredAt: { type: ['string', 'null'], format: 'date-time', description: 'When the vendors\' model lists were last read (shared by every process, kept across restarts).' },
        },
      },
    },
  },
  QueueWarmupResponse: {
    type: 'object',
    required: ['status', 'timestamp', 'queueWarm'],
    properties: { status: { const: 'ok' }, timestamp: { type: 'string', format: 'date-time' }, queueWarm: { const: true } },
  },
  ApiKey: {
    type: 'object',
    required: ['id', 'name', 'kind', 'prefix', 'isActive', 'usageCount', 'maxUsage', 'createdAt'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      name: { type: 'string' },
      kind: { enum: ['user', 'service', 'development'] },
      prefix: { type: 'string' },
      accountId: { type: ['string', 'null'] },
      isActive: { type: 'boolean' },
      expiresAt: { type: ['string', 'null'], format: 'date-time' },
      maxUsage: { type: 'integer', description: '0 means unlimited.' },
      usageCount: { type: 'integer' },
      monthlyQuota: { type: ['integer', 'null'] },
      createdAt: { type: 'string', format: 'date-time' },
      revokedAt: { type: ['string', 'null'], format: 'date-time' },
      rotatedFrom: { type: ['string', 'null'] },
    },
  },
  CreateApiKeyRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 200 },
      kind: { enum: ['user', 'service', 'development'], default: 'user' },
      accountId: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9][A-Za-z0-9._:@-]*$', description: 'Letters, digits and . _ : @ -' },
      expiresAt: { type: 'string', format: 'date-time', description: 'Must be in the future' },
      maxUsage: { type: 'integer', minimum: 0, maximum: 2147483647 },
      monthlyQuota: { type: 'integer', minimum: 0, maximum: 2147483647 },
    },
  },
  CreatedApiKey: {
    type: 'object',
    required: ['key', 'apiKey'],
    properties: { key: { type: 'string', description: 'The secret key. Shown once; only its SHA-256 is stored.' }, apiKey: ref('ApiKey') },
  },
  FileUploadResponse: { type: 'object', required: ['url'], properties: { url: { type: 'string', format: 'uri' } } },
  JobWebhookPayload: {
    type: 'object',
    required: ['event', 'jobId', 'kind', 'status', 'timestamp'],
    description: 'Body of a job callback. Signed: X-Webhook-Signature = sha256=<lowercase hex HMAC-SHA256> over the payload with keys sorted recursively and serialized compactly (JSON.stringify), keyed by the UTF-8 text of the lowercase hex SHA-256 of the submitting API key. X-Webhook-Timestamp equals `timestamp`.',
    properties: {
      event: { enum: ['job.completed', 'job.failed'] },
      jobId: { type: 'string' },
      kind: { type: 'string' },
      status: { enum: ['completed', 'failed'] },
      timestamp: { type: 'string', format: 'date-time' },
      result: { type: 'object', additionalProperties: true },
      results: { type: 'array', items: ref('JobResult') },
      digitalTwinId: TWIN_ID,
      error: { type: 'string' },
      errorCode: { ...JOB_ERROR_CODE, description: 'The failed job\'s machine-readable cause (see Job.errorCode).' },
      cancelled: { type: 'boolean', description: 'Present and true when the job failed because its submitter cancelled it.' },
    },
  },
  BatchWebhookPayload: {
    type: 'object',
    required: ['event', 'batchId', 'timestamp'],
    description: 'Body of a batch callback, signed over the exact body bytes.',
    properties: { event: { const: 'batch.completed' }, batchId: { type: 'string' }, timestamp: { type: 'string', format: 'date-time' } },
    additionalProperties: true,
  },
};
