import { definePlugin } from './plugin.ts';
import { TOKENS } from './tokens.ts';
import { CORE_SCHEMAS, ref } from './schemas.ts';
import { API_VERSION, buildOpenApi } from './openapi.ts';
import { keyView, type KeyKind } from './credentials.ts';
import { FitroomError, validationError } from './errors.ts';
import { registerAuthSchemes } from './auth-schemes.ts';
import { DATABASE_HEALTH, type DatabaseHealth } from './ports/database-health.ts';
import type { OperationResult } from './plugin.ts';
import { StorageHealth, type ComponentHealth } from './storage-health.ts';
import { timingSafeEqual, createHash } from 'node:crypto';
import { EX } from './examples.ts';

function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

const JOB_ID = { type: 'string', minLength: 1, maxLength: 100 };
const NO_STORE = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };

/**
 * The kernel's own operations (health, warm-up, jobs, files, admin keys, OpenAPI), registered
 * through the same plugin API as every capability.
 */
export const corePlugin = definePlugin({
  name: 'core',
  setup(api) {
    for (const [name, schema] of Object.entries(CORE_SCHEMAS)) api.schema(name, schema);
    const jobs = api.get(TOKENS.jobs);
    const files = api.get(TOKENS.files);
    const credentials = api.get(TOKENS.credentials);
    const probe = api.get(TOKENS.queueProbe);
    const kernel = api.get(TOKENS.kernel);
    const database: DatabaseHealth = api.has(DATABASE_HEALTH) ? api.get(DATABASE_HEALTH) : { check: async () => ({ ok: true, latencyMs: 0 }) };
    const storage: { check(): Promise<ComponentHealth> } = api.has(TOKENS.blobStore) ? new StorageHealth(api.get(TOKENS.blobStore)) : { check: async () => ({ ok: true, latencyMs: 0 }) };
    const now = () => new Date().toISOString();

    registerAuthSchemes(api);
    api.auth('admin', {
      async resolve(req) {
        const configured = api.config.adminKey;
        if (!configured) throw new FitroomError('ADMIN_NOT_CONFIGURED', 'The admin API is disabled: set ADMIN_KEY on this deployment');
        const given = req.headers['x-admin-key'];
        if (given === undefined) return undefined;
        if (!safeEqual(given, configured)) throw new FitroomError('HTTP_ERROR', 'Invalid admin key');
        return { caller: null };
      },
      missing: () => new FitroomError('HTTP_ERROR', 'Missing admin key: send it in the X-Admin-Key header'),
      openapi: {
        security: [{ AdminKey: [] }],
        schemes: { AdminKey: { type: 'apiKey', in: 'header', name: 'X-Admin-Key', description: 'API host, /admin/v1: the operator secret (ADMIN_KEY, or the generated DATA_DIR/admin-key of an embedded start).' } },
      },
    });
    api.auth('signedUrl', {
      async resolve(req) {
        return req.query.token !== undefined || req.query.expires !== undefined ? { caller: null } : undefined;
      },
      missing: () => new FitroomError('HTTP_ERROR', 'Missing credentials: send X-API-Key or use a signed URL'),
      openapi: {
        security: [{ SignedUrl: [] }],
        schemes: { SignedUrl: { type: 'apiKey', in: 'query', name: 'token', description: 'Signed download link: `token` together with `expires`.' } },
      },
    });

    api.operation({
      id: 'getHealth',
      method: 'GET',
      path: '/api/v1/health',
      summary: 'Service health',
      tags: ['Health'],
      auth: ['none'],
      rateLimit: 'health',
      description:
        'Answers 200 while the service, its database and its blob store answer, with each under `components`; 503 while either cannot be reached, in the error envelope with `DATABASE_UNAVAILABLE` or `STORAGE_UNAVAILABLE`, the component(s) down named in `error.details` (`components.database`, `components.storage`) and `components` beside it (load balancers take the instance out; it comes back by itself).',
      responses: {
        200: { description: 'The service is up', schema: 'HealthResponse', example: { status: 'ok', timestamp: EX.time, version: '1.2.0', components: { database: { reachable: true, latencyMs: 0.4 }, storage: { reachable: true, latencyMs: 1.2 } } } },
        503: { description: 'DATABASE_UNAVAILABLE or STORAGE_UNAVAILABLE, naming the component', schema: { allOf: [{ $ref: '#/components/schemas/ErrorEnvelope' }], properties: { components: { type: 'object', properties: { database: { $ref: '#/components/schemas/ComponentHealth' }, storage: { $ref: '#/components/schemas/ComponentHealth' } } } } }, example: { success: false, error: { code: 'STORAGE_UNAVAILABLE', message: 'Unavailable: storage; the service reconnects by itself', details: [{ field: 'components.storage', message: 'connect ECONNREFUSED 10.0.0.7:9000' }] }, components: { database: { reachable: true, latencyMs: 0.4 }, storage: { reachable: false, latencyMs: 3, error: 'connect ECONNREFUSED 10.0.0.7:9000' } } } },
      },
      handler: async (): Promise<OperationResult> => {
        const [db, st] = await Promise.all([database.check(), storage.check()]);
        const view = (c: ComponentHealth) => ({ reachable: c.ok, latencyMs: c.latencyMs, ...(c.error ? { error: c.error } : {}) });
        const components = { database: view(db), storage: view(st) };
        const down = (Object.entries({ database: db, storage: st }) as [string, ComponentHealth][]).filter(([, c]) => !c.ok);
        if (down.length) {
          const code = !db.ok ? 'DATABASE_UNAVAILABLE' : 'STORAGE_UNAVAILABLE';
          const error = { code, message: `Unavailable: ${down.map(([n]) => n).join(' and ')}; the service reconnects by itself`, details: down.map(([n, c]) => ({ field: `components.${n}`, message: c.error ?? 'unreachable' })) };
          return { status: 503, body: { success: false, error, components }, headers: { 'Cache-Control': 'no-store', 'Retry-After': '5' } };
        }
        return { body: { status: 'ok', timestamp: now(), version: API_VERSION, components }, headers: { 'Cache-Control': 'no-store' } };
      },
    });

    api.operation({
      id: 'getWarmup',
      method: 'GET',
      path: '/api/v1/warmup',
      summary: 'Warm up the AI backend and the job queue',
      description: '`modal` reports the first provider of the configured model chain; `queue.warm` is a real round trip through the job queue (a worker must run a ping task within 5 s); `vendors` is the live check of the configured AI vendors (key accepted, configured models present, credits), refreshed when older than 10 minutes; models a vendor does not have are listed under `retiredModels` and left out of the chain; models a vendor\'s own list marks deprecated are under `deprecatedModels` (with the successor it names) and passed over by the chain; `families` shows which model each family entry calls (the lists are read at start and every FITROOM_VENDOR_DISCOVERY_HOURS).',
      tags: ['Health'],
      auth: ['apiKey'],
      rateLimit: 'health',
      responses: { 200: { description: 'Warm-up report', schema: 'WarmupResponse', example: { status: 'ok', timestamp: EX.time, modal: { warm: true, responseTimeMs: 0.03, provider: 'builtin' }, queue: { warm: true, roundTripMs: 7 }, database: { reachable: true, latencyMs: 0.2 } } } },
      handler: async () => {
        const providers = api.get(TOKENS.imageModels);
        const first = providers[0];
        const t0 = performance.now();
        let modal: Record<string, unknown>;
        try {
          const models = first ? first.models() : [];
          modal = { warm: models.length > 0, responseTimeMs: Math.round((performance.now() - t0) * 100) / 100, provider: first?.id ?? 'none' };
          if (!models.length) modal.error = 'No AI backend is configured';
        } catch (e) {
          modal = { warm: false, error: (e as Error).message, provider: first?.id ?? 'none' };
        }
        const db = await database.check();
        const [q, vendors] = await Promise.all([
          db.ok ? probe.ping(5000) : { warm: false, roundTripMs: null },
          api.has(TOKENS.vendorStatus) ? api.get(TOKENS.vendorStatus).current(10 * 60_000, 10_000) : null,
        ]);
        return { body: { status: db.ok ? 'ok' : 'degraded', timestamp: now(), modal, queue: { warm: q.warm, roundTripMs: q.roundTripMs }, database: { reachable: db.ok, latencyMs: db.latencyMs, ...(db.error ? { error: db.error } : {}) }, ...(vendors ? { vendors } : {}) } };
      },
    });

    api.operation({
      id: 'postQueueWarmup',
      method: 'POST',
      path: '/api/v1/queue/warmup',
      summary: 'Warm up the job queue',
      description: 'Sends a ping through the job queue without waiting for it; `queueWarm` is always true.',
      tags: ['Health'],
      auth: ['apiKey'],
      rateLimit: 'health',
      responses: { 200: { description: 'Queued a warm-up ping', schema: 'QueueWarmupResponse', example: { status: 'ok', timestamp: EX.time, queueWarm: true } } },
      handler: async () => {
        void probe.ping(0).catch(() => undefined);
        return { body: { status: 'ok', timestamp: now(), queueWarm: true } };
      },
    });

    api.operation({
      id: 'getJob',
      method: 'GET',
      path: '/api/v1/jobs/{jobId}',
      summary: 'Job status',
      description: 'Only the credential that submitted the job sees it; anyone else gets the same 404 as for a job that does not exist. Poll shoe-3d jobs every 5-10 s; twin and fitting jobs at most once a second.',
      tags: ['Jobs'],
      auth: ['apiKey', 'storefront'],
      rateLimit: 'status',
      browserProtected: true,
      params: { jobId: JOB_ID },
      responses: { 200: { description: 'The job', schema: 'Job', example: { jobId: EX.jobId, status: 'completed', progress: { stage: 'completed', percentage: 100 }, createdAt: EX.time, updatedAt: EX.time, result: { imageUrl: EX.fileUrl }, results: [{ url: EX.fileUrl, expiresAt: EX.later, digitalTwinId: EX.twinId }], digitalTwinId: EX.twinId } }, 404: { description: 'No such job for this credential', schema: 'ErrorEnvelope' } },
      handler: async (ctx) => {
        const view = await jobs.view(ctx.params.jobId, ctx.caller!);
        return { body: view.body, json: view.json, headers: NO_STORE };
      },
    });

    api.operation({
      id: 'cancelJob',
      method: 'DELETE',
      path: '/api/v1/jobs/{jobId}',
      summary: 'Cancel a queued or running job',
      description: 'A cancelled job reports `status: failed` with `cancelled: true` and never completes later. Completed or failed jobs answer 409 JOB_NOT_CANCELLABLE.',
      tags: ['Jobs'],
      auth: ['apiKey'],
      rateLimit: 'status',
      params: { jobId: JOB_ID },
      responses: {
        200: { description: 'Cancelled', schema: 'CancelResponse', example: { cancelled: true } },
        404: { description: 'No such job for this credential', schema: 'ErrorEnvelope' },
        409: { description: 'The job is already terminal', schema: 'ErrorEnvelope' },
      },
      handler: async (ctx) => {
        await jobs.cancel(ctx.params.jobId, ctx.caller!);
        return { body: { cancelled: true }, headers: NO_STORE };
      },
    });

    api.operation({
      id: 'getJobTrace',
      method: 'GET',
      path: '/api/v1/jobs/{jobId}/trace',
      summary: 'Stage timeline of a job',
      tags: ['Jobs'],
      auth: ['apiKey'],
      rateLimit: 'status',
      params: { jobId: JOB_ID },
      responses: { 200: { description: 'The trace', schema: 'JobTrace', example: { jobId: EX.jobId, kind: 'tryon', status: 'completed', cancelled: false, stages: ['validate inputs', 'resolve identity', 'build garment grid', 'generate', 'store'], timeline: [{ seq: 1, stage: 'validate inputs', status: 'validating', attempt: 1, startedAt: EX.time, endedAt: EX.time, durationMs: 24, outcome: 'ok' }, { seq: 4, stage: 'generate', status: 'processing', attempt: 1, startedAt: EX.time, endedAt: EX.time, durationMs: 1000, outcome: 'ok', detail: { model: 'builtin-warp' } }] } }, 404: { description: 'No such job for this credential', schema: 'ErrorEnvelope' } },
      handler: async (ctx) => ({ body: await jobs.trace(ctx.params.jobId, ctx.caller!), headers: NO_STORE }),
    });

    api.operation({
      id: 'downloadFile',
      method: 'GET',
      path: '/api/v1/files/{fileId}',
      summary: 'Download a result file',
      description: 'With the submitting X-API-Key, or with the signed `token` and `expires` query pair of a result URL. Expired, internal or foreign files answer 404.',
      tags: ['Files'],
      auth: ['apiKey', 'signedUrl'],
      rateLimit: 'download',
      params: { fileId: { type: 'string', minLength: 1, maxLength: 100 } },
      query: { token: { schema: { type: 'string' } }, expires: { schema: { type: 'string', pattern: '^[0-9]+$' } } },
      responses: {
        200: { description: 'The file', contentType: 'application/octet-stream' },
        206: { description: 'The bytes asked for with `Range: bytes=a-b` (one range; `a-` and `-n` too), with Content-Range', contentType: 'application/octet-stream' },
        404: { description: 'Not found or not accessible', schema: 'ErrorEnvelope' },
        416: { description: 'RANGE_NOT_SATISFIABLE: the range starts past the end', schema: 'ErrorEnvelope' },
      },
      handler: async (ctx) => {
        const f = await files.openForDownload(ctx.params.fileId, { caller: ctx.caller, token: ctx.query.token, expires: ctx.query.expires }, ctx.headers.range);
        const ranged: { status?: number; headers: Record<string, string> } = f.range ? { status: 206, headers: { 'Content-Range': `bytes ${f.range.start}-${f.range.end}/${f.size}` } } : { headers: {} };
        return {
          status: ranged.status,
          file: { contentType: f.rec.contentType, stream: f.stream, size: f.range ? f.range.end - f.range.start + 1 : f.size, filename: f.rec.filename ?? undefined },
          // A signed URL is itself the credential: viewers on other origins (the AR host) may load it.
          headers: { 'Cache-Control': 'private, max-age=300', 'X-Content-Type-Options': 'nosniff', 'Accept-Ranges': 'bytes', ...ranged.headers, ...(ctx.authScheme === 'signedUrl' ? { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' } : {}) },
        };
      },
    });

    api.operation({
      id: 'getOpenApi',
      method: 'GET',
      path: '/api/v1/openapi.json',
      summary: 'This OpenAPI 3.1 document',
      tags: ['Meta'],
      auth: ['none'],
      responses: { 200: { description: 'OpenAPI document', schema: { type: 'object', required: ['openapi', 'info', 'paths'], properties: { openapi: { const: '3.1.0' }, info: { type: 'object' }, servers: { type: 'array' }, paths: { type: 'object' } } }, example: { openapi: '3.1.0', info: { title: 'Fitroom API', version: '1.2.0' }, servers: [{ url: 'https://fitroom.example' }], paths: {} } } },
      // each host's operations under its own server, so that /docs sends AR host calls to the AR host
      handler: async (ctx) => ({ body: buildOpenApi(kernel, { serverUrl: ctx.links.api, arServerUrl: ctx.links.ar || undefined }) }),
    });

    // Admin API: X-Admin-Key. Keys are shown in plaintext only in the create and rotate answers.
    api.operation({
      id: 'adminCreateKey',
      method: 'POST',
      path: '/admin/v1/keys',
      summary: 'Create an API key',
      tags: ['Admin'],
      auth: ['admin'],
      body: 'CreateApiKeyRequest',
      example: { name: 'my-shop', kind: 'user', maxUsage: 0 },
      responses: { 201: { description: 'Created; the key is shown once', schema: 'CreatedApiKey', example: { key: 'fr_live_GciSzwiwIXlYwEXjYOk3-C4SRjLQpScz', apiKey: { id: EX.keyId, name: 'my-shop', kind: 'user', prefix: 'fr_live_Gci', accountId: null, isActive: true, expiresAt: null, maxUsage: 0, usageCount: 4, monthlyQuota: null, createdAt: EX.time, revokedAt: null, rotatedFrom: null } } }, 503: { description: 'ADMIN_KEY is not configured', schema: 'ErrorEnvelope' } },
      handler: async (ctx) => {
        const b = ctx.body as { name: string; kind?: KeyKind; accountId?: string; expiresAt?: string; maxUsage?: number; monthlyQuota?: number };
        const expiresAt = b.expiresAt ? new Date(b.expiresAt) : null;
        if (expiresAt && expiresAt.getTime() <= Date.now()) throw validationError([{ field: 'expiresAt', message: 'must be in the future' }]);
        const { key, record } = await credentials.create({ name: b.name, kind: b.kind ?? 'user', accountId: b.accountId ?? null, expiresAt, maxUsage: b.maxUsage, monthlyQuota: b.monthlyQuota ?? null });
        return { status: 201, body: { key, apiKey: keyView(record) }, headers: { 'Cache-Control': 'no-store' } };
      },
    });
    api.operation({
      id: 'adminListKeys',
      method: 'GET',
      path: '/admin/v1/keys',
      summary: 'List API keys',
      tags: ['Admin'],
      auth: ['admin'],
      responses: { 200: { description: 'Keys (never the secrets)', schema: { type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: ref('ApiKey') } } }, example: { keys: [{ id: EX.keyId, name: 'my-shop', kind: 'user', prefix: 'fr_live_Gci', accountId: null, isActive: true, expiresAt: null, maxUsage: 0, usageCount: 4, monthlyQuota: null, createdAt: EX.time, revokedAt: null, rotatedFrom: null }] } } },
      handler: async () => ({ body: { keys: (await credentials.list()).map(keyView) } }),
    });
    api.operation({
      id: 'adminRevokeKey',
      method: 'DELETE',
      path: '/admin/v1/keys/{keyId}',
      summary: 'Revoke an API key',
      tags: ['Admin'],
      auth: ['admin'],
      params: { keyId: { type: 'string', format: 'uuid' } },
      responses: { 200: { description: 'Revoked', schema: 'ApiKey', example: { ...{ id: EX.keyId, name: 'my-shop', kind: 'user', prefix: 'fr_live_Gci', accountId: null, isActive: true, expiresAt: null, maxUsage: 0, usageCount: 4, monthlyQuota: null, createdAt: EX.time, revokedAt: null, rotatedFrom: null }, isActive: false, revokedAt: EX.later } }, 404: { description: 'Unknown key', schema: 'ErrorEnvelope' } },
      handler: async (ctx) => ({ body: keyView(await credentials.revoke(ctx.params.keyId)) }),
    });
    api.operation({
      id: 'adminRotateKey',
      method: 'POST',
      path: '/admin/v1/keys/{keyId}/rotate',
      summary: 'Rotate an API key',
      description: 'Issues a new key with the same settings and revokes the old one. Jobs submitted with the old key stay with it (404 for the new key).',
      tags: ['Admin'],
      auth: ['admin'],
      params: { keyId: { type: 'string', format: 'uuid' } },
      responses: { 201: { description: 'The new key, shown once', schema: 'CreatedApiKey', example: { key: 'fr_live_6YkjQ2mH7u0aWcE3xXk9V1pLrS8tNbDf', apiKey: { ...{ id: EX.keyId, name: 'my-shop', kind: 'user', prefix: 'fr_live_Gci', accountId: null, isActive: true, expiresAt: null, maxUsage: 0, usageCount: 4, monthlyQuota: null, createdAt: EX.time, revokedAt: null, rotatedFrom: null }, id: '9fdffdc0-0aad-4d26-b351-d662c06e4259', prefix: 'fr_live_6Yk', usageCount: 0, rotatedFrom: EX.keyId } } }, 404: { description: 'Unknown key', schema: 'ErrorEnvelope' }, 409: { description: 'The key is revoked', schema: 'ErrorEnvelope' } },
      handler: async (ctx) => {
        const { key, record } = await credentials.rotate(ctx.params.keyId);
        return { status: 201, body: { key, apiKey: keyView(record) }, headers: { 'Cache-Control': 'no-store' } };
      },
    });

    api.cron({
      task: 'fitroom_purge_files',
      pattern: '17 * * * *',
      run: async () => {
        while ((await files.purgeExpired(500)) === 500);
      },
    });

  },
});
