/**
 * InlineTwins: what virtual fitting needs from the twins capability to dress a twin described
 * inline (a face image plus one body source) instead of by `digitalTwinId`. The twins plugin owns
 * twin ids, their cache and their rendering; it publishes this under INLINE_TWINS. Where nothing
 * is bound, virtual fitting answers that inline bodies are unavailable and asks for a twin id.
 */
import { token } from '../plugin.ts';
import type { TwinOwner } from '../ports/twin-store.ts';
import type { BodyRender } from '../twins/body.ts';
import type { Dimension, Gender, PoseId } from '../twins/body.ts';

/** The inline identity fields of a virtual-fitting request (the spec's names). */
export interface InlineTwinRequest {
  faceImage: string;
  photoUrl?: string;
  silhouetteImage?: string;
  bodyMeasurements?: Partial<Record<Dimension, number>>;
  clothingSize?: { height: number; size: string };
  gender?: Gender;
  poseId?: PoseId | 'default';
}

export interface IdentifiedInlineTwin {
  digitalTwinId: string;
  /** The twin exists and has not expired: no rendering is needed. */
  cached: boolean;
  /** Opaque, JSON-serialisable handle for `ensure` inside the job. */
  handle: unknown;
}

export interface InlineTwins {
  /** Validates (VALIDATION_ERROR with details), fetches the images and derives the twin id. */
  identify(req: InlineTwinRequest, owner: TwinOwner, signal?: AbortSignal): Promise<IdentifiedInlineTwin>;
  /** Inside a job: the twin's render, generating and caching the twin first when it does not exist. */
  ensure(handle: unknown, owner: TwinOwner, signal: AbortSignal): Promise<BodyRender>;
}

export const INLINE_TWINS = token<InlineTwins>('InlineTwins');
