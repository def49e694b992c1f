import type { RasterImage } from '../../../core/images.ts';
import { cpuTask, type CpuPool } from '../../../core/ports/cpu-pool.ts';
import type { PackshotAssessment, PackshotClassifier } from '../../../core/ports/packshot-classifier.ts';

const assessTask = cpuTask<RasterImage, PackshotAssessment>(new URL('./packshot-classifier-task.ts', import.meta.url), 'assess');

/**
 * The builtin packshot classifier on a CPU pool thread: one 384² photo is 0.3 to 1.4 s of pixel
 * work, which product discovery did on the HTTP event loop for up to 8 images per request.
 */
export class PooledPackshotClassifier implements PackshotClassifier {
  readonly #pool: CpuPool;
  constructor(pool: CpuPool) {
    this.#pool = pool;
  }

  assess(image: RasterImage, signal?: AbortSignal): Promise<PackshotAssessment> {
    return this.#pool.run(assessTask, image, { signal });
  }
}
