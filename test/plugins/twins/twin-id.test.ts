import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isFitroomError } from '../../../core/errors.ts';
import { canonicalJson, twinId } from '../../../plugins/twins/twin-id.ts';
import type { TwinIdentity } from '../../../plugins/twins/twin-id.ts';
import { resolvePose, resolveTwinRequest } from '../../../plugins/twins/twin-request.ts';

const DEFAULTS = { female: 'girl_pose', male: 'man_pose', unknown: 'standing_arms_down' };
const FACE = 'a'.repeat(64);

describe('twin ids', () => {
  const base: TwinIdentity = { face: FACE, body: { kind: 'measurements', gender: 'male', measurements: { height: 180, chest: 100 } }, pose: 'man_pose' };

  it('is the lowercase hex SHA-256 of the canonical description', () => {
    const expected = createHash('sha256')
      .update('{"body":{"gender":"male","kind":"measurements","measurements":{"chest":100,"height":180}},"face":"' + FACE + '","pose":"man_pose","v":1}')
      .digest('hex');
    expect(twinId(base)).toBe(expected);
  });

  it('does not depend on key order or on how a number is written', () => {
    const reordered: TwinIdentity = { pose: 'man_pose', body: { measurements: { chest: 100.0, height: 180 }, kind: 'measurements', gender: 'male' }, face: FACE };
    expect(twinId(reordered)).toBe(twinId(base));
    expect(canonicalJson({ b: [2, { d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[2,{"c":2,"d":1}]}');
  });

  it('changes with the pose, the face, the gender and every measurement', () => {
    const id = twinId(base);
    const variants: TwinIdentity[] = [
      { ...base, pose: 'walking_pose' },
      { ...base, face: 'b'.repeat(64) },
      { ...base, body: { kind: 'measurements', gender: null, measurements: { height: 180, chest: 100 } } },
      { ...base, body: { kind: 'measurements', gender: 'male', measurements: { height: 180, chest: 100.1 } } },
      { ...base, body: { kind: 'measurements', gender: 'male', measurements: { height: 180, chest: 100, waist: 90 } } },
      { ...base, body: { kind: 'clothing_size', gender: 'male', height: 180, size: 'L' } },
    ];
    const ids = new Set(variants.map(twinId));
    expect(ids.size).toBe(variants.length);
    expect(ids.has(id)).toBe(false);
  });
});

describe('resolveTwinRequest', () => {
  it('resolves the default pose from configuration and gender', () => {
    expect(resolvePose('default', 'female', DEFAULTS)).toBe('girl_pose');
    expect(resolvePose(undefined, 'male', DEFAULTS)).toBe('man_pose');
    expect(resolvePose('default', null, DEFAULTS)).toBe('standing_arms_down');
    expect(resolvePose('walking_pose', 'male', DEFAULTS)).toBe('walking_pose');
    expect(() => resolvePose('default', null, { ...DEFAULTS, unknown: 'sitting' })).toThrow(/not one of/);
  });

  it('defaults a clothing-size twin to female and leaves silhouettes without a pose', () => {
    const size = resolveTwinRequest({ faceImage: 'https://x/f.png', clothingSize: { height: 170, size: 'M' } }, DEFAULTS);
    expect(size).toMatchObject({ mode: 'clothing_size', gender: 'female', pose: 'girl_pose' });
    const measured = resolveTwinRequest({ faceImage: 'https://x/f.png', bodyMeasurements: { height: 170, chest: 90 } }, DEFAULTS);
    expect(measured).toMatchObject({ mode: 'measurements', gender: null, pose: 'standing_arms_down' });
    const direct = resolveTwinRequest({ faceImage: 'https://x/f.png', silhouetteImage: 'https://x/s.png', poseId: 'walking_pose' }, DEFAULTS);
    expect(direct).toMatchObject({ mode: 'direct', pose: null });
    const photo = resolveTwinRequest({ faceImage: 'https://x/f.png', bodyPhotoUrl: 'https://x/p.png', gender: 'male' }, DEFAULTS);
    expect(photo).toMatchObject({ mode: 'photo', gender: 'male', pose: 'man_pose' });
  });

  it('requires exactly one body source', () => {
    const details = (body: any) => {
      try {
        resolveTwinRequest(body, DEFAULTS);
      } catch (e) {
        if (isFitroomError(e)) return { code: e.code, details: e.details };
        throw e;
      }
      return null;
    };
    expect(details({ faceImage: 'https://x/f.png' })).toEqual({
      code: 'VALIDATION_ERROR',
      details: [{ field: '(body)', message: 'exactly one body source is required next to faceImage: bodyPhotoUrl, silhouetteImage, bodyMeasurements, clothingSize' }],
    });
    expect(details({ faceImage: 'https://x/f.png', bodyPhotoUrl: 'https://x/p.png', clothingSize: { height: 170, size: 'M' } })).toEqual({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'clothingSize', message: 'cannot be combined with bodyPhotoUrl; send exactly one body source' }],
    });
  });
});
