import { token } from '../plugin.ts';

/**
 * A function a worker thread runs: the file URL of an ES module and the name of the function it
 * exports. The function takes one structured-cloneable input and returns (or resolves to) one
 * structured-cloneable output; whole-buffer typed arrays in either are moved, not copied. It must not
 * throw for bad input: it returns a result that says so (errors lose their fields across threads).
 * Declared next to the code it runs: `cpuTask<In, Out>(new URL('./tasks.ts', import.meta.url), 'name')`.
 */
export interface CpuTask<In, Out> {
  readonly module: string;
  readonly name: string;
  /** Type carriers only; never set. */
  readonly __in?: In;
  readonly __out?: Out;
}

export function cpuTask<In, Out>(module: URL | string, name: string): CpuTask<In, Out> {
  return { module: String(module), name };
}

export interface CpuRunOptions {
  /**
   * Longest the call may take, counted from when a thread takes it: past it the thread running it is
   * terminated (the work really stops) and the call fails with 422 PROCESSING_TIMEOUT. Defaults to the
   * configured budget (CPU_BUDGET_MS).
   */
  budgetMs?: number;
  /** Aborting stops the call the same way (waiting calls leave the line). */
  signal?: AbortSignal;
  /**
   * Buffers of the input to move to the thread instead of copying them (unusable here afterwards).
   * Only plain ArrayBuffers move: buffers that native code allocated (sharp's) cannot.
   */
  transfer?: ArrayBuffer[];
}

/**
 * CpuPool: runs CPU work of requests (decoding checks, parsing untrusted text, pixel loops) on worker
 * threads so the event loop that answers HTTP never waits for it. A full line of waiting calls fails at
 * once with 503 SERVICE_UNAVAILABLE (Retry-After). Adapter: `adapters/piscina/cpu-pool.ts`.
 */
export interface CpuPool {
  run<In, Out>(task: CpuTask<In, Out>, input: In, opts?: CpuRunOptions): Promise<Out>;
  close(): Promise<void>;
}

export const CPU_POOL = token<CpuPool>('CpuPool');
