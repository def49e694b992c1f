import type { Document } from '@gltf-transform/core';
import type { ImageCodec } from '../../../core/ports/image-codec.ts';
import type { ModelStage, ModelStageOutput } from '../../../core/ports/model-stage.ts';
import { previewGrid } from './preview-grid.ts';

/** The result's `previewGrid`: the model as it will be stored, from six angles (PNG). */
export class PreviewGridStage implements ModelStage {
  readonly name = 'preview-grid';
  readonly jobStage = 'preview';
  readonly #codec: ImageCodec;

  constructor(codec: ImageCodec) {
    this.#codec = codec;
  }

  async run(doc: Document): Promise<ModelStageOutput> {
    return { files: { preview: await previewGrid(doc, this.#codec) } };
  }
}
