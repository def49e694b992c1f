import type { Document, Material, Node, Texture } from '@gltf-transform/core';
import { prune } from '@gltf-transform/functions';
import type { EncodedImage } from '../../../core/images.ts';
import { readGlb, writeGlb } from './gltf-io.ts';
import { colorToLinear, resolvePreset } from './materials.ts';
import type { ColorPreset, PartDecision, PartMaterial } from './materials.ts';
import { partName } from './surface.ts';

/** Finds an uploaded texture of the object by name; null when there is none. */
export type TextureSource = (name: string) => Promise<EncodedImage | null>;

export class BakeError extends Error {
  readonly code = 'bake_failed';
  constructor(message: string) {
    super(message);
    this.name = 'BakeError';
  }
}

/** Names of the mesh nodes (parts) of a GLB, in scene order. */
export async function listGlbParts(glb: Uint8Array): Promise<string[]> {
  const { doc } = await readGlb(glb);
  return meshNodes(doc).map(partName);
}

function meshNodes(doc: Document): Node[] {
  const scene = doc.getRoot().getDefaultScene() ?? doc.getRoot().listScenes()[0];
  const nodes: Node[] = [];
  scene?.traverse((n) => {
    if (n.getMesh()) nodes.push(n);
  });
  return nodes;
}

/**
 * Writes a colour preset into a new GLB: dropped parts are removed, payload materials replace the
 * embedded ones (a new glTF material per part), parts kept as embedded stay untouched.
 */
export async function bakePreset(glb: Uint8Array, preset: ColorPreset | undefined, textures: TextureSource, label = 'preset'): Promise<{ glb: Uint8Array; decisions: PartDecision[] }> {
  const { doc } = await readGlb(glb);
  const nodes = meshNodes(doc);
  const decisions = resolvePreset(nodes.map(partName), preset);
  const textureCache = new Map<string, Texture>();
  const loadTexture = async (name: string, srgb: boolean): Promise<Texture> => {
    const key = `${name}|${srgb}`;
    let t = textureCache.get(key);
    if (!t) {
      const image = await textures(name);
      if (!image) throw new BakeError(`texture ${name} was not uploaded for this object`);
      t = doc.createTexture(name).setImage(image.bytes).setMimeType(image.contentType);
      textureCache.set(key, t);
    }
    return t;
  };
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    const decision = decisions[i];
    if (!decision.include) {
      node.setMesh(null);
      if (node.listChildren().length === 0) node.dispose();
      continue;
    }
    if (decision.source === 'embedded') continue;
    const material = await buildMaterial(doc, `${label}:${decision.part}`, decision.material, node, loadTexture);
    // Meshes and primitives shared with other nodes are copied so the new material stays on this part.
    let mesh = node.getMesh()!;
    if (mesh.listParents().filter((p) => p.propertyType === 'Node').length > 1) {
      mesh = mesh.clone();
      node.setMesh(mesh);
    }
    for (const prim of mesh.listPrimitives()) {
      const target = prim.listParents().filter((p) => p.propertyType === 'Mesh').length > 1 ? prim.clone() : prim;
      if (target !== prim) mesh.removePrimitive(prim).addPrimitive(target);
      target.setMaterial(material);
    }
  }
  await doc.transform(prune({ keepAttributes: true, keepExtras: true, keepSolidTextures: true }));
  return { glb: await writeGlb(doc), decisions };
}

async function buildMaterial(
  doc: Document,
  name: string,
  spec: PartMaterial,
  node: Node,
  loadTexture: (name: string, srgb: boolean) => Promise<Texture>,
): Promise<Material> {
  // Start from the embedded material so unspecified values (and UV layout) carry over.
  const embedded = node.getMesh()?.listPrimitives()[0]?.getMaterial();
  const mat = embedded ? embedded.clone().setName(name) : doc.createMaterial(name);
  if (spec.baseColor !== undefined) {
    const c = colorToLinear(spec.baseColor);
    mat.setBaseColorFactor([c[0], c[1], c[2], spec.opacity ?? c[3]]);
    // a plain colour replaces the embedded texture unless a texture is given too
    if (spec.baseColorTexture === undefined) mat.setBaseColorTexture(null);
  } else if (spec.opacity !== undefined) {
    const c = mat.getBaseColorFactor();
    mat.setBaseColorFactor([c[0], c[1], c[2], spec.opacity]);
  }
  if (spec.metallic !== undefined) mat.setMetallicFactor(spec.metallic);
  if (spec.roughness !== undefined) mat.setRoughnessFactor(spec.roughness);
  if (spec.emissive !== undefined) {
    const e = colorToLinear(spec.emissive);
    mat.setEmissiveFactor([e[0], e[1], e[2]]);
  }
  if (spec.doubleSided !== undefined) mat.setDoubleSided(spec.doubleSided);
  if (mat.getBaseColorFactor()[3] < 1) mat.setAlphaMode('BLEND');
  else if (mat.getAlphaMode() === 'BLEND') mat.setAlphaMode('OPAQUE');
  if (spec.baseColorTexture) mat.setBaseColorTexture(await loadTexture(spec.baseColorTexture, true));
  if (spec.normalTexture) mat.setNormalTexture(await loadTexture(spec.normalTexture, false));
  if (spec.metallicRoughnessTexture) mat.setMetallicRoughnessTexture(await loadTexture(spec.metallicRoughnessTexture, false));
  return mat;
}
