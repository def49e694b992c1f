import type { BlobStore } from './ports/blob-store.ts';

export interface ComponentHealth {
  ok: boolean;
  latencyMs: number;
  error?: string;
}

/**
 * Whether the blob store answers: a read of a key that does not exist (not found is an answer),
 * bounded by `timeoutMs` and remembered for a second so health checks stay cheap.
 */
export class StorageHealth {
  readonly #blobs: BlobStore;
  readonly #timeoutMs: number;
  #last: { at: number; result: ComponentHealth } | null = null;
  #pending: Promise<ComponentHealth> | null = null;
  constructor(blobs: BlobStore, timeoutMs = 1500) {
    this.#blobs = blobs;
    this.#timeoutMs = timeoutMs;
  }

  check(): Promise<ComponentHealth> {
    if (this.#last && Date.now() - this.#last.at < 1000) return Promise.resolve(this.#last.result);
    this.#pending ??= this.#probe().then((result) => {
      this.#last = { at: Date.now(), result };
      this.#pending = null;
      return result;
    });
    return this.#pending;
  }

  async #probe(): Promise<ComponentHealth> {
    const t0 = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.#blobs.get('_health/probe'),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${this.#timeoutMs} ms`)), this.#timeoutMs);
        }),
      ]);
      return { ok: true, latencyMs: Math.round((performance.now() - t0) * 10) / 10 };
    } catch (e) {
      return { ok: false, latencyMs: Math.round(performance.now() - t0), error: (e as Error).message };
    } finally {
      clearTimeout(timer);
    }
  }
}
