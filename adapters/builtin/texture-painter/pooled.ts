import type { CpuPool } from '../../../core/ports/cpu-pool.ts';
import { cpuTask } from '../../../core/ports/cpu-pool.ts';
import type { TexturePainter, TexturePaintInput, TexturePaintResult } from '../../../core/ports/texture-painter.ts';
import type { PaintTaskInput } from './task.ts';

const paintTask = cpuTask<PaintTaskInput, TexturePaintResult>(new URL('./task.ts', import.meta.url), 'paint');

/**
 * The builtin texture painter on a CPU pool thread: a 2048² texture with a 1024² painted region is
 * seconds of pixel loops, which on the HTTP event loop held every other request. Over `budgetMs` the
 * thread is terminated and the call fails with PROCESSING_TIMEOUT. The pixels are copied to the thread
 * (sharp's buffers cannot be moved; a copy of 16 MB is a few milliseconds).
 */
export class PooledTexturePainter implements TexturePainter {
  readonly #pool: CpuPool;
  readonly #budgetMs: number | undefined;
  constructor(pool: CpuPool, budgetMs?: number) {
    this.#pool = pool;
    this.#budgetMs = budgetMs;
  }

  enhance(input: TexturePaintInput): Promise<TexturePaintResult> {
    const { signal, ...rest } = input;
    return this.#pool.run(paintTask, rest, { signal, budgetMs: this.#budgetMs });
  }
}
