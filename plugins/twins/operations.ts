import type { FitroomConfig } from '../../core/config.ts';
import { EX } from '../../core/examples.ts';
import { notFound, validationError } from '../../core/errors.ts';
import type { JobService } from '../../core/jobs.ts';
import type { Operation } from '../../core/plugin.ts';
import type { SizeFittingRequest } from '../../core/sizing/size-chart.ts';
import { sizeFittingResponse } from '../../core/sizing/size-fitting-response.ts';
import { validateSizeFittingRequest } from '../../core/sizing/size-fitting-validation.ts';
import { TWIN_JOB_KIND } from './twin-job.ts';
import type { TwinJobInput } from './twin-job.ts';
import { resolveTwinRequest } from './twin-request.ts';
import type { DigitalTwinRequest } from './twin-request.ts';
import { submissionAnswer } from '../../core/jobs.ts';
import type { TwinService } from './twin-service.ts';
import { twinScope } from '../../core/ports/twin-store.ts';

const TAGS = ['Digital twins'];

export function twinOperations(deps: { twins: TwinService; jobs: JobService; config: FitroomConfig; estimatedSeconds: number }): Operation[] {
  const { twins, jobs, config } = deps;

  const submit: Operation<DigitalTwinRequest> = {
    id: 'createDigitalTwin',
    method: 'POST',
    path: '/api/v1/digital-twin',
    summary: 'Create a digital twin',
    description:
      'A face image plus exactly one body source. The twin id is the SHA-256 of the face bytes, the body source, the resolved pose and the account it belongs to; an identical submission of the same account within 30 days answers `completed` with the `digitalTwinId` at once: its job is recorded as completed and no work runs. Twins are scoped to the account that made them (any key or token of the account; the key itself when it has no account): every operation taking a `digitalTwinId` answers 404, as for a twin that does not exist, to anyone else.',
    tags: TAGS,
    auth: ['apiKey'],
    rateLimit: 'submission',
    billable: true,
    // faceImage and the body images are only fetched (by their bytes): large data URLs arrive as bytes
    dataUrlsAsBytes: true,
    body: 'DigitalTwinRequest',
    example: { faceImage: EX.png, gender: 'female', bodyMeasurements: { height: 168, chest: 92, waist: 74 } },
    responses: {
      202: { description: 'Queued: poll statusUrl', schema: 'DigitalTwinResponse', example: { success: true, jobId: EX.jobId, status: 'queued', estimatedProcessingTime: 5, statusUrl: EX.statusUrl, mode: 'measurements' } },
      200: { description: 'A cached twin: completed, with digitalTwinId', schema: 'DigitalTwinResponse', example: { ...{ success: true, jobId: EX.jobId, status: 'queued', estimatedProcessingTime: 5, statusUrl: EX.statusUrl, mode: 'measurements' }, status: 'completed', estimatedProcessingTime: 0, digitalTwinId: EX.twinId } },
      400: { description: 'Invalid request', schema: 'ErrorEnvelope' },
      422: { description: 'An image could not be fetched', schema: 'ErrorEnvelope' },
    },
    async handler(ctx) {
      const req = resolveTwinRequest(ctx.body, config.defaultPose);
      const caller = ctx.caller!;
      const identified = await twins.identify(req, twinScope(caller));
      if (await twins.find(identified.id, twinScope(caller))) {
        // A cache hit still gets a job record (completed at once, no work queued) so its id, status
        // URL and webhook behave like any other submission.
        const hit = await jobs.recordCompleted({ kind: TWIN_JOB_KIND, input: { twinId: identified.id, mode: req.mode, cached: true }, caller, webhookUrl: ctx.body.webhookUrl, links: ctx.links, charged: caller.countsKeyUsage, outcome: { result: { digitalTwinId: identified.id } } });
        return submissionAnswer(hit.id, ctx.links, { status: 'completed', estimatedProcessingTime: 0, extra: { mode: req.mode, digitalTwinId: identified.id } });
      }
      const input: TwinJobInput = {
        twinId: identified.id,
        mode: req.mode,
        gender: req.gender,
        pose: req.pose,
        faceFileId: await twins.stashInput(identified.face, caller.ownerHash),
        bodyFileId: identified.body ? await twins.stashInput(identified.body, caller.ownerHash) : null,
        ...(req.source.mode === 'measurements' ? { measurements: req.source.measurements } : {}),
        ...(req.source.mode === 'clothing_size' ? { clothingSize: req.source.clothingSize } : {}),
      };
      const job = await jobs.submit({ kind: TWIN_JOB_KIND, input, caller, webhookUrl: ctx.body.webhookUrl, links: ctx.links, charged: caller.countsKeyUsage });
      return submissionAnswer(job.id, ctx.links, { estimatedProcessingTime: deps.estimatedSeconds, extra: { mode: req.mode } });
    },
  };

  const validity: Operation = {
    id: 'getDigitalTwin',
    method: 'GET',
    path: '/api/v1/digital-twin/{id}',
    summary: 'Check that a digital twin is still valid',
    description: 'Valid for the account that made the twin; 404 for anyone else, as for a twin that does not exist.',
    tags: TAGS,
    auth: ['apiKey'],
    rateLimit: 'status',
    params: { id: { type: 'string', description: 'Twin id (64 lowercase hex characters).' } },
    responses: {
      200: { description: 'The twin exists and has not expired', schema: 'DigitalTwinValidity', example: { valid: true } },
      404: { description: 'Unknown or expired twin', schema: 'ErrorEnvelope' },
    },
    async handler(ctx) {
      if (!(await twins.find(ctx.params.id, twinScope(ctx.caller!)))) throw notFound('Digital twin not found or expired');
      return { body: { valid: true }, headers: { 'Cache-Control': 'no-store' } };
    },
  };

  const sizeFitting: Operation<SizeFittingRequest> = {
    id: 'sizeFitting',
    method: 'POST',
    path: '/api/v1/size-fitting',
    summary: 'Estimate clothing sizes for a twin',
    description:
      'Synchronous and non-billable. Evaluates each product\'s body-basis size chart (cm or inches) against the body profile behind a measurement or clothing-size twin. A fully known body gets the size whose ranges it misses by the fewest centimetres in total (an optional per-product `fitPreference` leans conflicts to the larger or smaller size); imputed values are integrated over their uncertainty, and `confidence` is the probability that the full body would get the recommended size. Each answer says which dimension decided (`decidedBy`) and why, in plain words (`reason`). Scores are estimates and can reveal the underlying measurements, so only the account that made the twin may fit it: another account\'s twin id answers 404, as for a twin that does not exist. Photo and direct twins answer `available: false`.',
    tags: TAGS,
    auth: ['apiKey'],
    rateLimit: 'status',
    body: 'SizeFittingRequest',
    example: {
      digitalTwinId: EX.twinId,
      products: [{ id: 'tee', category: 'top', sizeChart: { version: 1, basis: 'body', unit: 'cm', sizes: [{ label: 'S', measurements: { chest: { min: 82, max: 90 } } }, { label: 'M', measurements: { chest: { min: 90, max: 98 } } }] } }],
    },
    responses: {
      200: {
        description: 'Recommendations, or available: false',
        schema: 'SizeFittingResponse',
        example: {
          success: true,
          available: true,
          digitalTwinId: EX.twinId,
          products: [{ id: 'tee', recommendedSize: 'M', confidence: 1, alternatives: [{ label: 'S', score: 0 }], dimensions: [{ dimension: 'chest', status: 'fit', distanceCm: 0, supplied: true, fitProbability: 0.911 }], decidedBy: 'chest', reason: 'M: chest fits.', fitPreference: 'regular' }],
        },
      },
      400: { description: 'Invalid request', schema: 'ErrorEnvelope' },
      404: { description: 'Unknown or expired twin', schema: 'ErrorEnvelope' },
    },
    async handler(ctx) {
      const details = validateSizeFittingRequest(ctx.body);
      if (details.length) throw validationError(details);
      const twin = await twins.find(ctx.body.digitalTwinId, twinScope(ctx.caller!));
      if (!twin) throw notFound('Digital twin not found or expired');
      return { body: sizeFittingResponse(twin.id, twin.profile, ctx.body.products), headers: { 'Cache-Control': 'no-store' } };
    },
  };

  return [submit, validity, sizeFitting];
}
