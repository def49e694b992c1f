import { describe, expect, it } from 'vitest';
import type { BodyLandmarks, BodyProfile, Point } from '../../../../core/twins/body.ts';
import { FitroomError } from '../../../../core/errors.ts';
import { segmentPerson } from '../../../../adapters/builtin/body/segment-person.ts';
import { analyzeSilhouette } from '../../../../adapters/builtin/body/silhouette-landmarks.ts';
import { profileFromSilhouette } from '../../../../adapters/builtin/body/fit-profile.ts';
import { buildBodyModel } from '../../../../adapters/builtin/body/body-model.ts';
import { POSES } from '../../../../adapters/builtin/body/poses.ts';
import { rasterizeBody } from '../../../../adapters/builtin/body/rasterize-body.ts';
import { labelComponents } from '../../../../adapters/builtin/body/mask-ops.ts';
import { BuiltinTwinRenderer, analyzePerson } from '../../../../adapters/builtin/body/twin-renderer.ts';
import { SharpImageCodec } from '../../../../adapters/sharp/image-codec.ts';
import { background, maskIoU, syntheticFace, syntheticPerson } from '../../../support/images.ts';

const signal = new AbortController().signal;
const SIZE = { width: 384, height: 512 };

function onMask(mask: Uint8Array, w: number, p: Point): boolean {
  return mask[Math.round(p.y) * w + Math.round(p.x)] === 255;
}

describe('photo segmentation', () => {
  for (const kind of ['plain', 'noisy', 'gradient'] as const) {
    it(`recovers a synthetic person on a ${kind} background (IoU > 0.9)`, () => {
      const person = syntheticPerson({ background: kind, seed: 21 });
      const seg = segmentPerson(person.image);
      const iou = maskIoU(seg.mask, person.mask);
      expect(iou).toBeGreaterThan(0.9);
      const { sizes } = labelComponents(seg.mask, person.image.width, person.image.height);
      expect(sizes.length - 1).toBe(1);
    });
  }

  it('keeps a light shirt that is close to, but not the same as, the backdrop', () => {
    const person = syntheticPerson({ background: 'noisy', shirt: [190, 196, 205], seed: 4 });
    expect(maskIoU(segmentPerson(person.image).mask, person.mask)).toBeGreaterThan(0.9);
  });
});

describe('silhouette landmarks', () => {
  it('finds head top, crotch and soles of a drawn person and keeps every landmark on the mask', () => {
    const person = syntheticPerson({ seed: 2 });
    const { width: w } = person.image;
    const a = analyzeSilhouette(person.mask, w, person.image.height);
    const H = person.points.soleY - person.points.headTop;
    expect(Math.abs(a.landmarks.headTop.y - person.points.headTop)).toBeLessThanOrEqual(2);
    expect(Math.abs(a.crotchY - person.points.crotchY)).toBeLessThan(0.03 * H);
    expect(a.armsFree).toBe(true);
    expect(a.widths.hip).toBeGreaterThan(a.widths.waist);
    for (const [key, value] of Object.entries(a.landmarks) as [keyof BodyLandmarks, Point | number][]) {
      if (typeof value !== 'number') expect(onMask(person.mask, w, value), key).toBe(true);
    }
    expect(a.landmarks.leftWrist.x).toBeGreaterThan(a.landmarks.hipLeft.x);
    expect(a.landmarks.rightWrist.x).toBeLessThan(a.landmarks.hipRight.x);
    expect(a.landmarks.leftToe.y).toBeGreaterThan(a.landmarks.leftAnkle.y);
  });

  it('reads back the girths of a parametric render within 6%', () => {
    const profile: BodyProfile = {
      gender: null,
      measurements: { height: 170, chest: 96, waist: 80, hip: 104, inseam: 79 },
      supplied: { height: true, chest: true, waist: true, hip: true, inseam: true },
      source: 'measurements',
    };
    const r = rasterizeBody(buildBodyModel(profile, POSES.man_pose), { width: 600, height: 800 }, POSES.man_pose);
    const fitted = profileFromSilhouette(analyzeSilhouette(r.mask, 600, 800));
    for (const k of ['chest', 'waist', 'hip', 'inseam'] as const) {
      expect(Math.abs(fitted.measurements[k] / profile.measurements[k] - 1), k).toBeLessThan(0.06);
    }
  });
});

describe('photo mode', () => {
  const face = syntheticFace(200, 250).image;

  it('re-poses a parametric body fitted to the photo: wider hips in the photo give wider hips in the twin', async () => {
    const renderer = new BuiltinTwinRenderer(new SharpImageCodec());
    const slim = await renderer.render({ kind: 'photo', photo: syntheticPerson({ hipScale: 1 }).image, face, pose: 'man_pose' }, { signal, size: SIZE });
    const wide = await renderer.render({ kind: 'photo', photo: syntheticPerson({ hipScale: 1.25 }).image, face, pose: 'man_pose' }, { signal, size: SIZE });
    expect(slim.pose).toBe('man_pose');
    expect(slim.notes.join(' ')).toMatch(/estimated from the photo, assuming/);
    const hipWidth = (r: typeof slim) => (r.landmarks.hipLeft.x - r.landmarks.hipRight.x) / (r.landmarks.leftToe.y - r.landmarks.headTop.y);
    expect(hipWidth(wide) / hipWidth(slim)).toBeGreaterThan(1.12);
    const { sizes } = labelComponents(wide.mask, SIZE.width, SIZE.height);
    expect(sizes.length - 1).toBe(1);
  });

  it('is deterministic', async () => {
    const renderer = new BuiltinTwinRenderer(new SharpImageCodec());
    const photo = syntheticPerson({ background: 'gradient', seed: 5 }).image;
    const a = await renderer.render({ kind: 'photo', photo, face, pose: 'walking_pose' }, { signal, size: SIZE });
    const b = await renderer.render({ kind: 'photo', photo, face, pose: 'walking_pose' }, { signal, size: SIZE });
    expect(Buffer.from(a.image.data).equals(Buffer.from(b.image.data))).toBe(true);
  });

  it('rejects a photo without a person', async () => {
    const empty = background(300, 400, 'noisy', 3);
    await expect(new BuiltinTwinRenderer(new SharpImageCodec()).render({ kind: 'photo', photo: empty, face, pose: 'man_pose' }, { signal })).rejects.toSatisfy(
      (e: unknown) => e instanceof FitroomError && e.code === 'IMAGE_INVALID',
    );
  });

  it('stops when aborted', async () => {
    const ctrl = new AbortController();
    ctrl.abort(new Error('cancelled'));
    await expect(new BuiltinTwinRenderer(new SharpImageCodec()).render({ kind: 'photo', photo: syntheticPerson().image, face, pose: 'man_pose' }, { signal: ctrl.signal })).rejects.toThrow('cancelled');
  });
});

describe('analyzePerson', () => {
  it('returns the photo with its person mask, a depth proxy on the mask and landmarks on the person', () => {
    const person = syntheticPerson({ background: 'noisy', seed: 8 });
    const { width: w, height: h } = person.image;
    const r = analyzePerson(person.image);
    expect(r.pose).toBe('photo');
    expect(r.image).toBe(person.image);
    expect(maskIoU(r.mask, person.mask)).toBeGreaterThan(0.9);
    let peak = 0;
    for (let i = 0; i < w * h; i++) {
      expect(r.depth[i] > 0).toBe(r.mask[i] === 255);
      peak = Math.max(peak, r.depth[i]);
    }
    // a torso-sized bulge: several cm, not a sliver or a wall
    expect(peak).toBeGreaterThan(5);
    expect(peak).toBeLessThan(40);
    expect((person.points.soleY - person.points.headTop) / r.pixelsPerCm).toBeCloseTo(170, -1);
    for (const [key, value] of Object.entries(r.landmarks) as [keyof BodyLandmarks, Point | number][]) {
      if (typeof value !== 'number') expect(onMask(r.mask, w, value), key).toBe(true);
    }
  });
});
