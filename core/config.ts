import os from 'node:os';
/**
 * Deployment configuration, read once at start from environment variables. Every setting and its
 * default is listed here and in the README's configuration table.
 */
export interface FitroomConfig {
  env: 'development' | 'production';
  /** API host port (PORT) and AR host port (AR_PORT); 0 picks a free port. */
  port: number;
  arPort: number;
  bindHost: string;
  /** Absolute base URLs used in links (statusUrl, result URLs, viewer URLs). Derived from the request when unset. */
  publicUrl: string | null;
  arPublicUrl: string | null;
  /** External PostgreSQL; when null an embedded cluster runs under dataDir. */
  databaseUrl: string | null;
  /** DATABASE_CONNECT_TIMEOUT_MS: how long opening a database connection may take before it fails. */
  databaseConnectTimeoutMs: number;
  dataDir: string;
  adminKey: string | null;
  /** CIDRs outbound fetches may reach besides public addresses (tests use loopback). */
  allowedPrivateNetworks: string[];
  /** CIDRs whose clients may call the operator routes that use the IP allowlist (monitoring); empty = nobody. */
  operatorAllowlist: string[];
  /**
   * Reverse proxies in front of the service (TRUST_PROXY): 0 = none, the client address is the
   * socket's; n = the address n hops from the right of X-Forwarded-For (each trusted proxy appends one).
   */
  trustProxyHops: number;
  /** Secret of the foot-measurement admin routes (FOOT_ADMIN_KEY); null = those routes answer 503. */
  footAdminKey: string | null;
  /** How long stored foot scans are kept (FOOT_SCAN_RETENTION_DAYS). */
  footScanRetentionDays: number;
  workerConcurrency: number;
  /**
   * BATCH_LANES: at most this many batch items run at once across all workers (0: no cap; batch items
   * then only yield to real-time work by priority). A cap keeps slots free for real-time work.
   */
  batchLanes: number;
  /**
   * BLOB_STORE: `fs` (files under DATA_DIR/blobs, one machine) or `s3` (an S3-compatible bucket that
   * every API and worker process shares).
   */
  blobStore: 'fs' | 's3';
  s3: { endpoint: string | null; bucket: string; region: string; accessKeyId: string | null; secretAccessKey: string | null; forcePathStyle: boolean; sse: 'AES256' | 'aws:kms' | null; sseKmsKeyId: string | null; prefix: string; connectTimeoutMs: number; timeoutMs: number };
  /** DISCOVERY_TIMEOUT_MS: the time budget of one product discovery (synchronous route). */
  discoveryTimeoutMs: number;
  /**
   * The worker threads that run request-path CPU work off the HTTP event loop (CPU_POOL_THREADS,
   * CPU_POOL_QUEUE waiting calls beyond them; CPU_BUDGET_MS: the longest one call may run before its
   * thread is terminated).
   */
  cpuPool: { threads: number; maxQueue: number; budgetMs: number };
  /** A worker whose heartbeat is older than this is considered gone; its jobs are released. */
  workerDeadAfterSeconds: number;
  /** Extra plugin modules to install (FITROOM_PLUGINS, comma-separated module paths). */
  extraPlugins: string[];
  /** Largest JSON request body. Images arrive inline as data URLs, hence the generous default. */
  maxJsonBytes: number;
  /** Outbound fetch bounds for user-supplied URLs. */
  fetch: { maxBytes: number; timeoutMs: number; maxRedirects: number };
  /**
   * Webhook deliveries: their own worker runner (`concurrency` attempts at once per worker process,
   * never in job slots), connect and total timeouts of one attempt, and the per-receiver circuit
   * breaker (`breakerThreshold` timeouts in a row pause a receiver for `breakerPauseMs`).
   */
  webhook: { timeoutMs: number; connectTimeoutMs: number; maxAttempts: number; concurrency: number; breakerThreshold: number; breakerPauseMs: number };
  /** How long result files stay downloadable. */
  resultTtlSeconds: number;
  twinTtlSeconds: number;
  defaultPose: { female: string; male: string; unknown: string };
  /** Vendor credentials and the model chain (ids from the model registry). */
  ai: {
    geminiApiKey: string | null;
    falKey: string | null;
    meshyApiKey: string | null;
    tripoApiKey: string | null;
    modelChain: string[] | null;
    reconstructor: string;
    /** FITROOM_MODELS (JSON) and FITROOM_MODELS_FILE (a JSON file): models added or changed without a release. */
    models: string | null;
    modelsFile: string | null;
    /** MESHY_AI_MODEL: the pinned Meshy model (`latest` would change without notice). */
    meshyAiModel: string;
    /** TRIPO_MODEL_VERSION: the pinned Tripo model version. */
    tripoModelVersion: string;
    /** The 3D vendors' endpoints and time budgets: MESHY_* and TRIPO_* (BASE_URL, TASK_TIMEOUT_SECONDS, POLL_INTERVAL_MS). */
    meshy: Vendor3dSettings;
    tripo: Vendor3dSettings;
    /** FITROOM_VENDOR_DISCOVERY_HOURS: how often the vendors' model lists are read (0: only at start). */
    discoveryHours: number;
    /** FAL_OBJECT_TTL_SECONDS: lifetime asked of fal storage for uploaded references and generated files. */
    falObjectTtlSeconds: number;
    /** Dedicated try-on vendors: FASHN's API, Vertex AI (project, region, service-account key JSON), a Cog container, Replicate. */
    tryOn: {
      fashnApiKey: string | null;
      vertexProject: string | null;
      vertexLocation: string;
      vertexCredentialsJson: string | null;
      cogUrl: string | null;
      cogToken: string | null;
      cogInputs: string | null;
      replicateApiToken: string | null;
      replicateModel: string | null;
      replicateInputs: string | null;
    };
  };
  /** Multiplier for development keys and loopback clients (development only). */
  devRateMultiplier: number;
  /**
   * SHOPPER_SUBMISSIONS_PER_MINUTE: the submission limit of each shopper a merchant server forwards
   * (X-Fitroom-Shopper), taken as set; unset = a key's limit (with the development multiplier).
   */
  shopperSubmissionsPerMinute: number | null;
  /** How long a client may take to send its headers, its whole request, or stay idle on a connection. */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; idleTimeoutMs: number };
  /**
   * Signed tokens (storefront `wfs1.`, account `wfa1.`, usage `wfu1.`): lifetimes, and the signing
   * secrets by key id (the first signs, all verify; empty = one key derived from the database's
   * signing secret). Usage tokens need their own handshake secret; without it they are disabled.
   */
  tokens: { storefrontTtlSeconds: number; accountTtlSeconds: number; secrets: { kid: string; secret: string }[]; usageHandshakeSecret: string | null };
  /** Bot verification of browser-protected requests (BOT_VERIFIER): builtin proof of work, a vendor, or off. */
  bot: { verifier: 'altcha' | 'turnstile' | 'hcaptcha' | 'off'; secretKey: string | null; siteKey: string | null };
}

/**
 * Jobs one worker process runs at once when WORKER_CONCURRENCY is unset, from memory: a worker
 * process stays under 1.5 GB RSS (about 350 MB of its own, up to 550 MB per heavy job within the
 * per-job decoded-pixel budget, measured by `npm run bench`), and all workers of a machine under
 * half its memory.
 */
export function autoConcurrency(totalMemBytes: number): number {
  const mb = totalMemBytes / 1048576;
  const perProcess = Math.floor((1536 - 350) / 550);
  const byMachine = Math.floor((mb * 0.5 - 350) / 550);
  return Math.max(1, Math.min(perProcess, byMachine));
}

/** One 3D vendor's settings: its API base (a regional or stand-in endpoint), task timeout, poll cadence. */
export interface Vendor3dSettings {
  baseUrl: string | null;
  /** How long a job waits for one vendor task, from its creation (default 600 s: vendors document 1-5 min). */
  taskTimeoutMs: number;
  /** First wait between status reads; null = the adapter's own default. */
  pollIntervalMs: number | null;
}

function vendor3d(env: Env, prefix: 'MESHY' | 'TRIPO'): Vendor3dSettings {
  const poll = str(env, `${prefix}_POLL_INTERVAL_MS`);
  return {
    baseUrl: url(env, `${prefix}_BASE_URL`),
    taskTimeoutMs: int(env, `${prefix}_TASK_TIMEOUT_SECONDS`, 600, 10, 24 * 3600) * 1000,
    pollIntervalMs: poll === null ? null : int(env, `${prefix}_POLL_INTERVAL_MS`, 0, 1, 600_000),
  };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, def: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  return n;
}

function str(env: Env, name: string): string | null {
  const v = env[name];
  return v === undefined || v.trim() === '' ? null : v.trim();
}

function list(env: Env, name: string): string[] | null {
  const v = str(env, name);
  return v ? v.split(',').map((s) => s.trim()).filter(Boolean) : null;
}

function url(env: Env, name: string): string | null {
  const v = str(env, name);
  if (!v) return null;
  try {
    const u = new URL(v);
    return u.toString().replace(/\/$/, '');
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got "${v}"`);
  }
}

const CIDR = /^(\d{1,3}(\.\d{1,3}){3}|[0-9a-fA-F:]+)\/\d{1,3}$/;

function cidrs(env: Env, name: string): string[] | null {
  const nets = list(env, name);
  for (const n of nets ?? []) if (!CIDR.test(n)) throw new ConfigError(`${name}: "${n}" is not a CIDR (e.g. 10.0.0.0/8)`);
  return nets;
}

export function loadConfig(env: Env): FitroomConfig {
  const nets = list(env, 'ALLOWED_PRIVATE_NETWORKS') ?? [];
  for (const n of nets) if (!CIDR.test(n)) throw new ConfigError(`ALLOWED_PRIVATE_NETWORKS: "${n}" is not a CIDR (e.g. 127.0.0.0/8)`);
  const mode = str(env, 'FITROOM_ENV') ?? (env.NODE_ENV === 'production' ? 'production' : 'development');
  if (mode !== 'development' && mode !== 'production') throw new ConfigError(`FITROOM_ENV must be development or production, got "${mode}"`);
  return {
    env: mode,
    port: int(env, 'PORT', 3000, 0, 65535),
    arPort: int(env, 'AR_PORT', 3001, 0, 65535),
    bindHost: str(env, 'HOST') ?? '0.0.0.0',
    publicUrl: url(env, 'PUBLIC_URL'),
    arPublicUrl: url(env, 'AR_PUBLIC_URL'),
    databaseUrl: str(env, 'DATABASE_URL'),
    databaseConnectTimeoutMs: int(env, 'DATABASE_CONNECT_TIMEOUT_MS', 10_000, 100, 600_000),
    dataDir: str(env, 'DATA_DIR') ?? './.fitroom',
    adminKey: str(env, 'ADMIN_KEY'),
    allowedPrivateNetworks: nets,
    operatorAllowlist: cidrs(env, 'MONITORING_ALLOWED_IPS') ?? [],
    trustProxyHops: proxyHops(env),
    footAdminKey: str(env, 'FOOT_ADMIN_KEY'),
    footScanRetentionDays: int(env, 'FOOT_SCAN_RETENTION_DAYS', 90, 1, 3650),
    workerConcurrency: int(env, 'WORKER_CONCURRENCY', autoConcurrency(os.totalmem()), 1, 64),
    batchLanes: int(env, 'BATCH_LANES', 0, 0, 64),
    discoveryTimeoutMs: int(env, 'DISCOVERY_TIMEOUT_MS', 20_000, 500, 120_000),
    cpuPool: {
      threads: int(env, 'CPU_POOL_THREADS', Math.max(1, Math.min(4, os.availableParallelism() - 1)), 1, 64),
      maxQueue: int(env, 'CPU_POOL_QUEUE', 32, 0, 10_000),
      budgetMs: int(env, 'CPU_BUDGET_MS', 15_000, 100, 600_000),
    },
    ...blobSettings(env),
    workerDeadAfterSeconds: int(env, 'WORKER_DEAD_AFTER_SECONDS', 30, 2, 3600),
    extraPlugins: list(env, 'FITROOM_PLUGINS') ?? [],
    maxJsonBytes: int(env, 'MAX_JSON_BYTES', 40 * 1024 * 1024, 1024),
    fetch: {
      maxBytes: int(env, 'FETCH_MAX_BYTES', 25 * 1024 * 1024, 1024),
      timeoutMs: int(env, 'FETCH_TIMEOUT_MS', 15_000, 100),
      maxRedirects: int(env, 'FETCH_MAX_REDIRECTS', 3, 0, 10),
    },
    webhook: {
      timeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 5000, 100, 60_000),
      connectTimeoutMs: int(env, 'WEBHOOK_CONNECT_TIMEOUT_MS', 2000, 100, 60_000),
      maxAttempts: 3,
      concurrency: int(env, 'WEBHOOK_CONCURRENCY', 8, 1, 256),
      breakerThreshold: int(env, 'WEBHOOK_BREAKER_THRESHOLD', 3, 1, 1000),
      breakerPauseMs: int(env, 'WEBHOOK_BREAKER_PAUSE_MS', 60_000, 100, 86_400_000),
    },
    resultTtlSeconds: int(env, 'RESULT_TTL_SECONDS', 7 * 24 * 3600, 60),
    twinTtlSeconds: int(env, 'TWIN_TTL_SECONDS', 30 * 24 * 3600, 60),
    defaultPose: {
      female: str(env, 'DEFAULT_POSE_FEMALE') ?? 'girl_pose',
      male: str(env, 'DEFAULT_POSE_MALE') ?? 'man_pose',
      unknown: str(env, 'DEFAULT_POSE') ?? 'standing_arms_down',
    },
    ai: {
      geminiApiKey: str(env, 'GEMINI_API_KEY'),
      falKey: str(env, 'FAL_KEY'),
      meshyApiKey: str(env, 'MESHY_API_KEY'),
      tripoApiKey: str(env, 'TRIPO_API_KEY'),
      modelChain: list(env, 'FITROOM_MODEL_CHAIN'),
      reconstructor: str(env, 'FITROOM_RECONSTRUCTOR') ?? 'builtin',
      models: str(env, 'FITROOM_MODELS'),
      modelsFile: str(env, 'FITROOM_MODELS_FILE'),
      meshyAiModel: str(env, 'MESHY_AI_MODEL') ?? 'meshy-6',
      tripoModelVersion: str(env, 'TRIPO_MODEL_VERSION') ?? 'v3.1-20260211',
      meshy: vendor3d(env, 'MESHY'),
      tripo: vendor3d(env, 'TRIPO'),
      discoveryHours: int(env, 'FITROOM_VENDOR_DISCOVERY_HOURS', 6, 0, 168),
      falObjectTtlSeconds: int(env, 'FAL_OBJECT_TTL_SECONDS', 3600, 1, 30 * 86_400),
      tryOn: {
        fashnApiKey: str(env, 'FASHN_API_KEY'),
        vertexProject: str(env, 'VERTEX_PROJECT'),
        vertexLocation: str(env, 'VERTEX_LOCATION') ?? 'us-central1',
        vertexCredentialsJson: str(env, 'VERTEX_CREDENTIALS_JSON'),
        cogUrl: str(env, 'FITROOM_COG_URL'),
        cogToken: str(env, 'FITROOM_COG_TOKEN'),
        cogInputs: str(env, 'FITROOM_COG_INPUTS'),
        replicateApiToken: str(env, 'REPLICATE_API_TOKEN'),
        replicateModel: str(env, 'REPLICATE_MODEL'),
        replicateInputs: str(env, 'REPLICATE_INPUTS'),
      },
    },
    devRateMultiplier: mode === 'development' ? 10 : 1,
    shopperSubmissionsPerMinute: env.SHOPPER_SUBMISSIONS_PER_MINUTE ? int(env, 'SHOPPER_SUBMISSIONS_PER_MINUTE', 50, 1, 100_000) : null,
    http: {
      headersTimeoutMs: int(env, 'HTTP_HEADERS_TIMEOUT_MS', 20_000, 100, 600_000),
      requestTimeoutMs: int(env, 'HTTP_REQUEST_TIMEOUT_MS', 300_000, 100, 3_600_000),
      idleTimeoutMs: int(env, 'HTTP_IDLE_TIMEOUT_MS', 60_000, 100, 3_600_000),
    },
    tokens: {
      storefrontTtlSeconds: int(env, 'STOREFRONT_TOKEN_TTL_SECONDS', 900, 60, MAX_TOKEN_TTL_SECONDS),
      accountTtlSeconds: int(env, 'ACCOUNT_TOKEN_TTL_SECONDS', 3600, 60, 24 * 3600),
      secrets: tokenSecrets(env),
      usageHandshakeSecret: str(env, 'USAGE_TOKEN_HANDSHAKE_SECRET'),
    },
    bot: botSettings(env),
  };
}

function botSettings(env: Env): FitroomConfig['bot'] {
  const verifier = (str(env, 'BOT_VERIFIER') ?? 'altcha').toLowerCase();
  if (!['altcha', 'turnstile', 'hcaptcha', 'off'].includes(verifier)) throw new ConfigError(`BOT_VERIFIER must be altcha, turnstile, hcaptcha or off, got "${verifier}"`);
  if (verifier === 'turnstile' || verifier === 'hcaptcha') {
    const prefix = verifier === 'turnstile' ? 'TURNSTILE' : 'HCAPTCHA';
    const secretKey = str(env, `${prefix}_SECRET_KEY`);
    const siteKey = str(env, `${prefix}_SITE_KEY`);
    if (!secretKey || !siteKey) throw new ConfigError(`BOT_VERIFIER=${verifier} needs ${prefix}_SECRET_KEY and ${prefix}_SITE_KEY`);
    return { verifier, secretKey, siteKey };
  }
  return { verifier: verifier as 'altcha' | 'off', secretKey: null, siteKey: null };
}

/** TRUST_PROXY: unset, `false` or 0 = off; `true` = one proxy; or the number of proxy hops (1-10). */
function blobSettings(env: Env): Pick<FitroomConfig, 'blobStore' | 's3'> {
  const kind = str(env, 'BLOB_STORE') ?? 'fs';
  if (kind !== 'fs' && kind !== 's3') throw new ConfigError(`BLOB_STORE must be fs or s3, got "${kind}"`);
  const bucket = str(env, 'S3_BUCKET');
  if (kind === 's3' && !bucket) throw new ConfigError('BLOB_STORE=s3 needs S3_BUCKET (and S3_ENDPOINT for a store other than AWS S3)');
  const accessKeyId = str(env, 'S3_ACCESS_KEY_ID');
  const secretAccessKey = str(env, 'S3_SECRET_ACCESS_KEY');
  if (!!accessKeyId !== !!secretAccessKey) throw new ConfigError('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together (or neither: the AWS SDK then uses its default credentials, e.g. an instance role)');
  const sse = str(env, 'S3_SSE');
  if (sse && sse !== 'AES256' && sse !== 'aws:kms') throw new ConfigError(`S3_SSE must be AES256 or aws:kms, got "${sse}"`);
  const pathStyle = str(env, 'S3_FORCE_PATH_STYLE');
  if (pathStyle && !['true', 'false', '1', '0'].includes(pathStyle)) throw new ConfigError(`S3_FORCE_PATH_STYLE must be true or false, got "${pathStyle}"`);
  const prefix = str(env, 'S3_PREFIX') ?? '';
  if (prefix && !/^[A-Za-z0-9/_.-]+\/$/.test(prefix)) throw new ConfigError('S3_PREFIX must end with / and hold only letters, digits, /, _, . and -');
  return {
    blobStore: kind,
    s3: {
      endpoint: url(env, 'S3_ENDPOINT'),
      bucket: bucket ?? '',
      region: str(env, 'S3_REGION') ?? 'us-east-1',
      accessKeyId,
      secretAccessKey,
      forcePathStyle: pathStyle === 'true' || pathStyle === '1',
      sse: sse as 'AES256' | 'aws:kms' | null,
      sseKmsKeyId: str(env, 'S3_SSE_KMS_KEY_ID'),
      prefix,
      connectTimeoutMs: int(env, 'S3_CONNECT_TIMEOUT_MS', 2000, 100, 60_000),
      timeoutMs: int(env, 'S3_TIMEOUT_MS', 10_000, 100, 600_000),
    },
  };
}

function proxyHops(env: Env): number {
  const v = str(env, 'TRUST_PROXY')?.toLowerCase();
  if (!v || v === 'false') return 0;
  if (v === 'true') return 1;
  return int(env, 'TRUST_PROXY', 0, 0, 10);
}

/** The longest a storefront token may live, whatever is asked (documented in the OpenAPI document). */
export const MAX_TOKEN_TTL_SECONDS = 3600;

/** TOKEN_SECRETS: `kid:secret` pairs, comma-separated; the first signs new tokens, all verify. */
function tokenSecrets(env: Env): { kid: string; secret: string }[] {
  const out: { kid: string; secret: string }[] = [];
  for (const item of list(env, 'TOKEN_SECRETS') ?? []) {
    const i = item.indexOf(':');
    const kid = i > 0 ? item.slice(0, i) : '';
    const secret = i > 0 ? item.slice(i + 1) : '';
    if (!/^[A-Za-z0-9_-]{1,16}$/.test(kid) || secret.length < 32) throw new ConfigError('TOKEN_SECRETS must be "kid:secret" pairs (kid of 1-16 letters, digits, _ or -; secret of at least 32 characters), comma-separated');
    if (out.some((o) => o.kid === kid)) throw new ConfigError(`TOKEN_SECRETS: key id "${kid}" appears twice`);
    out.push({ kid, secret });
  }
  return out;
}
