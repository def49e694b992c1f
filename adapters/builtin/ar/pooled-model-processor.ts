import { FitroomError } from '../../../core/errors.ts';
import type { EncodedImage } from '../../../core/images.ts';
import type { ArModelProcessor, AutofitOutcome, ColorPreset } from '../../../core/ports/ar-object-store.ts';
import { cpuTask, type CpuPool, type CpuTask } from '../../../core/ports/cpu-pool.ts';
import type { ModelTaskResult } from './model-tasks.ts';

const TASKS = new URL('./model-tasks.ts', import.meta.url);
const bakeTask = cpuTask<{ glb: Uint8Array; preset: ColorPreset | undefined; textures: Record<string, EncodedImage>; label: string }, ModelTaskResult>(TASKS, 'bake');
const usdzTask = cpuTask<Uint8Array, ModelTaskResult>(TASKS, 'usdz');

/**
 * Past this a bake or a conversion is stopped (its thread terminated) and the request answers 422:
 * a 30 MB model with textures takes a few seconds on a loaded machine; a model built to take far
 * longer does not hold a thread for good.
 */
const MODEL_BUDGET_MS = 60_000;

/**
 * The builtin AR model processor with baking and USDZ export on CPU pool threads: both run
 * gltf-transform over models of up to 30 MB, the first time an anonymous `get_gltf` or `get_usdz`
 * asks for a colour, which held the AR host's event loop for the whole work. Inspection, parts and
 * autofit stay on the caller's thread (upload checks and the autofit job, on the worker process).
 * The GLB given to `bake` and `usdz` (and the textures read) move to the thread when they own their
 * whole buffer (the blob stores hand out fresh buffers): not copied on the event loop, and unusable
 * afterwards (the object service never reads them again).
 */
export class PooledArModelProcessor implements ArModelProcessor {
  readonly #inner: ArModelProcessor;
  readonly #pool: CpuPool;
  readonly #budgetMs: number;
  constructor(inner: ArModelProcessor, pool: CpuPool, budgetMs = MODEL_BUDGET_MS) {
    this.#inner = inner;
    this.#pool = pool;
    this.#budgetMs = budgetMs;
  }

  inspect(glb: Uint8Array) {
    return this.#inner.inspect(glb);
  }

  autofit(glb: Uint8Array, onProgress?: (fraction: number) => void): Promise<AutofitOutcome> {
    return this.#inner.autofit(glb, onProgress);
  }

  parts(glb: Uint8Array): Promise<string[]> {
    return this.#inner.parts(glb);
  }

  async bake(glb: Uint8Array, preset: ColorPreset | undefined, textures: (name: string) => Promise<EncodedImage | null>, label: string): Promise<Uint8Array> {
    // the thread cannot call back for textures: the ones the preset names are read first
    const read: Record<string, EncodedImage> = {};
    for (const name of textureNames(preset)) {
      const t = await textures(name);
      if (t) read[name] = t;
    }
    return this.#run(bakeTask, { glb, preset, textures: read, label }, movable(glb, ...Object.values(read).map((t) => t.bytes)));
  }

  usdz(glb: Uint8Array): Promise<Uint8Array> {
    return this.#run(usdzTask, glb, movable(glb));
  }

  async #run<In>(task: CpuTask<In, ModelTaskResult>, input: In, transfer: ArrayBuffer[]): Promise<Uint8Array> {
    try {
      return answer(await this.#pool.run(task, input, { budgetMs: this.#budgetMs, transfer }));
    } catch (e) {
      // memory that native code allocated (sharp's output) cannot move: then it is copied
      if ((e as Error)?.name !== 'DataCloneError' || !transfer.length) throw e;
      return answer(await this.#pool.run(task, input, { budgetMs: this.#budgetMs }));
    }
  }
}

function textureNames(preset: ColorPreset | undefined): Set<string> {
  const names = new Set<string>();
  for (const part of Object.values(preset?.parts ?? {})) {
    const m = part?.material;
    for (const n of [m?.baseColorTexture, m?.normalTexture, m?.metallicRoughnessTexture]) if (typeof n === 'string') names.add(n);
  }
  return names;
}

/** The buffers among `views` that they own whole (others are copied, as a view on a shared buffer must be). */
function movable(...views: Uint8Array[]): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  for (const v of views) if (v.buffer instanceof ArrayBuffer && v.byteOffset === 0 && v.byteLength === v.buffer.byteLength) out.add(v.buffer);
  return [...out];
}

function answer(r: ModelTaskResult): Uint8Array {
  if (r.ok) return r.bytes;
  if (r.code) throw new FitroomError(r.code, r.message, { details: r.details });
  throw new Error(r.message);
}
