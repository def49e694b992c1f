import type { Document } from '@gltf-transform/core';
import { token } from '../plugin.ts';

/** What the defensive inspection found in a GLB container. */
export interface GlbSummary {
  bytes: number;
  meshes: number;
  primitives: number;
  images: number;
  nodes: number;
}

/**
 * GlbIO: GLB bytes to and from the glTF document the model stages share. `inspect` checks untrusted
 * bytes (container, JSON, limits) before anything parses them; `read` parses; `write` serializes.
 * The builtin adapter is glTF-Transform with every extension and the meshopt codec
 * (`adapters/builtin/shoe3d/glb-io.ts`).
 */
export interface GlbIO {
  /** Throws an error whose `code` is `invalid_glb` and whose message says why. */
  inspect(bytes: Uint8Array, maxBytes: number): GlbSummary;
  read(bytes: Uint8Array): Promise<Document>;
  write(doc: Document): Promise<Uint8Array>;
}

export const GLB_IO = token<GlbIO>('GlbIO');
