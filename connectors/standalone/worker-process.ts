import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const MAIN = path.join(path.dirname(fileURLToPath(import.meta.url)), 'main.ts');

export interface WorkerProcess {
  /** Resolves once the first worker process runs jobs. */
  ready: Promise<number>;
  /** SIGTERM: running jobs finish (or are released), then the process exits. */
  stop(): Promise<void>;
}

/**
 * The all-in-one service runs its jobs in a child process (`main.ts worker` on the same database):
 * decoding, reconstruction and rendering never block the event loop that answers HTTP, and a job's
 * memory is the child's, not the API's. A child that dies is started again with backoff.
 */
export function superviseWorker(opts: { databaseUrl: string; log: (line: string) => void }): WorkerProcess {
  let child: ChildProcess | null = null;
  let stopping = false;
  let failures = 0;
  let markReady: (pid: number) => void = () => undefined;
  const ready = new Promise<number>((r) => (markReady = r));

  const spawnChild = () => {
    const startedAt = Date.now();
    const c = fork(MAIN, ['worker'], {
      env: { ...process.env, DATABASE_URL: opts.databaseUrl, FITROOM_WORKER_CHILD: '1' },
      execArgv: process.execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child = c;
    c.on('message', (m: { type?: string }) => {
      if (m?.type === 'worker-ready') {
        failures = 0;
        markReady(c.pid!);
      }
    });
    c.once('exit', (code, signal) => {
      if (child === c) child = null;
      if (stopping) return;
      // a child that keeps failing right away backs off up to 30 s between attempts
      failures = Date.now() - startedAt < 60_000 ? failures + 1 : 1;
      const delay = Math.min(30_000, 500 * 2 ** (failures - 1));
      opts.log(`worker process ${c.pid} exited (${signal ?? `code ${code}`}); starting another in ${delay} ms`);
      setTimeout(() => stopping || spawnChild(), delay).unref();
    });
  };
  spawnChild();

  return {
    ready,
    async stop() {
      stopping = true;
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const exited = new Promise<void>((r) => c.once('exit', () => r()));
      c.kill('SIGTERM');
      await exited;
    },
  };
}
