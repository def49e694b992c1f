/**
 * `npm start` stops cleanly on the signals people send (hardening: defect 8): SIGTERM to the PID npm
 * gives (npm runs the script with sh, which execs node), and Ctrl-C in a terminal (SIGINT to the
 * whole foreground process group). Before, SIGTERM to npm left node and PostgreSQL serving.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const dirs: string[] = [];

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Processes whose command line mentions the data directory (node via DATA_DIR is not on its command line: children of npm). */
function descendants(root: number): number[] {
  const byParent = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      byParent.set(ppid, [...(byParent.get(ppid) ?? []), Number(name)]);
    } catch {
      // gone
    }
  }
  const out: number[] = [];
  const walk = (p: number) => (byParent.get(p) ?? []).forEach((c) => (out.push(c), walk(c)));
  walk(root);
  return out;
}

async function npmStart(): Promise<{ proc: ChildProcess; dataDir: string; output: string[]; exited: Promise<number | null> }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'fitroom-signals-'));
  chmodSync(dataDir, 0o755);
  dirs.push(dataDir);
  const proc = spawn('npm', ['start'], {
    cwd: ROOT,
    detached: true, // its own process group, like a terminal's foreground job
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, PORT: '0', AR_PORT: '0', HOST: '127.0.0.1', ADMIN_KEY: 'signals-admin-key-0123456789' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  await new Promise<void>((resolve, reject) => {
    const onData = (c: Buffer) => {
      output.push(c.toString());
      if (/worker process \d+ running/.test(output.join(''))) resolve();
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`npm start exited (${code}):\n${output.join('')}`)));
  });
  return { proc, dataDir, output, exited };
}

async function gone(pids: number[], ms: number): Promise<number[]> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    const left = pids.filter(alive);
    if (!left.length) return [];
    await new Promise((r) => setTimeout(r, 100));
  }
  return pids.filter(alive);
}

describe('signals to npm start', () => {
  it('SIGTERM to npm stops node and PostgreSQL cleanly', async () => {
    const s = await npmStart();
    const tree = descendants(s.proc.pid!);
    const postmaster = Number(readFileSync(path.join(s.dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(tree.length).toBeGreaterThan(0);
    process.kill(s.proc.pid!, 'SIGTERM');
    await s.exited;
    expect(await gone([...tree, postmaster], 60_000)).toEqual([]);
    expect(s.output.join('')).toMatch(/SIGTERM: draining[\s\S]*stopped/);
    expect(existsSync(path.join(s.dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  });

  it('Ctrl-C (SIGINT to the process group) drains before PostgreSQL stops', async () => {
    const s = await npmStart();
    const tree = descendants(s.proc.pid!);
    const postmaster = Number(readFileSync(path.join(s.dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(-s.proc.pid!, 'SIGINT');
    await s.exited;
    expect(await gone([...tree, postmaster], 60_000)).toEqual([]);
    const out = s.output.join('');
    expect(out).toMatch(/SIGINT: draining[\s\S]*stopped/);
    expect(out).not.toMatch(/exiting now|terminating connection due to administrator command/);
  });
});
