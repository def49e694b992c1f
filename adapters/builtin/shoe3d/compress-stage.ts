import type { Document } from '@gltf-transform/core';
import type { GlbIO } from '../../../core/ports/glb-io.ts';
import type { ImageCodec } from '../../../core/ports/image-codec.ts';
import type { ModelStage, ModelStageContext, ModelStageOutput } from '../../../core/ports/model-stage.ts';
import { compressDocument } from './compress-glb.ts';

/**
 * Fits the model into the byte budget (uploads to the AR library: 20 MB) when it is larger: WebP
 * textures through the codec, meshopt geometry, and as a last resort simplified geometry. Returns
 * the smallest model tried with its bytes; whether that fits is the job's rule (`file_too_large`).
 */
export class CompressStage implements ModelStage {
  readonly name = 'compress';
  readonly jobStage = 'store results';
  readonly #codec: ImageCodec;
  readonly #io: GlbIO;

  constructor(codec: ImageCodec, io: GlbIO) {
    this.#codec = codec;
    this.#io = io;
  }

  async run(doc: Document, ctx: ModelStageContext): Promise<ModelStageOutput | void> {
    if (ctx.maxBytes === null) return;
    const glb = await ctx.glb();
    if (glb.byteLength <= ctx.maxBytes) return;
    const c = await compressDocument(doc, glb, this.#codec, (d) => this.#io.write(d), { maxBytes: ctx.maxBytes, signal: ctx.signal });
    ctx.note({ compression: c.steps, bytes: c.bytes });
    await ctx.diagnostics({ compression: { before: glb.byteLength, after: c.bytes, steps: c.steps } });
    return { doc: c.doc, glb: c.glb };
  }
}
