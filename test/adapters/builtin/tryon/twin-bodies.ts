/** Parametric twin bodies from the builtin twin renderer, for try-on tests and samples. */
import type { BodyProfile, BodyRender, Gender, PoseId } from '../../../../core/twins/body.ts';
import { BuiltinTwinRenderer } from '../../../../adapters/builtin/body/twin-renderer.ts';
import { SharpImageCodec } from '../../../../adapters/sharp/image-codec.ts';
import { syntheticFace } from '../../../support/images.ts';

const MEASUREMENTS: Record<Gender, BodyProfile['measurements']> = {
  male: { height: 180, chest: 104, waist: 90, hip: 101, inseam: 84 },
  female: { height: 165, chest: 92, waist: 74, hip: 100, inseam: 77 },
};

/**
 * A twin as the service loads it: with its PERSON_PART labels, so try-on fits garments to its
 * torso and arms; `{ parts: false }` gives a twin stored before the labels were kept.
 */
export async function twinBody(gender: Gender, pose: PoseId, options: { parts?: boolean } = {}): Promise<BodyRender> {
  const profile: BodyProfile = {
    gender,
    measurements: MEASUREMENTS[gender],
    supplied: { height: true, chest: true, waist: true, hip: true, inseam: true },
    source: 'measurements',
  };
  const face = syntheticFace(256, 320).image;
  const r = await new BuiltinTwinRenderer(new SharpImageCodec()).render({ kind: 'profile', profile, pose, face }, { signal: new AbortController().signal });
  // as the service loads a stored twin (plugins/twins/twin-service.ts)
  return { image: r.image, mask: r.mask, depth: r.depth, landmarks: r.landmarks, pixelsPerCm: r.pixelsPerCm, pose: r.pose, ...(options.parts !== false && r.parts ? { parts: r.parts } : {}) };
}
