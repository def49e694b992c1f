import Koa from 'koa';
import Router, { type RouterContext } from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import busboy from 'busboy';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import type { Kernel } from '../../core/kernel.ts';
import type { Logger } from '../../adapters/pino/logger.ts';
import type { Operation, UploadSpec, UploadedFile } from '../../core/plugin.ts';
import type { InboundRequest, OperationPipeline, OperationResponse } from '../../core/pipeline.ts';
import { apiOrigin, restLinks, type Links } from '../../core/links.ts';
import { BlobStoreUnavailableError, BlobTooLargeError, type BlobStore } from '../../core/ports/blob-store.ts';
import { FitroomError, validationError } from '../../core/errors.ts';
import { cpuTask, type CpuPool } from '../../core/ports/cpu-pool.ts';
import { holdInlineData } from '../../core/inline-data.ts';
import type { DecodedDataUrl } from './body-task.ts';

/** Bodies above this are parsed on a CPU pool thread: JSON.parse takes about 4 ms per MB. */
const INLINE_JSON_CHARS = 256 * 1024;
const PARSE_BUDGET_MS = 60_000;
const parseJsonTask = cpuTask<string, { ok: true; value: unknown } | { ok: false }>(new URL('./body-task.ts', import.meta.url), 'parseJson');
type ParsedBody = { ok: true; value: unknown; inline?: DecodedDataUrl[] } | { ok: false };
const parseJsonBytesTask = cpuTask<Uint8Array, ParsedBody>(new URL('./body-task.ts', import.meta.url), 'parseJsonBytes');
const parseJsonBytesDecodingDataTask = cpuTask<Uint8Array, ParsedBody>(new URL('./body-task.ts', import.meta.url), 'parseJsonBytesDecodingData');
const decodeBase64TextsTask = cpuTask<Uint8Array[], Uint8Array[]>(new URL('./body-task.ts', import.meta.url), 'decodeBase64Texts');

/**
 * Shared memory for large bodies, kept for the next one: the first touch of fresh memory is what
 * costs (about 4 ms per MB on a virtual machine here, more than reading the body), and a process
 * serves bodies of similar sizes. Bodies up to 8 MB reuse a buffer of the next power of two; at most
 * four wait, so at most 32 MB stay allocated between requests.
 */
const bodyBuffers = {
  spare: [] as SharedArrayBuffer[],
  MAX_KEPT: 4,
  MAX_BYTES: 8 * 1024 * 1024,
  take(length: number): SharedArrayBuffer {
    const i = this.spare.findIndex((b) => b.byteLength >= length && b.byteLength <= 2 * Math.max(length, INLINE_JSON_CHARS));
    if (i >= 0) return this.spare.splice(i, 1)[0];
    return new SharedArrayBuffer(length > this.MAX_BYTES ? length : 2 ** Math.ceil(Math.log2(Math.max(length, INLINE_JSON_CHARS))));
  },
  give(b: SharedArrayBuffer): void {
    if (b.byteLength <= this.MAX_BYTES && this.spare.length < this.MAX_KEPT) this.spare.push(b);
  },
};

/**
 * A large uncompressed body as bytes, parsed on a pool thread: no string of it is built on the event
 * loop. Each chunk is copied, as it arrives, into shared memory of the declared length, which the
 * thread reads in place: the loop never copies or allocates the whole body in one go (on a virtual
 * machine, first touching 15 MB of fresh memory alone took 70 ms there). Once the thread has
 * answered, the loop yields before validation and the handler run, so that taking the parsed value
 * (its strings are copied in) and the work after it are separate turns of the loop. With
 * `decodeData` (operations that take images as data URLs) the thread also decodes large data URLs:
 * the value carries stand-ins and the bytes are held for this request until its answer is written.
 */
async function readLargeJson(ctx: Koa.Context, length: number, pool: CpuPool, decodeData: boolean): Promise<unknown> {
  const shared = bodyBuffers.take(length);
  const bytes = new Uint8Array(shared, 0, length);
  let at = 0;
  try {
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
      // Node's parser never delivers more than Content-Length; this only guards the copy
      if (at + chunk.length > length) throw malformedJson();
      bytes.set(chunk, at);
      at += chunk.length;
    }
  } catch (e) {
    if (e instanceof FitroomError) throw e;
    throw validationError([{ field: '(body)', message: 'ended before its Content-Length' }], 'Incomplete request body');
  }
  if (at !== length) throw validationError([{ field: '(body)', message: 'ended before its Content-Length' }], 'Incomplete request body');
  // JSON.parse is linear and the body bounded (40 MB: well under a second of CPU): the budget only
  // matters on a machine that starves the thread, where failing a valid body would be wrong
  const parsed = await pool.run(decodeData ? parseJsonBytesDecodingDataTask : parseJsonBytesTask, bytes, { budgetMs: PARSE_BUDGET_MS });
  const later = parsed.ok ? (parsed.inline ?? []).filter((i) => i.at) : [];
  // the thread is done with the bytes (its answer holds copies): the next body may reuse them, or,
  // when data URLs are still to be decoded from them, once the answer is written and none is decoding
  if (!later.length) bodyBuffers.give(shared);
  if (parsed.ok && parsed.inline) {
    // the first that is needed decodes them all, in one call (a request that needs one stores them all)
    let decoding: Promise<Uint8Array[]> | undefined;
    const decodeAll = () => (decoding ??= pool.run(decodeBase64TextsTask, later.map((i) => new Uint8Array(shared, i.at!.offset, i.at!.length)), { budgetMs: PARSE_BUDGET_MS }));
    const items = parsed.inline.map(({ at, ...i }) => (at ? { ...i, load: async () => (await decodeAll())[later.findIndex((l) => l.ref === i.ref)] } : i));
    ctx.res.once('close', holdInlineData(items, later.length ? () => bodyBuffers.give(shared) : undefined));
  }
  await new Promise((resolve) => setImmediate(resolve));
  if (!parsed.ok) throw malformedJson();
  return parsed.value;
}

/** A submission's job id in its request line (the job's "queued" line: its worker lines carry the same request id). */
function submittedJob(body: unknown): { jobId?: string } {
  const id = (body as { jobId?: unknown } | null)?.jobId;
  return typeof id === 'string' ? { jobId: id } : {};
}

export { RATE_LIMITS } from '../../core/pipeline.ts';

export interface HttpDeps {
  kernel: Kernel;
  pipeline: OperationPipeline;
  blobs: BlobStore;
  host: 'api' | 'ar';
  /** The API host's port, for links in AR host answers when PUBLIC_URL is unset. */
  apiPort?: () => number | undefined;
  /** The AR host's port (known once it listens), for links to it when AR_PUBLIC_URL is unset. */
  arPort?: () => number | undefined;
  /** One line per request (never a key, token or body). */
  log?: Logger;
  /** Extra routes mounted before the operations (docs pages, connectors with routes of their own). */
  extraRoutes?: (router: Router, deps: HttpDeps) => void;
  /** Where large JSON bodies are parsed (off the event loop); without it they are parsed inline. */
  cpuPool?: CpuPool;
}

interface State {
  requestId: string;
  /** A JSON answer written by writeJson (Koa's body stays unset). */
  sent?: unknown;
  /** For the request log. */
  operation?: string;
  caller?: string;
}

function isLoopback(ip: string): boolean {
  const v = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  return v === '::1' || (v.startsWith('127.') && isIP(v) === 4);
}

const CORS_HEADERS = 'Content-Type, X-API-Key, X-Challenge-Token, X-Service-Verification-Pass, X-Service-Verification-Pass-Mode';
const CORS_EXPOSED = 'X-Request-Id, X-Service-Verification-TTL, X-Service-Verification-Pass, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After';

/**
 * A direct answer that only Koa's respond() writes (a file, text, cookies, a status without a body):
 * its request is handed to the Koa app, which writes it as it writes the router's answers.
 */
const answered = new WeakMap<IncomingMessage, OperationResponse>();

/** Request paths the direct lookup takes: anything else (escapes, dots and colons aside) goes to Koa's parsing. */
const PLAIN_PATH = /^\/[A-Za-z0-9._~/-]*$/;

/** A Host header the direct path reads itself (name or address, optional port): anything else is Koa's to parse. */
const PLAIN_HOST = /^[A-Za-z0-9.-]+(:\d+)?$|^\[[0-9A-Fa-f:.]+\](:\d+)?$/;

/**
 * A request answered on the direct path. Koa's context is made only when something needs it (a query
 * string, a cookie, a body, CORS headers, a proxy's X-Forwarded-* headers, an unusual Host).
 */
interface DirectRequest {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  params: Record<string, string>;
  /** Whether the URL has a query string. */
  query: boolean;
  requestId: string;
  operation?: string;
  caller?: string;
  sent?: unknown;
  ctx?: RouterContext<State>;
}

/**
 * The request listener of one host: routes from the operation table, each translating the HTTP
 * request into the core pipeline's InboundRequest and its answer back. Nothing here decides who may
 * call what. An operation's own path in its own spelling is answered without Koa's middleware chain:
 * address, protocol and host are read from Node as Koa reads them when no proxy is trusted and the
 * Host header is plain, and through a Koa context otherwise (so are the query, cookies and bodies);
 * anything else (another case, a trailing slash, an escape, HEAD, OPTIONS, a path an extra route also
 * matches) goes through the Koa app and its router.
 */
export function createHttpHandler(deps: HttpDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const { kernel, pipeline } = deps;
  // TRUST_PROXY: the client address (and protocol and host) come from X-Forwarded-* only behind that many proxies.
  const hops = kernel.config.trustProxyHops;
  const app = new Koa<State>({ proxy: hops > 0, maxIpsCount: hops });
  app.silent = true;

  /** Every request through Koa, once, whichever way it is answered: its id, that header, and its log line. */
  const begin = (ctx: Koa.ParameterizedContext<State>) => {
    ctx.state.requestId = randomUUID();
    ctx.res.setHeader('X-Request-Id', ctx.state.requestId);
    // the request line is built only when it is written (LOG_LEVEL info or finer)
    const log = deps.log?.isLevelEnabled('info') ? deps.log : null;
    if (log) {
      const t0 = performance.now();
      ctx.res.once('finish', () =>
        log.info({ reqId: ctx.state.requestId, host: deps.host, op: ctx.state.operation, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(performance.now() - t0), caller: ctx.state.caller, ...submittedJob(ctx.state.sent ?? ctx.body) }, 'request'),
      );
    }
  };

  /** The same for a direct request: its X-Request-Id goes out with its other headers (writeJson, or finish before Koa). */
  const beginDirect = (d: DirectRequest) => {
    const log = deps.log?.isLevelEnabled('info') ? deps.log : null;
    if (log) {
      const t0 = performance.now();
      d.res.once('finish', () =>
        log.info({ reqId: d.requestId, host: deps.host, op: d.operation, method: d.req.method, path: d.path, status: d.res.statusCode, ms: Math.round(performance.now() - t0), caller: d.caller, ...submittedJob(d.sent) }, 'request'),
      );
    }
  };

  // Failures outside an operation (no route, wrong method, a broken request line) leave in the envelope too.
  app.use(async (ctx, next) => {
    const early = answered.get(ctx.req);
    if (early) return write(ctx, early);
    begin(ctx);
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined && !ctx.state.sent) throw new FitroomError('NOT_FOUND', `No route for ${ctx.method} ${ctx.path}`);
    } catch (raw) {
      write(ctx, pipeline.failure(raw, ctx.state.requestId));
    }
  });

  /** A direct request's Koa context, made on first use. */
  const koaOf = (d: DirectRequest): RouterContext<State> => {
    if (!d.ctx) {
      d.ctx = app.createContext(d.req, d.res) as RouterContext<State>;
      d.ctx.state.requestId = d.requestId;
      d.ctx.params = d.params;
    }
    return d.ctx;
  };

  /** The pipeline's view of a direct request: from Node where that reads the same as Koa, else from Koa's context. */
  const directInbound = (d: DirectRequest): InboundRequest => {
    const { req } = d;
    const host = req.headers.host;
    if (hops > 0 || d.query || req.httpVersionMajor >= 2 || host === undefined || !PLAIN_HOST.test(host)) return inbound(koaOf(d), deps);
    const ip = req.socket.remoteAddress || '';
    const { baseUrl, links } = originLinks(`${(req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http'}://${host}`, deps);
    return {
      params: d.params,
      query: {},
      headers: req.headers as Record<string, string | undefined>,
      cookie: (n) => koaOf(d).cookies.get(n),
      ip,
      loopback: isLoopback(ip),
      readJson: (maxBytes, opts) => readJson(koaOf(d), maxBytes, deps.cpuPool, opts?.dataUrlsAsBytes ?? false),
      readUpload: (spec) => receiveUpload(koaOf(d), spec, deps.blobs),
      baseUrl,
      links,
      requestId: d.requestId,
    };
  };

  const router = new Router();
  deps.extraRoutes?.(router, deps);
  const extras = router.stack.map((l) => ({ prefix: typeof l.path === 'string' ? l.path.split(/[:(*{\\]/)[0].toLowerCase() : '', match: (p: string) => l.match(p) }));
  const direct = new DirectRoutes<(d: DirectRequest) => Promise<OperationResponse>>(extras);
  for (const op of kernel.operations.filter((o) => (o.host ?? 'api') === deps.host)) {
    const path = op.path.replace(/\{(\w+)\}/g, ':$1');
    const cors = op.cors || op.auth.includes('storefront');
    router.register(path, [op.method], async (ctx: RouterContext<State>) => {
      if (cors) allowOrigin(ctx);
      ctx.state.operation = op.id;
      const res = await pipeline.invoke(op, inbound(ctx, deps));
      ctx.state.caller = res.caller;
      if (!writeJson(ctx.req, ctx.res, res, ctx.state.requestId)) return write(ctx, res);
      ctx.state.sent = res.body;
      ctx.respond = false;
    }, { name: op.id });
    direct.add(op.method, op.path, async (d) => {
      if (cors && d.req.headers.origin) allowOrigin(koaOf(d));
      d.operation = op.id;
      const res = await pipeline.invoke(op, directInbound(d));
      d.caller = res.caller;
      return res;
    });
    if (cors) router.register(path, ['OPTIONS'], (ctx: RouterContext<State>) => preflight(ctx, op));
  }
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true, methodNotAllowed: () => new FitroomError('METHOD_NOT_ALLOWED', 'Method not allowed on this route'), notImplemented: () => new FitroomError('METHOD_NOT_ALLOWED', 'Method not implemented') }));

  const viaKoa = app.callback();
  /** A direct answer: written here when it is JSON, otherwise by the Koa app. */
  const finish = (d: DirectRequest, res: OperationResponse) => {
    d.sent = res.body;
    if (writeJson(d.req, d.res, res, d.requestId)) return;
    if (!d.res.headersSent) d.res.setHeader('X-Request-Id', d.requestId);
    answered.set(d.req, res);
    void viaKoa(d.req, d.res);
  };
  return (req, res) => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const hit = PLAIN_PATH.test(path) ? direct.find(req.method ?? '', path) : null;
    if (!hit) return void viaKoa(req, res);
    const d: DirectRequest = { req, res, path, params: hit.params, query: q >= 0, requestId: randomUUID() };
    beginDirect(d);
    hit.handler(d).then(
      (out) => finish(d, out),
      (raw) => finish(d, pipeline.failure(raw, d.requestId)),
    ).catch((raw) => finish(d, pipeline.failure(raw, d.requestId)));
  };
}

/** A path template's segments: literal text, or `{name}` taking one whole segment. */
type Segment = { literal: string } | { param: string };
const LITERAL = /^[A-Za-z0-9._~-]+$/;

interface DirectRoute<H> {
  method: string;
  template: string;
  segments: Segment[];
  handler: H;
  clash: boolean;
  /** Extra routes (registered before the operations) that some path of this template may also match. */
  shadows: { prefix: string; match(path: string): boolean }[];
}

/**
 * Operation routes by method, matched segment by segment without a regular expression. Templates
 * that another template of the same method may also match (the router compares case-insensitively)
 * are left out, so a match here is the one the router would find; the router handles the rest.
 */
class DirectRoutes<H> {
  readonly #routes: DirectRoute<H>[] = [];
  /** Method, then path (no parameters) or the segment count (with parameters). */
  #exact: Map<string, Map<string, DirectRoute<H>>> | null = null;
  #byLength: Map<string, Map<number, DirectRoute<H>[]>> | null = null;
  readonly #extras: { prefix: string; match(path: string): boolean }[];

  /** `extras`: the routes that come first, each with the literal start of its path, lower-case. */
  constructor(extras: { prefix: string; match(path: string): boolean }[]) {
    this.#extras = extras;
  }

  add(method: string, template: string, handler: H) {
    if (!template.startsWith('/')) return;
    const segments: Segment[] = [];
    for (const part of template.slice(1).split('/')) {
      const param = /^\{(\w+)\}$/.exec(part);
      if (param) segments.push({ param: param[1] });
      else if (LITERAL.test(part)) segments.push({ literal: part });
      else return; // anything fancier is left to the router
    }
    // a path of this template starts with its literal part; an extra route's path with its prefix:
    // unless one of the two starts with the other, no path matches both
    const start = template.split('{')[0].toLowerCase();
    const shadows = this.#extras.filter((e) => start.startsWith(e.prefix) || e.prefix.startsWith(start));
    const route: DirectRoute<H> = { method, template, segments, handler, clash: false, shadows };
    for (const r of this.#routes) {
      if (r.method === method && overlaps(r.segments, segments)) r.clash = route.clash = true;
    }
    this.#routes.push(route);
    this.#exact = this.#byLength = null;
  }

  find(method: string, path: string): { handler: H; params: Record<string, string> } | null {
    if (!this.#exact || !this.#byLength) this.#compile();
    const exact = this.#exact!.get(method)?.get(path);
    if (exact) return this.#unshadowed(exact, path) ? { handler: exact.handler, params: {} } : null;
    const byLength = this.#byLength!.get(method);
    if (!byLength) return null;
    const parts = path.split('/');
    const list = parts[0] === '' ? byLength.get(parts.length - 1) : undefined;
    if (!list) return null;
    next: for (const r of list) {
      const params: Record<string, string> = {};
      for (let i = 0; i < r.segments.length; i++) {
        const seg = r.segments[i], part = parts[i + 1];
        if ('literal' in seg) {
          if (seg.literal !== part) continue next;
        } else {
          if (part === '') continue next;
          params[seg.param] = part;
        }
      }
      return this.#unshadowed(r, path) ? { handler: r.handler, params } : null;
    }
    return null;
  }

  #unshadowed(r: DirectRoute<H>, path: string): boolean {
    if (!r.shadows.length) return true;
    const lower = path.toLowerCase();
    return !r.shadows.some((e) => lower.startsWith(e.prefix) && e.match(path));
  }

  #compile() {
    this.#exact = new Map();
    this.#byLength = new Map();
    for (const r of this.#routes) {
      if (r.clash) continue;
      if (r.segments.every((s) => 'literal' in s)) {
        if (!this.#exact.has(r.method)) this.#exact.set(r.method, new Map());
        this.#exact.get(r.method)!.set(r.template, r);
      } else {
        if (!this.#byLength.has(r.method)) this.#byLength.set(r.method, new Map());
        const byLength = this.#byLength.get(r.method)!;
        byLength.set(r.segments.length, [...(byLength.get(r.segments.length) ?? []), r]);
      }
    }
  }
}

/** Whether some path may match both templates (same length, each segment pair compatible). */
function overlaps(a: Segment[], b: Segment[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((s, i) => {
    const t = b[i];
    return 'param' in s || 'param' in t || s.literal.toLowerCase() === t.literal.toLowerCase();
  });
}

/** Storefront pages call from the merchant's origin; credentials are the token, never an ambient cookie alone. */
function allowOrigin(ctx: Koa.Context) {
  const origin = ctx.get('origin');
  if (!origin) return;
  ctx.set('Access-Control-Allow-Origin', origin);
  ctx.set('Access-Control-Allow-Credentials', 'true');
  ctx.set('Access-Control-Expose-Headers', CORS_EXPOSED);
  ctx.vary('Origin');
}

function preflight(ctx: Koa.Context, op: Operation) {
  allowOrigin(ctx);
  ctx.set('Access-Control-Allow-Methods', `${op.method}, OPTIONS`);
  ctx.set('Access-Control-Allow-Headers', CORS_HEADERS);
  ctx.set('Access-Control-Max-Age', '600');
  ctx.status = 204;
}

/** The pipeline's view of a Koa request (also used by connectors mounted on the API host). */
export function inbound(ctx: RouterContext<State> | Koa.Context, deps: HttpDeps): InboundRequest {
  const query: Record<string, string> = {};
  if (ctx.querystring) {
    for (const [k, v] of Object.entries(ctx.query)) {
      if (typeof v === 'string') query[k] = v;
      else if (Array.isArray(v) && v.length) query[k] = v[v.length - 1];
    }
  }
  const { baseUrl, links } = originLinks(`${ctx.protocol}://${ctx.host}`, deps);
  const ip = ctx.ip;
  return {
    params: { ...(ctx as RouterContext<State>).params },
    query,
    headers: ctx.headers as Record<string, string | undefined>,
    cookie: (n) => ctx.cookies.get(n),
    ip,
    loopback: isLoopback(ip),
    readJson: (maxBytes, opts) => readJson(ctx, maxBytes, deps.cpuPool, opts?.dataUrlsAsBytes ?? false),
    readUpload: (spec) => receiveUpload(ctx, spec, deps.blobs),
    baseUrl,
    links,
    requestId: (ctx.state as State).requestId,
  };
}

/** Links by request origin (and the ports they depend on), so a request does not rebuild them. */
const linksByOrigin = new WeakMap<HttpDeps, Map<string, { apiPort?: number; arPort?: number; baseUrl: string; links: Links }>>();
/** The origin comes from the client's Host header: the cache is bounded and starts over when full. */
const LINKS_CACHE_MAX = 256;

function originLinks(origin: string, deps: HttpDeps): { baseUrl: string; links: Links } {
  const config = deps.kernel.config;
  const apiPort = deps.apiPort?.();
  const arPort = deps.arPort?.();
  let cache = linksByOrigin.get(deps);
  if (!cache) linksByOrigin.set(deps, (cache = new Map()));
  let hit = cache.get(origin);
  if (!hit || hit.apiPort !== apiPort || hit.arPort !== arPort) {
    const api = apiOrigin(config, { origin, host: deps.host, apiPort });
    hit = {
      apiPort,
      arPort,
      baseUrl: deps.host === 'ar' ? (config.arPublicUrl ?? origin) : api,
      links: restLinks(config, api, deps.host === 'ar' ? Number(new URL(origin).port) || undefined : arPort),
    };
    if (cache.size >= LINKS_CACHE_MAX) cache.clear();
    cache.set(origin, hit);
  }
  return hit;
}

/**
 * An operation's JSON answer written straight to Node: the bytes and headers Koa's respond() gives
 * a JSON body, without its generic per-header work. False (nothing written) for anything else:
 * files, text, no body, HEAD, a status without a body, a response already started.
 */
function writeJson(req: IncomingMessage, out: ServerResponse, res: OperationResponse, requestId: string): boolean {
  const b = res.body;
  if (b === null || typeof b !== 'object' || res.file || res.text || res.cookies.length) return false;
  const proto = Object.getPrototypeOf(b);
  if (proto !== Object.prototype && proto !== Array.prototype) return false;
  // what Koa's respond() checks: not HEAD, a status with a body, nothing sent, a writable response
  if (req.method === 'HEAD' || EMPTY_STATUS.has(res.status) || out.headersSent || out.writableEnded || (out.socket && !out.socket.writable)) return false;
  const json = res.json ?? JSON.stringify(b);
  // one writeHead with a flat list: Node validates each name and value as setHeader does, without
  // keeping a map of them (headers set before, CORS ones, are merged by Node and kept)
  const head: string[] = [];
  for (const k in res.headers) if ((k.length !== 12 && k.length !== 14) || !OWN_HEADERS.has(k.toLowerCase())) head.push(k, res.headers[k]);
  head.push('X-Request-Id', requestId, 'Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(json)));
  out.writeHead(res.status, head).end(json);
  return true;
}

/** Headers writeJson sets itself (a handler's own value of one was overridden before as well); 12 and 14 characters long. */
const OWN_HEADERS = new Set(['x-request-id', 'content-type', 'content-length']);

/** Statuses that carry no body (Koa's respond() strips it). */
const EMPTY_STATUS = new Set([204, 205, 304]);

/** Writes a pipeline answer to a Koa response. */
export function write(ctx: Koa.Context, res: OperationResponse) {
  // straight to Node: Koa's set() builds arrays per header to normalise values these never have
  if (!ctx.headerSent) for (const k in res.headers) ctx.res.setHeader(k, res.headers[k]);
  for (const c of res.cookies) {
    // A cross-site storefront needs SameSite=None, which browsers take only with Secure (https).
    ctx.cookies.set(c.name, c.value, { httpOnly: true, maxAge: c.maxAgeSeconds * 1000, path: '/', secure: ctx.secure, sameSite: ctx.secure ? 'none' : 'lax', overwrite: true });
  }
  ctx.status = res.status;
  if (res.file) {
    ctx.type = res.file.contentType;
    if (res.file.size !== undefined) ctx.length = res.file.size;
    if (res.file.filename) ctx.attachment(res.file.filename, { type: 'inline' });
    const b = res.file.bytes ?? new Uint8Array();
    ctx.body = res.file.stream ?? Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  } else if (res.text) {
    ctx.type = res.text.contentType;
    ctx.body = res.text.body;
  } else if (res.body !== undefined) {
    ctx.body = res.body;
  }
}

const parsers = new Map<number, ReturnType<typeof bodyParser>>();

/**
 * JSON bodies only, within the operation's byte limit; parser failures become envelope errors. The
 * body is read as text and parsed here: inline when small, on a CPU pool thread when large.
 */
async function readJson(ctx: Koa.Context, maxBytes: number, pool?: CpuPool, decodeData = false): Promise<unknown> {
  if (ctx.request.length === 0 || !ctx.request.type) return undefined;
  if (!ctx.is('application/json', '+json')) throw new FitroomError('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as application/json');
  const identity = !ctx.get('content-encoding') || ctx.get('content-encoding').toLowerCase() === 'identity';
  if (pool && identity && (ctx.request.length ?? 0) > INLINE_JSON_CHARS) {
    if (ctx.request.length! > maxBytes) {
      ctx.req.resume();
      throw new FitroomError('PAYLOAD_TOO_LARGE', `The request body is larger than ${maxBytes} bytes`);
    }
    return readLargeJson(ctx, ctx.request.length!, pool, decodeData);
  }
  let parser = parsers.get(maxBytes);
  if (!parser) parsers.set(maxBytes, (parser = bodyParser({ enableTypes: ['text'], extendTypes: { text: ['application/json', '+json'] }, textLimit: maxBytes, encoding: 'utf-8' })));
  try {
    await parser(ctx as never, async () => undefined);
  } catch (raw) {
    const e = raw as { status?: number; type?: string; message?: string; code?: unknown; errno?: unknown };
    if (e?.status === 413 || e?.type === 'entity.too.large') throw new FitroomError('PAYLOAD_TOO_LARGE', `The request body is larger than ${maxBytes} bytes`);
    if (e?.status === 415) throw new FitroomError('UNSUPPORTED_MEDIA_TYPE', `Unsupported content encoding "${ctx.get('content-encoding')}": send identity, gzip, deflate or br`);
    // zlib's failures (a body that is not what its Content-Encoding says) carry an errno and no status
    const encoding = ctx.get('content-encoding');
    if (e?.status === undefined && encoding && typeof e?.errno === 'number') {
      throw validationError([{ field: '(body)', message: `is not valid ${encoding} data` }], `The request body could not be decoded as Content-Encoding ${encoding}`);
    }
    // @hapi/bourne refuses a valid JSON text with a __proto__ key: name it as the pipeline does for other reserved keys
    if (e?.status === 400 && /prototype property/.test(e.message ?? '')) throw validationError([{ field: '__proto__', message: 'is a reserved key' }]);
    if (e?.status !== undefined && e.status >= 400 && e.status < 500) throw malformedJson();
    throw raw;
  }
  const text = (ctx.request as unknown as { body: unknown }).body;
  if (typeof text !== 'string') return undefined;
  if (text === '') return {};
  // strict JSON: an object or an array at the top
  const first = text.slice(0, 64).trimStart()[0];
  if (first !== '{' && first !== '[') throw malformedJson();
  let parsed: { ok: true; value: unknown } | { ok: false };
  if (pool && text.length > INLINE_JSON_CHARS) {
    parsed = await pool.run(parseJsonTask, text, { budgetMs: PARSE_BUDGET_MS });
    await new Promise((resolve) => setImmediate(resolve));
  } else {
    try {
      parsed = { ok: true, value: JSON.parse(text) };
    } catch {
      parsed = { ok: false };
    }
  }
  if (!parsed.ok) throw malformedJson();
  return parsed.value;
}

const malformedJson = () => validationError([{ field: '(body)', message: 'is not valid JSON' }], 'Malformed JSON body');

const malformed = () => validationError([{ field: '(body)', message: 'is not valid multipart/form-data' }], 'Malformed multipart body');

/**
 * Streams a multipart upload's file part into the blob store, enforcing the size limit while reading.
 * Every parser, stream and connection failure settles the promise once (400 malformed, 413 too
 * large) and removes a partly written blob; none reaches the process as an unhandled error.
 */
async function receiveUpload(ctx: Koa.Context, spec: UploadSpec, blobs: BlobStore): Promise<UploadedFile> {
  const missing = () => new FitroomError(spec.missing?.code ?? 'VALIDATION_ERROR', spec.missing?.code === 'no_file' ? 'No file was uploaded' : `${spec.field} is required`, { status: spec.missing?.status, details: spec.missing?.code === 'no_file' ? undefined : [{ field: spec.field, message: 'is required' }] });
  const tooLarge = () => new FitroomError(spec.tooLarge?.code ?? 'PAYLOAD_TOO_LARGE', `The file is larger than ${spec.maxBytes} bytes`, { status: spec.tooLarge?.status });
  if (!ctx.is('multipart/form-data')) {
    if (ctx.request.length) throw new FitroomError('UNSUPPORTED_MEDIA_TYPE', 'Send the file as multipart/form-data');
    throw missing();
  }
  const declared = Number(ctx.get('content-length'));
  if (Number.isFinite(declared) && declared > spec.maxBytes + 1024 * 1024) {
    ctx.req.resume();
    throw tooLarge();
  }
  let bb: busboy.Busboy;
  try {
    bb = busboy({ headers: ctx.req.headers, limits: { files: 5, fields: 20, fieldSize: 64 * 1024, parts: 30, fileSize: spec.maxBytes + 1 } });
  } catch {
    throw malformed();
  }
  const req = ctx.req;
  return await new Promise<UploadedFile>((resolve, reject) => {
    const fields: Record<string, string> = Object.create(null);
    let file: Promise<UploadedFile> | null = null;
    let fileStream: Readable | null = null;
    let settled = false;
    const finish = (err: Error | null, value?: UploadedFile) => {
      if (settled) return;
      settled = true;
      req.unpipe(bb);
      req.resume(); // drain what the client still sends so the answer can be written
      if (err) {
        // a file still streaming stops (the blob store removes its partial write); one already stored is removed
        fileStream?.destroy(err);
        if (file) file.then((f) => blobs.delete(f.blobKey), () => undefined).catch(() => undefined);
        reject(err);
      } else resolve(value!);
    };
    bb.on('field', (name, value) => {
      fields[name] = value;
    });
    bb.on('file', (name, stream: Readable, info) => {
      // Listen at once: the stream may fail (truncated body) before the blob store attaches its own.
      let streamError: Error | null = null;
      stream.on('error', (e) => (streamError = e));
      stream.on('limit', () => (streamError = tooLarge()));
      if (name !== spec.field || file) {
        stream.resume();
        return;
      }
      const key = `uploads/${randomUUID()}`;
      fileStream = stream;
      // a caller not yet known is admitted (or refused) before the first byte reaches the store
      const admitted = spec.admitAnonymous ? spec.admitAnonymous({ ...fields }) : Promise.resolve();
      file = admitted.then(
        () => undefined,
        (e) => {
          stream.resume();
          throw e;
        },
      ).then(() => blobs.putStream(key, stream, info.mimeType, spec.maxBytes)).then(
        (size) => {
          if (streamError) throw streamError;
          return { blobKey: key, size, filename: info.filename ?? 'upload', contentType: info.mimeType, fields };
        },
        (e) => {
          stream.resume();
          // the admission's refusal (401 before any byte is stored) as it is
          if (e instanceof FitroomError) throw e;
          if (e instanceof BlobTooLargeError || streamError instanceof FitroomError) throw tooLarge();
          // the store failing is no fault of the client's body: 503 STORAGE_UNAVAILABLE, not "malformed"
          if (e instanceof BlobStoreUnavailableError) throw e;
          throw malformed();
        },
      );
      file.catch((e) => finish(e));
    });
    bb.on('error', () => finish(malformed()));
    bb.on('close', () => {
      if (!file) return finish(missing());
      file.then(async (f) => {
        if (f.size === 0) {
          await blobs.delete(f.blobKey).catch(() => undefined);
          return finish(missing());
        }
        finish(null, f);
      }, (e) => finish(e));
    });
    req.on('aborted', () => finish(malformed()));
    req.on('error', () => finish(malformed()));
    req.pipe(bb);
  });
}

