import type { EncodedImage } from '../../core/images.ts';
import { FitroomError } from '../../core/errors.ts';
import type { GlbIO } from '../../core/ports/glb-io.ts';
import type { ModelDocument, ModelSource, ModelStage, ModelStageContext, ModelStageOption } from '../../core/ports/model-stage.ts';

/** What the pipeline reports to the job (the running stage's trace entry and the job's diagnostics). */
export interface PipelineJob {
  note(detail: Record<string, unknown>): void;
  diagnostics(patch: Record<string, unknown>): Promise<void>;
}

export interface ModelPipelineOptions {
  /** The job stages model stages may run in, in job order. */
  jobStages: readonly string[];
  /** The request's options that turn stages on. */
  enabled: Record<ModelStageOption, boolean>;
  /** Stages the reconstructor skips (its `skipsStages`). */
  skips: ReadonlySet<string>;
  source: ModelSource;
  quality: 'default' | 'high';
  productType: 'shoe' | 'other';
  maxBytes: number | null;
}

/**
 * One document through the model stages: read once before, written once for storage. Stages run in
 * their bound order, grouped by the job stage they belong to (`run(jobStage)` inside `job.stage`).
 * The GLB bytes are memoised per version of the document: a stage that returns a changed document
 * drops them (unless it hands its own write over), stages that do not change it share them.
 */
export class ModelPipeline {
  private doc: ModelDocument;
  private written: Uint8Array | null = null;
  private readonly stages: readonly ModelStage[];
  private readonly io: GlbIO;
  private readonly opts: ModelPipelineOptions;
  readonly files: { preview?: EncodedImage } = {};

  constructor(doc: ModelDocument, stages: readonly ModelStage[], io: GlbIO, opts: ModelPipelineOptions) {
    let last = -1;
    for (const s of stages) {
      const at = opts.jobStages.indexOf(s.jobStage);
      if (at < 0) throw new FitroomError('INTERNAL_ERROR', `Model stage ${s.name} names job stage "${s.jobStage}", which the shoe-3d job does not have`);
      if (at < last) throw new FitroomError('INTERNAL_ERROR', `Model stage ${s.name} (job stage "${s.jobStage}") is bound after a later job stage`);
      last = at;
    }
    this.doc = doc;
    this.stages = stages;
    this.io = io;
    this.opts = opts;
  }

  /** The job stages with at least one stage the request turned on, in order. */
  jobStages(): string[] {
    return this.opts.jobStages.filter((js) => this.stages.some((s) => s.jobStage === js && this.on(s)));
  }

  /** Runs the stages of one job stage, in order. */
  async run(jobStage: string, signal: AbortSignal, job: PipelineJob): Promise<void> {
    const skipped: string[] = [];
    for (const stage of this.stages) {
      if (stage.jobStage !== jobStage || !this.on(stage)) continue;
      if (this.opts.skips.has(stage.name) && !stage.required) {
        skipped.push(stage.name);
        continue;
      }
      if (signal.aborted) throw signal.reason ?? new Error('aborted');
      const out = await stage.run(this.doc, this.context(signal, job));
      if (out?.doc) {
        this.doc = out.doc;
        this.written = out.glb ?? null;
      }
      if (out?.files?.preview) this.files.preview = out.files.preview;
    }
    // a reconstructor's skipsStages: the stage is named in the trace, with who skipped it
    if (skipped.length) job.note({ skipped, skippedBy: this.opts.source.kind === 'reconstructor' ? this.opts.source.id : 'input' });
  }

  /** The GLB bytes of the document as it is now (written at most once per version). */
  async glb(): Promise<Uint8Array> {
    this.written ??= await this.io.write(this.doc);
    return this.written;
  }

  private on(stage: ModelStage): boolean {
    return !stage.needs || this.opts.enabled[stage.needs];
  }

  private context(signal: AbortSignal, job: PipelineJob): ModelStageContext {
    return {
      signal,
      quality: this.opts.quality,
      productType: this.opts.productType,
      source: this.opts.source,
      maxBytes: this.opts.maxBytes,
      glb: () => this.glb(),
      note: (d) => job.note(d),
      diagnostics: (p) => job.diagnostics(p),
    };
  }
}
