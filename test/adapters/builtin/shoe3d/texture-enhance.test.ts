import { beforeAll, describe, expect, it } from 'vitest';
import { BuiltinProductReconstructor } from '../../../../adapters/builtin/shoe3d/builtin-reconstructor.ts';
import type { Document } from '@gltf-transform/core';
import { GltfTransformGlbIO } from '../../../../adapters/builtin/shoe3d/glb-io.ts';
import { documentPrimitives } from '../../../../adapters/builtin/shoe3d/read-glb.ts';
import { enhanceTexture, refineLogos } from '../../../../adapters/builtin/shoe3d/texture-enhance.ts';
import { validateGlb } from '../../../../adapters/builtin/shoe3d/validate-glb.ts';
import { SharpImageCodec } from '../../../../adapters/sharp/image-codec.ts';
import type { RasterImage } from '../../../../core/images.ts';
import { makeShoeMesh, renderProductViews } from '../../../support/products.ts';
import { request, viewsOf } from './reconstruction-helpers.ts';

let glb: Uint8Array;
const codec = new SharpImageCodec();
const io = new GltfTransformGlbIO();
/** A fresh document of the reconstructed model (the stages change documents in place). */
const model = () => io.read(glb);

beforeAll(async () => {
  const photos = renderProductViews(makeShoeMesh(), [0, 45, 90, 135], { size: 320 });
  const rec = new BuiltinProductReconstructor({ default: { grid: 110, triangles: 8000, textureSize: 512, workHeight: 160 } });
  glb = (await rec.reconstruct(request(await viewsOf(photos), 'shoe'))).glb;
});

async function texture(doc: Document): Promise<RasterImage> {
  return (await documentPrimitives(doc, codec))[0].texture!;
}

const image = (doc: Document) => doc.getRoot().listTextures()[0].getImage();

/** Mean absolute Laplacian of the luminance: how much fine detail a texture carries. */
function detail(img: RasterImage): number {
  const { width: w, height: h, data } = img;
  const L = (x: number, y: number) => 0.2126 * data[(y * w + x) * 4] + 0.7152 * data[(y * w + x) * 4 + 1] + 0.0722 * data[(y * w + x) * 4 + 2];
  let s = 0;
  for (let y = 1; y < h - 1; y++) for (let x = 1; x < w - 1; x++) s += Math.abs(4 * L(x, y) - L(x - 1, y) - L(x + 1, y) - L(x, y - 1) - L(x, y + 1));
  return s / ((w - 2) * (h - 2));
}

function meanChannel(img: RasterImage, c: number): number {
  let s = 0;
  for (let i = 0; i < img.width * img.height; i++) s += img.data[i * 4 + c];
  return s / (img.width * img.height);
}

describe('texture enhancement', () => {
  it('renders 4 or 6 views, and an identity filter changes nothing', async () => {
    const doc = await model();
    const original = image(doc);
    const seen: [number, number, number][] = [];
    const r = await enhanceTexture(doc, codec, (img, v) => { seen.push([img.width, v.azimuthDeg, v.elevationDeg]); return img; }, { views: 4, renderSize: 256 });
    expect(seen).toEqual([[256, 0, 20], [256, 90, 20], [256, 180, 20], [256, 270, 20]]);
    expect(r.texelsChanged).toBe(0);
    expect(image(doc)).toBe(original);
    const six: number[] = [];
    await enhanceTexture(doc, codec, (img, v) => { six.push(v.azimuthDeg); return img; }, { views: 6, renderSize: 128 });
    expect(six).toEqual([0, 60, 120, 180, 240, 300]);
  });

  it('projects what the filter changed back onto the texture', async () => {
    const redder = (img: RasterImage) => {
      const out = { ...img, data: new Uint8Array(img.data) };
      for (let i = 0; i < out.data.length; i += 4) if (out.data[i + 3] === 255) out.data[i] = Math.min(255, out.data[i] + 60);
      return out;
    };
    const doc = await model();
    const before = await texture(doc);
    const r = await enhanceTexture(doc, codec, redder, { views: 4, renderSize: 384 });
    const after = await texture(doc);
    expect((await validateGlb(await io.write(doc))).errors).toBe(0);
    // the charts the four renders see: the outside (the lining inside the shoe is never rendered;
    // 17.5 % of the atlas measured, gutters and the lining's charts take the rest)
    expect(r.texelsChanged).toBeGreaterThan(before.width * before.height * 0.15);
    // each changed texel took about the filter's +60 in red (less where it saturates)
    const share = r.texelsChanged / (before.width * before.height);
    expect(meanChannel(after, 0) - meanChannel(before, 0)).toBeGreaterThan(40 * share);
    expect(Math.abs(meanChannel(after, 2) - meanChannel(before, 2))).toBeLessThan(1);
  });

  it('builtin filters add detail without shifting colours', async () => {
    const doc = await model();
    const before = await texture(doc);
    await enhanceTexture(doc, codec, undefined, { views: 4, renderSize: 384 });
    const after = await texture(doc);
    expect(detail(after)).toBeGreaterThan(detail(before) * 1.05);
    for (let c = 0; c < 3; c++) expect(Math.abs(meanChannel(after, c) - meanChannel(before, c))).toBeLessThan(3);
  });
});

describe('logo refinement', () => {
  it('finds the brand strokes and refines them', async () => {
    const doc = await model();
    const original = image(doc);
    const r = await refineLogos(doc, codec, undefined, { views: 4, renderSize: 384 });
    expect(r.status).toBe('applied');
    expect(r.regions).toBeGreaterThan(0);
    expect(image(doc)).not.toBe(original);
    expect((await validateGlb(await io.write(doc))).errors).toBe(0);
  });

  it('is non-fatal: a failing refiner leaves the first-pass model', async () => {
    const doc = await model();
    const original = image(doc);
    const r = await refineLogos(doc, codec, () => { throw new Error('vendor down'); }, { views: 4, renderSize: 256 });
    expect(r).toMatchObject({ status: 'failed', errorCode: 'logo_refinement_failed' });
    expect(image(doc)).toBe(original);
  });
});
