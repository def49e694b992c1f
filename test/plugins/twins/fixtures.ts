import { SharpImageCodec } from '../../../adapters/sharp/image-codec.ts';
import type { RasterImage } from '../../../core/images.ts';
import { silhouetteImage, syntheticFace, syntheticPerson } from '../../support/images.ts';

const codec = new SharpImageCodec();

export async function pngBytes(img: RasterImage): Promise<Uint8Array> {
  return (await codec.encode(img, 'png')).bytes;
}

export function dataUrl(png: Uint8Array): string {
  return `data:image/png;base64,${Buffer.from(png).toString('base64')}`;
}

/** Face, full-body photo and silhouette images for twin requests, as PNG bytes. */
export async function twinImages() {
  const person = syntheticPerson();
  return {
    face: await pngBytes(syntheticFace().image),
    otherFace: await pngBytes(syntheticFace(256, 320, { skin: [150, 105, 80], seed: 5 }).image),
    photo: await pngBytes(person.image),
    silhouette: await pngBytes(silhouetteImage(person.mask, person.image.width, person.image.height, 'luminance')),
  };
}
