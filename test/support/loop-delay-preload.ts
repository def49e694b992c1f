/**
 * Loaded into a service process under test (`NODE_OPTIONS=--import=<this file>`): measures what the
 * main thread's event loop itself went through, free of the HTTP round trip's noise.
 * - `delay`: perf_hooks.monitorEventLoopDelay (10 ms resolution), wall time; on a loaded machine it
 *   also counts the time the OS did not schedule the process.
 * - `blocked`: a 10 ms ticker reads the main thread's own CPU time (process.threadCpuUsage) at every
 *   tick: the CPU the thread spent between two ticks (never more than the wall time between them) is
 *   how long the loop was held by work. A thread that waited for a core spent none, so only blocking
 *   counts, whatever the load of the machine.
 * On SIGUSR2 it prints `loop-delay {"p99":…,"max":…,"blockedP99":…,"blockedMax":…,"samples":…}`
 * (milliseconds) to stderr and starts a new window.
 */
import { isMainThread } from 'node:worker_threads';
import { monitorEventLoopDelay } from 'node:perf_hooks';

if (isMainThread) {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  let blocked: number[] = [];
  const cpuMs = () => {
    const u = process.threadCpuUsage();
    return (u.user + u.system) / 1000;
  };
  let lastWall = performance.now(), lastCpu = cpuMs();
  setInterval(() => {
    const wall = performance.now(), cpu = cpuMs();
    blocked.push(Math.min(wall - lastWall, cpu - lastCpu));
    lastWall = wall;
    lastCpu = cpu;
  }, 10).unref();
  process.on('SIGUSR2', () => {
    const ms = (ns: number) => Math.round(ns / 1e5) / 10;
    const s = blocked.sort((a, b) => a - b);
    const at = (p: number) => Math.round((s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)] ?? 0) * 10) / 10;
    process.stderr.write(`loop-delay ${JSON.stringify({ p99: ms(h.percentile(99)), max: ms(h.max), blockedP99: at(0.99), blockedMax: at(1), samples: s.length })}\n`);
    h.reset();
    blocked = [];
  });
}
