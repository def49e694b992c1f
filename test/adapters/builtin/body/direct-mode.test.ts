import { describe, expect, it } from 'vitest';
import { silhouetteMask } from '../../../../adapters/builtin/body/render-silhouette.ts';
import { labelComponents, maskBounds } from '../../../../adapters/builtin/body/mask-ops.ts';
import { BuiltinTwinRenderer } from '../../../../adapters/builtin/body/twin-renderer.ts';
import { SharpImageCodec } from '../../../../adapters/sharp/image-codec.ts';
import { maskIoU, silhouetteImage, syntheticFace, syntheticPerson } from '../../../support/images.ts';

const signal = new AbortController().signal;
const SIZE = { width: 384, height: 512 };

describe('direct mode', () => {
  const person = syntheticPerson({ seed: 12, armAngle: 14 });
  const { width: w, height: h } = person.image;

  for (const mode of ['luminance', 'alpha', 'depth'] as const) {
    it(`takes the body mask from a ${mode} silhouette`, () => {
      const sil = silhouetteMask(silhouetteImage(person.mask, w, h, mode));
      expect(maskIoU(sil.mask, person.mask)).toBeGreaterThan(0.98);
      expect(sil.notes.join(' ')).toMatch(mode === 'alpha' ? /alpha/ : /luminance/);
    });
  }

  it('renders the silhouette as the body, keeps its shape and puts the face on its head', async () => {
    const face = syntheticFace(200, 250).image;
    const renderer = new BuiltinTwinRenderer(new SharpImageCodec());
    const twin = await renderer.render({ kind: 'silhouette', silhouette: silhouetteImage(person.mask, w, h, 'depth'), face }, { signal, size: SIZE });
    expect(twin.pose).toBe('silhouette');
    const { sizes } = labelComponents(twin.mask, SIZE.width, SIZE.height);
    expect(sizes.length - 1).toBe(1);
    const src = maskBounds(person.mask, w, h)!;
    const out = maskBounds(twin.mask, SIZE.width, SIZE.height)!;
    const aspect = (b: typeof src) => (b.y1 - b.y0 + 1) / (b.x1 - b.x0 + 1);
    expect(Math.abs(aspect(out) / aspect(src) - 1)).toBeLessThan(0.03);
    // the face oval sits in the head: between head top and chin, on the mask
    const lm = twin.landmarks;
    expect(lm.faceCenter.y).toBeGreaterThan(lm.headTop.y);
    expect(lm.faceCenter.y).toBeLessThan(lm.chin.y);
    expect(twin.mask[Math.round(lm.faceCenter.y) * SIZE.width + Math.round(lm.faceCenter.x)]).toBe(255);
    // eyes of the face image show up as dark pixels in the upper face
    let darkest = 255;
    for (let y = Math.round(lm.faceCenter.y - lm.faceSize * 0.4); y < lm.faceCenter.y; y++) {
      for (let x = Math.round(lm.faceCenter.x - lm.faceSize / 3); x < lm.faceCenter.x + lm.faceSize / 3; x++) darkest = Math.min(darkest, twin.image.data[(y * SIZE.width + x) * 4 + 1]);
    }
    expect(darkest).toBeLessThan(90);
    // depth is a rounded bulge: deeper in the torso middle than near its edge
    const y = Math.round(lm.waistLeft.y);
    const mid = Math.round((lm.waistLeft.x + lm.waistRight.x) / 2);
    expect(twin.depth[y * SIZE.width + mid]).toBeGreaterThan(twin.depth[y * SIZE.width + Math.round(lm.waistLeft.x) - 1] + 3);
    const again = await renderer.render({ kind: 'silhouette', silhouette: silhouetteImage(person.mask, w, h, 'depth'), face }, { signal, size: SIZE });
    expect(Buffer.from(again.image.data).equals(Buffer.from(twin.image.data))).toBe(true);
  });
});
