import type { Document } from '@gltf-transform/core';
import type { ImageCodec } from '../../../core/ports/image-codec.ts';
import type { ModelStage, ModelStageContext, ModelStageOutput } from '../../../core/ports/model-stage.ts';
import { refineLogos, type LogoFilter } from './texture-enhance.ts';

/**
 * `options.refineLogo`: a second pass on logo and text regions, projected back like the texture
 * enhancement. Non-fatal: a failure leaves the textures as they were and is recorded
 * (`logoRefinement.status: failed`); only a cancellation or timeout stops the job.
 */
export class RefineLogosStage implements ModelStage {
  readonly name = 'refine-logos';
  readonly jobStage = 'refine logos';
  readonly needs = 'refineLogo' as const;
  readonly #codec: ImageCodec;
  readonly #refine: LogoFilter | undefined;

  constructor(codec: ImageCodec, refine?: LogoFilter) {
    this.#codec = codec;
    this.#refine = refine;
  }

  async run(doc: Document, ctx: ModelStageContext): Promise<ModelStageOutput | void> {
    const views = ctx.quality === 'high' ? 6 : 4;
    const r = await refineLogos(doc, this.#codec, this.#refine, { views, signal: ctx.signal, renderSize: views === 6 ? 1024 : 768 });
    const report = { status: r.status, regions: r.regions, ...(r.errorCode ? { errorCode: r.errorCode } : {}) };
    ctx.note(report);
    await ctx.diagnostics({ logoRefinement: report });
    if (r.status === 'applied') return { doc };
  }
}
