import { validationError } from '../../core/errors.ts';
import type { JobService } from '../../core/jobs.ts';
import type { Operation, OperationContext } from '../../core/plugin.ts';
import type { ProviderId, Quality } from '../../core/ports/image-model.ts';
import { generatePrompt, poseTransferPrompt } from '../../core/tryon/prompts.ts';
import type { GenerateJobInput, PoseTransferJobInput } from './generate-jobs.ts';
import { resolveClothingRequest, resolveShoeRequest, resolveVirtualFitting, type ClothingRequestBody, type ShoeRequestBody, type VirtualFittingBody } from './tryon-request.ts';
import { submissionAnswer } from '../../core/jobs.ts';
import type { TryOnService } from './tryon-service.ts';
import { EX } from '../../core/examples.ts';

const QUEUED = { success: true, jobId: EX.jobId, status: 'queued', estimatedProcessingTime: 12, statusUrl: EX.statusUrl };
const CACHED = { success: true, jobId: EX.jobId, status: 'completed', estimatedProcessingTime: 0, statusUrl: EX.statusUrl, results: [{ url: EX.fileUrl, expiresAt: EX.later, digitalTwinId: EX.twinId }], digitalTwinId: EX.twinId };

const TAGS = ['Virtual try-on'];
const ERRORS = {
  400: { description: 'Invalid request', schema: 'ErrorEnvelope' },
  404: { description: 'Unknown or expired digital twin', schema: 'ErrorEnvelope' },
  422: { description: 'An image could not be fetched or decoded, or a pinned model takes fewer references than the call sends (INPUT_REFERENCE_LIMIT)', schema: 'ErrorEnvelope' },
  429: { description: 'Rate limit or monthly AI quota exceeded', schema: 'ErrorEnvelope' },
  500: { description: 'A cache-hit webhook could not be enqueued; no usage was counted and retrying is safe', schema: 'ErrorEnvelope' },
  503: { description: 'No configured model can run the task', schema: 'ErrorEnvelope' },
};

interface GenerateBody {
  prompt: string;
  inputImages?: string[];
  options?: { model?: string; quality?: Quality };
  webhookUrl?: string;
}

interface PoseTransferBody {
  personImage: string;
  poseImage?: string;
  poseId?: string;
  options?: { quality?: Quality; provider?: ProviderId; model?: string };
  webhookUrl?: string;
}

export function tryOnOperations(deps: { service: TryOnService; jobs: JobService; generateSeconds: number }): Operation[] {
  const { service, jobs } = deps;
  const queued = (ctx: OperationContext, jobId: string) => submissionAnswer(jobId, ctx.links, { estimatedProcessingTime: deps.generateSeconds });
  const submission = {
    auth: ['apiKey'] as Operation['auth'],
    rateLimit: 'submission' as const,
    billable: true,
    tags: TAGS,
    // image fields are only fetched (stashed as files for the job): large data URLs arrive as bytes
    dataUrlsAsBytes: true,
  };

  const virtualFitting: Operation<VirtualFittingBody> = {
    ...submission,
    auth: ['apiKey', 'storefront'],
    browserProtected: true,
    id: 'createVirtualFitting',
    method: 'POST',
    path: '/api/v1/virtual-fitting',
    summary: 'Dress a digital twin or a person in garments',
    description:
      'Accepts an API key or a storefront token (`wfs1.`). Browser-protected: a request with a storefront token, or from a browser, needs `X-Challenge-Token` or the pass cookie. Identity by digitalTwinId, by faceImage plus one inline body source (a twin is created or reused), or by personImages. When a reusable result exists the answer is `completed` with `results` (use them, do not poll); otherwise `queued`. Stages: validate inputs, resolve identity, build garment grid, generate, store.',
    body: 'VirtualFittingRequest',
    example: { digitalTwinId: EX.twinId, topGarment: EX.photoUrl, bottomGarment: EX.png },
    responses: { 202: { description: 'Queued: poll statusUrl', schema: 'TryOnResponse', example: QUEUED }, 200: { description: 'A cached result: completed, with results', schema: 'TryOnResponse', example: CACHED }, ...ERRORS },
    handler: async (ctx) => service.submit(resolveVirtualFitting(ctx.body), ctx.caller!, ctx.links),
  };

  const clothing: Operation<ClothingRequestBody> = {
    ...submission,
    browserProtected: true,
    id: 'createClothingTryOn',
    method: 'POST',
    path: '/api/v1/tryon/clothing',
    summary: 'Clothing try-on',
    body: 'ClothingTryOnRequest',
    example: { personImages: [EX.png], topGarment: EX.photoUrl },
    responses: { 202: { description: 'Queued: poll statusUrl', schema: 'TryOnResponse', example: QUEUED }, 200: { description: 'A cached result: completed, with results', schema: 'TryOnResponse', example: CACHED }, ...ERRORS },
    handler: async (ctx) => service.submit(resolveClothingRequest(ctx.body), ctx.caller!, ctx.links),
  };

  const shoes: Operation<ShoeRequestBody> = {
    ...submission,
    id: 'createShoeTryOn',
    method: 'POST',
    path: '/api/v1/tryon/shoes',
    summary: 'Shoe try-on on a person photo or a digital twin',
    body: 'ShoeTryOnRequest',
    example: { digitalTwinId: EX.twinId, shoeImages: [{ url: EX.png, angle: 'side' }] },
    responses: { 202: { description: 'Queued: poll statusUrl', schema: 'TryOnResponse', example: QUEUED }, 200: { description: 'A cached result: completed, with results', schema: 'TryOnResponse', example: CACHED }, ...ERRORS },
    handler: async (ctx) => service.submit(resolveShoeRequest(ctx.body), ctx.caller!, ctx.links),
  };

  const generate: Operation<GenerateBody> = {
    ...submission,
    id: 'createGeneration',
    method: 'POST',
    path: '/api/v1/generate',
    summary: 'Generate an image from a text prompt (optionally with up to 4 reference images)',
    body: 'GenerateRequest',
    example: { prompt: 'The red tee on a wooden hanger against a white wall', inputImages: [EX.photoUrl] },
    responses: { 202: { description: 'Queued: poll statusUrl', schema: 'GenerateResponse', example: QUEUED }, ...ERRORS },
    async handler(ctx) {
      const b = ctx.body;
      const images = b.inputImages ?? [];
      const quality = b.options?.quality ?? 'standard';
      service.checkModels('generate', quality, images.length, b.options?.model);
      await service.checkQuota(ctx.caller!);
      const stashed = await service.fetchAndStash(images.map((url, i) => ({ url, field: `inputImages[${i}]` })), ctx.caller!);
      const input: GenerateJobInput = { prompt: generatePrompt(b.prompt, images.length), images: stashed, quality, model: b.options?.model, aiQuota: ctx.caller!.countsAiQuota };
      const job = await jobs.submit({ kind: 'generate', input, caller: ctx.caller!, webhookUrl: b.webhookUrl, links: ctx.links, charged: ctx.caller!.countsKeyUsage });
      return queued(ctx, job.id);
    },
  };

  const poseTransfer: Operation<PoseTransferBody> = {
    ...submission,
    id: 'createPoseTransfer',
    method: 'POST',
    path: '/api/v1/pose-transfer',
    summary: 'Transfer a pose onto a person',
    description: '`personImage` keeps its identity and clothes; the pose comes from exactly one of `poseImage` (a photo of someone in the wanted pose) or `poseId` (a standard pose). Answers like a generation (queued, then poll).',
    body: 'PoseTransferRequest',
    example: { personImage: EX.png, poseId: 'standing_arms_down' },
    responses: { 202: { description: 'Queued: poll statusUrl', schema: 'GenerateResponse', example: QUEUED }, ...ERRORS },
    async handler(ctx) {
      const b = ctx.body;
      if ((b.poseImage === undefined) === (b.poseId === undefined)) {
        throw validationError([{ field: b.poseImage === undefined ? '(body)' : 'poseId', message: b.poseImage === undefined ? 'exactly one of poseImage or poseId is required' : 'cannot be combined with poseImage; send one pose source' }]);
      }
      const quality = b.options?.quality ?? 'standard';
      const refs = b.poseImage ? 2 : 1;
      service.checkModels('pose-transfer', quality, refs, b.options?.model, b.options?.provider);
      await service.checkQuota(ctx.caller!);
      const [person, pose] = await service.fetchAndStash(
        [{ url: b.personImage, field: 'personImage' }, ...(b.poseImage ? [{ url: b.poseImage, field: 'poseImage' }] : [])],
        ctx.caller!,
      );
      const input: PoseTransferJobInput = {
        prompt: poseTransferPrompt({ poseImage: !!b.poseImage, poseId: b.poseId }),
        person,
        pose: pose ?? null,
        poseId: b.poseId ?? null,
        quality,
        provider: b.options?.provider,
        model: b.options?.model,
        aiQuota: ctx.caller!.countsAiQuota,
      };
      const job = await jobs.submit({ kind: 'pose-transfer', input, caller: ctx.caller!, webhookUrl: b.webhookUrl, links: ctx.links, charged: ctx.caller!.countsKeyUsage });
      return queued(ctx, job.id);
    },
  };

  return [virtualFitting, clothing, shoes, generate, poseTransfer];
}
