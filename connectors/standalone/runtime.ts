import { existsSync, mkdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { FitroomConfig } from '../../core/config.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../adapters/postgres/embedded.ts';

export interface Database {
  url: string;
  embedded: EmbeddedDatabase | null;
  stop(): Promise<void>;
}

const URL_FILE = 'postgres.url';

/**
 * DATABASE_URL when set; otherwise the embedded cluster under DATA_DIR/postgres, started here.
 * While it runs, its URL is written to DATA_DIR/postgres.url so the CLI can reach the same database.
 */
export async function openDatabase(config: FitroomConfig, log: (l: string) => void): Promise<Database> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: null, stop: async () => undefined };
  const dir = path.resolve(config.dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const t0 = Date.now();
  // If the cluster dies while the service runs, it is started again (same port and data) with backoff;
  // after 5 failed restarts in a row the process exits non-zero so that a supervisor takes over.
  let failures = 0;
  const restartLater = (err: Error, restart: () => Promise<void>) => {
    const delay = Math.min(30_000, 500 * 2 ** failures);
    log(`${err.message}; restarting it in ${delay} ms`);
    setTimeout(() => {
      restart().then(
        () => {
          failures = 0;
          log('embedded PostgreSQL restarted');
        },
        (e: Error) => {
          failures++;
          if (failures >= 5) {
            console.error(`[fitroom] embedded PostgreSQL cannot be restarted (${e.message}); exiting`);
            process.exit(1);
          }
          restartLater(e, restart);
        },
      );
    }, delay).unref();
  };
  const db = await startEmbeddedPostgres({ dir: path.join(dir, 'postgres'), log: (l) => (process.env.FITROOM_DEBUG ? log(`[postgres] ${l}`) : undefined), onUnexpectedExit: restartLater });
  const url = db.urlFor('fitroom');
  const admin = await import('pg').then((m) => new m.default.Client(db.adminUrl));
  await admin.connect();
  const exists = await admin.query('select 1 from pg_database where datname = $1', ['fitroom']);
  if (!exists.rowCount) await admin.query('create database fitroom');
  await admin.end();
  writeFileSync(path.join(dir, URL_FILE), url, { mode: 0o600 });
  log(`embedded PostgreSQL ready on port ${db.port} (${Date.now() - t0} ms), data in ${path.join(dir, 'postgres')}`);
  return {
    url,
    embedded: db,
    stop: async () => {
      rmSync(path.join(dir, URL_FILE), { force: true });
      await db.stop();
    },
  };
}

/** The URL of an embedded database that a running service has open, if any. */
export function runningEmbeddedUrl(config: FitroomConfig): string | null {
  const f = path.join(path.resolve(config.dataDir), URL_FILE);
  return existsSync(f) ? readFileSync(f, 'utf8').trim() : null;
}

/**
 * In embedded mode without ADMIN_KEY, a key is generated once and kept in DATA_DIR/admin-key.
 * With DATABASE_URL and no ADMIN_KEY the admin API stays disabled (503).
 */
export function resolveAdminKey(config: FitroomConfig): { key: string | null; generated: boolean; file: string | null } {
  if (config.adminKey) return { key: config.adminKey, generated: false, file: null };
  if (config.databaseUrl) return { key: null, generated: false, file: null };
  const file = path.join(path.resolve(config.dataDir), 'admin-key');
  if (existsSync(file)) return { key: readFileSync(file, 'utf8').trim(), generated: false, file };
  mkdirSync(path.dirname(file), { recursive: true });
  const key = `fr_admin_${randomBytes(24).toString('base64url')}`;
  writeFileSync(file, key, { mode: 0o600 });
  return { key, generated: true, file };
}
