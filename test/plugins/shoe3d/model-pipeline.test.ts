/**
 * The model pipeline on its own (no database): stages run in their bound order per job stage, the
 * request's options and a reconstructor's skipsStages decide which run, and the document is written
 * at most once per version of it.
 */
import { Document } from '@gltf-transform/core';
import { describe, expect, it } from 'vitest';
import type { GlbIO } from '../../../core/ports/glb-io.ts';
import type { ModelStage, ModelStageContext } from '../../../core/ports/model-stage.ts';
import { ModelPipeline, type ModelPipelineOptions } from '../../../plugins/shoe3d/model-pipeline.ts';

const JOB_STAGES = ['enhance texture', 'refine logos', 'preview', 'store results'];

function fakeIo() {
  const io = { writes: 0, inspect: () => ({ bytes: 0, meshes: 0, primitives: 0, images: 0, nodes: 0 }), read: async () => new Document(), write: async () => new Uint8Array([++io.writes]) };
  return io as typeof io & GlbIO;
}

/** What the pipeline told the job (trace notes, diagnostics). */
function recordingJob() {
  const notes: Record<string, unknown>[] = [];
  const diagnostics: Record<string, unknown>[] = [];
  return { notes, diagnostics, job: { note: (d: Record<string, unknown>) => void notes.push(d), diagnostics: async (p: Record<string, unknown>) => void diagnostics.push(p) } };
}

const options = (o: Partial<ModelPipelineOptions> = {}): ModelPipelineOptions => ({
  jobStages: JOB_STAGES,
  enabled: { enhanceTexture: true, refineLogo: false },
  skips: new Set(),
  source: { kind: 'reconstructor', id: 'builtin' },
  quality: 'default',
  productType: 'shoe',
  maxBytes: null,
  ...o,
});

/** A stage that logs its run and what it saw of the document's bytes. */
function stage(name: string, jobStage: string, run: (doc: Document, ctx: ModelStageContext, log: string[]) => Promise<any>, extra: Partial<ModelStage> = {}): ModelStage & { log: string[] } {
  const log: string[] = [];
  return { name, jobStage, ...extra, log, run: (doc, ctx) => run(doc, ctx, log) };
}

describe('ModelPipeline', () => {
  it('runs the stages turned on, in order, and writes the document once per version', async () => {
    const io = fakeIo();
    const order: string[] = [];
    const enhance = stage('enhance-texture', 'enhance texture', async (doc) => (order.push('enhance'), { doc }), { needs: 'enhanceTexture' });
    const refine = stage('refine-logos', 'refine logos', async (doc) => (order.push('refine'), { doc }), { needs: 'refineLogo' });
    const preview = stage('preview-grid', 'preview', async () => (order.push('preview'), { files: { preview: { bytes: new Uint8Array([1]), contentType: 'image/png' } } }));
    const validate = stage('validate', 'store results', async (_d, ctx, log) => { order.push('validate'); log.push(String((await ctx.glb())[0])); }, { required: true });
    const check = stage('check', 'store results', async (_d, ctx, log) => { order.push('check'); log.push(String((await ctx.glb())[0])); });
    const p = new ModelPipeline(new Document(), [enhance, refine, preview, validate, check], io, options());
    expect(p.jobStages()).toEqual(['enhance texture', 'preview', 'store results']);
    const { job } = recordingJob();
    for (const js of p.jobStages()) await p.run(js, new AbortController().signal, job);
    expect(order).toEqual(['enhance', 'preview', 'validate', 'check']);
    // validation wrote the document once; the check and storage read the same bytes
    expect(validate.log).toEqual(['1']);
    expect(check.log).toEqual(['1']);
    expect((await p.glb())[0]).toBe(1);
    expect(io.writes).toBe(1);
    expect(p.files.preview?.contentType).toBe('image/png');
  });

  it('drops bytes written before a stage that changes the document, unless it hands its own over', async () => {
    const io = fakeIo();
    const before = stage('before', 'preview', async (_d, ctx) => void (await ctx.glb()));
    const change = stage('change', 'store results', async (doc) => ({ doc }));
    const replace = stage('replace', 'store results', async () => ({ doc: new Document(), glb: new Uint8Array([42]) }));
    const p = new ModelPipeline(new Document(), [before, change], io, options());
    const { job } = recordingJob();
    await p.run('preview', new AbortController().signal, job);
    await p.run('store results', new AbortController().signal, job);
    expect((await p.glb())[0]).toBe(2);
    const q = new ModelPipeline(new Document(), [before, replace], fakeIo(), options());
    await q.run('preview', new AbortController().signal, job);
    await q.run('store results', new AbortController().signal, job);
    expect((await q.glb())[0]).toBe(42);
  });

  it('skips what the reconstructor skips, except required stages, and says so in the trace', async () => {
    const ran: string[] = [];
    const enhance = stage('enhance-texture', 'enhance texture', async () => void ran.push('enhance'), { needs: 'enhanceTexture' });
    const validate = stage('validate', 'store results', async () => void ran.push('validate'), { required: true });
    const p = new ModelPipeline(new Document(), [enhance, validate], fakeIo(), options({ skips: new Set(['enhance-texture', 'validate']), source: { kind: 'reconstructor', id: 'tripo' } }));
    const { job, notes } = recordingJob();
    expect(p.jobStages()).toEqual(['enhance texture', 'store results']);
    await p.run('enhance texture', new AbortController().signal, job);
    await p.run('store results', new AbortController().signal, job);
    expect(ran).toEqual(['validate']);
    expect(notes).toEqual([{ skipped: ['enhance-texture'], skippedBy: 'tripo' }]);
  });

  it("refuses stages bound to a job stage the job does not have, or out of the job's order", () => {
    const noop = async () => undefined;
    expect(() => new ModelPipeline(new Document(), [stage('x', 'polish', noop)], fakeIo(), options())).toThrow(/job stage "polish"/);
    expect(() => new ModelPipeline(new Document(), [stage('a', 'preview', noop), stage('b', 'enhance texture', noop)], fakeIo(), options())).toThrow(/bound after a later job stage/);
  });
});
