/**
 * Measures whether a service's event loop stays free: `GET /api/v1/health` every 50 ms while the
 * work runs, each probe's latency recorded; a probe without an answer within 10 s counts as unanswered.
 */
export interface ProbeWindow {
  latencies: number[];
  unanswered: number;
  p99: number;
  max: number;
}

export function percentile(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

/**
 * The prober: a worker thread of its own, so that the test's own work (sending 30 MB bodies, reading
 * answers) never delays a probe's start or the reading of its answer. Every 50 ms it starts a probe
 * (an earlier one may still wait); on "stop" it waits for those in flight and posts the figures.
 */
const PROBER = `
const { parentPort, workerData } = require('node:worker_threads');
const latencies = []; let unanswered = 0, probes = 0; const inFlight = new Set();
const probe = () => {
  probes++;
  const t0 = performance.now();
  const p = fetch(workerData.url, { signal: AbortSignal.timeout(10000) })
    .then(async (r) => { await r.arrayBuffer(); latencies.push(performance.now() - t0); })
    .catch(() => { unanswered++; })
    .finally(() => inFlight.delete(p));
  inFlight.add(p);
  parentPort.postMessage({ probes });
};
probe();
const timer = setInterval(probe, 50);
parentPort.on('message', async () => {
  clearInterval(timer);
  await Promise.all([...inFlight]);
  parentPort.postMessage({ done: true, latencies, unanswered });
});
`;

/**
 * Probes `healthUrl` every 50 ms from its own thread until `work` settles, and for at least
 * `minProbes` probes.
 */
export async function probeWhile<T>(healthUrl: string, work: () => Promise<T>, minProbes = 10): Promise<{ result: T; window: ProbeWindow }> {
  const { Worker } = await import('node:worker_threads');
  const w = new Worker(PROBER, { eval: true, workerData: { url: healthUrl } });
  let probes = 0;
  let enough: () => void = () => undefined;
  const figures = new Promise<{ latencies: number[]; unanswered: number }>((resolve, reject) => {
    w.on('message', (m: { probes?: number; done?: boolean; latencies: number[]; unanswered: number }) => {
      if (m.done) resolve(m);
      else if ((probes = m.probes!) >= minProbes) enough();
    });
    w.on('error', reject);
  });
  let result: T;
  try {
    result = await work();
    if (probes < minProbes) await new Promise<void>((r) => (enough = r));
  } finally {
    w.postMessage('stop');
  }
  const { latencies, unanswered } = await figures;
  await w.terminate();
  return { result, window: { latencies, unanswered, p99: percentile(latencies, 99), max: Math.max(...latencies) } };
}

/** The loop-delay preload's path, for `NODE_OPTIONS=--import=…` of a service process under test. */
export const LOOP_DELAY_PRELOAD = new URL('./loop-delay-preload.ts', import.meta.url).pathname;

export interface LoopDelay {
  /** monitorEventLoopDelay's p99 and max (wall time, ms). */
  p99: number;
  max: number;
  /** The main thread's CPU time between two 10 ms ticks (ms): how long work held the loop. */
  blockedP99: number;
  blockedMax: number;
  samples: number;
}

/**
 * The event-loop delay a process (started with LOOP_DELAY_PRELOAD) measured since the last call, and
 * a new window started: SIGUSR2, then its `loop-delay` line on stderr.
 */
export function loopDelay(proc: import('node:child_process').ChildProcess): Promise<LoopDelay> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (c: Buffer) => {
      buf += c.toString();
      const m = /loop-delay (\{[^\n]*\})\n/.exec(buf);
      if (!m) return;
      proc.stderr!.off('data', onData);
      clearTimeout(t);
      resolve(JSON.parse(m[1]) as LoopDelay);
    };
    const t = setTimeout(() => (proc.stderr!.off('data', onData), reject(new Error('no loop-delay line within 90 s'))), 90_000);
    proc.stderr!.on('data', onData);
    proc.kill('SIGUSR2');
  });
}
