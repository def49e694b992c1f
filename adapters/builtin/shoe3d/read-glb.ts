import { NodeIO, type Document, type Node, type Texture } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { MeshoptDecoder, MeshoptEncoder } from 'meshoptimizer';
import type { RasterImage } from '../../../core/images.ts';
import type { RenderMesh } from '../../gltf/render.ts';
import { decodeRaster } from './encode.ts';

/** glTF-Transform I/O with every extension and the meshopt codec registered. */
export async function gltfIO(): Promise<NodeIO> {
  await MeshoptDecoder.ready;
  await MeshoptEncoder.ready;
  return new NodeIO().registerExtensions(ALL_EXTENSIONS).registerDependencies({
    'meshopt.decoder': MeshoptDecoder,
    'meshopt.encoder': MeshoptEncoder,
  });
}

export async function readGlbDocument(glb: Uint8Array): Promise<Document> {
  return (await gltfIO()).readBinary(glb);
}

/** A primitive ready for the rasterizer, with the glTF texture its base colour came from. */
export interface GlbPrimitive extends RenderMesh {
  textureRef?: Texture;
}

/**
 * The triangle primitives of a GLB in world space (node transforms applied), each with its base
 * colour texture decoded and its base colour factor, ready for the software rasterizer.
 */
export async function readGlbMeshes(glb: Uint8Array): Promise<GlbPrimitive[]> {
  return collectPrimitives(await readGlbDocument(glb));
}

/** The document and its primitives, for edits that write textures back. */
export async function readGlbScene(glb: Uint8Array): Promise<{ doc: Document; primitives: GlbPrimitive[] }> {
  const doc = await readGlbDocument(glb);
  return { doc, primitives: await collectPrimitives(doc) };
}

async function collectPrimitives(doc: Document): Promise<GlbPrimitive[]> {
  const out: GlbPrimitive[] = [];
  const textures = new Map<object, Promise<RasterImage | undefined>>();
  const scene = doc.getRoot().getDefaultScene() ?? doc.getRoot().listScenes()[0];
  if (!scene) return out;
  const nodes: Node[] = [];
  scene.traverse((n) => { nodes.push(n); });
  for (const node of nodes) {
    const mesh = node.getMesh();
    if (!mesh) continue;
    const m = node.getWorldMatrix();
    for (const prim of mesh.listPrimitives()) {
      if (prim.getMode() !== 4) continue; // triangles only
      const posAcc = prim.getAttribute('POSITION');
      if (!posAcc) continue;
      const count = posAcc.getCount();
      const positions = new Float32Array(count * 3);
      const el: number[] = [0, 0, 0];
      for (let i = 0; i < count; i++) {
        posAcc.getElement(i, el);
        positions[i * 3] = m[0] * el[0] + m[4] * el[1] + m[8] * el[2] + m[12];
        positions[i * 3 + 1] = m[1] * el[0] + m[5] * el[1] + m[9] * el[2] + m[13];
        positions[i * 3 + 2] = m[2] * el[0] + m[6] * el[1] + m[10] * el[2] + m[14];
      }
      const idxAcc = prim.getIndices();
      const indices = idxAcc ? Uint32Array.from(idxAcc.getArray() as ArrayLike<number>) : Uint32Array.from({ length: count }, (_, i) => i);
      let normals: Float32Array | undefined;
      const nAcc = prim.getAttribute('NORMAL');
      if (nAcc) {
        normals = new Float32Array(count * 3);
        for (let i = 0; i < count; i++) {
          nAcc.getElement(i, el);
          const x = m[0] * el[0] + m[4] * el[1] + m[8] * el[2];
          const y = m[1] * el[0] + m[5] * el[1] + m[9] * el[2];
          const z = m[2] * el[0] + m[6] * el[1] + m[10] * el[2];
          const l = Math.hypot(x, y, z) || 1;
          normals[i * 3] = x / l; normals[i * 3 + 1] = y / l; normals[i * 3 + 2] = z / l;
        }
      }
      const material = prim.getMaterial();
      const factor = material?.getBaseColorFactor() ?? [1, 1, 1, 1];
      const rm: GlbPrimitive = { positions, indices, normals, baseColor: [factor[0], factor[1], factor[2]] };
      const tex = material?.getBaseColorTexture();
      const info = material?.getBaseColorTextureInfo();
      const uvAcc = prim.getAttribute(`TEXCOORD_${info?.getTexCoord() ?? 0}`);
      if (tex && uvAcc && tex.getImage()) {
        let pending = textures.get(tex);
        if (!pending) {
          pending = decodeRaster(tex.getImage()!).catch(() => undefined);
          textures.set(tex, pending);
        }
        const decoded = await pending;
        if (decoded) {
          const uvs = new Float32Array(count * 2);
          const e2: number[] = [0, 0];
          for (let i = 0; i < count; i++) {
            uvAcc.getElement(i, e2);
            uvs[i * 2] = e2[0];
            uvs[i * 2 + 1] = e2[1];
          }
          rm.uvs = uvs;
          rm.texture = decoded;
          rm.textureRef = tex;
        }
      }
      out.push(rm);
    }
  }
  return out;
}
