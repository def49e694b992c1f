import type { FitroomConfig } from '../../core/config.ts';
import { validationError } from '../../core/errors.ts';
import type { ErrorDetail } from '../../core/errors.ts';
import type { TwinMode } from '../../core/ports/twin-store.ts';
import type { ClothingSizeLabel } from '../../core/sizing/en13402.ts';
import { POSE_IDS } from '../../core/twins/body.ts';
import type { Dimension, Gender, PoseId } from '../../core/twins/body.ts';

/** The spec's DigitalTwinRequest after schema validation. */
export interface DigitalTwinRequest {
  faceImage: string;
  bodyPhotoUrl?: string;
  silhouetteImage?: string;
  bodyMeasurements?: Partial<Record<Dimension, number>>;
  clothingSize?: { height: number; size: ClothingSizeLabel };
  gender?: Gender;
  poseId?: PoseId | 'default';
  webhookUrl?: string;
}

export type TwinSource =
  | { mode: 'photo'; bodyImage: string }
  | { mode: 'direct'; bodyImage: string }
  | { mode: 'measurements'; measurements: Partial<Record<Dimension, number>> }
  | { mode: 'clothing_size'; clothingSize: { height: number; size: ClothingSizeLabel } };

export interface ResolvedTwinRequest {
  faceImage: string;
  source: TwinSource;
  mode: TwinMode;
  /** The spec defaults a clothing-size twin's gender to female; elsewhere an omitted gender stays null. */
  gender: Gender | null;
  pose: PoseId | null;
}

const SOURCES = ['bodyPhotoUrl', 'silhouetteImage', 'bodyMeasurements', 'clothingSize'] as const;

/** Resolves `default` from the deployment's configured poses and the gender. */
export function resolvePose(requested: PoseId | 'default' | undefined, gender: Gender | null, defaults: FitroomConfig['defaultPose']): PoseId {
  if (requested && requested !== 'default') return requested;
  const configured = gender ? defaults[gender] : defaults.unknown;
  if (!(POSE_IDS as readonly string[]).includes(configured)) throw new Error(`Configured default pose "${configured}" is not one of ${POSE_IDS.join(', ')}`);
  return configured as PoseId;
}

/**
 * Applies the rules the schema cannot state: exactly one body source next to the face image;
 * a silhouette ignores the pose; a clothing size without gender is female.
 */
export function resolveTwinRequest(body: DigitalTwinRequest, defaults: FitroomConfig['defaultPose']): ResolvedTwinRequest {
  const given = SOURCES.filter((s) => body[s] !== undefined);
  if (given.length !== 1) {
    const details: ErrorDetail[] =
      given.length === 0
        ? [{ field: '(body)', message: `exactly one body source is required next to faceImage: ${SOURCES.join(', ')}` }]
        : given.slice(1).map((s) => ({ field: s, message: `cannot be combined with ${given[0]}; send exactly one body source` }));
    throw validationError(details);
  }
  let source: TwinSource;
  let gender: Gender | null = body.gender ?? null;
  if (body.bodyPhotoUrl !== undefined) source = { mode: 'photo', bodyImage: body.bodyPhotoUrl };
  else if (body.silhouetteImage !== undefined) source = { mode: 'direct', bodyImage: body.silhouetteImage };
  else if (body.bodyMeasurements !== undefined) source = { mode: 'measurements', measurements: body.bodyMeasurements };
  else {
    source = { mode: 'clothing_size', clothingSize: body.clothingSize! };
    gender ??= 'female';
  }
  const pose = source.mode === 'direct' ? null : resolvePose(body.poseId, gender, defaults);
  return { faceImage: body.faceImage, source, mode: source.mode, gender, pose };
}
