/**
 * Text-prompt generation and pose transfer: vendor-model jobs with the stages validate inputs
 * (decode the stashed images under limits), generate (the model chain) and store.
 */
import type { FitroomConfig } from '../../core/config.ts';
import { FitroomError } from '../../core/errors.ts';
import type { FileService } from '../../core/files.ts';
import type { JobKind, RunningJob } from '../../core/jobs.ts';
import type { ImageCodec } from '../../core/ports/image-codec.ts';
import type { ImageModelProvider, ModelCall, ModelReference, ProviderId, Quality } from '../../core/ports/image-model.ts';
import { runModelChain } from '../../core/tryon/model-chain.ts';
import type { StashedImage } from './tryon-service.ts';
import { restLinks } from '../../core/links.ts';
import { IMAGE_LIMITS } from './tryon-job.ts';

export interface GenerateJobInput {
  prompt: string;
  images: StashedImage[];
  quality: Quality;
  model?: string;
  aiQuota: boolean;
}

export interface PoseTransferJobInput {
  prompt: string;
  person: StashedImage;
  pose: StashedImage | null;
  poseId: string | null;
  quality: Quality;
  provider?: ProviderId;
  model?: string;
  aiQuota: boolean;
}

export interface GenerateJobDeps {
  files: FileService;
  codec: ImageCodec;
  config: FitroomConfig;
  providers: () => readonly ImageModelProvider[];
}

const STAGES = [
  { name: 'validate inputs', status: 'validating' },
  { name: 'generate', status: 'processing' },
  { name: 'store', status: 'uploading' },
] as const;

async function references(deps: GenerateJobDeps, images: StashedImage[], roles: string[]): Promise<ModelReference[]> {
  return Promise.all(
    images.map(async (img, i) => {
      const rec = await deps.files.get(img.fileId);
      const bytes = rec ? await deps.files.read(rec) : null;
      if (!bytes) throw new FitroomError('IMAGE_INVALID', `The image of ${img.field} is no longer available; please resubmit`);
      // decoding proves the bytes are an image within limits before a vendor is paid to read them
      await deps.codec.decode(bytes, IMAGE_LIMITS).catch((e) => {
        throw new FitroomError('IMAGE_INVALID', `Could not decode ${img.field}: ${(e as Error).message}`);
      });
      return { role: roles[i] ?? 'input', image: { bytes, contentType: img.contentType } };
    }),
  );
}

async function generateAndStore<I>(job: RunningJob<I>, deps: GenerateJobDeps, call: Omit<ModelCall, 'model' | 'signal'>, pin: { model?: string; provider?: ProviderId }) {
  const generated = await job.stage('generate', async (signal) => {
    const r = await runModelChain({ call: { ...call, signal }, providers: deps.providers(), chain: deps.config.ai.modelChain ?? undefined, pinnedModel: pin.model, provider: pin.provider });
    job.note({ model: r.model, provider: r.provider, attempts: r.attempts });
    return r;
  });
  return job.stage('store', async () => {
    const image = generated.images[0];
    const file = await deps.files.store(image.bytes, { ownerHash: job.record.ownerHash, contentType: image.contentType, ttlSeconds: deps.config.resultTtlSeconds });
    const results = [deps.files.signedUrl(file, restLinks(deps.config, job.record.baseUrl))];
    return { result: { imageUrl: results[0].url }, results };
  });
}

export function generateJobKind(deps: GenerateJobDeps): JobKind<GenerateJobInput> {
  return {
    name: 'generate',
    progress: 'stage',
    stages: STAGES,
    maxAttempts: 2,
    estimatedSeconds: 15,
    async run(job) {
      const refs = await job.stage('validate inputs', () => references(deps, job.input.images, []));
      return generateAndStore(job, deps, { task: 'generate', prompt: job.input.prompt, references: refs, quality: job.input.quality }, { model: job.input.model });
    },
  };
}

export function poseTransferJobKind(deps: GenerateJobDeps): JobKind<PoseTransferJobInput> {
  return {
    name: 'pose-transfer',
    progress: 'stage',
    stages: STAGES,
    maxAttempts: 2,
    estimatedSeconds: 15,
    async run(job) {
      const { person, pose } = job.input;
      const refs = await job.stage('validate inputs', () => references(deps, pose ? [person, pose] : [person], ['person', 'pose']));
      return generateAndStore(job, deps, { task: 'pose-transfer', prompt: job.input.prompt, references: refs, quality: job.input.quality }, { model: job.input.model, provider: job.input.provider });
    },
  };
}
