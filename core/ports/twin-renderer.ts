import type { RasterImage } from '../images.ts';
import { token } from '../plugin.ts';
import type { BodyProfile, BodyRender, PoseId } from '../twins/body.ts';

/** Output size of a render; the standard quality is 768x1024 (3:4 portrait). */
export interface RenderSize {
  width: number;
  height: number;
}

/** Measurements and clothing-size modes: a parametric body built from a resolved profile. */
export interface ProfileTwinInput {
  kind: 'profile';
  profile: BodyProfile;
  pose: PoseId;
  face: RasterImage;
}

/** Photo mode: a full-body standing photo, head to feet visible, re-posed to `pose`. */
export interface PhotoTwinInput {
  kind: 'photo';
  photo: RasterImage;
  face: RasterImage;
  pose: PoseId;
}

/** Direct mode: a pre-rendered depth/silhouette image used as the body mask as is (no pose). */
export interface SilhouetteTwinInput {
  kind: 'silhouette';
  silhouette: RasterImage;
  face: RasterImage;
}

export type TwinInput = ProfileTwinInput | PhotoTwinInput | SilhouetteTwinInput;

export interface TwinRenderOptions {
  signal: AbortSignal;
  /** Defaults to 768x1024. */
  size?: RenderSize;
}

/**
 * A twin render: the body render plus facts worth recording in the job's trace
 * (fallbacks taken, assumptions made, e.g. "no face found, centre crop used"). A renderer that
 * knows the body's parts gives them as `parts` (PERSON_PART labels): try-on then fits garments to
 * the twin's torso and arms as on a parsed person photo.
 */
export interface TwinRender extends BodyRender {
  notes: string[];
}

/**
 * TwinRenderer: turns a face image and one body source into a rendered digital twin.
 * Deterministic: the same input gives identical pixels. Rejects with the signal's reason when
 * aborted. Throws FitroomError('IMAGE_INVALID')-like errors from the adapter when a photo or
 * silhouette holds no usable person.
 */
export interface TwinRenderer {
  render(input: TwinInput, options: TwinRenderOptions): Promise<TwinRender>;
}

/** The TwinRenderer binding (the builtin classical renderer unless configured otherwise). */
export const TWIN_RENDERER = token<TwinRenderer>('TwinRenderer');
