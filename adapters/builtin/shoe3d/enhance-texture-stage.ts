import type { Document } from '@gltf-transform/core';
import type { ImageCodec } from '../../../core/ports/image-codec.ts';
import type { ModelStage, ModelStageContext, ModelStageOutput } from '../../../core/ports/model-stage.ts';
import { enhanceTexture, type ViewFilter } from './texture-enhance.ts';

/**
 * `options.enhanceTexture`: the model rendered from 4 views (6 with `genaiQuality: high`), each
 * render enhanced by `filter` (builtin: classical filters), the changes projected back onto the
 * base colour textures.
 */
export class EnhanceTextureStage implements ModelStage {
  readonly name = 'enhance-texture';
  readonly jobStage = 'enhance texture';
  readonly needs = 'enhanceTexture' as const;
  readonly #codec: ImageCodec;
  readonly #filter: ViewFilter | undefined;

  constructor(codec: ImageCodec, filter?: ViewFilter) {
    this.#codec = codec;
    this.#filter = filter;
  }

  async run(doc: Document, ctx: ModelStageContext): Promise<ModelStageOutput | void> {
    const views = ctx.quality === 'high' ? 6 : 4;
    const r = await enhanceTexture(doc, this.#codec, this.#filter, { views, signal: ctx.signal, renderSize: views === 6 ? 1024 : 768 });
    ctx.note({ views: r.views, texelsChanged: r.texelsChanged });
    if (r.texelsChanged > 0) return { doc };
  }
}
