import { randomUUID } from 'node:crypto';
import type { Caller } from '../../core/credentials.ts';
import { FitroomError, isFitroomError, notFound, validationError, type ErrorDetail } from '../../core/errors.ts';
import { isTerminal, jobView, TERMINAL_STATUSES, type JobRecord, type JobService, type JobStatus } from '../../core/jobs.ts';
import { restLinks, type Links } from '../../core/links.ts';
import type { JsonSchema, OperationContext, PluginApi } from '../../core/plugin.ts';
import type { BatchRecord, BatchStore } from '../../core/ports/batch-store.ts';
import type { NewJob } from '../../core/ports/job-store.ts';
import { IMAGE_STRING, JOB_ERROR_CODE, WEBHOOK_URL, ref } from '../../core/schemas.ts';
import { buildBatchDelivery } from '../../core/webhooks.ts';
import { EX } from '../../core/examples.ts';
import { parseShoe3d, stashShoe3d, type OperationDeps } from './operations.ts';
import { SHOE3D_JOB, type Shoe3dOptions } from './shoe3d-job.ts';

/** Spec: up to 500 products per batch; results kept 7 days after completion. */
export const BATCH_MAX_ITEMS = 500;
export const BATCH_RETENTION_SECONDS = 7 * 24 * 3600;
/**
 * graphile-worker takes lower priority numbers first (real-time work is 0): whenever a worker slot
 * frees up, a waiting virtual fitting or single shoe-3d starts before the next batch item.
 */
export const BATCH_PRIORITY = 10;

const STATUSES: readonly JobStatus[] = ['queued', 'validating', 'processing', 'uploading', 'completed', 'failed', 'cancelled'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ERR = (description: string) => ({ description, schema: 'ErrorEnvelope' });
const NO_STORE = { 'Cache-Control': 'no-store' };

interface BatchBody {
  items: { images: string[]; options?: Partial<Shoe3dOptions> }[];
  webhookUrl?: string;
}

/** Digitization batches: many shoe-3d items as one submission, read, cancelled and reported as one. */
export class BatchService {
  private readonly d: OperationDeps;
  private readonly store: BatchStore;
  constructor(d: OperationDeps, store: BatchStore) {
    this.d = d;
    this.store = store;
  }

  async submit(body: BatchBody, caller: Caller, links: Links) {
    // Every item is checked before anything is stored, so a bad item 480 leaves no stashed inputs.
    const details: ErrorDetail[] = [];
    const parsed = body.items.map((item, i) => {
      const p = parseShoe3d(this.d, item, `items[${i}].`);
      details.push(...p.details);
      return p;
    });
    if (details.length) throw validationError(details);
    const jobs: NewJob[] = [];
    let queue;
    const lanes = this.d.api.config.batchLanes;
    for (const [i, p] of parsed.entries()) {
      const input = await stashShoe3d(this.d, p, caller, BATCH_RETENTION_SECONDS);
      // With BATCH_LANES, items are spread over that many serial queues: no more run at once.
      const prepared = this.d.jobs.prepare({ kind: SHOE3D_JOB, input, caller, links, charged: caller.countsKeyUsage }, { priority: BATCH_PRIORITY, ...(lanes ? { queue: `fitroom_batch_${i % lanes}` } : {}) });
      jobs.push(prepared.job);
      queue = prepared.queue;
    }
    const batch = await this.store.create({ id: randomUUID(), ownerHash: caller.ownerHash, accountId: caller.accountId, credentialId: caller.credentialId, webhookUrl: body.webhookUrl ?? null, baseUrl: links.api }, jobs, queue!);
    return {
      success: true,
      batchId: batch.id,
      status: 'queued',
      total: jobs.length,
      statusUrl: links.batch(batch.id),
      estimatedProcessingTime: (this.d.jobs.kind(SHOE3D_JOB).estimatedSeconds ?? 120) * jobs.length,
      items: jobs.map((j, index) => ({ index, jobId: j.id, statusUrl: links.job(j.id) })),
    };
  }

  /** The same 404 for a batch that does not exist, belongs to another credential, or has expired. */
  private async owned(id: string, caller: Caller): Promise<BatchRecord> {
    const batch = UUID.test(id) ? await this.store.get(id) : null;
    if (!batch || batch.ownerHash !== caller.ownerHash || (batch.expiresAt && batch.expiresAt.getTime() <= Date.now())) throw notFound('Batch not found');
    return batch;
  }

  async view(id: string, caller: Caller, links: Links) {
    const batch = await this.owned(id, caller);
    const items = await this.store.items(batch.id);
    const delivery = batch.webhookUrl ? await this.store.delivery(batch) : null;
    return {
      success: true,
      ...summary(batch, items, this.d.jobs, links),
      ...(batch.webhookUrl ? { webhook: { url: batch.webhookUrl, state: delivery?.state ?? 'not_sent', attempts: (delivery?.attempts ?? []).map((a) => ({ ...a, at: a.at.toISOString() })) } } : {}),
    };
  }

  /** Cancels the items not yet finished; finished ones keep their results. */
  async cancel(id: string, caller: Caller, links: Links) {
    const batch = await this.owned(id, caller);
    const items = await this.store.items(batch.id);
    const open = items.filter((j) => !isTerminal(j.status));
    if (batch.completedAt || open.length === 0) throw new FitroomError('BATCH_NOT_CANCELLABLE', 'Every item of this batch has already finished; nothing is left to cancel');
    let cancelled = 0;
    for (const j of open) {
      try {
        await this.d.jobs.cancel(j.id, caller);
        cancelled++;
      } catch (e) {
        // finished meanwhile: it keeps its outcome
        if (!isFitroomError(e) || e.code !== 'JOB_NOT_CANCELLABLE') throw e;
      }
    }
    return { ...(await this.view(id, caller, links)), cancelledItems: cancelled };
  }

  /** Completes the batches whose items have all finished: batch.completed once, signed over its bytes. */
  completeFinished(): Promise<BatchRecord[]> {
    return this.store.completeFinished(BATCH_RETENTION_SECONDS, (batch, items) => {
      if (!batch.webhookUrl) return null;
      const links = restLinksOf(this.d, batch);
      const s = summary(batch, items, this.d.jobs, links);
      return buildBatchDelivery(batch.id, batch.ownerHash, batch.webhookUrl, { status: s.status, total: s.total, counts: s.counts, completedAt: s.completedAt, expiresAt: s.expiresAt, statusUrl: s.statusUrl, items: s.items });
    });
  }

  purgeExpired(now = new Date()): Promise<number> {
    return this.store.purgeExpired(now);
  }
}

function restLinksOf(d: OperationDeps, batch: BatchRecord): Links {
  return restLinks(d.api.config, batch.baseUrl);
}

function summary(batch: BatchRecord, items: JobRecord[], jobs: JobService, links: Links) {
  const counts = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
  for (const j of items) counts[j.status]++;
  const done = items.every((j) => TERMINAL_STATUSES.includes(j.status));
  return {
    batchId: batch.id,
    status: batch.completedAt || done ? 'completed' : counts.queued === items.length ? 'queued' : 'processing',
    total: items.length,
    counts,
    createdAt: batch.createdAt.toISOString(),
    ...(batch.completedAt ? { completedAt: batch.completedAt.toISOString() } : {}),
    ...(batch.expiresAt ? { expiresAt: batch.expiresAt.toISOString() } : {}),
    statusUrl: links.batch(batch.id),
    items: items.map((j, index) => {
      const v = jobView(j, kindOf(jobs, j.kind));
      delete v.createdAt;
      return { index, statusUrl: links.job(j.id), ...v };
    }),
  };
}

function kindOf(jobs: JobService, name: string) {
  try {
    return jobs.kind(name);
  } catch {
    return undefined;
  }
}

export const BATCH_SCHEMAS: Record<string, JsonSchema> = {
  DigitizationBatchItem: {
    type: 'object',
    additionalProperties: false,
    required: ['images'],
    properties: {
      images: { type: 'array', minItems: 1, maxItems: 12, items: IMAGE_STRING, description: 'The product photos, as for POST /api/v1/shoe-3d (URLs are best in batches: the body is limited to MAX_JSON_BYTES).' },
      options: ref('Shoe3dOptions'),
    },
  },
  DigitizationBatchRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['items'],
    properties: {
      items: { type: 'array', minItems: 1, maxItems: BATCH_MAX_ITEMS, items: ref('DigitizationBatchItem') },
      webhookUrl: { ...WEBHOOK_URL, description: 'HTTPS URL that receives `batch.completed` once, when every item has finished; signed over the exact body bytes, not retried.' },
    },
  },
  DigitizationBatchSubmitted: {
    type: 'object',
    required: ['success', 'batchId', 'status', 'total', 'statusUrl', 'items'],
    properties: {
      success: { const: true },
      batchId: { type: 'string', format: 'uuid' },
      status: { const: 'queued' },
      total: { type: 'integer' },
      statusUrl: { type: 'string', format: 'uri' },
      estimatedProcessingTime: { type: 'integer', description: 'Seconds for the whole batch on one worker slot; more workers finish sooner.' },
      items: { type: 'array', items: { type: 'object', required: ['index', 'jobId', 'statusUrl'], properties: { index: { type: 'integer' }, jobId: { type: 'string', format: 'uuid' }, statusUrl: { type: 'string', format: 'uri' } } } },
    },
  },
  DigitizationBatch: {
    type: 'object',
    required: ['success', 'batchId', 'status', 'total', 'counts', 'createdAt', 'statusUrl', 'items'],
    properties: {
      success: { const: true },
      batchId: { type: 'string', format: 'uuid' },
      status: { enum: ['queued', 'processing', 'completed'], description: '`completed` once every item is completed, failed or cancelled.' },
      total: { type: 'integer' },
      counts: { type: 'object', description: 'Items per job status (`cancelled` counted apart from `failed`).', properties: Object.fromEntries(STATUSES.map((s) => [s, { type: 'integer' }])) },
      createdAt: { type: 'string', format: 'date-time' },
      completedAt: { type: 'string', format: 'date-time', description: 'When the batch was completed: set by the completion bookkeeping (batch.completed, expiry) a moment after the last item ends, so a batch may already say `completed` without it.' },
      expiresAt: { type: 'string', format: 'date-time', description: 'Completion + 7 days; then the batch and its items answer 404.' },
      statusUrl: { type: 'string', format: 'uri' },
      cancelledItems: { type: 'integer', description: 'DELETE only: the items this request cancelled.' },
      webhook: {
        type: 'object',
        description: 'The batch.completed delivery: `not_sent` until the batch completes, then `pending`, `delivered` or `failed` with its one recorded attempt.',
        properties: { url: { type: 'string' }, state: { enum: ['not_sent', 'pending', 'delivered', 'failed'] }, attempts: { type: 'array', items: { type: 'object' } } },
      },
      items: {
        type: 'array',
        description: 'Each item as GET /api/v1/jobs/{jobId} shows it, with its index: status, progress, result (glbUrl, viewerUrl, previewGrid) or error and errorCode.',
        items: { type: 'object', required: ['index', 'jobId', 'status', 'statusUrl'], properties: { index: { type: 'integer' }, jobId: { type: 'string' }, statusUrl: { type: 'string' }, status: { type: 'string' }, progress: { type: 'number' }, updatedAt: { type: 'string', format: 'date-time' }, result: ref('Shoe3dResult'), error: { type: 'string' }, errorCode: JOB_ERROR_CODE, cancelled: { type: 'boolean' } } },
      },
    },
  },
};

const BATCH_ID = { type: 'string', minLength: 1, maxLength: 100 };

const EX_BATCH = 'c5b1f0de-3f2e-4d1a-9a61-0b7e8f3c2d11';
const EX_ITEM_JOB = '8d0f3a52-6c1e-4b7d-a2f4-5e9c1b7a3d20';
const batchStatusUrl = `https://fitroom.example/api/v1/digitization/batches/${EX_BATCH}`;
/** A batch of two: one model finished, one product photo that could not be fetched. */
const EX_BATCH_VIEW = {
  success: true,
  batchId: EX_BATCH,
  status: 'completed',
  total: 2,
  counts: { queued: 0, validating: 0, processing: 0, uploading: 0, completed: 1, failed: 1, cancelled: 0 },
  createdAt: EX.time,
  completedAt: EX.time,
  expiresAt: EX.later,
  statusUrl: batchStatusUrl,
  webhook: { url: 'https://merchant.example/hooks/fitroom', state: 'delivered', attempts: [{ attempt: 1, at: EX.time, status: 200, error: null, durationMs: 84 }] },
  items: [
    { index: 0, statusUrl: EX.statusUrl, jobId: EX.jobId, status: 'completed', progress: 100, updatedAt: EX.time, result: { glbUrl: EX.fileUrl, viewerUrl: EX.viewerUrl, previewGrid: EX.fileUrl, expiresAt: EX.later, productType: 'shoe' } },
    { index: 1, statusUrl: `https://fitroom.example/api/v1/jobs/${EX_ITEM_JOB}`, jobId: EX_ITEM_JOB, status: 'failed', progress: 10, updatedAt: EX.time, error: 'Could not fetch images[0]: http_status: HTTP 404', errorCode: 'IMAGE_FETCH_FAILED' },
  ],
};

export function registerBatchOperations(api: PluginApi, service: BatchService): void {
  for (const [name, schema] of Object.entries(BATCH_SCHEMAS)) api.schema(name, schema);
  api.operation({
    id: 'submitDigitizationBatch',
    method: 'POST',
    path: '/api/v1/digitization/batches',
    summary: 'Digitize up to 500 products in one batch',
    description:
      'Each item `{images, options}` is checked as a POST /api/v1/shoe-3d request would be (fields named `items[i]....`); one bad item refuses the whole batch and nothing is queued. Answers 202 with the `batchId` and each item\'s `jobId`. Items run as shoe-3d jobs after real-time work (a fitting or single shoe-3d submitted meanwhile starts before the next item); follow one with GET /api/v1/jobs/{jobId} or all with GET on the batch. Counts one usage per item. Results are kept 7 days after completion.',
    tags: ['Shoe 3D'],
    auth: ['apiKey'],
    browserProtected: true,
    rateLimit: 'submission',
    billable: true,
    body: 'DigitizationBatchRequest',
    example: { items: [{ images: ['https://shop.example/img/runner-side.jpg', 'https://shop.example/img/runner-front.jpg'] }, { images: ['https://shop.example/img/trail-boot.jpg'], options: { productType: 'shoe' } }], webhookUrl: 'https://merchant.example/hooks/fitroom' },
    responses: {
      202: {
        description: 'Queued',
        schema: 'DigitizationBatchSubmitted',
        example: { success: true, batchId: EX_BATCH, status: 'queued', total: 2, statusUrl: batchStatusUrl, estimatedProcessingTime: 240, items: [{ index: 0, jobId: EX.jobId, statusUrl: EX.statusUrl }, { index: 1, jobId: EX_ITEM_JOB, statusUrl: `https://fitroom.example/api/v1/jobs/${EX_ITEM_JOB}` }] },
      },       400: ERR('VALIDATION_ERROR (more than 500 items, or an invalid item)'),
      401: ERR('HTTP_ERROR'),
    },
    async handler(ctx: OperationContext<BatchBody>) {
      const body = await service.submit(ctx.body, ctx.caller!, ctx.links);
      return { status: 202, body, headers: NO_STORE, usage: body.total };
    },
  });
  api.operation({
    id: 'getDigitizationBatch',
    method: 'GET',
    path: '/api/v1/digitization/batches/{batchId}',
    summary: 'Batch status: counts per status and every item',
    description: 'Only the credential that submitted the batch sees it; anyone else, and everyone after it expired, gets the same 404.',
    tags: ['Shoe 3D'],
    auth: ['apiKey'],
    browserProtected: true,
    rateLimit: 'status',
    params: { batchId: BATCH_ID },
    responses: { 200: { description: 'The batch', schema: 'DigitizationBatch', example: EX_BATCH_VIEW }, 404: ERR('No such batch for this credential') },
    handler: async (ctx) => ({ body: await service.view(ctx.params.batchId, ctx.caller!, ctx.links), headers: NO_STORE }),
  });
  api.operation({
    id: 'cancelDigitizationBatch',
    method: 'DELETE',
    path: '/api/v1/digitization/batches/{batchId}',
    summary: 'Cancel the batch\'s unfinished items',
    description: 'Items not finished are cancelled (as DELETE /api/v1/jobs/{jobId} would; their usage is refunded); finished items keep their results. The batch then completes and sends `batch.completed`. A batch whose items have all finished answers 409 BATCH_NOT_CANCELLABLE.',
    tags: ['Shoe 3D'],
    auth: ['apiKey'],
    rateLimit: 'status',
    params: { batchId: BATCH_ID },
    responses: {
      200: {
        description: 'The batch after cancelling',
        schema: 'DigitizationBatch',
        example: { ...EX_BATCH_VIEW, counts: { ...EX_BATCH_VIEW.counts, failed: 0, cancelled: 1 }, webhook: { ...EX_BATCH_VIEW.webhook, state: 'pending', attempts: [] }, items: [EX_BATCH_VIEW.items[0], { ...EX_BATCH_VIEW.items[1], error: 'The job was cancelled', errorCode: 'CANCELLED', cancelled: true }], cancelledItems: 1 },
      },       404: ERR('No such batch for this credential'),
      409: ERR('BATCH_NOT_CANCELLABLE'),
    },
    handler: async (ctx) => ({ body: await service.cancel(ctx.params.batchId, ctx.caller!, ctx.links), headers: NO_STORE }),
  });
  api.cron({ task: 'fitroom_batch_check', pattern: '* * * * *', run: async () => void (await service.completeFinished()) });
  api.cron({ task: 'fitroom_purge_batches', pattern: '29 * * * *', run: async () => void (await service.purgeExpired()) });
}
