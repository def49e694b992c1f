import type { Document } from '@gltf-transform/core';
import { FitroomError } from '../../../core/errors.ts';
import type { ModelStage, ModelStageContext } from '../../../core/ports/model-stage.ts';
import { validateGlb } from './validate-glb.ts';

/**
 * The Khronos glTF validator on the model as it will be stored (before compression, whose meshopt
 * buffers the validator cannot read): any error fails the job. A `glbInput` that fails is the
 * request's fault (VALIDATION_ERROR); a reconstructor's model that fails is ours (INTERNAL_ERROR).
 * Its write of the document is the one storage reuses when nothing changes after it.
 */
export class ValidateStage implements ModelStage {
  readonly name = 'validate';
  readonly jobStage = 'store results';
  readonly required = true;

  async run(_doc: Document, ctx: ModelStageContext): Promise<void> {
    const report = await validateGlb(await ctx.glb());
    const summary = { errors: report.errors, warnings: report.warnings, ...(report.messages.length ? { messages: report.messages.slice(0, 3) } : {}) };
    ctx.note({ validation: summary });
    await ctx.diagnostics({ validation: summary });
    if (report.errors === 0) return;
    const first = report.messages[0] ?? 'see the trace';
    if (ctx.source.kind === 'glbInput') {
      throw new FitroomError('VALIDATION_ERROR', `glbInput fails glTF validation: ${first}`, { details: [{ field: 'glbInput', message: `fails glTF validation: ${first}` }] });
    }
    throw new FitroomError('INTERNAL_ERROR', `The ${ctx.source.id} reconstructor made a model that fails glTF validation (${first})`);
  }
}
