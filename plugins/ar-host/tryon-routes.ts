import { FitroomError, validationError } from '../../core/errors.ts';
import type { Operation, OperationContext } from '../../core/plugin.ts';
import { TOKENS } from '../../core/tokens.ts';
import type { ArRouteDeps } from './context.ts';
import { EX } from '../../core/examples.ts';
import { AR_ANSWERS } from './examples.ts';
import { principalOf, requirePrincipal } from './context.ts';

const ERR = (description: string) => ({ description, schema: 'ErrorEnvelope' });

/**
 * Try-on from the AR host and bug reports. garment_fit_on and shoes_fit_on translate their
 * payload to the API's ClothingTryOnRequest / ShoeTryOnRequest and run the try-on plugin's
 * operation (POST /api/v1/tryon/clothing, /api/v1/tryon/shoes) with the same caller, so its
 * validation, ownership, quotas and job handling apply unchanged.
 */
/** The forwarded try-on answer; its schema belongs to the try-on plugin, which may not be installed. */
const FORWARDED = { type: 'object', additionalProperties: true } as const;
const QUEUED = { success: true, jobId: EX.jobId, status: 'queued', estimatedProcessingTime: 12, statusUrl: EX.statusUrl };

export function registerTryOnRoutes(deps: ArRouteDeps): void {
  const { api, store } = deps;
  const kernel = api.get(TOKENS.kernel);

  async function delegate(ctx: OperationContext, path: string, body: Record<string, unknown>) {
    const p = requirePrincipal(deps, ctx);
    const target = kernel.operations.find((o: Operation) => o.method === 'POST' && o.path === path && (o.host ?? 'api') === 'api');
    if (!target) throw new FitroomError('SERVICE_UNAVAILABLE', 'Virtual try-on is not installed on this deployment');
    if (target.body) kernel.validator.assert(target.body, body);
    // ctx.links point at the API host, where the job's status and result URLs live
    const result = await target.handler({ ...ctx, body, caller: p.caller, authScheme: 'apiKey', upload: undefined });
    return result;
  }

  const person = (b: { image?: string; digital_twin_id?: string }) => {
    if (!!b.image === !!b.digital_twin_id) throw validationError([{ field: 'image', message: 'send either image (a person photo) or digital_twin_id' }]);
    return b.image ? { personImages: [b.image] } : { digitalTwinId: b.digital_twin_id };
  };

  api.operation({
    id: 'arGarmentFitOn',
    method: 'POST',
    path: '/tryon/api/garment_fit_on',
    host: 'ar',
    summary: 'Apply a garment to a person image',
    description: 'Payload: `image` (person photo URL or data URL) or `digital_twin_id`; `garment` (packshot, or [packshot, on-model reference]); `category` top (default), bottom or full-body; optional `quality` and `webhook_url`. Answers like POST /api/v1/tryon/clothing (a job to poll on the API host).',
    tags: ['AR host'],
    auth: ['bearer'],
    rateLimit: 'submission',
    billable: true,
    // handed to the try-on operation, whose image fields are only fetched
    dataUrlsAsBytes: true,
    body: 'ArGarmentFitOnRequest',
    example: { image: EX.png, garment: EX.photoUrl, category: 'top' },
    responses: { 202: { description: 'Job queued (the try-on API\'s TryOnResponse)', schema: FORWARDED, example: QUEUED }, 200: { description: 'Cached result (the try-on API\'s TryOnResponse)', schema: FORWARDED, example: { ...QUEUED, status: 'completed', estimatedProcessingTime: 0, results: [{ url: EX.fileUrl, expiresAt: EX.later }] } }, 401: ERR('unauthorized, invalid_api_key'), 404: ERR('NOT_FOUND: the digital twin does not exist'), 422: ERR('IMAGE_FETCH_FAILED, IMAGE_INVALID or INPUT_REFERENCE_LIMIT, as the try-on API answers'), 503: ERR('Try-on not installed') },
    async handler(ctx) {
      const b = ctx.body as { image?: string; digital_twin_id?: string; garment: string | string[]; category?: string; quality?: string; webhook_url?: string };
      const slot = b.category === 'bottom' ? 'bottomGarment' : b.category === 'full-body' ? 'fullBodyGarment' : 'topGarment';
      return delegate(ctx, '/api/v1/tryon/clothing', {
        ...person(b),
        [slot]: b.garment,
        ...(b.quality ? { options: { quality: b.quality } } : {}),
        ...(b.webhook_url ? { webhookUrl: b.webhook_url } : {}),
      });
    },
  });

  api.operation({
    id: 'arShoesFitOn',
    method: 'POST',
    path: '/tryon/api/shoes_fit_on',
    host: 'ar',
    summary: 'Apply shoes to a person image',
    description: 'Payload: `image` (person photo) or `digital_twin_id`; `shoe_images` (1-4 of {url, angle front|side|back}); optional `quality`, `webhook_url`. Answers like POST /api/v1/tryon/shoes.',
    tags: ['AR host'],
    auth: ['bearer'],
    rateLimit: 'submission',
    billable: true,
    // handed to the try-on operation, whose image fields are only fetched
    dataUrlsAsBytes: true,
    body: 'ArShoesFitOnRequest',
    example: { digital_twin_id: EX.twinId, shoe_images: [{ url: EX.photoUrl, angle: 'side' }] },
    responses: { 202: { description: 'Job queued (the try-on API\'s TryOnResponse)', schema: FORWARDED, example: QUEUED }, 401: ERR('unauthorized, invalid_api_key'), 404: ERR('NOT_FOUND: the digital twin does not exist'), 422: ERR('IMAGE_FETCH_FAILED, IMAGE_INVALID or INPUT_REFERENCE_LIMIT, as the try-on API answers'), 503: ERR('Try-on not installed') },
    async handler(ctx) {
      const b = ctx.body as { image?: string; digital_twin_id?: string; shoe_images: { url: string; angle?: string }[]; quality?: string; webhook_url?: string };
      return delegate(ctx, '/api/v1/tryon/shoes', {
        shoeImages: b.shoe_images,
        ...person(b),
        ...(b.quality ? { options: { quality: b.quality } } : {}),
        ...(b.webhook_url ? { webhookUrl: b.webhook_url } : {}),
      });
    },
  });

  api.operation({
    id: 'arReportBug',
    method: 'POST',
    path: '/tryon/api/report_bug',
    host: 'ar',
    summary: 'Report a problem with a viewer page',
    description: 'Stored for the operators (GET /admin/v1/ar/bug-reports). Anonymous reports are accepted.',
    tags: ['AR host'],
    auth: ['bearer', 'none'],
    rateLimit: 'submission',
    body: 'ArBugReportRequest',
    example: { message: 'The laces look black on my phone', object_id: '6ef70a61d8f7d496cb0c7377', page: 'https://ar.fitroom.example/tryon?id=6ef70a61d8f7d496cb0c7377', context: { userAgent: 'Mozilla/5.0 (Android 14)' } },
    maxBodyBytes: 64 * 1024,
    responses: { 201: { description: 'Stored', schema: AR_ANSWERS.bugReport, example: { id: '5b3c1e0a-8d1f-4e53-9a53-0f1d2c3b4a59', created: EX.time } } },
    async handler(ctx) {
      const b = ctx.body as { message: string; object_id?: string; page?: string; context?: Record<string, unknown> };
      const p = principalOf(deps, ctx);
      const report = await store.addBugReport({
        objectId: b.object_id ?? null,
        message: b.message,
        context: { ...(b.context ?? {}), ...(b.page ? { page: b.page } : {}), userAgent: ctx.headers['user-agent'] ?? null },
        reporter: p?.label ?? null,
      });
      return { status: 201, body: { id: report.id, created: report.created } };
    },
  });

  api.operation({
    id: 'adminListArBugReports',
    method: 'GET',
    path: '/admin/v1/ar/bug-reports',
    summary: 'Bug reports sent from the AR viewer pages',
    tags: ['Admin'],
    auth: ['admin'],
    query: {
      limit: { schema: { type: 'string', pattern: '^[0-9]{1,3}$' }, description: '1-500, default 100' },
      before: { schema: { type: 'string', format: 'date-time' }, description: 'Only reports older than this (paging)' },
    },
    responses: { 200: { description: 'Newest first', schema: AR_ANSWERS.bugReports, example: { reports: [{ id: '5b3c1e0a-8d1f-4e53-9a53-0f1d2c3b4a59', objectId: '6ef70a61d8f7d496cb0c7377', message: 'The laces look black on my phone', context: { userAgent: 'Mozilla/5.0 (Android 14)' }, reporter: null, created: EX.time }] } }, 503: ERR('ADMIN_KEY is not configured') },
    async handler(ctx) {
      const reports = await store.listBugReports(Math.min(500, Math.max(1, Number(ctx.query.limit ?? 100))), ctx.query.before);
      return { body: { reports }, headers: { 'Cache-Control': 'no-store' } };
    },
  });
}
