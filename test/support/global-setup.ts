import type { TestProject } from 'vitest/node';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../adapters/postgres/embedded.ts';
import { createPool, migrate } from '../../adapters/postgres/db.ts';

export const TEMPLATE_DB = 'fitroom_template';

/**
 * One embedded PostgreSQL for the whole run. A template database is migrated once; each test file
 * clones it (CREATE DATABASE ... TEMPLATE), the graphile-worker way.
 */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(tmpdir(), 'fitroom-test-pg-'));
  chmodSync(dir, 0o755); // the cluster runs as another user when tests run as root
  const db = await startEmbeddedPostgres({ dir: path.join(dir, 'db'), persistent: false });
  const admin = new pg.Client(db.adminUrl);
  await admin.connect();
  await admin.query(`create database ${TEMPLATE_DB}`);
  await admin.end();
  const pool = createPool(db.urlFor(TEMPLATE_DB), 2);
  await migrate(pool);
  await pool.end();
  project.provide('pgAdminUrl', db.adminUrl);
  project.provide('pgUrlTemplate', db.urlFor('__DB__'));
  return async () => {
    await db.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgUrlTemplate: string;
  }
}
