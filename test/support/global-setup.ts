import type { TestProject } from 'vitest/node';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { generate } from 'selfsigned';
import { startEmbeddedPostgres } from '../../adapters/postgres/embedded.ts';
import { createPool, migrate } from '../../adapters/postgres/db.ts';

export const TEMPLATE_DB = 'fitroom_template';

/**
 * One embedded PostgreSQL for the whole run. A template database is migrated once; each test file
 * clones it (CREATE DATABASE ... TEMPLATE), the graphile-worker way.
 */
export default async function setup(project: TestProject) {
  const tlsDir = await setupTls(project);
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
    rmSync(tlsDir, { recursive: true, force: true });
  };
}

/**
 * A test CA and a localhost/127.0.0.1 server certificate it signs. NODE_EXTRA_CA_CERTS is read only when
 * a Node process starts, so it is set here, before the forked test workers start (they inherit the env).
 */
async function setupTls(project: TestProject): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'fitroom-test-tls-'));
  const validFrom = new Date(Date.now() - 60_000);
  const validTo = new Date(Date.now() + 7 * 86_400_000);
  const ca = await generate([{ name: 'commonName', value: 'Fitroom test CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: validFrom,
    notAfterDate: validTo,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const leaf = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: validFrom,
    notAfterDate: validTo,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] },
    ],
  });
  const caPath = path.join(dir, 'ca.pem');
  const certPath = path.join(dir, 'cert.pem');
  const keyPath = path.join(dir, 'key.pem');
  writeFileSync(caPath, ca.cert);
  writeFileSync(certPath, leaf.cert);
  writeFileSync(keyPath, leaf.private, { mode: 0o600 });
  process.env.NODE_EXTRA_CA_CERTS = caPath;
  project.provide('tlsCaPath', caPath);
  project.provide('tlsCertPath', certPath);
  project.provide('tlsKeyPath', keyPath);
  return dir;
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgUrlTemplate: string;
    /** PEM files of the test TLS CA (trusted by workers through NODE_EXTRA_CA_CERTS) and its server certificate. */
    tlsCaPath: string;
    tlsCertPath: string;
    tlsKeyPath: string;
  }
}
