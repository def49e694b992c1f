import { afterAll, describe, expect, it } from 'vitest';
import { threadId } from 'node:worker_threads';
import { PiscinaCpuPool } from '../../../adapters/piscina/cpu-pool.ts';
import { cpuTask } from '../../../core/ports/cpu-pool.ts';
import { FitroomError } from '../../../core/errors.ts';

const MODULE = new URL('./tasks.fixture.ts', import.meta.url);
const double = cpuTask<{ values: Float64Array }, { values: Float64Array; thread: number }>(MODULE, 'double');
const spin = cpuTask<{ counter: Int32Array }, number>(MODULE, 'spin');

const pool = new PiscinaCpuPool({ threads: 1, maxQueue: 1, budgetMs: 10_000 });
afterAll(() => pool.close());

const turn = () => new Promise((r) => setImmediate(r));

describe('the piscina CPU pool', () => {
  it('runs a task module on another thread (TypeScript loaded by the worker) and moves typed arrays back', async () => {
    const values = Float64Array.from({ length: 1000 }, (_, i) => i);
    const out = await pool.run(double, { values });
    expect(out.thread).not.toBe(threadId);
    expect(out.values[999]).toBe(1998);
    expect(values[999]).toBe(999); // the input was copied, not moved
  });

  it('terminates the thread of a call over its budget, answers PROCESSING_TIMEOUT, keeps the loop free and serves the next call', async () => {
    const counter = new Int32Array(new SharedArrayBuffer(4));
    const running = pool.run(spin, { counter }, { budgetMs: 300 });
    // the loop keeps turning (setImmediate callbacks run) while the task spins on its thread
    while (Atomics.load(counter, 0) === 0) await turn();
    const err = await running.catch((e) => e);
    expect(err).toBeInstanceOf(FitroomError);
    expect(err.code).toBe('PROCESSING_TIMEOUT');
    expect(err.status).toBe(422);
    // the thread is gone: the counter stops (two reads 100 ms apart agree)
    for (let last = -1; ; ) {
      const now = Atomics.load(counter, 0);
      if (now === last) break;
      last = now;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await pool.run(double, { values: new Float64Array([2]) })).values[0]).toBe(4);
  });

  it('stops a call when its signal aborts, and refuses calls beyond the line with 503 and a retry time', async () => {
    const counter = new Int32Array(new SharedArrayBuffer(4));
    const ac = new AbortController();
    const first = pool.run(spin, { counter }, { signal: ac.signal });
    const waiting = pool.run(double, { values: new Float64Array([1]) });
    const refused = await pool.run(double, { values: new Float64Array([1]) }).catch((e) => e);
    expect(refused.code).toBe('SERVICE_UNAVAILABLE');
    expect(refused.retryAfterSeconds).toBeGreaterThan(0);
    while (Atomics.load(counter, 0) === 0) await turn();
    ac.abort(new Error('client left'));
    expect((await first.catch((e) => e)).message).toBe('client left');
    expect((await waiting).values[0]).toBe(2);
  });
});
