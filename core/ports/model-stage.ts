import type { Document } from '@gltf-transform/core';
import type { EncodedImage } from '../images.ts';
import { token } from '../plugin.ts';

/**
 * Terminology of the shoe-3d model pipeline.
 * - Document: the parsed glTF model (glTF-Transform's `Document`), read once from the reconstructor's
 *   or the request's GLB and passed from stage to stage; GLB bytes are written once, for storage.
 * - Model stage: one step on the document (texture enhancement, logo refinement, preview grid,
 *   validation, compression), a small module with a name, the option it needs and `run(doc, ctx)`.
 * - Job stage: the step of the shoe-3d job a model stage is recorded under in the trace and progress
 *   (`enhance texture`, `refine logos`, `preview`, `store results`); several model stages may share one.
 */

/** The parsed model the stages share (glTF-Transform's document; core code only passes it on). */
export type ModelDocument = Document;

/** The request options a model stage may need turned on. */
export type ModelStageOption = 'enhanceTexture' | 'refineLogo';

/** Where the document came from: a reconstructor (by id) or the request's `glbInput`. */
export type ModelSource = { kind: 'reconstructor'; id: string } | { kind: 'glbInput' };

export interface ModelStageContext {
  readonly signal: AbortSignal;
  /** `default`: 4 texture views; `high`: 6. */
  readonly quality: 'default' | 'high';
  readonly productType: 'shoe' | 'other';
  readonly source: ModelSource;
  /** Byte budget of the stored GLB (uploads to the AR library), or null for none. */
  readonly maxBytes: number | null;
  /**
   * The document as GLB bytes. Written at most once per version of the document: stages that do not
   * change it (validation, then storage) share one write.
   */
  glb(): Promise<Uint8Array>;
  /** Adds facts to the job stage's trace entry. */
  note(detail: Record<string, unknown>): void;
  /** Stores diagnostics on the job (the trace's `diagnostics`). */
  diagnostics(patch: Record<string, unknown>): Promise<void>;
}

export interface ModelStageOutput {
  /**
   * The document after the stage, when the stage changed it: the same object (changed in place) or
   * a new one (compression works on a copy). Absent: unchanged, and bytes written before stay valid.
   */
  doc?: Document;
  /** The GLB bytes of `doc` when the stage wrote them anyway (compression), so they are not written again. */
  glb?: Uint8Array;
  /** Files made beside the model and stored with the result: `preview` (PNG) becomes `previewGrid`. */
  files?: { preview?: EncodedImage };
}

/**
 * ModelStage: one step of the shoe-3d model pipeline. Stages run in the order they are bound
 * (MODEL_STAGES), each given the one document; the builtin ones are in `adapters/builtin/shoe3d/*-stage.ts`,
 * bound in order by the composition root. Throw a FitroomError to fail the job.
 */
export interface ModelStage {
  /** Short id, used in notes and in a reconstructor's `skipsStages` (`enhance-texture`). */
  readonly name: string;
  /** The job stage it runs in: its trace entry and progress. */
  readonly jobStage: string;
  /** The request option that turns it on; absent: it always runs. */
  readonly needs?: ModelStageOption;
  /** Runs even when a reconstructor's `skipsStages` names it (validation). */
  readonly required?: boolean;
  run(doc: Document, ctx: ModelStageContext): Promise<ModelStageOutput | void>;
}

/** The model stages in the order they run. */
export const MODEL_STAGES = token<readonly ModelStage[]>('ModelStages');
