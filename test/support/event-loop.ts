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
 * Probes `url` every 50 ms (a probe starts on time even while an earlier one waits) until `work`
 * settles, and for at least `minProbes` probes.
 */
export async function probeWhile<T>(healthUrl: string, work: () => Promise<T>, minProbes = 10): Promise<{ result: T; window: ProbeWindow }> {
  const latencies: number[] = [];
  let unanswered = 0;
  const inFlight = new Set<Promise<void>>();
  const probe = () => {
    const t0 = performance.now();
    const p = fetch(healthUrl, { signal: AbortSignal.timeout(10_000) })
      .then(async (r) => {
        await r.arrayBuffer();
        latencies.push(performance.now() - t0);
      })
      .catch(() => {
        unanswered++;
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };
  let probes = 0;
  probe();
  probes++;
  const timer = setInterval(() => {
    probe();
    probes++;
  }, 50);
  let result: T;
  try {
    result = await work();
    while (probes < minProbes) await new Promise((r) => setTimeout(r, 50));
  } finally {
    clearInterval(timer);
    await Promise.all([...inFlight]);
  }
  return { result, window: { latencies, unanswered, p99: percentile(latencies, 99), max: Math.max(...latencies) } };
}
