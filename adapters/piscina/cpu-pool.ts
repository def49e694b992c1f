import { Piscina } from 'piscina';
import { FitroomError } from '../../core/errors.ts';
import type { CpuPool, CpuRunOptions, CpuTask } from '../../core/ports/cpu-pool.ts';

export interface PiscinaCpuPoolOptions {
  /** Worker threads (each runs one call at a time). */
  threads: number;
  /** Calls that may wait for a thread; one more fails with 503. */
  maxQueue: number;
  /** Default budget of one call (ms). */
  budgetMs: number;
}

interface Waiter {
  go: () => void;
  fail: (e: unknown) => void;
}

/**
 * The CpuPool on piscina worker threads. Calls wait in our own line and are handed to piscina only
 * when a thread is free, so a call's budget starts when it starts running. Over budget (or aborted),
 * piscina terminates the thread that runs the call (piscina 5: an aborted running task removes its
 * worker, `worker.terminate()`) and starts a fresh one; the call fails with PROCESSING_TIMEOUT.
 */
export class PiscinaCpuPool implements CpuPool {
  readonly #pool: Piscina;
  readonly #o: PiscinaCpuPoolOptions;
  readonly #waiting: Waiter[] = [];
  #running = 0;

  constructor(o: PiscinaCpuPoolOptions) {
    this.#o = o;
    this.#pool = new Piscina({
      filename: new URL('./worker.ts', import.meta.url).href,
      // threads start on first use or `warm()` (a worker process never needs them) and then stay:
      // a cold thread costs its start and the task modules' imports, over a second on a busy machine
      minThreads: 0,
      maxThreads: o.threads,
      idleTimeout: 2 ** 31 - 1,
      concurrentTasksPerWorker: 1,
    });
  }

  async run<In, Out>(task: CpuTask<In, Out>, input: In, opts: CpuRunOptions = {}): Promise<Out> {
    await this.#slot(opts.signal);
    const budget = opts.budgetMs ?? this.#o.budgetMs;
    const timer = new AbortController();
    const t = setTimeout(() => timer.abort(new Error('budget')), budget);
    const signal = opts.signal ? AbortSignal.any([timer.signal, opts.signal]) : timer.signal;
    try {
      return (await this.#pool.run({ module: task.module, name: task.name, input }, { signal, transferList: opts.transfer })) as Out;
    } catch (e) {
      if (timer.signal.aborted) throw new FitroomError('PROCESSING_TIMEOUT', `This input needs more than the ${budget} ms of processing one request may use; send a smaller one`);
      if (opts.signal?.aborted) throw opts.signal.reason ?? e;
      throw e;
    } finally {
      clearTimeout(t);
      this.#release();
    }
  }

  async #slot(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.#running < this.#o.threads) {
      this.#running++;
      return;
    }
    if (this.#waiting.length >= this.#o.maxQueue) throw new FitroomError('SERVICE_UNAVAILABLE', 'The service is busy with other requests; retry in a few seconds', { retryAfterSeconds: 2 });
    await new Promise<void>((resolve, reject) => {
      const w: Waiter = {
        go: () => (signal?.removeEventListener('abort', onAbort), resolve()),
        fail: reject,
      };
      const onAbort = () => {
        const i = this.#waiting.indexOf(w);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(w);
    });
  }

  #release() {
    const next = this.#waiting.shift();
    if (next) next.go(); // the slot passes on
    else this.#running--;
  }

  /** Starts the threads and imports `modules` in them, so that the first requests find them ready. */
  async warm(modules: string[]): Promise<void> {
    await Promise.all(Array.from({ length: this.#o.threads }, () => this.#pool.run({ preload: modules }).catch(() => undefined)));
  }

  async close(): Promise<void> {
    for (const w of this.#waiting.splice(0)) w.fail(new FitroomError('SERVICE_UNAVAILABLE', 'The service is shutting down'));
    await this.#pool.close({ force: true });
  }
}
