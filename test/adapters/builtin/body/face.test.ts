import { describe, expect, it } from 'vitest';
import type { BodyProfile } from '../../../../core/twins/body.ts';
import { detectFace } from '../../../../adapters/builtin/body/face.ts';
import { buildBodyModel } from '../../../../adapters/builtin/body/body-model.ts';
import { POSES } from '../../../../adapters/builtin/body/poses.ts';
import { rasterizeBody } from '../../../../adapters/builtin/body/rasterize-body.ts';
import { BuiltinTwinRenderer } from '../../../../adapters/builtin/body/twin-renderer.ts';
import { SharpImageCodec } from '../../../../adapters/sharp/image-codec.ts';
import { solidImage, syntheticFace } from '../../../support/images.ts';

const SIZE = { width: 384, height: 512 };
const PROFILE: BodyProfile = {
  gender: 'female',
  measurements: { height: 168, chest: 90, waist: 72, hip: 98, inseam: 78 },
  supplied: { height: true, chest: true, waist: true, hip: true, inseam: true },
  source: 'measurements',
};
const signal = new AbortController().signal;

describe('detectFace', () => {
  it('finds the drawn face oval through skin colour in YCbCr', () => {
    for (const skin of [[222, 180, 150], [196, 148, 118], [120, 82, 60]] as [number, number, number][]) {
      const { image, face } = syntheticFace(240, 300, { skin });
      const found = detectFace(image);
      expect(found.detected, `skin ${skin}`).toBe(true);
      expect(Math.abs(found.cx - face.cx)).toBeLessThan(0.05 * face.rx * 2);
      expect(Math.abs(found.rx / face.rx - 1)).toBeLessThan(0.12);
      // the oval covers the eyes and mouth of the drawn face
      expect(found.cy - found.ry).toBeLessThan(face.cy - 0.3 * face.ry);
      expect(found.cy + found.ry).toBeGreaterThan(face.cy + 0.6 * face.ry);
      for (let c = 0; c < 3; c++) expect(Math.abs(found.skin[c] - skin[c])).toBeLessThan(12);
    }
  });

  it('falls back to a centred oval, with a note, when there is no skin', () => {
    const found = detectFace(solidImage(200, 260, [40, 90, 200, 255]));
    expect(found.detected).toBe(false);
    expect(found.notes.join(' ')).toMatch(/centred face oval/);
    expect(found.cx).toBeCloseTo(100, 0);
  });
});

describe('face compositing', () => {
  it('puts the face on the head only, colour-matched to the body skin', async () => {
    const { image: face } = syntheticFace(240, 300, { skin: [120, 82, 60], seed: 9 });
    const twin = await new BuiltinTwinRenderer(new SharpImageCodec()).render({ kind: 'profile', profile: PROFILE, pose: 'girl_pose', face }, { signal, size: SIZE });
    const bare = rasterizeBody(buildBodyModel(PROFILE, POSES.girl_pose), SIZE, POSES.girl_pose);
    const lm = twin.landmarks;
    let changed = 0;
    let minY = Infinity;
    let maxY = -Infinity;
    for (let y = 0; y < SIZE.height; y++) {
      for (let x = 0; x < SIZE.width; x++) {
        const o = (y * SIZE.width + x) * 4;
        const diff = Math.abs(twin.image.data[o] - bare.image.data[o]) + Math.abs(twin.image.data[o + 1] - bare.image.data[o + 1]) + Math.abs(twin.image.data[o + 2] - bare.image.data[o + 2]);
        if (diff <= 6) continue;
        changed++;
        minY = Math.min(minY, y);
        maxY = Math.max(maxY, y);
        expect(twin.mask[y * SIZE.width + x]).toBe(255);
        expect(Math.abs(x - lm.faceCenter.x)).toBeLessThanOrEqual(lm.faceSize / 2 + 1);
      }
    }
    // colour matching leaves most skin nearly unchanged; the features (eyes, brows, nose, mouth) change
    expect(changed).toBeGreaterThan(0.15 * lm.faceSize * lm.faceSize);
    expect(minY).toBeGreaterThanOrEqual(lm.headTop.y);
    expect(maxY).toBeLessThanOrEqual(lm.chin.y + 1);
    // skin of the face now matches the body: compare a cheek patch with the bare head there
    const cx = Math.round(lm.faceCenter.x - lm.faceSize * 0.25);
    const cy = Math.round(lm.faceCenter.y + lm.faceSize * 0.2);
    for (let c = 0; c < 3; c++) {
      const o = (cy * SIZE.width + cx) * 4 + c;
      expect(Math.abs(twin.image.data[o] - bare.image.data[o]), `channel ${c}`).toBeLessThan(20);
    }
    // the eyes are still there: the darkest pixel in the face is much darker than the skin
    let darkest = 255;
    for (let y = Math.round(lm.faceCenter.y - lm.faceSize * 0.4); y < lm.faceCenter.y; y++) {
      for (let x = Math.round(lm.faceCenter.x - lm.faceSize / 3); x < lm.faceCenter.x + lm.faceSize / 3; x++) darkest = Math.min(darkest, twin.image.data[(y * SIZE.width + x) * 4 + 1]);
    }
    expect(darkest).toBeLessThan(90);
  });
});
