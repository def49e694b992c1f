import type { Kernel } from './kernel.ts';
import { ERROR_CODES } from './errors.ts';
import { EX } from './examples.ts';
import type { AuthResolver, JsonSchema, Operation } from './plugin.ts';

export const API_VERSION = '1.2.0';

const errorResponse = (status: string, description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' }, example: errorExample(status, description) } } });

const RATE_HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the current window', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Epoch seconds when the window resets', schema: { type: 'integer' } },
};

const DEFAULT_ERROR_CODES: Record<string, string> = { 400: 'VALIDATION_ERROR', 401: 'HTTP_ERROR', 403: 'CREDENTIAL_NOT_ALLOWED', 404: 'NOT_FOUND', 409: 'CONFLICT', 413: 'PAYLOAD_TOO_LARGE', 422: 'IMAGE_INVALID', 429: 'RATE_LIMITED', 500: 'INTERNAL_ERROR', 502: 'PLATFORM_ERROR', 503: 'SERVICE_UNAVAILABLE' };

/** An error envelope as the status gives it: the code the description starts with, or the status's usual one. */
function errorExample(status: string, description: string) {
  const named = /^[A-Z][A-Z_]{3,}\b/.exec(description)?.[0];
  const code = named && named in ERROR_CODES ? named : (DEFAULT_ERROR_CODES[status] ?? 'HTTP_ERROR');
  const error: Record<string, unknown> = { code, message: (named === code ? description.replace(/^[A-Z][A-Z_]{3,}:?\s*/, '') : description) || description };
  if (code === 'VALIDATION_ERROR') error.details = [{ field: 'images[0]', message: 'must be an https URL or a data URL' }];
  return { success: false, error };
}

/** What a text answer starts with, for operations that name only its media type (binary answers have none). */
const TEXT_EXAMPLES: Record<string, string> = {
  'text/html': '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n…',
  'text/javascript': '(() => {\n  …\n})();\n',
};

/** A response body's schema when the operation names only its media type. */
function defaultSchema(contentType: string): JsonSchema {
  return contentType.startsWith('text/') ? { type: 'string' } : { type: 'string', contentMediaType: contentType, description: 'The raw bytes' };
}

function schemaOrRef(s: string | JsonSchema): JsonSchema {
  return typeof s === 'string' ? { $ref: `#/components/schemas/${s}` } : s;
}

/** The OpenAPI 3.1 document, generated from the operation table and the schemas ajv validates with. */
export function buildOpenApi(kernel: Kernel, opts: { serverUrl?: string; arServerUrl?: string } = {}) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of kernel.operations) {
    if (op.hidden) continue;
    const item = (paths[op.path] ??= {});
    item[op.method.toLowerCase()] = operationObject(op, opts, kernel.authResolvers);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Fitroom API',
      version: API_VERSION,
      description:
        'Digital twins, virtual fitting, size fitting, shoe and bag photos to GLB, jobs, webhooks and files, plus the companion AR host. Builtin engines run on the CPU: classical computer vision and geometry, plus small learned models shipped in the package for person photos (pose keypoints, person mask, faces); vendor AI backends are used when configured.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: opts.serverUrl ?? '/', description: 'API host: X-API-Key (or a storefront token where listed)' }, ...(opts.arServerUrl ? [{ url: opts.arServerUrl, description: 'AR host: Authorization: Bearer <API key or session token>, or the dashboard session cookie' }] : [])],
    paths,
    webhooks,
    components: {
      schemas: usedSchemas(kernel.schemas, { paths, webhooks }),
      securitySchemes: { ...securitySchemes(kernel), ...WEBHOOK_SECURITY },
    },
  };
}

/**
 * The schemas the document refers to, directly or through other schemas. The validator keeps them all;
 * the document leaves out the ones no operation uses (Redocly's no-unused-components).
 */
function usedSchemas(schemas: Record<string, JsonSchema>, from: unknown): Record<string, JsonSchema> {
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      const name = k === '$ref' && typeof v === 'string' ? /#\/components\/schemas\/([^/]+)$/.exec(v)?.[1] : undefined;
      if (name && !used.has(name) && schemas[name]) {
        used.add(name);
        visit(schemas[name]);
      } else visit(v);
    }
  };
  visit(from);
  return Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
}

/** How a receiver authenticates Fitroom's callbacks: the HMAC signature header (examples/webhook-receiver). */
const WEBHOOK_SECURITY = {
  WebhookSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Webhook-Signature',
    description: 'Sent by Fitroom to your webhookUrl: `sha256=` + hex HMAC-SHA256 of the signed bytes, keyed by the hex SHA-256 of the API key the job was submitted with.',
  },
};

const webhooks = {
  'job.completed': webhookItem('jobCompletedWebhook', 'A job with a webhookUrl reached `completed`.', 'JobWebhookPayload', { event: 'job.completed', jobId: EX.jobId, kind: 'virtual-fitting', status: 'completed', timestamp: EX.time, result: { imageUrl: EX.fileUrl } }),
  'job.failed': webhookItem('jobFailedWebhook', 'A job with a webhookUrl reached `failed` (including cancellation).', 'JobWebhookPayload', { event: 'job.failed', jobId: EX.jobId, kind: 'virtual-fitting', status: 'failed', timestamp: EX.time, error: 'Could not fetch topGarment: http_status: HTTP 404', errorCode: 'IMAGE_FETCH_FAILED' }),
  'batch.completed': webhookItem('batchCompletedWebhook', 'A digitization batch completed. Signed over the exact body bytes; delivered once, no retries.', 'BatchWebhookPayload', { event: 'batch.completed', batchId: 'c5b1f0de-3f2e-4d1a-9a61-0b7e8f3c2d11', timestamp: EX.time }),
};

function webhookItem(operationId: string, description: string, schema: string, example: Record<string, unknown>) {
  return {
    post: {
      operationId,
      summary: description,
      security: [{ WebhookSignature: [] }],
      parameters: [
        { name: 'X-Webhook-Signature', in: 'header', required: true, schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' } },
        { name: 'X-Webhook-Timestamp', in: 'header', required: true, schema: { type: 'string', format: 'date-time' } },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` }, example } } },
      responses: { '2XX': { description: 'Received. Any other answer counts as a failed attempt (job callbacks: up to 3 attempts with backoff).' } },
    },
  };
}

/** Where an AR host operation lives and how it authenticates, in front of its description (the /docs page shows it). */
function hostNote(op: Operation): string {
  if (op.host !== 'ar') return '';
  return op.auth.includes('bearer') ? '**AR host** (the second server): credentials go in `Authorization: Bearer <API key>`, not in X-API-Key.' : '**AR host** (the second server).';
}

/** The security scheme objects every registered auth resolver names. */
function securitySchemes(kernel: Kernel): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const resolver of kernel.authResolvers.values()) Object.assign(out, resolver.openapi?.schemes);
  return out;
}

/**
 * The security requirements of an operation, from the resolvers of the schemes it lists (the same
 * table the pipeline authenticates with). `none` shows as the empty requirement, except where an
 * upload admits anonymous callers only with a credential in the form (which OpenAPI cannot express).
 */
function securityOf(op: Operation, resolvers: ReadonlyMap<string, AuthResolver>): Record<string, string[]>[] {
  return op.auth.flatMap((scheme) => {
    if (scheme === 'none') return op.upload?.admitAnonymous ? [] : [{}];
    const security = resolvers.get(scheme)?.openapi?.security;
    if (!security) throw new Error(`Operation ${op.id} lists the auth scheme "${scheme}", whose resolver does not say how the OpenAPI document shows it`);
    return security;
  });
}

function operationObject(op: Operation, opts: { arServerUrl?: string }, resolvers: ReadonlyMap<string, AuthResolver>) {
  const parameters: unknown[] = [];
  for (const [name, schema] of Object.entries(op.params ?? {})) parameters.push({ name, in: 'path', required: true, schema });
  for (const [name, q] of Object.entries(op.query ?? {})) parameters.push({ name, in: 'query', required: q.required ?? false, schema: q.schema, ...(q.description ? { description: q.description } : {}) });
  const responses: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(op.responses)) {
    const example = r.example !== undefined ? r.example : r.schema === 'ErrorEnvelope' ? errorExample(status, r.description) : !r.schema && r.contentType ? TEXT_EXAMPLES[r.contentType] : undefined;
    const media = { ...(r.schema ? { schema: schemaOrRef(r.schema) } : r.contentType ? { schema: defaultSchema(r.contentType) } : {}), ...(example !== undefined ? { example } : {}) };
    const content = r.schema || r.contentType ? { [r.contentType ?? 'application/json']: media } : undefined;
    const headers = { ...(op.rateLimit ? RATE_HEADERS : {}), ...(r.headers ?? {}) };
    responses[status] = { description: r.description, ...(content ? { content } : {}), ...(Object.keys(headers).length ? { headers } : {}) };
  }
  // every operation refuses NUL and control bytes in its path and query, whatever it declares
  if (!responses['400']) responses['400'] = errorResponse('400', 'Invalid request (VALIDATION_ERROR with details)');
  // a credential that is sent is checked, even where none is needed
  if (op.auth.some((a) => a !== 'none') && !responses['401']) responses['401'] = errorResponse('401', op.auth.includes('none') ? 'A credential was sent and is not valid (none is needed)' : 'Missing or invalid credentials');
  if (op.browserProtected && !responses['403']) responses['403'] = errorResponse('403', 'BOT_VERIFICATION_REQUIRED: a storefront or browser request without a valid X-Challenge-Token or pass cookie; CREDENTIAL_NOT_ALLOWED: a credential this operation does not accept');
  else if (!op.auth.includes('none') && !responses['403']) responses['403'] = errorResponse('403', 'CREDENTIAL_NOT_ALLOWED: a credential this operation does not accept (a storefront token, or service headers without a service key)');
  if ((op.body || op.upload) && !responses['413'] && op.upload?.tooLarge?.status !== 400) responses['413'] = errorResponse('413', 'PAYLOAD_TOO_LARGE: the body (after its Content-Encoding is undone) or the file is larger than the limit');
  if ((op.body || op.upload) && !responses['415']) responses['415'] = errorResponse('415', `UNSUPPORTED_MEDIA_TYPE: a body that is not ${op.upload ? 'multipart/form-data' : 'application/json'}, or a Content-Encoding other than identity, gzip, deflate and br`);
  if (op.rateLimit && !responses['429']) responses['429'] = errorResponse('429', 'Rate limit exceeded');
  if (!responses['500']) responses['500'] = errorResponse('500', 'Unexpected error (no internal detail is exposed)');
  if (!responses['503']) responses['503'] = errorResponse('503', 'DATABASE_UNAVAILABLE: the database (or STORAGE_UNAVAILABLE: the file store) cannot be reached right now; retry after Retry-After');
  const security = securityOf(op, resolvers);
  const out: Record<string, unknown> = {
    operationId: op.id,
    summary: op.summary,
    ...(hostNote(op) || op.description ? { description: [hostNote(op), op.description].filter(Boolean).join('\n\n') } : {}),
    tags: op.tags ?? [],
    ...(parameters.length ? { parameters } : {}),
    security,
    responses,
  };
  if (op.body) out.requestBody = { required: true, content: { 'application/json': { schema: schemaOrRef(op.body), ...(op.example !== undefined ? { example: op.example } : {}) } } };
  if (op.upload)
    out.requestBody = {
      required: true,
      content: {
        'multipart/form-data': {
          schema: { type: 'object', required: [op.upload.field], properties: { [op.upload.field]: { type: 'string', contentMediaType: 'application/octet-stream', description: `At most ${op.upload.maxBytes} bytes` } } },
        },
      },
    };
  if (op.rateLimit) out['x-rate-limit-category'] = op.rateLimit;
  if (op.browserProtected) {
    out['x-browser-protected'] = true;
    out.parameters = [...parameters, { name: 'X-Challenge-Token', in: 'header', required: false, schema: { type: 'string' }, description: 'Single-use bot-verification token (from the challenge the widget solves). Needed on storefront and browser requests unless the pass cookie is valid; the answer then sets the pass cookie (one hour, bound to the client network) and `X-Service-Verification-TTL`.' }];
    for (const r of Object.values(responses) as { headers?: Record<string, unknown> }[]) r.headers = { ...r.headers, 'X-Service-Verification-TTL': { description: 'Seconds the bot-verification pass remains valid (browser and storefront requests)', schema: { type: 'integer' } } };
  }
  if (op.host === 'ar' && opts.arServerUrl) out.servers = [{ url: opts.arServerUrl }];
  if (op.host === 'ar') out['x-host'] = 'ar';
  return out;
}
