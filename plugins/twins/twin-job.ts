import type { JobKind } from '../../core/jobs.ts';
import type { RasterImage } from '../../core/images.ts';
import type { ImageCodec } from '../../core/ports/image-codec.ts';
import type { TwinInput, TwinRenderer } from '../../core/ports/twin-renderer.ts';
import type { TwinMode } from '../../core/ports/twin-store.ts';
import { twinScope } from '../../core/ports/twin-store.ts';
import { profileFromClothingSize, profileFromMeasurements } from '../../core/sizing/body-profile.ts';
import type { ClothingSizeLabel } from '../../core/sizing/en13402.ts';
import type { EstimatedBodyProfile } from '../../core/sizing/estimated-profile.ts';
import type { Dimension, Gender, PoseId } from '../../core/twins/body.ts';
import type { TwinService } from './twin-service.ts';

export const TWIN_JOB_KIND = 'digital-twin';

/** What a twin job keeps in the job record: the id and resolved inputs, images as internal files. */
export interface TwinJobInput {
  twinId: string;
  mode: TwinMode;
  gender: Gender | null;
  pose: PoseId | null;
  faceFileId: string;
  bodyFileId: string | null;
  measurements?: Partial<Record<Dimension, number>>;
  clothingSize?: { height: number; size: ClothingSizeLabel };
}

/** Request images are decoded no larger than this on either side (renders are 768x1024). */
const DECODE_LIMITS = { maxPixels: 60_000_000, maxSide: 2048 };
const RENDER_TIMEOUT_MS = 120_000;

/** The body profile behind a measurement or clothing-size twin (photo and direct twins have none). */
export function resolveProfile(input: Pick<TwinJobInput, 'mode' | 'gender' | 'measurements' | 'clothingSize'>): EstimatedBodyProfile | null {
  if (input.mode === 'measurements') return profileFromMeasurements(input.measurements!, input.gender);
  if (input.mode === 'clothing_size') return profileFromClothingSize(input.clothingSize!.height, input.clothingSize!.size, input.gender ?? 'female');
  return null;
}

/** The stashed request images of a twin job, decoded. */
export async function loadTwinImages(twins: TwinService, codec: ImageCodec, input: TwinJobInput): Promise<{ face: RasterImage; body: RasterImage | null }> {
  const face = await codec.decode(await twins.readInput(input.faceFileId), DECODE_LIMITS);
  const body = input.bodyFileId ? await codec.decode(await twins.readInput(input.bodyFileId), DECODE_LIMITS) : null;
  return { face, body };
}

/** What the renderer gets for a twin's mode. */
export function twinInputFor(input: TwinJobInput, images: { face: RasterImage; body: RasterImage | null }, profile: EstimatedBodyProfile | null): TwinInput {
  if (input.mode === 'direct') return { kind: 'silhouette', silhouette: images.body!, face: images.face };
  if (input.mode === 'photo') return { kind: 'photo', photo: images.body!, face: images.face, pose: input.pose! };
  return { kind: 'profile', profile: profile!, pose: input.pose!, face: images.face };
}

export function twinJobKind(deps: { twins: TwinService; renderer: () => TwinRenderer; codec: ImageCodec }): JobKind<TwinJobInput> {
  const { twins, codec } = deps;
  return {
    name: TWIN_JOB_KIND,
    progress: 'stage',
    stages: [
      { name: 'validate inputs', status: 'validating' },
      { name: 'resolve body', status: 'processing' },
      { name: 'render', status: 'processing' },
      { name: 'store', status: 'uploading' },
    ],
    maxAttempts: 2,
    estimatedSeconds: 5,
    async run(job) {
      const input = job.input;
      const result = { result: { digitalTwinId: input.twinId } };
      const images = await job.stage('validate inputs', async () => {
        // An identical submission may have finished while this one waited in the queue.
        if (await twins.find(input.twinId, twinScope(job.record))) return null;
        const { face, body } = await loadTwinImages(twins, codec, input);
        job.note({ face: `${face.width}x${face.height}`, ...(body ? { body: `${body.width}x${body.height}` } : {}) });
        return { face, body };
      });
      if (!images) {
        job.note({ reused: true });
        return result;
      }
      const profile = await job.stage('resolve body', async () => {
        const p = resolveProfile(input);
        if (p) job.note({ imputed: Object.entries(p.supplied).filter(([, s]) => !s).map(([d]) => d), gender: p.gender });
        return p;
      });
      const render = await job.stage(
        'render',
        async (signal) => {
          const r = await deps.renderer().render(twinInputFor(input, images, profile), { signal });
          job.note({ size: `${r.image.width}x${r.image.height}`, pose: r.pose, notes: r.notes });
          return r;
        },
        { timeoutMs: RENDER_TIMEOUT_MS },
      );
      await job.stage('store', async () => {
        await twins.save({ id: input.twinId, mode: input.mode, pose: input.pose, gender: input.gender, profile, ownerHash: job.record.ownerHash, scope: twinScope(job.record) }, render);
        for (const id of [input.faceFileId, input.bodyFileId]) if (id) await twins.deleteFile(id).catch(() => undefined);
      });
      return result;
    },
  };
}
