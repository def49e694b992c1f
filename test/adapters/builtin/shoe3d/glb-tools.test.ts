import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { buildAtlas } from '../../../../adapters/builtin/shoe3d/atlas.ts';
import { compressDocument } from '../../../../adapters/builtin/shoe3d/compress-glb.ts';
import { encodePng, encodeRaster } from '../../../../adapters/builtin/shoe3d/encode.ts';
import { GltfTransformGlbIO } from '../../../../adapters/builtin/shoe3d/glb-io.ts';
import { previewGrid } from '../../../../adapters/builtin/shoe3d/preview-grid.ts';
import { readGlbMeshes } from '../../../../adapters/builtin/shoe3d/read-glb.ts';
import { SharpImageCodec } from '../../../../adapters/sharp/image-codec.ts';
import { validateGlb } from '../../../../adapters/builtin/shoe3d/validate-glb.ts';
import { vertexNormals } from '../../../../adapters/builtin/shoe3d/mesh-ops.ts';
import { writeGlb } from '../../../../adapters/gltf/write-glb.ts';
import { inspectGlb } from '../../../../adapters/gltf/inspect-glb.ts';
import { createRaster } from '../../../../core/images.ts';
import { makeShoeMesh, rng } from '../../../support/products.ts';

const codec = new SharpImageCodec();
const io = new GltfTransformGlbIO();

/** The generated shoe as a textured GLB: atlas from the builtin unwrapper, a noisy texture. */
async function shoeGlb(textureSize: number, noise: boolean): Promise<Uint8Array> {
  const shoe = makeShoeMesh(90, 36);
  const atlas = buildAtlas(shoe, textureSize);
  const normals = vertexNormals({ positions: atlas.positions, indices: atlas.indices });
  const tex = createRaster(textureSize, textureSize, [30, 50, 110, 255]);
  const r = rng(5);
  if (noise) for (let i = 0; i < tex.data.length; i += 4) { tex.data[i] = r() * 255; tex.data[i + 1] = r() * 255; tex.data[i + 2] = r() * 255; }
  return writeGlb({ positions: atlas.positions, normals, uvs: atlas.uvs, indices: atlas.indices, baseColor: await encodeRaster(tex, 'png') });
}

describe('projection atlas', () => {
  it('gives every face a chart with UVs inside the atlas and no two faces the same texels', () => {
    const shoe = makeShoeMesh(90, 36);
    const size = 512;
    const atlas = buildAtlas(shoe, size, 4);
    expect(atlas.indices.length).toBe(shoe.indices.length);
    for (const v of atlas.uvs) { expect(v).toBeGreaterThanOrEqual(0); expect(v).toBeLessThanOrEqual(1); }
    // rasterise all faces: a texel centre inside two faces that share no vertex is an overlap
    const owner = new Int32Array(size * size).fill(-1);
    let overlaps = 0, texels = 0;
    const idx = atlas.indices, uv = atlas.uvs;
    for (let f = 0; f < idx.length / 3; f++) {
      const [a, b, c] = [idx[f * 3], idx[f * 3 + 1], idx[f * 3 + 2]];
      const x0 = uv[a * 2] * size, y0 = uv[a * 2 + 1] * size, x1 = uv[b * 2] * size, y1 = uv[b * 2 + 1] * size, x2 = uv[c * 2] * size, y2 = uv[c * 2 + 1] * size;
      const area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0);
      if (Math.abs(area) < 1e-9) continue;
      for (let y = Math.floor(Math.min(y0, y1, y2)); y <= Math.ceil(Math.max(y0, y1, y2)); y++) for (let x = Math.floor(Math.min(x0, x1, x2)); x <= Math.ceil(Math.max(x0, x1, x2)); x++) {
        const w1 = ((x + 0.5 - x0) * (y2 - y0) - (x2 - x0) * (y + 0.5 - y0)) / area, w2 = ((x1 - x0) * (y + 0.5 - y0) - (x + 0.5 - x0) * (y1 - y0)) / area;
        if (w1 < 0 || w2 < 0 || w1 + w2 > 1) continue;
        const o = owner[y * size + x];
        texels++;
        if (o >= 0) {
          const shared = [idx[o * 3], idx[o * 3 + 1], idx[o * 3 + 2]].some((v) => atlas.sourceVertex[v] === atlas.sourceVertex[a] || atlas.sourceVertex[v] === atlas.sourceVertex[b] || atlas.sourceVertex[v] === atlas.sourceVertex[c]);
          if (!shared) overlaps++;
        } else owner[y * size + x] = f;
      }
    }
    expect(texels).toBeGreaterThan(size * size * 0.3);
    expect(overlaps).toBe(0);
  });
});

describe('GLB writing, validation, compression and previews', () => {
  it('writes a validator-clean GLB with a PBR material', async () => {
    const glb = await shoeGlb(256, false);
    const report = await validateGlb(glb);
    expect(report.errors).toBe(0);
    expect(report.warnings).toBe(0);
    const meshes = await readGlbMeshes(glb, codec);
    expect(meshes).toHaveLength(1);
    expect(meshes[0].texture?.width).toBe(256);
  });

  it('flags a broken GLB', async () => {
    const glb = await shoeGlb(64, false);
    const broken = glb.slice(0, glb.length - 200);
    expect((await validateGlb(broken)).errors).toBeGreaterThan(0);
  });

  it('compresses to a byte budget with WebP textures (through the codec) and meshopt, and reports an impossible budget', async () => {
    const glb = await shoeGlb(2048, true);
    expect(glb.byteLength).toBeGreaterThan(8_000_000);
    const doc = await io.read(glb);
    const write = (d: Parameters<typeof io.write>[0]) => io.write(d);
    const r = await compressDocument(doc, glb, codec, write, { maxBytes: 1_500_000 });
    expect(r.withinBudget).toBe(true);
    expect(r.bytes).toBeLessThanOrEqual(1_500_000);
    expect(r.glb.byteLength).toBe(r.bytes);
    expect(r.steps.length).toBeGreaterThan(1);
    // the bytes are the returned document's, and the document passed in is untouched
    expect(Buffer.from(await io.write(r.doc)).equals(Buffer.from(r.glb))).toBe(true);
    expect(doc.getRoot().listTextures()[0].getMimeType()).toBe('image/png');
    const meshes = await readGlbMeshes(r.glb, codec);
    expect(meshes[0].texture!.width).toBeLessThan(2048);
    expect(new TextDecoder().decode(r.glb.subarray(20, 2000))).toMatch(/EXT_meshopt_compression/);
    expect(new TextDecoder().decode(r.glb.subarray(20, 2000))).toMatch(/EXT_texture_webp/);
    // the AR host's defensive inspection reads it (meshopt adds a data-less fallback buffer)
    expect(inspectGlb(r.glb).counts.buffers).toBe(2);
    const small = await compressDocument(doc, glb, codec, write, { maxBytes: 2000 });
    expect(small.withinBudget).toBe(false);
    expect(small.bytes).toBeLessThan(r.bytes);
    const same = await compressDocument(small.doc, small.glb, codec, write, { maxBytes: 10_000_000 });
    expect(same.glb).toBe(small.glb);
    expect(same.doc).toBe(small.doc);
  });

  it('writes PNGs without an image library that decode to the same pixels', async () => {
    const img = createRaster(37, 5, [10, 200, 30, 128]);
    for (let i = 0; i < img.data.length; i++) img.data[i] = (i * 7) % 256;
    const { data, info } = await sharp(encodePng(img)).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height, info.channels]).toEqual([37, 5, 4]);
    expect(Buffer.from(data).equals(Buffer.from(img.data))).toBe(true);
  });

  it('renders a preview grid with the model in every tile', async () => {
    const doc = await io.read(await shoeGlb(128, false));
    const png = await previewGrid(doc, codec, { tile: 160 });
    expect(png.contentType).toBe('image/png');
    const { data, info } = await sharp(png.bytes).raw().toBuffer({ resolveWithObject: true });
    expect(info.width).toBe(480);
    // two rows of three; tiles follow the shoe's proportions (wider than tall)
    const tileH = info.height / 2;
    expect(tileH).toBeLessThan(160);
    expect(Number.isInteger(tileH)).toBe(true);
    for (let t = 0; t < 6; t++) {
      const ox = (t % 3) * 160, oy = Math.floor(t / 3) * tileH;
      let blue = 0;
      for (let y = oy; y < oy + tileH; y++) for (let x = ox; x < ox + 160; x++) {
        const o = (y * info.width + x) * info.channels;
        if (data[o + 2] > data[o] + 40) blue++;
      }
      expect(blue).toBeGreaterThan(300);
    }
  });
});
