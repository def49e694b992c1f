import { freePort } from '../../adapters/postgres/embedded.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, type FitroomConfig } from '../../core/config.ts';
import type { FitroomPlugin } from '../../core/plugin.ts';
import type { KeyKind } from '../../core/credentials.ts';
import { TOKENS } from '../../core/tokens.ts';
import { createFitroom, type Fitroom, type Mount } from '../../connectors/standalone/compose.ts';
import { standalonePlugins } from '../../connectors/standalone/plugins.ts';
import { createTestDatabase } from './database.ts';

export const ADMIN_KEY = 'test-admin-key-0123456789';

export interface TestService {
  api: string;
  ar: string | null;
  fitroom: Fitroom;
  config: FitroomConfig;
  dbUrl: string;
  dataDir: string;
  /** Creates an API key directly through the credential service. */
  createKey(opts?: { kind?: KeyKind; accountId?: string; maxUsage?: number; expiresAt?: Date; monthlyQuota?: number }): Promise<{ key: string; id: string }>;
  /** fetch against the API host with an optional key. */
  /** The key's usage counter, read fresh from the database. */
  usage(keyId: string): Promise<number>;
  call(method: string, path: string, opts?: { key?: string; body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers; text: string }>;
  close(): Promise<void>;
}

/**
 * A real service for a test file: its own cloned database, real HTTP servers on loopback ports,
 * a worker in the same process (unless `worker: false`), loopback reachable for outbound fetches.
 */
export async function startTestService(opts: { plugins?: FitroomPlugin[]; env?: Record<string, string>; fixedPorts?: boolean; worker?: boolean; concurrency?: number; shareDatabaseWith?: TestService; mounts?: Mount[]; wrapDatabaseUrl?: (url: string) => Promise<string> } = {}): Promise<TestService> {
  const db = opts.shareDatabaseWith ? { url: opts.shareDatabaseWith.dbUrl, drop: async () => undefined } : await createTestDatabase();
  const databaseUrl = opts.wrapDatabaseUrl ? await opts.wrapDatabaseUrl(db.url) : db.url;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'fitroom-test-data-'));
  const config = loadConfig({
    PORT: '0',
    AR_PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ADMIN_KEY,
    ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128',
    FITROOM_ENV: 'production',
    WEBHOOK_TIMEOUT_MS: '3000',
    // the test's own requests share the process's event loop with the service: on a loaded machine
    // their headers can take seconds to be read (tests of this limit set their own)
    HTTP_HEADERS_TIMEOUT_MS: '120000',
    ...opts.env,
  });
  const fitroom = await createFitroom(config, { databaseUrl, plugins: [...standalonePlugins(), ...(opts.plugins ?? [])], poolSize: 8, migrate: false, mounts: opts.mounts });
  if (opts.fixedPorts) {
    // set ports as under `npm start`, so that job links name the AR host; picked just before listening,
    // so that no other socket of a busy machine takes them in between
    config.port = await freePort();
    config.arPort = await freePort();
  }
  const { apiUrl, arUrl } = await fitroom.listen();
  if (opts.worker !== false) await fitroom.startWorker({ concurrency: opts.concurrency ?? 2, pollInterval: 200 });
  const credentials = fitroom.get(TOKENS.credentials);
  return {
    api: apiUrl,
    ar: arUrl,
    fitroom,
    config,
    dbUrl: db.url,
    dataDir,
    async createKey(o = {}) {
      const { key, record } = await credentials.create({ name: 'test', kind: o.kind ?? 'user', accountId: o.accountId ?? null, maxUsage: o.maxUsage, expiresAt: o.expiresAt ?? null, monthlyQuota: o.monthlyQuota ?? null });
      return { key, id: record.id };
    },
    async usage(keyId) {
      const r = await fitroom.pool.query<{ usage_count: number }>('select usage_count from api_keys where id = $1', [keyId]);
      return r.rows[0].usage_count;
    },
    async call(method, p, o = {}) {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      if (o.key) headers['x-api-key'] = o.key;
      let body: string | undefined;
      if (o.body !== undefined) {
        body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(`${apiUrl}${p}`, { method, headers, body });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, body: parsed, headers: res.headers, text };
    },
    async close() {
      await fitroom.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls a job until it is terminal (or the predicate holds); the deadline only bounds a hang. */
export async function waitForJob(svc: TestService, key: string, jobId: string, until: (job: any) => boolean = (j) => j.status === 'completed' || j.status === 'failed', timeoutMs = 90_000): Promise<any> {
  const t0 = Date.now();
  for (;;) {
    const r = await svc.call('GET', `/api/v1/jobs/${jobId}`, { key });
    if (r.status !== 200) throw new Error(`job read failed: ${r.status} ${r.text}`);
    if (until(r.body)) return r.body;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for job ${jobId}: ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}
