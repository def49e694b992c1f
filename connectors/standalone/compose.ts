import 'reflect-metadata';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { ConfigError, type FitroomConfig } from '../../core/config.ts';
import type { FitroomPlugin, Token } from '../../core/plugin.ts';
import { Kernel, type ServiceContainer } from '../../core/kernel.ts';
import { TOKENS } from '../../core/tokens.ts';
import { JobService } from '../../core/jobs.ts';
import { CredentialService } from '../../core/credentials.ts';
import { FileService } from '../../core/files.ts';
import { WebhookSender } from '../../core/webhooks.ts';
import { ImageLoader } from '../../core/image-loader.ts';
import { createPool, isDatabaseUnavailable, migrate, PoolHealth, type Pool } from '../../adapters/postgres/db.ts';
import { DATABASE_HEALTH } from '../../core/ports/database-health.ts';
import { FitroomError } from '../../core/errors.ts';
import { createLogger, jobLog, type Logger } from '../../adapters/pino/logger.ts';
import { BotVerification } from '../../core/bot-verification.ts';
import type { ChallengeVerifier } from '../../core/ports/challenge-verifier.ts';
import { PostgresChallengeReplayStore } from '../../adapters/postgres/challenge-replay-store.ts';
import { AltchaVerifier } from '../../adapters/altcha/verifier.ts';
import { TurnstileVerifier } from '../../adapters/turnstile/verifier.ts';
import { HcaptchaVerifier } from '../../adapters/hcaptcha/verifier.ts';
import { createHmac } from 'node:crypto';
import { PostgresJobStore } from '../../adapters/postgres/job-store.ts';
import { PostgresCredentialStore } from '../../adapters/postgres/credential-store.ts';
import { PostgresFileStore } from '../../adapters/postgres/file-store.ts';
import { PostgresWebhookStore } from '../../adapters/postgres/webhook-store.ts';
import { PostgresRateLimiter } from '../../adapters/postgres/rate-limiter.ts';
import { sharedSecret } from '../../adapters/postgres/settings.ts';
import { PgListener } from '../../adapters/postgres/listener.ts';
import { GraphileQueueProbe } from '../../adapters/graphile-worker/queue-probe.ts';
import { startWorker, type WorkerHandle } from '../../adapters/graphile-worker/worker.ts';
import { FilesystemBlobStore } from '../../adapters/fs/blob-store.ts';
import { S3BlobStore } from '../../adapters/s3/blob-store.ts';
import { BlobStoreUnavailableError, type BlobStore } from '../../core/ports/blob-store.ts';
import { SafeHttp } from '../../adapters/http/safe-http.ts';
import { SharpImageCodec } from '../../adapters/sharp/image-codec.ts';
import { PiscinaCpuPool } from '../../adapters/piscina/cpu-pool.ts';
import { CPU_POOL } from '../../core/ports/cpu-pool.ts';
import { createHttpHandler, type HttpDeps } from './http.ts';
import type Router from '@koa/router';
import { OperationPipeline } from '../../core/pipeline.ts';
import { USAGE_ATTRIBUTION } from '../../core/auth-schemes.ts';
import { PostgresUsageAttributionStore } from '../../adapters/postgres/usage-attribution-store.ts';
import { docsRoutes } from './docs.ts';
import { registerAiProviders } from './providers.ts';
import { bindPluginAdapters } from './adapters.ts';
import { DISCOVERY_CHANNEL, PostgresDiscoveryStore } from '../../adapters/postgres/vendor-discovery-store.ts';

/** Task modules the API host's CPU pool threads import when they start (others load on first use). */
const POOL_MODULES = [
  './body-task.ts',
  '../../plugins/discovery/tasks.ts',
  '../../plugins/texture-painter/tasks.ts',
  '../../adapters/builtin/shoe3d/packshot-classifier-task.ts',
].map((m) => new URL(m, import.meta.url).href);

export interface Fitroom {
  config: FitroomConfig;
  kernel: Kernel;
  pool: Pool;
  get<T>(t: Token<T>): T;
  /** Starts the API host (and the AR host when it has operations) on the configured ports. */
  listen(): Promise<{ apiUrl: string; arUrl: string | null }>;
  startWorker(opts?: { concurrency?: number; pollInterval?: number }): Promise<WorkerHandle>;
  close(): Promise<void>;
}

class TsyringeServices implements ServiceContainer {
  private readonly c: DependencyContainer;
  constructor(c: DependencyContainer) {
    this.c = c;
  }
  get<T>(t: Token<T>): T {
    if (!this.c.isRegistered(t.key, true)) throw new Error(`No service is bound to ${t.name}; is its adapter or plugin installed?`);
    return this.c.resolve<T>(t.key);
  }
  has(t: Token<unknown>): boolean {
    return this.c.isRegistered(t.key, true);
  }
  provide<T>(t: Token<T>, value: T): void {
    this.c.register<T>(t.key, { useValue: value });
  }
}

/**
 * The standalone composition root: chooses adapters from configuration, binds them under the core's
 * tokens in a fresh child container, and sets the plugins up. One code path for embedded and
 * external PostgreSQL: only the connection string differs.
 */
/** A connector's own routes on the API host (OAuth callbacks, platform webhooks, proxies), given the host's deps. */
export type Mount = (router: Router, http: HttpDeps) => void;

/**
 * BLOB_STORE=fs: files under DATA_DIR/blobs (one machine). BLOB_STORE=s3: the shared bucket, checked
 * at start (bucket found, probe object written, read and deleted) so a wrong setting stops the start
 * with what to fix instead of failing the first upload.
 */
async function openBlobStore(config: FitroomConfig): Promise<BlobStore> {
  if (config.blobStore === 'fs') return new FilesystemBlobStore(path.join(config.dataDir, 'blobs'));
  const { s3 } = config;
  const store = new S3BlobStore({
    bucket: s3.bucket,
    region: s3.region,
    ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
    ...(s3.accessKeyId && s3.secretAccessKey ? { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } : {}),
    forcePathStyle: s3.forcePathStyle,
    ...(s3.sse ? { sse: s3.sse } : {}),
    ...(s3.sseKmsKeyId ? { sseKmsKeyId: s3.sseKmsKeyId } : {}),
    prefix: s3.prefix,
    connectTimeoutMs: s3.connectTimeoutMs,
    timeoutMs: s3.timeoutMs,
  });
  try {
    await store.probe();
  } catch (e) {
    store.close();
    throw new ConfigError(`BLOB_STORE=s3: ${(e as Error).message}. Check S3_ENDPOINT (${s3.endpoint ?? 'AWS'}), S3_BUCKET (${s3.bucket}), S3_REGION (${s3.region}), the credentials (S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY) and S3_FORCE_PATH_STYLE (${s3.forcePathStyle}) for MinIO or Ceph`);
  }
  return store;
}

export async function createFitroom(config: FitroomConfig, opts: { databaseUrl: string; plugins: FitroomPlugin[]; poolSize?: number; migrate?: boolean; mounts?: Mount[]; logger?: Logger }): Promise<Fitroom> {
  const log = opts.logger ?? createLogger({ level: process.env.LOG_LEVEL ?? 'warn' });
  const pool = createPool(opts.databaseUrl, opts.poolSize ?? 20, { connectTimeoutMs: config.databaseConnectTimeoutMs });
  if (opts.migrate !== false) await migrate(pool);
  const services = new TsyringeServices(rootContainer.createChildContainer());
  const kernel = new Kernel(config, services);
  const blobs = await openBlobStore(config);
  const outbound = new SafeHttp({ allowedPrivateNetworks: config.allowedPrivateNetworks, ...config.fetch });
  const codec = new SharpImageCodec();
  // request-path CPU work (parsing untrusted text, pixel loops) runs here, never on the HTTP event loop
  const cpuPool = new PiscinaCpuPool(config.cpuPool);
  const webhookStore = new PostgresWebhookStore(pool, config.webhook.maxAttempts);
  const rateLimiter = new PostgresRateLimiter(pool);
  const listener = new PgListener(opts.databaseUrl, { connectTimeoutMs: config.databaseConnectTimeoutMs });
  const jobStore = new PostgresJobStore(pool, config.webhook.maxAttempts, listener);
  const signingSecret = await sharedSecret(pool, 'signing_secret');

  services.provide(TOKENS.config, config);
  services.provide(TOKENS.kernel, kernel);
  services.provide(TOKENS.jobStore, jobStore);
  services.provide(TOKENS.credentialStore, new PostgresCredentialStore(pool, listener));
  services.provide(TOKENS.fileStore, new PostgresFileStore(pool));
  services.provide(TOKENS.webhookStore, webhookStore);
  services.provide(TOKENS.blobStore, blobs);
  services.provide(TOKENS.outboundHttp, outbound);
  services.provide(TOKENS.imageCodec, codec);
  services.provide(CPU_POOL, cpuPool);
  services.provide(TOKENS.rateLimiter, rateLimiter);
  services.provide(TOKENS.queueProbe, new GraphileQueueProbe(pool));
  services.provide(DATABASE_HEALTH, new PoolHealth(pool));
  const replay = new PostgresChallengeReplayStore(pool);
  services.provide(TOKENS.challengeReplay, replay);
  if (config.bot.verifier !== 'off') services.provide(TOKENS.botCheck, new BotVerification({ verifier: challengeVerifier(config, signingSecret), replay, signingSecret, secrets: config.tokens.secrets }));
  services.provide(USAGE_ATTRIBUTION, new PostgresUsageAttributionStore(pool));
  services.provide(TOKENS.signingSecret, signingSecret);
  services.provide(TOKENS.jobs, new JobService(jobStore, kernel.jobKinds, jobLog(log)));
  services.provide(TOKENS.credentials, new CredentialService(services.get(TOKENS.credentialStore)));
  services.provide(TOKENS.files, new FileService(blobs, services.get(TOKENS.fileStore), signingSecret));
  services.provide(TOKENS.images, new ImageLoader(outbound, codec, config.fetch.maxBytes));
  registerAiProviders(config, services);
  // Discovery results are shared through PostgreSQL: a run in any process reaches the others by NOTIFY.
  const discovery = services.get(TOKENS.vendorDiscovery);
  discovery.useStore(new PostgresDiscoveryStore(pool));
  await listener.on(DISCOVERY_CHANNEL, () => void discovery.load().catch(() => undefined));
  bindPluginAdapters({ config, pool, blobs, services });

  await kernel.setup(opts.plugins);

  const servers: http.Server[] = [];
  // Webhooks get their own outbound client: short connect and total timeouts, no redirects, and a
  // connection pool apart from image fetches.
  const webhookHttp = new SafeHttp({ allowedPrivateNetworks: config.allowedPrivateNetworks, maxBytes: 64 * 1024, maxRedirects: 0, timeoutMs: config.webhook.timeoutMs, connectTimeoutMs: config.webhook.connectTimeoutMs });
  const webhooks = new WebhookSender(webhookStore, webhookHttp, { timeoutMs: config.webhook.timeoutMs, breaker: { threshold: config.webhook.breakerThreshold, pauseMs: config.webhook.breakerPauseMs } });
  const workers: WorkerHandle[] = [];

  const listenOn = (handler: ReturnType<typeof createHttpHandler>, port: number) =>
    new Promise<string>((resolve, reject) => {
      const server = http.createServer({ connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(config.http.headersTimeoutMs / 4))) }, handler);
      // A slow or stalled client cannot hold a connection: headers, whole request and idle time are bounded.
      server.keepAliveTimeout = 65_000;
      server.headersTimeout = config.http.headersTimeoutMs;
      server.requestTimeout = config.http.requestTimeoutMs;
      server.timeout = config.http.idleTimeoutMs;
      server.once('error', reject);
      server.listen(port, config.bindHost, () => {
        servers.push(server);
        const a = server.address() as AddressInfo;
        const host = config.bindHost === '0.0.0.0' || config.bindHost === '::' ? '127.0.0.1' : config.bindHost;
        resolve(`http://${host}:${a.port}`);
      });
    });

  const createPipeline = () =>
    new OperationPipeline({
      kernel,
      rateLimiter,
      botCheck: services.has(TOKENS.botCheck) ? services.get(TOKENS.botCheck) : null,
      // a blob store or database that cannot be reached is a 503 the client may retry, not an internal
      // error; each is named by where the error came from (the store's adapter, the database pool)
      classifyError: (e) => {
        if (isStorageFault(e)) return new FitroomError('STORAGE_UNAVAILABLE', 'The file store cannot be reached right now; retry in a few seconds');
        if (isDatabaseUnavailable(e)) return new FitroomError('DATABASE_UNAVAILABLE', 'The database cannot be reached right now; retry in a few seconds');
        return null;
      },
      logError: (requestId, op, e) => log.error({ reqId: requestId, op, err: e }, 'unexpected error'),
    });

  return {
    config,
    kernel,
    pool,
    get: (t) => services.get(t),
    async listen() {
      const pipeline = createPipeline();
      await cpuPool.warm(POOL_MODULES);
      let arPort: number | undefined;
      const apiUrl = await listenOn(createHttpHandler({ kernel, pipeline, blobs, cpuPool, host: 'api', log, arPort: () => arPort, extraRoutes: (r, d) => (docsRoutes(r), opts.mounts?.forEach((m) => m(r, d))) }), config.port);
      const apiPort = Number(new URL(apiUrl).port);
      const hasAr = kernel.operations.some((o) => o.host === 'ar');
      const arUrl = hasAr ? await listenOn(createHttpHandler({ kernel, pipeline, blobs, cpuPool, host: 'ar', log, apiPort: () => apiPort }), config.arPort) : null;
      if (arUrl) arPort = Number(new URL(arUrl).port);
      return { apiUrl, arUrl };
    },
    async startWorker(o = {}) {
      const w = await startWorker({
        pool,
        kernel,
        jobs: services.get(TOKENS.jobs),
        jobStore,
        webhooks,
        concurrency: o.concurrency ?? config.workerConcurrency,
        webhookConcurrency: config.webhook.concurrency,
        pollInterval: o.pollInterval,
        deadAfterSeconds: config.workerDeadAfterSeconds,
        log,
        extraCrons: [
          { task: 'fitroom_purge_rate_limits', pattern: '*/10 * * * *', run: () => rateLimiter.purge() },
          // graphile-worker runs a cron item once however many workers share the database
          ...(config.ai.discoveryHours > 0 ? [{ task: 'fitroom_vendor_discovery', pattern: discoveryCron(config.ai.discoveryHours), run: async () => void (await discovery.refresh()) }] : []),
        ],
      });
      workers.push(w);
      return w;
    },
    async close() {
      await Promise.all(servers.map((s) => new Promise<void>((r) => { s.close(() => r()); s.closeAllConnections(); })));
      for (const w of workers) await w.stop();
      await kernel.close();
      await rateLimiter.close();
      await listener.close();
      await outbound.close();
      await cpuPool.close();
      await webhookHttp.close();
      if (blobs instanceof S3BlobStore) blobs.close();
      await pool.end();
    },
  };
}

/** A blob-store failure, thrown directly or as the cause of another error. */
function isStorageFault(e: unknown): boolean {
  for (let c = e, depth = 0; c && depth < 5; c = (c as { cause?: unknown }).cause, depth++) if (c instanceof BlobStoreUnavailableError) return true;
  return false;
}

/** FITROOM_VENDOR_DISCOVERY_HOURS as a crontab pattern: every N hours, or every N/24 days past a day. */
export function discoveryCron(hours: number): string {
  return hours < 24 ? `23 */${hours} * * *` : `23 4 */${Math.ceil(hours / 24)} * *`;
}

/** The configured bot-verification backend (BOT_VERIFIER). */
function challengeVerifier(config: FitroomConfig, signingSecret: string): ChallengeVerifier {
  const b = config.bot;
  if (b.verifier === 'turnstile') return new TurnstileVerifier({ secretKey: b.secretKey!, siteKey: b.siteKey! });
  if (b.verifier === 'hcaptcha') return new HcaptchaVerifier({ secretKey: b.secretKey!, siteKey: b.siteKey! });
  return new AltchaVerifier({ hmacKey: createHmac('sha256', signingSecret).update('fitroom altcha v1').digest('hex') });
}
