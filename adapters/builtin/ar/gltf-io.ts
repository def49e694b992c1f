import { Logger, NodeIO } from '@gltf-transform/core';
import type { Document } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { MeshoptDecoder, MeshoptEncoder } from 'meshoptimizer';
import { inspectGlb } from '../../gltf/inspect-glb.ts';
import type { GlbLimits, GlbSummary } from '../../gltf/inspect-glb.ts';

let io: Promise<NodeIO> | null = null;
/** Transforms log at info level; only warnings and errors matter in a service. */
export const quietLogger = new Logger(Logger.Verbosity.WARN);

/** One NodeIO with every extension gltf-transform knows and the meshopt codec. */
export function gltfIO(): Promise<NodeIO> {
  io ??= (async () => {
    await MeshoptDecoder.ready;
    await MeshoptEncoder.ready;
    return new NodeIO()
      .registerExtensions(ALL_EXTENSIONS)
      .registerDependencies({ 'meshopt.decoder': MeshoptDecoder, 'meshopt.encoder': MeshoptEncoder });
  })();
  return io;
}

/** Reads an untrusted GLB: the container is checked by inspectGlb before gltf-transform parses it. */
export async function readGlb(bytes: Uint8Array, limits?: Partial<GlbLimits>): Promise<{ doc: Document; summary: GlbSummary }> {
  const summary = inspectGlb(bytes, limits);
  const doc = await (await gltfIO()).readBinary(bytes);
  doc.setLogger(quietLogger);
  return { doc, summary };
}

export async function writeGlb(doc: Document): Promise<Uint8Array> {
  return await (await gltfIO()).writeBinary(doc);
}
