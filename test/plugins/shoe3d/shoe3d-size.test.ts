import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Document } from '@gltf-transform/core';
import { KHRTextureBasisu } from '@gltf-transform/extensions';
import { gltfIO } from '../../../adapters/builtin/shoe3d/read-glb.ts';
import type { TestService } from '../../support/harness.ts';
import { rng } from '../../support/products.ts';
import { download, followJob, shoeGlb, startShoe3dService, uploadGlb } from './helpers.ts';

let svc: TestService;
let key: string;
const MB = 1024 * 1024;

beforeAll(async () => {
  svc = await startShoe3dService();
  key = (await svc.createKey()).key;
});
afterAll(async () => {
  await svc?.close();
});

const upload = (bytes: Uint8Array) => uploadGlb(svc, key, bytes);

/** A GLB whose only texture is KTX2 (already GPU-compressed): nothing can shrink its 25 MB. */
async function incompressibleGlb(): Promise<Uint8Array> {
  const doc = new Document();
  doc.createExtension(KHRTextureBasisu).setRequired(true);
  const buf = doc.createBuffer();
  const r = rng(3);
  const bytes = new Uint8Array(25 * MB);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (r() * 256) | 0;
  bytes.set([0xab, 0x4b, 0x54, 0x58, 0x20, 0x32, 0x30, 0xbb, 0x0d, 0x0a, 0x1a, 0x0a]); // KTX 20 identifier
  const tex = doc.createTexture('ktx2').setImage(bytes).setMimeType('image/ktx2');
  const prim = doc.createPrimitive()
    .setAttribute('POSITION', doc.createAccessor().setType('VEC3').setArray(new Float32Array([0, 0, 0, 0.3, 0, 0, 0, 0.1, 0])).setBuffer(buf))
    .setAttribute('TEXCOORD_0', doc.createAccessor().setType('VEC2').setArray(new Float32Array([0, 0, 1, 0, 0, 1])).setBuffer(buf))
    .setMaterial(doc.createMaterial().setBaseColorTexture(tex));
  doc.createScene().addChild(doc.createNode().setMesh(doc.createMesh().addPrimitive(prim)));
  return (await gltfIO()).writeBinary(doc);
}

describe('the 20 MB rule of uploadToService', () => {
  it('compresses a 24 MB model below 20 MB (WebP, meshopt) before it becomes an AR object', async () => {
    const big = await shoeGlb(2800, true);
    expect(big.byteLength).toBeGreaterThan(20 * MB);
    const up = await upload(big);
    expect(up.status).toBe(200);
    const sub = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images: [], glbInput: up.body.url, options: { uploadToService: true } } });
    const { job } = await followJob(svc, key, sub.body.jobId, 90_000);
    expect(job.status).toBe('completed');
    const glb = await download(job.result.glbUrl);
    expect(glb.bytes.byteLength).toBeLessThanOrEqual(20 * MB);
    const json = new TextDecoder().decode(glb.bytes.subarray(20, 4000));
    expect(json).toContain('EXT_texture_webp');
    expect(json).toContain('EXT_meshopt_compression');
    const d = (await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}/trace`, { key })).body.diagnostics;
    // before: the model as the pipeline wrote it for validation (the input re-serialized, a few bytes of JSON apart)
    expect(Math.abs(d.compression.before - big.byteLength)).toBeLessThan(1024);
    expect(d.validation).toMatchObject({ errors: 0 });
    expect(d.compression.after).toBe(glb.bytes.byteLength);
    expect(job.result.arObject.id).toMatch(/^[0-9a-f]{24}$/);
  });

  it('fails with file_too_large when compression cannot reach 20 MB', async () => {
    const up = await upload(await incompressibleGlb());
    expect(up.status).toBe(200);
    const sub = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images: [], glbInput: up.body.url, options: { uploadToService: true } } });
    const { job } = await followJob(svc, key, sub.body.jobId, 90_000);
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/^file_too_large: /);
  });
});
