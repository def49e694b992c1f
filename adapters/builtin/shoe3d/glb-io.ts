import type { Document } from '@gltf-transform/core';
import type { GlbIO, GlbSummary } from '../../../core/ports/glb-io.ts';
import { inspectGlb } from '../../gltf/inspect-glb.ts';
import { gltfIO, readGlbDocument } from './read-glb.ts';

/**
 * GlbIO with glTF-Transform (every extension, the meshopt codec): the defensive inspection of
 * `adapters/gltf/inspect-glb.ts`, then parsing and writing.
 */
export class GltfTransformGlbIO implements GlbIO {
  inspect(bytes: Uint8Array, maxBytes: number): GlbSummary {
    const s = inspectGlb(bytes, { maxBytes });
    return { bytes: s.byteLength, meshes: s.counts.meshes, primitives: s.counts.primitives, images: s.counts.images, nodes: s.counts.nodes };
  }

  read(bytes: Uint8Array): Promise<Document> {
    return readGlbDocument(bytes);
  }

  async write(doc: Document): Promise<Uint8Array> {
    return (await gltfIO()).writeBinary(doc);
  }
}
