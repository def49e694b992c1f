import type { Caller } from './credentials.ts';
import type { JobKind } from './jobs.ts';
import type { FitroomConfig } from './config.ts';
import type { Links } from './links.ts';

/** A JSON Schema (draft 2020-12) object, as published in OpenAPI and compiled by ajv. */
export type JsonSchema = Record<string, unknown>;

/** A typed key for a service in the container. Core defines tokens; the composition root binds them. */
export interface Token<T> {
  readonly key: symbol;
  readonly name: string;
  /** Phantom field carrying the service type; never set. */
  readonly __type?: T;
}

export function token<T>(name: string): Token<T> {
  return { key: Symbol.for(`fitroom.${name}`), name };
}

/**
 * How a caller may authenticate for an operation: the name of a registered scheme. The core
 * registers `apiKey` (X-API-Key with a user, service or development key, with X-Service-Account and
 * X-Service-Usage-Account), `storefront` (a `wfs1.` token in X-API-Key), `admin` (X-Admin-Key) and
 * `signedUrl` (token + expires query pair); the AR host adds `bearer`; connectors add their own
 * (app-proxy signatures, platform sessions). `none` means anonymous calls are accepted.
 */
export type AuthScheme = string;

export type RateLimitCategory = 'submission' | 'status' | 'download' | 'health';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A streamed multipart upload, already written to the blob store by the connector. */
export interface UploadedFile {
  blobKey: string;
  size: number;
  filename: string;
  contentType: string;
  /** Other form fields sent with the file. */
  fields: Record<string, string>;
}

export interface UploadSpec {
  field: string;
  maxBytes: number;
  /** Error raised when the file part is missing (default VALIDATION_ERROR). */
  missing?: { code: 'no_file' | 'VALIDATION_ERROR'; status?: number };
  /** Error raised when the file is larger than maxBytes (default PAYLOAD_TOO_LARGE / 413). */
  tooLarge?: { code: 'file_too_large' | 'PAYLOAD_TOO_LARGE'; status?: number };
  /**
   * For operations that also accept a credential inside the form (`auth` lists `none`): when no header
   * authenticated the caller, this runs as the file part starts, with the fields sent before it, and
   * throwing refuses the upload before any byte of it is stored.
   */
  admitAnonymous?: (fieldsBeforeFile: Readonly<Record<string, string>>) => Promise<void>;
}

export interface OperationContext<I = any> {
  params: Record<string, string>;
  query: Record<string, string>;
  /** The validated body (JSON operations) or the non-file fields (multipart). */
  body: I;
  /** The resolved caller; null only for operations that accept `none`. */
  caller: Caller | null;
  /** How the caller authenticated. */
  authScheme: AuthScheme;
  headers: Readonly<Record<string, string | undefined>>;
  upload?: UploadedFile;
  ip: string;
  /** Absolute base URL of the host that received the request (pages, AR host links). */
  baseUrl: string;
  /** Links to jobs and files on the API host (see core/links.ts). */
  links: Links;
  requestId: string;
}

export interface OperationResult {
  status?: number;
  body?: unknown;
  /**
   * The body's JSON text (`JSON.stringify(body)`), when the handler keeps it with an answer it gives
   * unchanged to many requests (a job poll): the connector writes it instead of serialising again.
   */
  json?: string;
  headers?: Record<string, string>;
  /** Binary response (files): bytes or a stream, with its content type. */
  file?: { contentType: string; bytes?: Uint8Array; stream?: NodeJS.ReadableStream; size?: number; filename?: string };
  /** HTML or other text content with an explicit type. */
  text?: { contentType: string; body: string };
  /** Usage units a billable success counts (default 1; a batch counts its items). Not sent. */
  usage?: number;
}

export interface ResponseSpec {
  description: string;
  /** Schema name (components) or inline schema. */
  schema?: string | JsonSchema;
  contentType?: string;
  headers?: Record<string, { description: string; schema: JsonSchema }>;
  /** An answer as the operation gives it (published in OpenAPI; a test validates it against `schema`). */
  example?: unknown;
}

/**
 * An operation: one API call described independently of the transport. The connector mounts it,
 * the OpenAPI document is generated from it, and ajv validates its input with the same schemas.
 */
export interface Operation<I = any> {
  id: string;
  method: HttpMethod;
  /** OpenAPI-style path: `/api/v1/jobs/{jobId}`. */
  path: string;
  /** Which host mounts it: the API host (default) or the AR host. */
  host?: 'api' | 'ar';
  summary: string;
  description?: string;
  tags?: string[];
  auth: AuthScheme[];
  rateLimit?: RateLimitCategory;
  /** Submissions count toward usage and are subject to quotas. */
  billable?: boolean;
  /**
   * Browser-protected (spec, Authentication 5): a request from a browser (it carries `Origin` or
   * `Sec-Fetch-Site`), or any request with a storefront token, needs a single-use `X-Challenge-Token`
   * or a valid pass cookie; otherwise 403.
   */
  browserProtected?: boolean;
  /** Called from storefront pages on other origins: the connector answers CORS preflights for it. */
  cors?: boolean;
  /**
   * CPU-heavy work open to callers without credentials: besides `rateLimit`, such calls get their own
   * budget per client address and minute (429 with Retry-After), at most `perAddressConcurrent` at
   * once from one address (429) and `concurrent` at once in the process (503 with Retry-After).
   */
  anonymousLimit?: { perMinute: number; concurrent: number; perAddressConcurrent: number };
  params?: Record<string, JsonSchema>;
  query?: Record<string, { schema: JsonSchema; required?: boolean; description?: string }>;
  /** Name of a component schema (or inline schema) for a JSON body. */
  body?: string | JsonSchema;
  /** A valid request body (published in OpenAPI; a test validates it against `body`). */
  example?: unknown;
  upload?: UploadSpec;
  /** Largest JSON body in bytes (default from configuration). */
  maxBodyBytes?: number;
  /**
   * The body's large data URLs are only ever fetched as images (OutboundHttp.fetch), never read as
   * text, nor limited by a maxLength: the connector may decode them off the event loop and hand the
   * handler stand-ins (core/inline-data.ts) that the fetch resolves to the same bytes.
   */
  dataUrlsAsBytes?: boolean;
  responses: Record<number, ResponseSpec>;
  /** Not listed in the OpenAPI document (pages, legacy aliases). */
  hidden?: boolean;
  handler(ctx: OperationContext<I>): Promise<OperationResult>;
}

export interface CronTask {
  /** graphile-worker task identifier. */
  task: string;
  /** crontab pattern, e.g. `0 * * * *` (hourly). */
  pattern: string;
  run(): Promise<void>;
}

/** What an authentication resolver sees of a request. */
export interface AuthRequest {
  headers: Readonly<Record<string, string | undefined>>;
  query: Readonly<Record<string, string>>;
  cookie(name: string): string | undefined;
  ip: string;
  /** Operation being called (resolvers may restrict some credentials to some operations). */
  operationId: string;
}

/**
 * Resolves one auth scheme: `undefined` when the request carries no credentials of this scheme,
 * `{caller}` when they are valid (caller may be null for schemes checked by the handler, such as
 * signed URLs); throws a FitroomError when they are present but invalid. `claims` says whether a
 * request carries this scheme's credentials at all, so that a credential sent to an operation that
 * does not accept its scheme is refused (403 CREDENTIAL_NOT_ALLOWED) instead of being ignored.
 */
export type AuthOutcome = { caller: Caller | null } | undefined;

export interface AuthResolver {
  /** The caller (null: anonymous), or undefined when the request carries none of this scheme's credentials; a cached answer may come back without a promise. */
  resolve(req: AuthRequest): AuthOutcome | Promise<AuthOutcome>;
  /** The error for a request that carries no credentials at all. */
  missing(): Error;
  /** Whether the request carries this scheme's credentials (schemes that share a header). */
  claims?(req: AuthRequest): boolean;
  /** Called after a successful request (usage counting); optional. Nothing to wait for: undefined. */
  onSuccess?(caller: Caller, op: Operation, usageUnits: number): Promise<void> | undefined;
  /**
   * How the OpenAPI document shows the scheme: the security requirements an operation listing it
   * accepts (alternatives) and the security scheme objects they name. Every scheme an operation in
   * the document lists must have it: the document is built from the same table the pipeline uses.
   */
  openapi?: { security: Record<string, string[]>[]; schemes?: Record<string, Record<string, unknown>> };
}

/** What a plugin receives in `setup`: the container's services and the registries. */
export interface PluginApi {
  readonly config: FitroomConfig;
  get<T>(t: Token<T>): T;
  /** Whether a service is bound (optional ports). */
  has(t: Token<unknown>): boolean;
  provide<T>(t: Token<T>, value: T): void;
  schema(name: string, schema: JsonSchema): void;
  operation(op: Operation): void;
  jobKind(kind: JobKind<any>): void;
  cron(task: CronTask): void;
  /** Registers the resolver of an auth scheme (the core registers apiKey, admin and signedUrl). */
  auth(scheme: AuthScheme, resolver: AuthResolver): void;
  /** Called at shutdown, in reverse order of registration. */
  onClose(fn: () => Promise<void> | void): void;
}

/** A service a plugin calls without binding it itself (see `FitroomPlugin.uses`). */
export type PluginUse = Token<unknown> | { token: Token<unknown>; optional: true };

export interface FitroomPlugin {
  name: string;
  /** Plugins that must be set up first. */
  after?: string[];
  /**
   * Services this plugin calls that another plugin provides (`api.provide` in its setup) or the
   * composition root binds. Checked once every plugin is set up: a required one that nothing bound
   * stops the start, naming the plugin and the service. An optional one (`{ token, optional: true }`)
   * may be missing: the plugin asks `api.has(token)` where it needs it and says what it cannot do
   * (shoe-3d's `uploadToService` without the AR host's library answers SERVICE_UNAVAILABLE). Resolve
   * them when used (a job, a request), not in `setup`: their provider may be set up later.
   */
  uses?: readonly PluginUse[];
  setup(api: PluginApi): void | Promise<void>;
}

export function definePlugin(plugin: FitroomPlugin): FitroomPlugin {
  return plugin;
}
