/** Parametric twin bodies from the builtin twin renderer, for try-on tests and samples. */
import type { BodyProfile, BodyRender, Gender, PoseId } from '../../../../core/twins/body.ts';
import { BuiltinTwinRenderer } from '../../../../adapters/builtin/body/twin-renderer.ts';
import { SharpImageCodec } from '../../../../adapters/sharp/image-codec.ts';
import { syntheticFace } from '../../../support/images.ts';

const MEASUREMENTS: Record<Gender, BodyProfile['measurements']> = {
  male: { height: 180, chest: 104, waist: 90, hip: 101, inseam: 84 },
  female: { height: 165, chest: 92, waist: 74, hip: 100, inseam: 77 },
};

export async function twinBody(gender: Gender, pose: PoseId): Promise<BodyRender> {
  const profile: BodyProfile = {
    gender,
    measurements: MEASUREMENTS[gender],
    supplied: { height: true, chest: true, waist: true, hip: true, inseam: true },
    source: 'measurements',
  };
  const face = syntheticFace(256, 320).image;
  return new BuiltinTwinRenderer(new SharpImageCodec()).render({ kind: 'profile', profile, pose, face }, { signal: new AbortController().signal });
}
