import { describe, expect, it } from 'vitest';
import { GlbError, inspectGlb } from '../../../adapters/gltf/inspect-glb.ts';
import { makeShoeGlb } from '../../support/shoes.ts';

/** Assembles a GLB from a JSON object and a BIN payload, with correct padding and lengths. */
function assemble(json: unknown, bin?: Uint8Array, opts: { jsonType?: number; binType?: number } = {}): Uint8Array {
  const text = new TextEncoder().encode(JSON.stringify(json));
  const jsonPadded = pad4(text, 0x20);
  const binPadded = bin ? pad4(bin, 0) : null;
  const total = 12 + 8 + jsonPadded.length + (binPadded ? 8 + binPadded.length : 0);
  const out = new Uint8Array(total);
  const v = new DataView(out.buffer);
  v.setUint32(0, 0x46546c67, true);
  v.setUint32(4, 2, true);
  v.setUint32(8, total, true);
  v.setUint32(12, jsonPadded.length, true);
  v.setUint32(16, opts.jsonType ?? 0x4e4f534a, true);
  out.set(jsonPadded, 20);
  if (binPadded) {
    const o = 20 + jsonPadded.length;
    v.setUint32(o, binPadded.length, true);
    v.setUint32(o + 4, opts.binType ?? 0x004e4942, true);
    out.set(binPadded, o + 8);
  }
  return out;
}

function pad4(b: Uint8Array, fill: number): Uint8Array {
  const len = Math.ceil(b.length / 4) * 4;
  const out = new Uint8Array(len).fill(fill);
  out.set(b);
  return out;
}

const triangleJson = () => ({
  asset: { version: '2.0', generator: 'test' },
  buffers: [{ byteLength: 36 }],
  bufferViews: [{ buffer: 0, byteOffset: 0, byteLength: 36 }],
  accessors: [{ bufferView: 0, componentType: 5126, count: 3, type: 'VEC3', min: [0, 0, 0], max: [1, 1, 0] }],
  meshes: [{ primitives: [{ attributes: { POSITION: 0 } }] }],
  nodes: [{ mesh: 0 }],
  scenes: [{ nodes: [0] }],
});
const triangleBin = () => new Uint8Array(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]).buffer);

function reason(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(GlbError);
    expect((err as GlbError).code).toBe('invalid_glb');
    expect((err as GlbError).message).toMatch(/^invalid_glb: /);
    return (err as GlbError).reason;
  }
  throw new Error('expected inspectGlb to throw');
}

describe('inspectGlb', () => {
  it('summarises a valid GLB', async () => {
    const glb = await makeShoeGlb();
    const s = inspectGlb(glb);
    expect(s.byteLength).toBe(glb.byteLength);
    expect(s.counts.meshes).toBe(5);
    expect(s.counts.nodes).toBe(6);
    expect(s.counts.images).toBe(1);
    expect(s.binByteLength).toBeGreaterThan(1000);
    expect(inspectGlb(assemble(triangleJson(), triangleBin())).generator).toBe('test');
  });

  it('rejects files that are too short or too large', () => {
    expect(reason(() => inspectGlb(new Uint8Array(10)))).toBe('too_short');
    expect(reason(() => inspectGlb(assemble(triangleJson(), triangleBin()), { maxBytes: 64 }))).toBe('too_large');
  });

  it('checks magic, version and declared length', () => {
    const good = assemble(triangleJson(), triangleBin());
    const badMagic = good.slice();
    badMagic[0] = 0x00;
    expect(reason(() => inspectGlb(badMagic))).toBe('bad_magic');
    const v1 = good.slice();
    new DataView(v1.buffer).setUint32(4, 1, true);
    expect(reason(() => inspectGlb(v1))).toBe('bad_version');
    const longer = new Uint8Array(good.length + 4);
    longer.set(good);
    expect(reason(() => inspectGlb(longer))).toBe('length_mismatch');
    const truncated = good.slice(0, good.length - 8);
    expect(reason(() => inspectGlb(truncated))).toBe('length_mismatch');
  });

  it('requires the JSON chunk first and caps its size', () => {
    expect(reason(() => inspectGlb(assemble(triangleJson(), triangleBin(), { jsonType: 0x004e4942 })))).toBe('missing_json_chunk');
    expect(reason(() => inspectGlb(assemble(triangleJson(), triangleBin()), { maxJsonBytes: 100 }))).toBe('json_too_large');
    const huge = assemble(triangleJson(), triangleBin());
    new DataView(huge.buffer).setUint32(12, 1_000_000, true);
    expect(reason(() => inspectGlb(huge))).toBe('chunk_out_of_bounds');
  });

  it('requires the BIN chunk to lie inside the file', () => {
    const glb = assemble(triangleJson(), triangleBin());
    const jsonLen = new DataView(glb.buffer).getUint32(12, true);
    new DataView(glb.buffer).setUint32(20 + jsonLen, 4096, true);
    expect(reason(() => inspectGlb(glb))).toBe('chunk_out_of_bounds');
  });

  it('refuses a second JSON chunk', () => {
    expect(reason(() => inspectGlb(assemble(triangleJson(), triangleBin(), { binType: 0x4e4f534a })))).toBe('bad_chunk');
  });

  it('rejects JSON that does not parse or is not glTF 2', () => {
    const glb = assemble(triangleJson(), triangleBin());
    glb[20] = 0x7b + 1; // '{' -> '|'
    expect(reason(() => inspectGlb(glb))).toBe('bad_json');
    expect(reason(() => inspectGlb(assemble([1, 2, 3], triangleBin())))).toBe('bad_json');
    expect(reason(() => inspectGlb(assemble({ ...triangleJson(), asset: { version: '1.0' } }, triangleBin())))).toBe('bad_json');
    expect(reason(() => inspectGlb(assemble({ ...triangleJson(), meshes: {} }, triangleBin())))).toBe('bad_json');
  });

  it('caps the number of meshes, accessors, buffers, images and nodes', () => {
    const json = triangleJson();
    const many = { ...json, nodes: Array.from({ length: 20 }, () => ({ mesh: 0 })) };
    expect(reason(() => inspectGlb(assemble(many, triangleBin()), { maxNodes: 10 }))).toBe('too_many_items');
    expect(reason(() => inspectGlb(assemble(json, triangleBin()), { maxMeshes: 0 }))).toBe('too_many_items');
    expect(reason(() => inspectGlb(assemble(json, triangleBin()), { maxAccessors: 0 }))).toBe('too_many_items');
    const twoBuffers = { ...json, buffers: [{ byteLength: 36 }, { byteLength: 4 }] };
    expect(reason(() => inspectGlb(assemble(twoBuffers, triangleBin())))).toBe('too_many_items');
    const images = { ...json, images: Array.from({ length: 3 }, () => ({ bufferView: 0, mimeType: 'image/png' })) };
    expect(reason(() => inspectGlb(assemble(images, triangleBin()), { maxImages: 2 }))).toBe('too_many_items');
  });

  it('rejects external and data: URIs', () => {
    const json = triangleJson();
    expect(reason(() => inspectGlb(assemble({ ...json, buffers: [{ byteLength: 36, uri: 'mesh.bin' }] }, triangleBin())))).toBe('external_uri');
    expect(reason(() => inspectGlb(assemble({ ...json, buffers: [{ byteLength: 36, uri: 'data:application/octet-stream;base64,AAAA' }] }, triangleBin())))).toBe('data_uri');
    expect(reason(() => inspectGlb(assemble({ ...json, images: [{ uri: 'https://example.com/t.png' }] }, triangleBin())))).toBe('external_uri');
    expect(reason(() => inspectGlb(assemble({ ...json, images: [{ uri: 'data:image/png;base64,iVBOR' }] }, triangleBin())))).toBe('data_uri');
  });

  it('keeps buffers, views and accessors inside the BIN chunk', () => {
    const json = triangleJson();
    expect(reason(() => inspectGlb(assemble({ ...json, buffers: [{ byteLength: 4096 }] }, triangleBin())))).toBe('buffer_out_of_bounds');
    expect(reason(() => inspectGlb(assemble({ ...json, bufferViews: [{ buffer: 0, byteOffset: 8, byteLength: 36 }] }, triangleBin())))).toBe('buffer_out_of_bounds');
    expect(reason(() => inspectGlb(assemble({ ...json, bufferViews: [{ buffer: 3, byteLength: 36 }] }, triangleBin())))).toBe('buffer_out_of_bounds');
    const acc = [{ bufferView: 0, componentType: 5126, count: 4, type: 'VEC3' }];
    expect(reason(() => inspectGlb(assemble({ ...json, accessors: acc }, triangleBin())))).toBe('buffer_out_of_bounds');
    const noBin = assemble(json);
    expect(reason(() => inspectGlb(noBin))).toBe('buffer_out_of_bounds');
  });

  it('accepts meshopt fallback buffers (no data, filled by the decoder) and nothing else beside the embedded buffer', () => {
    const json = triangleJson();
    const meshopt = { byteOffset: 0, byteLength: 36, byteStride: 12, count: 3, mode: 'ATTRIBUTES', buffer: 0 };
    const compressed = {
      ...json,
      extensionsUsed: ['EXT_meshopt_compression'],
      extensionsRequired: ['EXT_meshopt_compression'],
      buffers: [{ byteLength: 36 }, { byteLength: 36, extensions: { EXT_meshopt_compression: { fallback: true } } }],
      bufferViews: [{ buffer: 1, byteLength: 36, byteStride: 12, extensions: { EXT_meshopt_compression: meshopt } }],
    };
    expect(inspectGlb(assemble(compressed, triangleBin())).counts.buffers).toBe(2);
    // a plain view may not read the data-less fallback buffer
    expect(reason(() => inspectGlb(assemble({ ...compressed, bufferViews: [{ buffer: 1, byteLength: 36 }] }, triangleBin())))).toBe('buffer_out_of_bounds');
    // a fallback declaring more than the decoder may allocate
    const huge = { ...compressed, buffers: [{ byteLength: 36 }, { byteLength: 2 ** 31, extensions: { EXT_meshopt_compression: { fallback: true } } }] };
    expect(reason(() => inspectGlb(assemble(huge, triangleBin())))).toBe('too_large');
    // a second buffer that is not a fallback is still refused
    expect(reason(() => inspectGlb(assemble({ ...compressed, buffers: [{ byteLength: 36 }, { byteLength: 36 }] }, triangleBin())))).toBe('too_many_items');
  });

  it('refuses required extensions it cannot read', () => {
    const json = { ...triangleJson(), extensionsUsed: ['KHR_draco_mesh_compression'], extensionsRequired: ['KHR_draco_mesh_compression'] };
    expect(reason(() => inspectGlb(assemble(json, triangleBin())))).toBe('unsupported_extension');
    const ok = { ...triangleJson(), extensionsUsed: ['KHR_mesh_quantization'], extensionsRequired: ['KHR_mesh_quantization'] };
    expect(inspectGlb(assemble(ok, triangleBin())).extensionsRequired).toEqual(['KHR_mesh_quantization']);
  });
});
