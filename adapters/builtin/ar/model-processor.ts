import { FitroomError } from '../../../core/errors.ts';
import type { ArModelProcessor, AutofitOutcome, ColorPreset } from '../../../core/ports/ar-object-store.ts';
import type { ImageCodec } from '../../../core/ports/image-codec.ts';
import type { EncodedImage } from '../../../core/images.ts';
import { GlbError, inspectGlb } from '../../gltf/inspect-glb.ts';
import type { GlbLimits } from '../../gltf/inspect-glb.ts';
import { autofitShoe } from './autofit.ts';
import { BakeError, bakePreset, listGlbParts } from './bake.ts';
import { glbToUsdz } from './usdz.ts';

/**
 * The builtin AR model processor: defensive GLB inspection, classical autofit, preset baking and
 * USDZ export. Library errors on untrusted models become VALIDATION_ERROR with the reason.
 */
export class BuiltinArModelProcessor implements ArModelProcessor {
  private readonly codec: ImageCodec;
  private readonly limits: Partial<GlbLimits>;
  constructor(codec: ImageCodec, limits: Partial<GlbLimits> = {}) {
    this.codec = codec;
    this.limits = limits;
  }

  inspect(glb: Uint8Array) {
    const s = guard(() => inspectGlb(glb, this.limits));
    return { meshes: s.counts.meshes, nodes: s.counts.nodes, images: s.counts.images, bytes: s.byteLength };
  }

  async autofit(glb: Uint8Array, onProgress?: (fraction: number) => void): Promise<AutofitOutcome> {
    const r = await guardAsync(() => autofitShoe(glb, { limits: this.limits, onProgress: (_stage, f) => onProgress?.(f) }));
    return { glb: r.glb, mirrorGlb: r.mirrorGlb, properties: { ...r.properties } };
  }

  parts(glb: Uint8Array): Promise<string[]> {
    return guardAsync(() => listGlbParts(glb));
  }

  async bake(glb: Uint8Array, preset: ColorPreset | undefined, textures: (name: string) => Promise<EncodedImage | null>, label: string): Promise<Uint8Array> {
    return (await guardAsync(() => bakePreset(glb, preset, textures, label))).glb;
  }

  usdz(glb: Uint8Array): Promise<Uint8Array> {
    return guardAsync(() => glbToUsdz(glb, { codec: this.codec }));
  }
}

function toFitroom(err: unknown): unknown {
  if (err instanceof GlbError) return new FitroomError('VALIDATION_ERROR', 'The file is not a usable GLB', { details: [{ field: 'file', message: err.message }], cause: err });
  if (err instanceof BakeError) return new FitroomError('VALIDATION_ERROR', err.message, { details: [{ field: 'materials', message: err.message }], cause: err });
  const msg = (err as Error)?.message ?? '';
  // gltf-transform and the geometry code reject models they cannot use with plain errors
  if (/no triangle meshes|no surface area|too few triangles|index out of range|Unsupported|Invalid/i.test(msg)) {
    return new FitroomError('VALIDATION_ERROR', `The model cannot be processed: ${msg}`, { details: [{ field: 'file', message: msg }], cause: err });
  }
  return err;
}

function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw toFitroom(err);
  }
}

async function guardAsync<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toFitroom(err);
  }
}
