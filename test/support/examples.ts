import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The `node` a newcomer's shell finds: the first on PATH outside node_modules (npm puts the project's
 * own Node 24 first while it runs the tests). The examples must run on it as shipped, Node 20 included.
 */
export function systemNode(): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir, 'node');
    if (dir && !dir.split(path.sep).includes('node_modules') && existsSync(file)) return file;
  }
  return process.execPath;
}

export interface RunningExample {
  proc: ChildProcess;
  /** Every stdout and stderr line so far. */
  lines: string[];
  /** Resolves with the first line (seen or to come) that matches; rejects when the process exits first. */
  waitForLine(re: RegExp): Promise<string>;
  stop(): Promise<void>;
  /** The port in the line that said it was ready (0 if it named none). */
  port: number;
}

/** Starts `node <args>` from the repository's folder the way its README says, and waits for `ready` on its output. */
export async function startExample(args: string[], env: Record<string, string>, ready: RegExp): Promise<RunningExample> {
  const proc = spawn(systemNode(), args, { cwd: ROOT, env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let exited: string | null = null;
  const take = (c: Buffer) => {
    lines.push(...c.toString().split('\n').filter(Boolean));
    for (const w of waiters) w();
  };
  proc.stdout!.on('data', take);
  proc.stderr!.on('data', take);
  proc.once('exit', (code, signal) => {
    exited = `exited ${code ?? signal}`;
    for (const w of waiters) w();
  });
  const waitForLine = (re: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const hit = lines.find((l) => re.test(l));
        if (hit !== undefined) return (waiters.delete(check), resolve(hit));
        if (exited) return (waiters.delete(check), reject(new Error(`node ${args.join(' ')} ${exited} before printing ${re}:\n${lines.join('\n')}`)));
      };
      waiters.add(check);
      check();
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (exited) return resolve();
      proc.once('exit', () => resolve());
      proc.kill();
    });
  let readyLine: string;
  try {
    readyLine = await waitForLine(ready);
  } catch (e) {
    await stop();
    throw e;
  }
  // examples listen on PORT=0 in tests and say where: a port picked free beforehand can be taken meanwhile
  const port = Number(/https?:\/\/[^\s:/]+:(\d+)/.exec(readyLine)?.[1] ?? 0);
  return { proc, lines, waitForLine, stop, port };
}
