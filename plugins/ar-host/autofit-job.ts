import type { JobKind } from '../../core/jobs.ts';
import { FitroomError, isFitroomError } from '../../core/errors.ts';
import type { ArModelProcessor } from '../../core/ports/ar-object-store.ts';
import type { ArObjectService, AutofitJobInput } from './object-service.ts';
import { AUTOFIT_JOB } from './object-service.ts';

/**
 * Autofit as a queued job. The AR object's own status follows the spec's autofit statuses:
 * in_queue → in_progress (loading, aligning) → exporting (writing the aligned and mirrored GLB and
 * the default colour's files) → finished, or failed with a short cause. Autofit is deterministic,
 * so a failure is final (one attempt); a worker shutdown releases the job and it runs again.
 */
export function autofitJobKind(objects: ArObjectService, models: ArModelProcessor): JobKind<AutofitJobInput> {
  return {
    name: AUTOFIT_JOB,
    progress: 'number',
    stages: [
      { name: 'load model', status: 'processing', progress: 5 },
      { name: 'align', status: 'processing', progress: 15 },
      { name: 'export', status: 'uploading', progress: 70 },
    ],
    maxAttempts: 1,
    estimatedSeconds: 15,
    async run(job) {
      const { objectId, colorId, sourceKey } = job.input;
      let progress = 0;
      const report = async (status: 'in_progress' | 'exporting', pct: number) => {
        progress = pct;
        await objects.setAutofit(objectId, colorId, status, pct);
        await job.progress(pct);
      };
      try {
        const bytes = await job.stage('load model', async () => {
          await report('in_progress', 5);
          const b = await objects.readBlob(sourceKey);
          if (!b) throw new FitroomError('VALIDATION_ERROR', 'The uploaded model is no longer stored');
          return b;
        });
        const fitted = await job.stage('align', async () => {
          await report('in_progress', 15);
          const out = await models.autofit(bytes);
          job.note({ side: out.properties.side, unitsGuess: out.properties.unitsGuess, dimensions: out.properties.dimensions });
          await report('in_progress', 60);
          return out;
        }, { timeoutMs: 5 * 60_000 });
        await job.stage('export', async () => {
          await report('exporting', 70);
          await objects.recordAutofit(objectId, fitted.glb, fitted.mirrorGlb, { ...fitted.properties, autofit: { finishedAt: new Date().toISOString() } });
          await report('exporting', 80);
          // The default colour's files, so the first viewer and AR Quick Look open at once.
          const o = await objects.get(objectId);
          await objects.glb(o, colorId, false);
          await objects.glb(await objects.get(objectId), colorId, true);
          await report('exporting', 90);
          await objects.usdz(await objects.get(objectId), colorId, false);
        });
        await objects.setAutofit(objectId, colorId, 'finished', 100);
        return { result: { objectId, colorId, status: 'finished' } };
      } catch (err) {
        // released by a worker shutdown: the job runs again, the object stays in progress
        if (!job.signal.aborted) {
          const cause = isFitroomError(err) ? [err.message, ...(err.details ?? []).map((d) => d.message)].join(': ') : 'Processing failed because of an internal error';
          await objects.setAutofit(objectId, colorId, 'failed', progress, cause.slice(0, 500));
        }
        throw err;
      }
    },
  };
}
