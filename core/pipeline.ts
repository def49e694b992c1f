import type { Kernel } from './kernel.ts';
import type { AuthRequest, AuthResolver, Operation, OperationContext, OperationResult, RateLimitCategory, UploadSpec, UploadedFile } from './plugin.ts';
import type { Caller } from './credentials.ts';
import type { RateDecision, RateLimiter } from './ports/rate-limiter.ts';
import type { Links } from './links.ts';
import { FitroomError, envelope, isFitroomError, validationError, type ErrorDetail } from './errors.ts';
import { withRequestId } from './request-context.ts';
import ipaddr from 'ipaddr.js';

/** Requests per minute per credential (or client address for anonymous calls), from the spec's limits. */
export const RATE_LIMITS: Record<RateLimitCategory, number> = { submission: 50, status: 500, download: 300, health: 5000 };

/** Object keys that could reach a prototype when a body is copied or merged: refused everywhere. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** A request as a connector hands it to the pipeline: transport already translated. */
export interface InboundRequest {
  params: Record<string, string>;
  query: Record<string, string>;
  /** Lower-case header names. */
  headers: Readonly<Record<string, string | undefined>>;
  cookie(name: string): string | undefined;
  ip: string;
  /** Whether the client is on this machine (development rate multiplier). */
  loopback: boolean;
  /** Reads the JSON body (undefined when the request has none); called after authentication. */
  readJson(maxBytes: number, opts?: { dataUrlsAsBytes?: boolean }): Promise<unknown>;
  /** Streams a multipart file into the blob store; called after authentication. */
  readUpload(spec: UploadSpec): Promise<UploadedFile>;
  /** Base URL of the host that received the request. */
  baseUrl: string;
  links: Links;
  requestId: string;
}

/** A cookie the response sets; the connector chooses its transport attributes (Secure, SameSite). */
export interface ResponseCookie {
  name: string;
  value: string;
  maxAgeSeconds: number;
}

/** What the pipeline answers: a result or an error envelope, with no transport in it. */
export interface OperationResponse extends Omit<OperationResult, 'status' | 'headers'> {
  status: number;
  headers: Record<string, string>;
  cookies: ResponseCookie[];
  /** Who called (for the connector's request log): the caller kind, or the scheme for anonymous calls. */
  caller?: string;
}

/** Bot verification as the pipeline uses it (core/bot-verification.ts implements it). */
export interface BotCheck {
  /** Name of the pass cookie. */
  readonly passCookie: string;
  /** `subject`: the shopper a merchant server forwards; a pass minted for one is valid for that shopper only. */
  check(input: { challengeToken?: string; passCookie?: string; ip: string; subject?: string }): Promise<{ ttlSeconds: number; setPass?: { name: string; value: string; maxAgeSeconds: number } }>;
  /** A stable id of a valid, unexpired pass of this network (a rate-limit bucket), or null. */
  passHolder?(pass: string, ip: string): string | null;
}

export interface PipelineDeps {
  kernel: Kernel;
  rateLimiter: RateLimiter;
  /** Absent when bot verification is off. */
  botCheck?: BotCheck | null;
  /** Maps infrastructure failures (a database that cannot be reached) to domain errors. */
  classifyError?: (e: unknown) => FitroomError | null;
  /** Where unexpected errors are reported (never to the client). */
  logError?: (requestId: string, op: string, e: unknown) => void;
}

/**
 * The one entry point of every connector: authenticate through the operation's schemes, apply the
 * rate limit, check bots where the operation is browser-protected, validate, run the handler, count
 * usage on success. Connectors translate their transport to an InboundRequest and the answer back.
 */
export class OperationPipeline {
  readonly #d: PipelineDeps;
  readonly #byId = new Map<string, Operation>();
  /** Anonymous calls in flight per operation, and per operation and address. */
  readonly #inFlight = new Map<string, number>();
  readonly #plans = new WeakMap<Operation, AuthPlan>();

  constructor(deps: PipelineDeps) {
    this.#d = deps;
    for (const op of deps.kernel.operations) this.#byId.set(op.id, op);
  }

  operation(id: string): Operation {
    const op = this.#byId.get(id);
    if (!op) throw new Error(`Unknown operation ${id}`);
    return op;
  }

  /** Runs one operation; never throws: failures come back as error envelopes. */
  async invoke(op: Operation, req: InboundRequest): Promise<OperationResponse> {
    const headers: Record<string, string> = {};
    const cookies: ResponseCookie[] = [];
    try {
      // each step is awaited only where it has to wait: a poll of a cached key under its limit awaits
      // nothing before its handler
      const authenticated = this.#authenticate(op, req);
      const { caller, scheme, resolver } = authenticated instanceof Promise ? await authenticated : authenticated;
      const shopper = forwardedShopper(req, caller);
      if (shopper) req = { ...req, ip: shopper.ip ?? req.ip };
      if (op.rateLimit) {
        const limited = this.#rateLimit(op, req, caller, headers, shopper?.id);
        if (limited) await limited;
      }
      if (op.browserProtected && this.#d.botCheck && fromBrowser(req, caller)) await this.#verifyBrowser(op, req, caller, headers, cookies, shopper?.id);
      this.#checkParameters(op, req);
      const context = op.upload || op.body ? await this.#context(op, req, caller, scheme) : this.#contextOf(req, caller, scheme, undefined, undefined);
      // a valid request about to do the work takes its places (an invalid one costs little)
      const release = op.anonymousLimit && !caller ? await this.#anonymousLimit(op, req) : null;
      let result;
      try {
        result = await withRequestId(req.requestId, () => op.handler(context));
      } finally {
        release?.();
      }
      if (caller && resolver?.onSuccess) {
        const counted = resolver.onSuccess(caller, op, result.usage ?? 1);
        if (counted) await counted;
      }
      const out: OperationResponse = {
        status: result.status ?? (result.body === undefined && !result.file && !result.text ? 204 : 200),
        headers: { 'X-Content-Type-Options': 'nosniff', ...headers, ...result.headers },
        cookies,
        caller: caller?.kind ?? scheme,
      };
      // the answer without `usage` (never sent)
      if (result.body !== undefined) out.body = result.body;
      if (result.json !== undefined && result.body !== undefined) out.json = result.json;
      if (result.file) out.file = result.file;
      if (result.text) out.text = result.text;
      return out;
    } catch (raw) {
      // A challenge token verified before a later step failed is used up: the pass it minted is still
      // set (and its headers sent), so the browser does not have to solve another one.
      return { ...this.failure(raw, req.requestId, op.id, headers), cookies };
    }
  }

  /** The error envelope of a failure; unexpected errors are logged and never exposed. */
  failure(raw: unknown, requestId: string, opId = '(none)', headers: Record<string, string> = {}): OperationResponse {
    let err: FitroomError;
    if (isFitroomError(raw)) err = raw;
    else {
      err = this.#d.classifyError?.(raw) ?? new FitroomError('INTERNAL_ERROR', `Internal server error (request ${requestId})`);
      if (err.code === 'INTERNAL_ERROR') this.#d.logError?.(requestId, opId, raw);
    }
    const retry: Record<string, string> = err.retryAfterSeconds !== undefined ? { 'Retry-After': String(Math.max(1, Math.ceil(err.retryAfterSeconds))) } : {};
    return { status: err.status, body: envelope(err), headers: { ...headers, ...retry, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' }, cookies: [] };
  }

  /** The operation's schemes in order; a resolver that answers at once is answered at once. */
  #authenticate(op: Operation, req: InboundRequest): Authenticated | Promise<Authenticated> {
    const plan = this.#authPlan(op);
    const authReq: AuthRequest = { headers: req.headers, query: req.query, cookie: req.cookie, ip: req.ip, operationId: op.id };
    // A credential of a scheme this operation does not accept is refused, not silently ignored.
    for (const { scheme, resolver } of plan.foreign) {
      if (resolver.claims!(authReq)) throw new FitroomError('CREDENTIAL_NOT_ALLOWED', `${schemeLabel(scheme)} is not accepted by ${op.method} ${op.path}`);
    }
    return this.#resolveFrom(op, plan, 0, authReq);
  }

  #resolveFrom(op: Operation, plan: AuthPlan, from: number, authReq: AuthRequest): Authenticated | Promise<Authenticated> {
    for (let i = from; i < plan.accepted.length; i++) {
      const { scheme, resolver } = plan.accepted[i];
      const out = resolver.resolve(authReq);
      if (out instanceof Promise) return out.then((o) => (o ? { caller: o.caller, scheme, resolver } : this.#resolveFrom(op, plan, i + 1, authReq)));
      if (out) return { caller: out.caller, scheme, resolver };
    }
    if (plan.anonymous) return ANONYMOUS;
    throw this.#d.kernel.authResolvers.get(op.auth[0])?.missing() ?? new FitroomError('HTTP_ERROR', 'Missing credentials');
  }

  /** The resolvers an operation consults, in order, worked out once per operation. */
  #authPlan(op: Operation) {
    let plan = this.#plans.get(op);
    if (!plan) {
      const resolvers = [...this.#d.kernel.authResolvers];
      plan = {
        foreign: resolvers.filter(([scheme, r]) => !op.auth.includes(scheme) && r.claims).map(([scheme, resolver]) => ({ scheme, resolver })),
        accepted: op.auth.flatMap((scheme) => {
          const resolver = scheme === 'none' ? undefined : this.#d.kernel.authResolvers.get(scheme);
          return resolver ? [{ scheme, resolver }] : [];
        }),
        anonymous: op.auth.includes('none'),
      };
      this.#plans.set(op, plan);
    }
    return plan;
  }

  /** Undefined when every decision was taken at once (the common case), else a promise of the rest. */
  #rateLimit(op: Operation, req: InboundRequest, caller: Caller | null, headers: Record<string, string>, shopper?: string): Promise<void> | undefined {
    const category = op.rateLimit;
    if (!category) return;
    const dev = caller?.development || req.loopback;
    // an operator's own limit for each forwarded shopper's submissions is exact (no development multiplier)
    const shopperLimit = shopper && category === 'submission' ? this.#d.kernel.config.shopperSubmissionsPerMinute : null;
    const base = shopperLimit ?? RATE_LIMITS[category] * (dev ? this.#d.kernel.config.devRateMultiplier : 1);
    // a merchant server's shoppers each get the limit, not one limit shared by the whole shop
    const own = `${caller ? caller.ownerHash : `ip:${req.ip}`}${shopper ? `:shopper:${shopper}` : ''}`;
    const buckets = caller?.rateBuckets?.length ? caller.rateBuckets : null;
    // The first bucket that refuses stops: a shopper over their own limit does not use up the shop's.
    const count = buckets?.length ?? 1;
    const from = (first: number): Promise<void> | undefined => {
      for (let i = first; i < count; i++) {
        const b = buckets ? buckets[i] : { key: own, factor: 1 };
        const d = this.#d.rateLimiter.consume(`${category}:${b.key}`, base * b.factor, 60);
        if (d instanceof Promise) return d.then((v) => (decided(v, i), from(i + 1)));
        decided(d, i);
      }
    };
    const decided = (d: RateDecision, i: number) => {
      if (i === 0 || !d.allowed) {
        headers['X-RateLimit-Limit'] = String(d.limit);
        headers['X-RateLimit-Remaining'] = String(d.remaining);
        headers['X-RateLimit-Reset'] = String(d.resetAt);
      }
      if (!d.allowed) {
        headers['Retry-After'] = String(Math.max(1, d.resetAt - Math.floor(Date.now() / 1000)));
        throw new FitroomError('RATE_LIMITED', `Rate limit of ${d.limit} requests per minute exceeded${i > 0 ? ' (shared limit)' : ''}`);
      }
    };
    return from(0);
  }

  /**
   * The own limits of CPU-heavy operations called without credentials: per address and minute, per
   * address at once, per process at once. Returns the release of the places taken.
   */
  async #anonymousLimit(op: Operation, req: InboundRequest): Promise<() => void> {
    const l = op.anonymousLimit!;
    const d = await this.#d.rateLimiter.consume(`cpu:${op.id}:ip:${req.ip}`, l.perMinute * (req.loopback ? this.#d.kernel.config.devRateMultiplier : 1), 60);
    if (!d.allowed) throw new FitroomError('RATE_LIMITED', `At most ${d.limit} ${op.id} requests per minute from one address without credentials`, { retryAfterSeconds: d.resetAt - Math.floor(Date.now() / 1000) });
    const key = `${op.id} ${req.ip}`;
    const fromAddress = this.#inFlight.get(key) ?? 0, all = this.#inFlight.get(op.id) ?? 0;
    if (fromAddress >= l.perAddressConcurrent) throw new FitroomError('RATE_LIMITED', `At most ${l.perAddressConcurrent} ${op.id} requests at once from one address without credentials`, { retryAfterSeconds: 2 });
    if (all >= l.concurrent) throw new FitroomError('SERVICE_UNAVAILABLE', `The service is busy with ${op.id} requests; retry in a few seconds`, { retryAfterSeconds: 5 });
    this.#inFlight.set(key, fromAddress + 1);
    this.#inFlight.set(op.id, all + 1);
    return () => {
      for (const k of [key, op.id]) {
        const n = (this.#inFlight.get(k) ?? 1) - 1;
        if (n > 0) this.#inFlight.set(k, n);
        else this.#inFlight.delete(k);
      }
    };
  }

  /**
   * Browser-protected operations (spec, Authentication 5): requests with a storefront token, and
   * requests a browser sends (`Origin` or `Sec-Fetch-Site`), need a single-use challenge token or a
   * pass cookie. Server-to-server calls with a secret key are not browsers and are not asked.
   */
  async #verifyBrowser(op: Operation, req: InboundRequest, caller: Caller | null, headers: Record<string, string>, cookies: ResponseCookie[], shopper?: string) {
    const bot = this.#d.botCheck;
    if (!bot || !op.browserProtected || !fromBrowser(req, caller)) return;
    // Behind a platform's app proxy cookies do not travel (Shopify strips them): a page that asks for
    // it gets the pass in a header and sends it back in one.
    const passInHeader = req.headers['x-service-verification-pass-mode'] === 'header';
    const pass = req.cookie(bot.passCookie) ?? (passInHeader ? req.headers['x-service-verification-pass'] : undefined);
    const outcome = await bot.check({ challengeToken: req.headers['x-challenge-token'], passCookie: pass, ip: req.ip, ...(shopper ? { subject: shopper } : {}) });
    headers['X-Service-Verification-TTL'] = String(outcome.ttlSeconds);
    if (outcome.setPass) {
      cookies.push(outcome.setPass);
      if (passInHeader) headers['X-Service-Verification-Pass'] = outcome.setPass.value;
    }
  }

  /** Path and query parameters: no control bytes, each valid against its schema (400 VALIDATION_ERROR). */
  #checkParameters(op: Operation, req: InboundRequest): void {
    const { kernel } = this.#d;
    const details: ErrorDetail[] = [];
    for (const name in req.params) if (hasControlBytes(req.params[name])) details.push({ field: name, message: 'must not contain NUL or control characters' });
    for (const name in req.query) if (hasControlBytes(req.query[name])) details.push({ field: name, message: 'must not contain NUL or control characters' });
    if (details.length) throw validationError(details);
    if (op.params) for (const name in op.params) details.push(...kernel.validator.errors(op.params[name], req.params[name], name));
    if (op.query) {
      for (const name in op.query) {
        const q = op.query[name];
        if (req.query[name] === undefined) {
          if (q.required) details.push({ field: name, message: 'is required' });
        } else details.push(...kernel.validator.errors(q.schema, req.query[name], name));
      }
    }
    if (details.length) throw validationError(details);
  }

  /** The handler's context with the request body or upload read (after authentication and the checks). */
  async #context(op: Operation, req: InboundRequest, caller: Caller | null, scheme: string): Promise<OperationContext> {
    const { kernel } = this.#d;
    let body: unknown = undefined;
    let upload: UploadedFile | undefined;
    if (op.upload) {
      const { admitAnonymous, ...spec } = op.upload;
      upload = await req.readUpload(caller || !admitAnonymous ? spec : { ...spec, admitAnonymous });
      body = upload.fields;
      assertSafeJson(body);
    } else if (op.body) {
      body = await req.readJson(op.maxBodyBytes ?? kernel.config.maxJsonBytes, { dataUrlsAsBytes: op.dataUrlsAsBytes });
      assertSafeJson(body);
      kernel.validator.assert(op.body, body ?? null);
    }
    return this.#contextOf(req, caller, scheme, body, upload);
  }

  #contextOf(req: InboundRequest, caller: Caller | null, scheme: string, body: unknown, upload: UploadedFile | undefined): OperationContext {
    return { params: { ...req.params }, query: req.query, body, caller, authScheme: scheme, headers: req.headers, upload, ip: req.ip, baseUrl: req.baseUrl, links: req.links, requestId: req.requestId };
  }
}

type AuthPlan = { foreign: { scheme: string; resolver: AuthResolver }[]; accepted: { scheme: string; resolver: AuthResolver }[]; anonymous: boolean };
type Authenticated = { caller: Caller | null; scheme: string; resolver?: AuthResolver };
const ANONYMOUS: Authenticated = Object.freeze({ caller: null, scheme: 'none' });

/** A request a browser sends (a storefront token, `Origin` or `Sec-Fetch-Site`); servers with a secret key are not asked. */
function fromBrowser(req: InboundRequest, caller: Caller | null): boolean {
  return caller?.kind === 'storefront' || req.headers.origin !== undefined || req.headers['sec-fetch-site'] !== undefined;
}

const SHOPPER_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/**
 * The shopper a merchant server names on a storefront token minted for that (`forwardsShoppers`):
 * X-Fitroom-Shopper (required) and X-Fitroom-Shopper-IP (optional). Any other caller sending them is
 * refused, so a browser cannot pick the address its limits and passes are counted against.
 */
function forwardedShopper(req: InboundRequest, caller: Caller | null): { id: string; ip?: string } | null {
  const id = req.headers['x-fitroom-shopper'];
  const ip = req.headers['x-fitroom-shopper-ip'];
  if (!caller?.forwardsShoppers) {
    if (id !== undefined || ip !== undefined) throw new FitroomError('CREDENTIAL_NOT_ALLOWED', 'X-Fitroom-Shopper and X-Fitroom-Shopper-IP are accepted only with a storefront token minted with forwardsShoppers');
    return null;
  }
  const details: ErrorDetail[] = [];
  if (id === undefined || !SHOPPER_ID.test(id)) details.push({ field: 'X-Fitroom-Shopper', message: 'is required with this token: a shopper id of 1-128 characters A-Z a-z 0-9 _ . : -' });
  if (ip !== undefined && !ipaddr.isValid(ip)) details.push({ field: 'X-Fitroom-Shopper-IP', message: 'must be an IPv4 or IPv6 address' });
  if (details.length) throw validationError(details);
  return { id: id!, ...(ip !== undefined ? { ip: ipaddr.process(ip).toString() } : {}) };
}

function schemeLabel(scheme: string): string {
  if (scheme === 'storefront') return 'A storefront token';
  if (scheme === 'apiKey') return 'X-Service-Account or X-Service-Usage-Account';
  return `A credential of scheme "${scheme}"`;
}

// NUL and C0 controls never belong in a path segment or query value; refused before any lookup.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
function hasControlBytes(v: string): boolean {
  return CONTROL.test(v);
}

/**
 * How deeply a JSON body may nest. No request of the API needs more than a handful of levels; deeper
 * documents only exhaust the stack of recursive consumers (validators, serialisers, stores).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Refuses bodies nested deeper than MAX_JSON_DEPTH and, at any depth, `__proto__`, `constructor` and `prototype` keys (they could reach a
 * prototype when a body is copied or merged) and NUL characters in keys or strings (no store can
 * keep them: PostgreSQL text and jsonb refuse U+0000). 400 VALIDATION_ERROR naming the field.
 */
export function assertSafeJson(value: unknown): void {
  const stack: { v: unknown; path: string; depth: number }[] = [{ v: value, path: '', depth: 0 }];
  while (stack.length) {
    const { v, path, depth } = stack.pop()!;
    if (depth > MAX_JSON_DEPTH) throw validationError([{ field: path, message: `is nested deeper than ${MAX_JSON_DEPTH} levels` }], 'The request body is nested too deeply');
    if (typeof v === 'string') {
      if (v.includes('\u0000')) throw validationError([{ field: path || '(body)', message: 'must not contain NUL characters' }]);
    } else if (Array.isArray(v)) v.forEach((x, i) => stack.push({ v: x, path: `${path}[${i}]`, depth: depth + 1 }));
    else if (v && typeof v === 'object') {
      for (const k of Object.keys(v)) {
        const p = path ? `${path}.${k}` : k;
        if (PROTOTYPE_KEYS.has(k)) throw validationError([{ field: p, message: 'is a reserved key' }]);
        if (k.includes('\u0000')) throw validationError([{ field: path || '(body)', message: 'has a key with a NUL character' }]);
        stack.push({ v: (v as Record<string, unknown>)[k], path: p, depth: depth + 1 });
      }
    }
  }
}
