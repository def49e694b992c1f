import { Document, NodeIO } from '@gltf-transform/core';
import type { EncodedImage } from '../../core/images.ts';

/** A single textured triangle mesh with a metallic-roughness PBR material. */
export interface TexturedMesh {
  /** xyz per vertex, metres, Y up. */
  positions: Float32Array;
  /** Unit normals per vertex. */
  normals: Float32Array;
  /** uv per vertex (glTF convention, v down the image). */
  uvs: Float32Array;
  indices: Uint32Array;
  /** Base colour texture (PNG, JPEG or WebP bytes). */
  baseColor: EncodedImage;
  name?: string;
  metallic?: number;
  roughness?: number;
  /** Extra facts stored in the asset's `extras` (generator notes, scale source). */
  extras?: Record<string, unknown>;
}

/** Writes a binary glTF 2.0 (GLB) with glTF-Transform: one node, one primitive, one PBR material. */
export async function writeGlb(mesh: TexturedMesh): Promise<Uint8Array> {
  const doc = new Document();
  doc.getRoot().getAsset().generator = 'Fitroom builtin reconstruction';
  if (mesh.extras) doc.getRoot().getAsset().extras = mesh.extras;
  const buffer = doc.createBuffer('geometry');
  const position = doc.createAccessor('POSITION').setType('VEC3').setArray(new Float32Array(mesh.positions)).setBuffer(buffer);
  const normal = doc.createAccessor('NORMAL').setType('VEC3').setArray(unitNormals(mesh.normals)).setBuffer(buffer);
  const uv = doc.createAccessor('TEXCOORD_0').setType('VEC2').setArray(new Float32Array(mesh.uvs)).setBuffer(buffer);
  const vertexCount = mesh.positions.length / 3;
  const indexArray = vertexCount <= 65535 ? Uint16Array.from(mesh.indices) : Uint32Array.from(mesh.indices);
  const indices = doc.createAccessor('indices').setType('SCALAR').setArray(indexArray).setBuffer(buffer);
  const texture = doc.createTexture('baseColor').setImage(mesh.baseColor.bytes).setMimeType(mesh.baseColor.contentType);
  const material = doc.createMaterial(mesh.name ?? 'product')
    .setBaseColorTexture(texture)
    .setBaseColorFactor([1, 1, 1, 1])
    .setMetallicFactor(mesh.metallic ?? 0)
    .setRoughnessFactor(mesh.roughness ?? 0.8);
  const prim = doc.createPrimitive()
    .setAttribute('POSITION', position)
    .setAttribute('NORMAL', normal)
    .setAttribute('TEXCOORD_0', uv)
    .setIndices(indices)
    .setMaterial(material);
  const gltfMesh = doc.createMesh(mesh.name ?? 'product').addPrimitive(prim);
  const node = doc.createNode(mesh.name ?? 'product').setMesh(gltfMesh);
  doc.createScene('scene').addChild(node);
  doc.getRoot().setDefaultScene(doc.getRoot().listScenes()[0]);
  return new NodeIO().writeBinary(doc);
}

/** glTF requires unit normals: renormalise, and give zero vectors (degenerate faces only) +Y. */
function unitNormals(normals: Float32Array): Float32Array<ArrayBuffer> {
  const out = new Float32Array(normals.length);
  for (let i = 0; i < normals.length; i += 3) {
    const l = Math.hypot(normals[i], normals[i + 1], normals[i + 2]);
    if (l > 1e-12) { out[i] = normals[i] / l; out[i + 1] = normals[i + 1] / l; out[i + 2] = normals[i + 2] / l; }
    else out[i + 1] = 1;
  }
  return out;
}
