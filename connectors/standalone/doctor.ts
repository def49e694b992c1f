/**
 * `fitroom doctor`: what a start needs, checked one by one, each failure with how to fix it.
 * Nothing here starts the service or its database; it only looks.
 */
import { existsSync, mkdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import type { FitroomConfig } from '../../core/config.ts';
import { runningEmbeddedUrl } from './runtime.ts';
import { clusterAccessProblem } from '../../adapters/postgres/embedded.ts';
import { registerAiProviders } from './providers.ts';
import { S3BlobStore } from '../../adapters/s3/blob-store.ts';
import type { ServiceContainer } from '../../core/kernel.ts';
import type { Token } from '../../core/plugin.ts';
import { TOKENS } from '../../core/tokens.ts';
import { DEFAULT_MODEL_CHAIN, modelRegistry } from '../../core/tryon/models.ts';

export type CheckLevel = 'ok' | 'warn' | 'fail';
export interface Check {
  name: string;
  level: CheckLevel;
  detail: string;
  /** What to do about a warning or failure. */
  fix?: string;
  /** A port check that found Fitroom itself answering there: the service runs already. */
  running?: boolean;
}

const MIN_NODE = [22, 12];
const GB = 1024 ** 3;

export function checkNode(version = process.versions.node): Check {
  const [major, minor] = version.split('.').map(Number);
  if (major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1])) return { name: 'Node', level: 'fail', detail: `${version}: too old to run TypeScript directly`, fix: 'run through npm (npm start, npx fitroom): they use the project\'s Node 24 from node_modules after npm install' };
  if (major < 24) return { name: 'Node', level: 'warn', detail: `${version} (the project is tested on Node 24)`, fix: 'use npm start / npx fitroom, which run the project\'s own Node 24' };
  return { name: 'Node', level: 'ok', detail: `${version} (${process.execPath})` };
}

/** Reaches the database the service would use: DATABASE_URL, or the embedded cluster a running service has open. */
export async function checkDatabase(config: FitroomConfig): Promise<Check> {
  const url = config.databaseUrl ?? runningEmbeddedUrl(config);
  if (!url) {
    const cluster = path.join(path.resolve(config.dataDir), 'postgres');
    const problem = clusterAccessProblem(cluster);
    if (problem) return { name: 'Database', level: 'fail', detail: `embedded: ${problem.message}`, fix: problem.fix };
    return existsSync(cluster)
      ? { name: 'Database', level: 'ok', detail: `embedded cluster in ${cluster}, not running now (npm start starts it)` }
      : { name: 'Database', level: 'ok', detail: `embedded; the first npm start creates it in ${cluster}` };
  }
  const where = config.databaseUrl ? 'DATABASE_URL' : 'the running service\'s embedded cluster';
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  const t0 = performance.now();
  try {
    await client.connect();
    const r = await client.query<{ v: string }>("select current_setting('server_version') as v");
    return { name: 'Database', level: 'ok', detail: `${where} answers (PostgreSQL ${r.rows[0].v}, ${Math.round(performance.now() - t0)} ms)` };
  } catch (e) {
    return { name: 'Database', level: 'fail', detail: `${where} does not answer: ${(e as Error).message}`, fix: config.databaseUrl ? 'check DATABASE_URL (host, port, user, password, database) and that PostgreSQL runs' : 'the service that wrote DATA_DIR/postgres.url is gone: start it again with npm start' };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Free space where DATA_DIR is (or would be created). */
export function checkDisk(config: FitroomConfig): Check {
  let dir = path.resolve(config.dataDir);
  while (!existsSync(dir)) dir = path.dirname(dir);
  const s = statfsSync(dir);
  const free = s.bavail * s.bsize;
  const detail = `${(free / GB).toFixed(1)} GB free for ${path.resolve(config.dataDir)}`;
  if (free < 0.5 * GB) return { name: 'Disk', level: 'fail', detail, fix: 'free some space or point DATA_DIR at a larger disk (results, GLBs and the embedded database live there)' };
  if (free < 2 * GB) return { name: 'Disk', level: 'warn', detail, fix: 'shoe-3d results and uploads need room: keep a few GB free under DATA_DIR' };
  return { name: 'Disk', level: 'ok', detail };
}

/** Writes and removes a file where the blob store keeps results (the bucket's probe object with BLOB_STORE=s3). */
export async function checkBlobs(config: FitroomConfig): Promise<Check> {
  if (config.blobStore === 's3') {
    const { s3 } = config;
    const store = new S3BlobStore({ bucket: s3.bucket, region: s3.region, ...(s3.endpoint ? { endpoint: s3.endpoint } : {}), ...(s3.accessKeyId && s3.secretAccessKey ? { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } : {}), forcePathStyle: s3.forcePathStyle, prefix: s3.prefix });
    try {
      await store.probe();
      return { name: 'Blob store', level: 'ok', detail: `S3 bucket ${s3.bucket} at ${s3.endpoint ?? 'AWS'}: a probe object was written, read and deleted` };
    } catch (e) {
      return { name: 'Blob store', level: 'fail', detail: (e as Error).message, fix: 'check S3_ENDPOINT, S3_BUCKET (it must exist), S3_REGION, S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY, and S3_FORCE_PATH_STYLE=true for MinIO or Ceph' };
    } finally {
      store.close();
    }
  }
  const dir = path.join(path.resolve(config.dataDir), 'blobs');
  const probe = path.join(dir, `.doctor-${process.pid}`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(probe, 'ok');
    rmSync(probe);
    return { name: 'Blob store', level: 'ok', detail: `${dir} is writable` };
  } catch (e) {
    return { name: 'Blob store', level: 'fail', detail: `${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, fix: `make DATA_DIR writable for this user (chown or chmod), or set DATA_DIR to a folder you own` };
  }
}

/** The AI vendors this configuration sets up (the dedicated try-on vendors included). */
export function configuredVendors(ai: FitroomConfig['ai']): string[] {
  const t = ai.tryOn;
  return [ai.geminiApiKey && 'gemini', ai.falKey && 'fal', t.fashnApiKey && 'fashn', t.vertexProject && 'vertex', t.cogUrl && 'cog', t.replicateApiToken && 'replicate', ai.meshyApiKey && 'meshy', ai.tripoApiKey && 'tripo'].filter((x): x is string => Boolean(x));
}

/** The configured vendors asked live (the same check as at start): key, configured models, credits. */
export async function checkVendors(config: FitroomConfig): Promise<Check> {
  if (!configuredVendors(config.ai).length) return { name: 'AI vendors', level: 'ok', detail: 'none configured: every capability runs on the builtin engines (classical, CPU)', fix: 'optional: GEMINI_API_KEY or FAL_KEY for AI try-on and generate/pose-transfer, FASHN_API_KEY, VERTEX_PROJECT, FITROOM_COG_URL or REPLICATE_API_TOKEN for dedicated try-on models, MESHY_API_KEY or TRIPO_API_KEY for vendor 3D' };
  const bound = new Map<symbol, unknown>();
  const services: ServiceContainer = { get: <T>(t: Token<T>) => bound.get(t.key) as T, has: (t) => bound.has(t.key), provide: (t, v) => void bound.set(t.key, v) };
  try {
    registerAiProviders(config, services, () => undefined);
  } catch (e) {
    return { name: 'AI vendors', level: 'fail', detail: (e as Error).message, fix: 'fix the AI settings named above' };
  }
  const report = await services.get(TOKENS.vendorStatus).refresh(15_000);
  const lines = report.vendors.map((v) => `${v.provider}: ${v.status.replace('_', ' ')}${v.models?.length ? ` (${v.models.map((m) => `${m.id} ${m.unverified ? 'pinned, not verifiable (no model list)' : m.available ? 'present' : 'missing'}`).join(', ')})` : ''}${v.balance !== undefined ? `, ${v.balance} credits` : ''}${v.message && v.status !== 'ok' ? `: ${v.message}` : ''}`);
  // what the vendors' own lists say: deprecated models (passed over by the chain) and family members
  const chain = new Set((config.ai.modelChain ?? DEFAULT_MODEL_CHAIN).map((id) => modelRegistry.target(id)));
  for (const d of report.deprecatedModels) lines.push(`DEPRECATED by ${d.provider}: ${d.id}${d.successor ? ` (successor: ${d.successor})` : ''}${chain.has(d.id) ? ', passed over by the model chain' : ''}`);
  for (const f of report.families) lines.push(`family ${f.id} (${f.follow}) calls ${f.target ?? 'nothing yet'}${f.source === 'fallback' ? ' (fallback: no model list read)' : ''}`);
  const bad = report.vendors.filter((v) => v.status === 'account_refused' || v.status === 'model_missing' || v.status === 'error');
  const offline = report.vendors.filter((v) => v.status === 'unreachable');
  const deprecatedInChain = report.deprecatedModels.filter((d) => chain.has(d.id));
  const level: CheckLevel = bad.length ? 'fail' : offline.length || deprecatedInChain.length ? 'warn' : 'ok';
  const fix = bad.length
    ? 'a refused key or missing credits: renew them with the vendor; a missing model: change FITROOM_MODEL_CHAIN or add the current id with FITROOM_MODELS'
    : offline.length
      ? 'no answer from the vendor (offline?): jobs fall back along the chain to the builtin engines'
      : deprecatedInChain.length
        ? `replace ${deprecatedInChain.map((d) => d.id).join(', ')} in FITROOM_MODEL_CHAIN (with the successor, or a family entry: FITROOM_MODELS [{"id":…,"follow":"gemini-*-flash-image"}])`
        : undefined;
  return { name: 'AI vendors', level, detail: lines.join('; '), ...(fix ? { fix } : {}) };
}

/** Whether a port is free; when taken, whether Fitroom answers there. */
export async function checkPort(name: string, variable: string, host: string, port: number): Promise<Check> {
  const free = await new Promise<boolean>((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
  if (free) return { name, level: 'ok', detail: `port ${port} is free` };
  const probeHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const health = await fetch(`http://${probeHost}:${port}/api/v1/health`, { signal: AbortSignal.timeout(5000) })
    .then(async (r) => ((await r.json()) as { version?: string }).version ?? null)
    .catch(() => null);
  const ar = await fetch(`http://${probeHost}:${port}/tryon`, { signal: AbortSignal.timeout(5000) }).then((r) => r.headers.get('content-security-policy') !== null).catch(() => false);
  if (health || ar) return { name, level: 'ok', detail: `port ${port} is in use by a running Fitroom${health ? ` ${health}` : ''}`, running: true };
  return { name, level: 'fail', detail: `port ${port} is in use by another program`, fix: `stop that program or choose another port: ${variable}=<port> npm start` };
}

export async function runDoctor(config: FitroomConfig): Promise<Check[]> {
  return [
    checkNode(),
    await checkDatabase(config),
    checkDisk(config),
    await checkBlobs(config),
    await checkVendors(config),
    await checkPort('API host', 'PORT', config.bindHost, config.port),
    await checkPort('AR host', 'AR_PORT', config.bindHost, config.arPort),
  ];
}

export function formatChecks(checks: Check[]): string {
  const mark = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };
  const lines = checks.map((c) => `${mark[c.level]}  ${c.name.padEnd(11)} ${c.detail}${c.fix ? `\n      ${' '.repeat(11)} → ${c.fix}` : ''}`);
  const failed = checks.filter((c) => c.level === 'fail').length;
  const running = checks.some((c) => c.running);
  lines.push(
    failed
      ? `\n${failed} problem${failed > 1 ? 's' : ''} to fix before npm start (see → above).`
      : running
        ? '\nFitroom is running already on these ports: nothing to start (a second npm start would find them taken; stop the running one first, or give it other PORT and AR_PORT and DATA_DIR).'
        : '\nReady: npm start',
  );
  return lines.join('\n');
}
