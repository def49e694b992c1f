import type { Kernel } from './kernel.ts';
import type { AuthScheme, JsonSchema, Operation } from './plugin.ts';

export const API_VERSION = '1.2.0';

const SECURITY: Record<AuthScheme, Record<string, string[]>[] | null> = {
  apiKey: [{ ApiKey: [] }, { ApiKey: [], ServiceAccount: [] }],
  storefront: [{ StorefrontToken: [] }],
  ipAllowlist: [{}],
  admin: [{ AdminKey: [] }],
  bearer: [{ Bearer: [] }, { DashboardSession: [] }, { LegacyToken: [] }],
  signedUrl: [{ SignedUrl: [] }],
  none: [{}],
};

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } });

const RATE_HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the current window', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Epoch seconds when the window resets', schema: { type: 'integer' } },
};

function schemaOrRef(s: string | JsonSchema): JsonSchema {
  return typeof s === 'string' ? { $ref: `#/components/schemas/${s}` } : s;
}

/** The OpenAPI 3.1 document, generated from the operation table and the schemas ajv validates with. */
export function buildOpenApi(kernel: Kernel, opts: { serverUrl?: string; arServerUrl?: string } = {}) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of kernel.operations) {
    if (op.hidden) continue;
    const item = (paths[op.path] ??= {});
    item[op.method.toLowerCase()] = operationObject(op, opts);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Fitroom API',
      version: API_VERSION,
      description:
        'Digital twins, virtual fitting, size fitting, shoe and bag photos to GLB, jobs, webhooks and files, plus the companion AR host. Builtin engines are classical computer vision and geometry (no AI weights); vendor AI backends are used when configured.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: opts.serverUrl ?? '/', description: 'API host: X-API-Key (or a storefront token where listed)' }, ...(opts.arServerUrl ? [{ url: opts.arServerUrl, description: 'AR host: Authorization: Bearer <API key or session token>, or the dashboard session cookie' }] : [])],
    paths,
    webhooks: {
      'job.completed': webhookItem('A job with a webhookUrl reached `completed`.', 'JobWebhookPayload'),
      'job.failed': webhookItem('A job with a webhookUrl reached `failed` (including cancellation).', 'JobWebhookPayload'),
      'batch.completed': webhookItem('A digitization batch completed. Signed over the exact body bytes; delivered once, no retries.', 'BatchWebhookPayload'),
    },
    components: {
      schemas: kernel.schemas,
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A user, service or development key. Service keys may add `X-Service-Account` (an account token, `wfa1.`) and `X-Service-Usage-Account` (a usage token, `wfu1.`).' },
        ServiceAccount: { type: 'apiKey', in: 'header', name: 'X-Service-Account', description: 'An account token (`wfa1.`), only together with a service key: ownership becomes `account:<accountId>` and the AI quota is counted. Unverifiable: 401 ACCOUNT_TOKEN_INVALID.' },
        StorefrontToken: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A short-lived storefront token (`wfs1.`) from POST /api/v1/storefront/tokens, sent in X-API-Key by storefront pages. Accepted only where this scheme is listed; elsewhere 403 CREDENTIAL_NOT_ALLOWED.' },
        AdminKey: { type: 'apiKey', in: 'header', name: 'X-Admin-Key' },
        Bearer: { type: 'http', scheme: 'bearer', description: 'AR host: an API key or session token.' },
        DashboardSession: { type: 'apiKey', in: 'cookie', name: 'fitroom_session', description: 'AR host: signed dashboard session cookie issued by the admin API.' },
        LegacyToken: { type: 'apiKey', in: 'query', name: 'token', description: 'AR host: legacy token query parameter (discouraged).' },
        SignedUrl: { type: 'apiKey', in: 'query', name: 'token', description: 'Signed download link: `token` together with `expires`.' },
      },
    },
  };
}

function webhookItem(description: string, schema: string) {
  return {
    post: {
      summary: description,
      parameters: [
        { name: 'X-Webhook-Signature', in: 'header', required: true, schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' } },
        { name: 'X-Webhook-Timestamp', in: 'header', required: true, schema: { type: 'string', format: 'date-time' } },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } } },
      responses: { '2XX': { description: 'Received. Any other answer counts as a failed attempt (job callbacks: up to 3 attempts with backoff).' } },
    },
  };
}

function operationObject(op: Operation, opts: { arServerUrl?: string }) {
  const parameters: unknown[] = [];
  for (const [name, schema] of Object.entries(op.params ?? {})) parameters.push({ name, in: 'path', required: true, schema });
  for (const [name, q] of Object.entries(op.query ?? {})) parameters.push({ name, in: 'query', required: q.required ?? false, schema: q.schema, ...(q.description ? { description: q.description } : {}) });
  const responses: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(op.responses)) {
    const content = r.schema ? { [r.contentType ?? 'application/json']: { schema: schemaOrRef(r.schema) } } : r.contentType ? { [r.contentType]: {} } : undefined;
    const headers = { ...(op.rateLimit ? RATE_HEADERS : {}), ...(r.headers ?? {}) };
    responses[status] = { description: r.description, ...(content ? { content } : {}), ...(Object.keys(headers).length ? { headers } : {}) };
  }
  if ((op.body || op.upload || op.params || op.query) && !responses['400']) responses['400'] = errorResponse('Invalid request (VALIDATION_ERROR with details)');
  if (!op.auth.includes('none') && !responses['401']) responses['401'] = errorResponse('Missing or invalid credentials');
  if (op.browserProtected && !responses['403']) responses['403'] = errorResponse('BOT_VERIFICATION_REQUIRED: a storefront or browser request without a valid X-Challenge-Token or pass cookie; CREDENTIAL_NOT_ALLOWED: a credential this operation does not accept');
  else if (!op.auth.includes('none') && !responses['403']) responses['403'] = errorResponse('CREDENTIAL_NOT_ALLOWED: a credential this operation does not accept (a storefront token, or service headers without a service key)');
  if (op.rateLimit && !responses['429']) responses['429'] = errorResponse('Rate limit exceeded');
  if (!responses['500']) responses['500'] = errorResponse('Unexpected error (no internal detail is exposed)');
  const security = op.auth.flatMap((a) => SECURITY[a] ?? []);
  const out: Record<string, unknown> = {
    operationId: op.id,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: op.tags ?? [],
    ...(parameters.length ? { parameters } : {}),
    security,
    responses,
  };
  if (op.body) out.requestBody = { required: true, content: { 'application/json': { schema: schemaOrRef(op.body) } } };
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
