import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { zipSync } from 'fflate';
import { NodeIO } from '@gltf-transform/core';
import type { ImageCodec } from '../../../../core/ports/image-codec.ts';
import { glbToUsdz, packUsdz } from '../../../../adapters/builtin/ar/usdz.ts';
import { checkUsdz, listUsdzEntries, readUsdaMeshes } from '../../../../adapters/builtin/ar/usdz-check.ts';
import { findPrim, parseUsda } from '../../../../adapters/builtin/ar/usda-parser.ts';
import { triangleIndices } from '../../../../adapters/builtin/ar/surface.ts';
import { makeShoeDocument, makeShoeGlb } from '../../../support/shoes.ts';

/** Minimal codec for the tests (the service wires the sharp adapter). */
const codec: ImageCodec = {
  async decode(bytes) {
    const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    return { width: info.width, height: info.height, data: new Uint8Array(data) };
  },
  async encode(image, format) {
    const out = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 4 } }).toFormat(format).toBuffer();
    return { bytes: new Uint8Array(out), contentType: `image/${format}` };
  },
  async resize(image) {
    return image;
  },
};

const io = new NodeIO();
const rotation = (a: number) => [Math.cos(a), 0, -Math.sin(a), 0, 0, 1, 0, 0, Math.sin(a), 0, Math.cos(a), 0, 0.1, 0.02, -0.3, 1];

describe('glbToUsdz', () => {
  it('writes an archive AR Quick Look accepts: stored, 64-byte aligned, USDA first, PNG textures', async () => {
    const usdz = await glbToUsdz(await makeShoeGlb());
    const report = checkUsdz(usdz);
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.entries.map((e) => e.name)).toEqual(['model.usda', 'textures/texture_0.png']);
    for (const e of report.entries) {
      expect(e.compression).toBe(0);
      expect(e.dataOffset % 64).toBe(0);
    }
    const png = listUsdzEntries(usdz).files.get('textures/texture_0.png')!;
    const meta = await sharp(png).metadata();
    expect(meta.format).toBe('png');
    expect([meta.width, meta.height]).toEqual([256, 256]);
    const layer = report.layer!;
    expect(layer.metadata.upAxis).toBe('Y');
    expect(layer.metadata.metersPerUnit).toBe(1);
    const text = new TextDecoder().decode(listUsdzEntries(usdz).files.get('model.usda'));
    expect(text.startsWith('#usda 1.0\n')).toBe(true);
    // the upper's material samples the base-colour texture through a UsdUVTexture
    const upper = readUsdaMeshes(layer).find((m) => m.path === '/Root/Geom/upper')!;
    const material = findPrim(layer, upper.material!)!;
    const surface = material.children.find((c) => c.name === 'PreviewSurface')!;
    expect(surface.properties.get('info:id')!.value).toBe('UsdPreviewSurface');
    const diffuse = surface.properties.get('inputs:diffuseColor')!;
    expect(diffuse.targets).toEqual([`${material.path}/BaseColorTexture.outputs:rgb`]);
    const texShader = material.children.find((c) => c.name === 'BaseColorTexture')!;
    expect(texShader.properties.get('info:id')!.value).toBe('UsdUVTexture');
    expect(texShader.properties.get('inputs:file')!.value).toEqual({ asset: 'textures/texture_0.png' });
    // untextured parts carry their colour directly
    const sole = readUsdaMeshes(layer).find((m) => m.path === '/Root/Geom/sole')!;
    const soleSurface = findPrim(layer, `${sole.material}/PreviewSurface`)!;
    expect((soleSurface.properties.get('inputs:diffuseColor')!.value as { tuple: number[] }).tuple[0]).toBeCloseTo(0.08, 5);
    expect(soleSurface.properties.get('inputs:roughness')!.value).toBeCloseTo(0.9, 5);
  });

  it('round-trips the geometry: vertex and triangle counts, positions and UVs', async () => {
    const glb = await makeShoeGlb();
    const doc = await io.readBinary(glb);
    const layer = checkUsdz(await glbToUsdz(glb)).layer!;
    const meshes = readUsdaMeshes(layer);
    const nodes = doc.getRoot().listNodes().filter((n) => n.getMesh());
    expect(meshes).toHaveLength(nodes.length);
    for (const node of nodes) {
      const prim = node.getMesh()!.listPrimitives()[0];
      const usd = meshes.find((m) => m.path === `/Root/Geom/${node.getName()}`)!;
      const pos = prim.getAttribute('POSITION')!.getArray()!;
      expect(usd.points.length).toBe(pos.length);
      expect(usd.faceVertexIndices.length).toBe(triangleIndices(prim)!.length);
      expect(usd.faceVertexCounts.every((c) => c === 3)).toBe(true);
      for (let i = 0; i < pos.length; i++) expect(Math.abs(usd.points[i] - pos[i])).toBeLessThan(1e-6);
      const uv = prim.getAttribute('TEXCOORD_0')!.getArray()!;
      for (let i = 0; i < uv.length; i += 2) {
        expect(usd.st![i]).toBeCloseTo(uv[i], 5);
        expect(usd.st![i + 1]).toBeCloseTo(1 - uv[i + 1], 5);
      }
    }
  });

  it('applies node transforms to points and normals and keeps faces outward', async () => {
    const glb = await makeShoeGlb({ rootMatrix: rotation(0.9), overlays: false, floor: false });
    const canonical = await makeShoeDocument({ overlays: false, floor: false });
    const layer = checkUsdz(await glbToUsdz(glb)).layer!;
    const sole = readUsdaMeshes(layer).find((m) => m.path === '/Root/Geom/sole')!;
    const src = canonical.getRoot().listNodes().find((n) => n.getName() === 'sole')!.getMesh()!.listPrimitives()[0].getAttribute('POSITION')!.getArray()!;
    const m = rotation(0.9);
    for (let i = 0; i < src.length; i += 3) {
      const x = m[0] * src[i] + m[4] * src[i + 1] + m[8] * src[i + 2] + m[12];
      const z = m[2] * src[i] + m[6] * src[i + 1] + m[10] * src[i + 2] + m[14];
      expect(sole.points[i]).toBeCloseTo(x, 5);
      expect(sole.points[i + 2]).toBeCloseTo(z, 5);
    }
    let agree = 0, total = 0;
    const P = sole.points, N = sole.normals!, I = sole.faceVertexIndices;
    for (let t = 0; t < I.length; t += 3) {
      const [a, b, c] = [I[t], I[t + 1], I[t + 2]];
      const u = [0, 1, 2].map((k) => P[3 * b + k] - P[3 * a + k]);
      const v = [0, 1, 2].map((k) => P[3 * c + k] - P[3 * a + k]);
      const n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
      if (Math.hypot(n[0], n[1], n[2]) < 1e-12) continue;
      total++;
      const s = [0, 1, 2].map((k) => N[3 * a + k] + N[3 * b + k] + N[3 * c + k]);
      if (n[0] * s[0] + n[1] * s[1] + n[2] * s[2] > 0) agree++;
    }
    expect(agree / total).toBeGreaterThan(0.99);
  });

  it('converts JPEG textures to PNG with an image codec and refuses them without one', async () => {
    const doc = await makeShoeDocument();
    const tex = doc.getRoot().listTextures()[0];
    const jpeg = await sharp(tex.getImage()!).jpeg().toBuffer();
    tex.setImage(new Uint8Array(jpeg)).setMimeType('image/jpeg');
    const glb = await io.writeBinary(doc);
    await expect(glbToUsdz(glb)).rejects.toThrow(/needs an image codec/);
    const usdz = await glbToUsdz(glb, { codec });
    expect(checkUsdz(usdz).ok).toBe(true);
    const png = listUsdzEntries(usdz).files.get('textures/texture_0.png')!;
    expect((await sharp(png).metadata()).format).toBe('png');
  });

  it('produces the same bytes for the same model', async () => {
    const glb = await makeShoeGlb();
    expect(Buffer.from(await glbToUsdz(glb)).equals(Buffer.from(await glbToUsdz(glb)))).toBe(true);
  });
});

describe('checkUsdz', () => {
  const usda = new TextEncoder().encode(`#usda 1.0
(
    defaultPrim = "Root"
    metersPerUnit = 1
    upAxis = "Y"
)
def Xform "Root"
{
    def Mesh "m"
    {
        int[] faceVertexCounts = [3]
        int[] faceVertexIndices = [0, 1, 2]
        point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
    }
}
`);
  const png = new Uint8Array(100).fill(7);

  it('accepts a minimal aligned archive', () => {
    expect(checkUsdz(packUsdz([{ path: 'model.usda', bytes: usda }, { path: 'textures/a.png', bytes: png }])).problems).toEqual([]);
  });

  it('reports compressed and misaligned entries', () => {
    const compressed = zipSync({ 'model.usda': usda }, { level: 6 });
    expect(checkUsdz(compressed).problems.join(' ')).toMatch(/compressed/);
    const unpadded = zipSync({ 'model.usda': usda, 'textures/a.png': png }, { level: 0 });
    expect(checkUsdz(unpadded).problems.join(' ')).toMatch(/not 64-byte aligned/);
  });

  it('reports a layer that does not parse, a missing texture and a wrong first file', () => {
    const broken = new TextEncoder().encode('#usda 1.0\ndef Xform "Root" {\n  point3f[] points = [(0, 0, 0\n}\n');
    expect(checkUsdz(packUsdz([{ path: 'model.usda', bytes: broken }])).problems.join(' ')).toMatch(/USDA syntax error/);
    const withRef = new TextDecoder().decode(usda).replace('point3f[] points', 'asset tex = @textures/missing.png@\n        point3f[] points');
    expect(checkUsdz(packUsdz([{ path: 'model.usda', bytes: new TextEncoder().encode(withRef) }])).problems).toContain('referenced file textures/missing.png is not in the archive');
    expect(checkUsdz(packUsdz([{ path: 'a.png', bytes: png }, { path: 'model.usda', bytes: usda }])).ok).toBe(false);
    const noHeader = new TextEncoder().encode('def Xform "Root" {}\n');
    expect(checkUsdz(packUsdz([{ path: 'model.usda', bytes: noHeader }])).problems.join(' ')).toMatch(/#usda 1.0/);
  });

  it('reports indices out of range', () => {
    const bad = new TextDecoder().decode(usda).replace('[0, 1, 2]', '[0, 1, 5]');
    expect(checkUsdz(packUsdz([{ path: 'model.usda', bytes: new TextEncoder().encode(bad) }])).problems.join(' ')).toMatch(/index out of range/);
  });
});

describe('parseUsda', () => {
  it('parses metadata, dictionaries, connections, relationships, list ops and time samples', () => {
    const layer = parseUsda(`#usda 1.0
(
    "a layer doc string"
    customLayerData = {
        string creator = "x"
        dictionary nested = {
            int n = 2
        }
    }
    defaultPrim = "World"
    subLayers = [@a.usda@, @b.usda@]
)

def Xform "World" (
    kind = "component"
    prepend apiSchemas = ["MaterialBindingAPI"]
)
{
    double3 xformOp:translate = (1, -2.5, 3e-2)
    float3 xformOp:scale.timeSamples = {
        0: (1, 1, 1),
        24: (2, 2, 2),
    }
    uniform token[] xformOpOrder = ["xformOp:translate"]
    rel material:binding = </World/Looks/M>
    custom string note = """multi
line"""
    over "Child" { }
    def Scope "Looks"
    {
        def Material "M"
        {
            token outputs:surface.connect = </World/Looks/M/S.outputs:surface>
            def Shader "S"
            {
                uniform token info:id = "UsdPreviewSurface"
                float inputs:roughness = .5
                token outputs:surface
            }
        }
    }
}
`);
    expect(layer.metadata.doc).toBe('a layer doc string');
    expect(layer.metadata.subLayers).toEqual([{ asset: 'a.usda' }, { asset: 'b.usda' }]);
    expect((layer.metadata.customLayerData as { dict: Record<string, unknown> }).dict.creator).toBe('x');
    const world = layer.prims[0];
    expect(world.metadata['prepend apiSchemas']).toEqual(['MaterialBindingAPI']);
    expect(world.properties.get('xformOp:translate')!.value).toEqual({ tuple: [1, -2.5, 0.03] });
    expect(world.properties.get('material:binding')!.targets).toEqual(['/World/Looks/M']);
    expect(world.properties.get('note')!.value).toBe('multi\nline');
    expect(world.properties.get('note')!.custom).toBe(true);
    expect(findPrim(layer, '/World/Looks/M')!.properties.get('outputs:surface')!.targets).toEqual(['/World/Looks/M/S.outputs:surface']);
    expect(findPrim(layer, '/World/Looks/M/S')!.properties.get('inputs:roughness')!.value).toBe(0.5);
    expect(findPrim(layer, '/World/Child')!.specifier).toBe('over');
  });

  it('reports the line of a syntax error', () => {
    expect(() => parseUsda('#usda 1.0\ndef Xform "A"\n{\n  float x = ]\n}\n')).toThrow(/line 4/);
  });
});
