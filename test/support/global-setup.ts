import type { TestProject } from 'vitest/node';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../adapters/postgres/embedded.ts';

/** One embedded PostgreSQL for the whole run; test files clone a migrated template database. */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(tmpdir(), 'fitroom-test-pg-'));
  chmodSync(dir, 0o755); // the cluster runs as another user when tests run as root
  const db = await startEmbeddedPostgres({ dir: path.join(dir, 'db'), persistent: false });
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
