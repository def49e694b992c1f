import { Logger, NodeIO, type Document, type Node, type Texture } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { MeshoptDecoder, MeshoptEncoder } from 'meshoptimizer';
import type { RasterImage } from '../../../core/images.ts';
import type { DecodeLimits, ImageCodec } from '../../../core/ports/image-codec.ts';
import type { RenderMesh } from '../../gltf/render.ts';

let io: Promise<NodeIO> | null = null;

/** One glTF-Transform I/O with every extension and the meshopt codec registered. */
export function gltfIO(): Promise<NodeIO> {
  io ??= (async () => {
    await MeshoptDecoder.ready;
    await MeshoptEncoder.ready;
    return new NodeIO().registerExtensions(ALL_EXTENSIONS).registerDependencies({
      'meshopt.decoder': MeshoptDecoder,
      'meshopt.encoder': MeshoptEncoder,
    });
  })();
  return io;
}

/** Transforms log at info level; only warnings and errors matter in a service. */
export const quietLogger = new Logger(Logger.Verbosity.WARN);

export async function readGlbDocument(glb: Uint8Array): Promise<Document> {
  return (await gltfIO()).readBinary(glb).then((doc) => doc.setLogger(quietLogger));
}

/** A primitive ready for the rasterizer, with the glTF texture its base colour came from. */
export interface GlbPrimitive extends RenderMesh {
  textureRef?: Texture;
}

/** Largest texture decoded (width * height): 8192 x 8192. */
const TEXTURE_MAX_PIXELS = 8192 * 8192;

export interface PrimitiveOptions {
  /** Textures are decoded no larger than this on either side (renders that do not write them back). */
  maxTextureSide?: number;
}

/**
 * The triangle primitives of a document in world space (node transforms applied), each with its
 * base colour texture decoded by the codec and its base colour factor, ready for the software
 * rasterizer. Textures that cannot be decoded are left out (the factor colours the primitive).
 */
export function documentPrimitives(doc: Document, codec: ImageCodec, opts: PrimitiveOptions = {}): Promise<GlbPrimitive[]> {
  const limits: DecodeLimits = { maxPixels: TEXTURE_MAX_PIXELS, ...(opts.maxTextureSide ? { maxSide: opts.maxTextureSide } : {}) };
  return collectPrimitives(doc, (bytes) => codec.decode(bytes, limits));
}

/** The primitives of GLB bytes, for tools and tests that hold bytes (the pipeline passes documents). */
export async function readGlbMeshes(glb: Uint8Array, codec: ImageCodec): Promise<GlbPrimitive[]> {
  return documentPrimitives(await readGlbDocument(glb), codec);
}

async function collectPrimitives(doc: Document, decode: (bytes: Uint8Array) => Promise<RasterImage>): Promise<GlbPrimitive[]> {
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
          pending = decode(tex.getImage()!).catch(() => undefined);
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
