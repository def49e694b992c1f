import { threadId } from 'node:worker_threads';

/** Tasks for the pool's own test. */
export function double(input: { values: Float64Array }): { values: Float64Array; thread: number } {
  const out = new Float64Array(input.values.length);
  for (let i = 0; i < out.length; i++) out[i] = input.values[i] * 2;
  return { values: out, thread: threadId };
}

/** Never ends on its own: only terminating its thread stops it. Counts in shared memory as it spins. */
export function spin(input: { counter: Int32Array }): number {
  for (;;) Atomics.add(input.counter, 0, 1);
}
