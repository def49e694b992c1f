import type { EncodedImage } from '../../core/images.ts';
import { ProviderError, type ProviderErrorCode, type VendorCheck } from '../../core/ports/image-model.ts';

/**
 * The HTTP plumbing the AI vendor adapters (gemini, fal, meshy, tripo) share: option checks at start,
 * one request with a timeout and the caller's AbortSignal, HTTP failures mapped to ProviderError with
 * the retryable rule, polling of remote tasks with backoff and Retry-After, and size-capped downloads
 * of result files from the vendors' CDNs. Each adapter keeps what is its vendor's own: URLs, auth
 * header, the shape of bodies and error bodies, and task states.
 *
 * Every failure is a ProviderError except one: when the caller's signal fired, its reason is thrown
 * unchanged, so a cancelled job or an expired attempt is never mistaken for a vendor failure.
 */

/** Statuses that describe the request itself: sending it again unchanged cannot succeed. */
export const INPUT_STATUSES: ReadonlySet<number> = new Set([400, 413, 422]);

/** Longest Retry-After honoured; a vendor asking for more is asked again sooner. */
const MAX_RETRY_AFTER_MS = 120_000;

/** The options every polling vendor adapter takes; each adapter documents its own defaults. */
export interface VendorOptions {
  apiKey: string;
  baseUrl?: string;
  /** Timeout of each HTTP request. */
  timeoutMs?: number;
  /** First wait between task polls; it grows up to maxPollIntervalMs. */
  pollIntervalMs?: number;
  maxPollIntervalMs?: number;
}

/** VendorOptions checked, with the defaults filled in. */
export interface VendorSettings {
  provider: string;
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
  pollIntervalMs: number;
  maxPollIntervalMs: number;
}

/** Checks an adapter's options at start (a misconfiguration is a TypeError naming what to fix). */
export function vendorSettings(provider: string, envName: string, options: VendorOptions, defaults: Omit<VendorSettings, 'provider' | 'apiKey'>): VendorSettings {
  return {
    provider,
    apiKey: requireApiKey(provider, options?.apiKey, envName),
    baseUrl: checkBaseUrl(provider, options.baseUrl ?? defaults.baseUrl),
    timeoutMs: positiveOption(provider, 'timeoutMs', options.timeoutMs ?? defaults.timeoutMs),
    pollIntervalMs: positiveOption(provider, 'pollIntervalMs', options.pollIntervalMs ?? defaults.pollIntervalMs),
    maxPollIntervalMs: positiveOption(provider, 'maxPollIntervalMs', options.maxPollIntervalMs ?? defaults.maxPollIntervalMs),
  };
}

/** The configured API key, trimmed; a missing one fails at start and names the variable to set. */
export function requireApiKey(provider: string, key: string | undefined, envName: string): string {
  if (typeof key !== 'string' || key.trim() === '') throw new TypeError(`${provider}: an API key is required (configure ${envName})`);
  return key.trim();
}

/** An http(s) base URL without trailing slashes. */
export function checkBaseUrl(provider: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`${provider}: baseUrl is not a URL: ${value}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`${provider}: baseUrl must be http(s): ${value}`);
  return value.replace(/\/+$/, '');
}

/** A finite positive number option (timeouts, intervals, byte caps). */
export function positiveOption(provider: string, name: string, n: number): number {
  if (!Number.isFinite(n) || n <= 0) throw new TypeError(`${provider}: ${name} must be a positive number`);
  return n;
}

/** A reference image as the base64 data URI that fal and Meshy accept in place of a URL. */
/** `url` when it is on `base`'s origin (a vendor's own status or cancel link), else undefined: never another host. */
export function onOrigin(url: string | undefined, base: string): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).origin === new URL(base).origin ? url : undefined;
  } catch {
    return undefined;
  }
}

export function dataUri(image: EncodedImage): string {
  return `data:${image.contentType};base64,${Buffer.from(image.bytes).toString('base64')}`;
}

/** A ProviderError from an HTTP answer, with the wait the vendor asked for in `Retry-After`. */
export class VendorHttpError extends ProviderError {
  readonly retryAfterMs: number | undefined;
  constructor(provider: string, message: string, opts: { retryable: boolean; status: number; retryAfterMs?: number; code?: ProviderErrorCode }) {
    super(provider, message, opts);
    this.retryAfterMs = opts.retryAfterMs;
  }
}

export interface VendorRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Auth and vendor headers; content-type is added for `json`. */
  headers?: Record<string, string>;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as is (multipart uploads). */
  form?: FormData;
  /** Sent as is (file uploads to presigned URLs); set its content-type in `headers`. */
  bytes?: Uint8Array;
  /** The caller's signal (job cancellation, the chain's attempt timeout). */
  signal: AbortSignal;
  /** Covers the whole exchange, body included. */
  timeoutMs: number;
}

export interface VendorResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** One request; the answer is returned whatever its status, transport failures become ProviderErrors. */
export async function vendorRequest(provider: string, url: string, req: VendorRequest): Promise<VendorResponse> {
  const timeout = AbortSignal.timeout(req.timeoutMs);
  const headers = req.json === undefined ? { ...req.headers } : { ...req.headers, 'content-type': 'application/json' };
  try {
    const res = await fetch(url, {
      method: req.method ?? 'GET',
      headers,
      body: req.json !== undefined ? JSON.stringify(req.json) : (req.form ?? (req.bytes ? Buffer.from(req.bytes) : undefined)),
      signal: AbortSignal.any([req.signal, timeout]),
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  } catch (cause) {
    throw transportError(provider, cause, req.signal, timeout, req.timeoutMs, 'request', 'network error');
  }
}

/** Statuses about the deployment's account (key, permission, credits): no retry helps until an operator acts. */
export const ACCOUNT_STATUSES: ReadonlySet<number> = new Set([401, 402, 403]);

/**
 * What an adapter reads from its vendor's error body (`body` is undefined when it is not JSON):
 * the message, a tag (the vendor's own code), and what the failure is about when the status alone
 * does not say: the request (`inputProblem`), the account (`account`: key, credits), a model that
 * does not exist (`modelUnavailable`); `retryAfterMs` when the body carries the retry hint.
 */
export type ErrorReader = (body: any, status: number) => { message?: string; tag?: string; inputProblem?: boolean; account?: boolean; modelUnavailable?: boolean; retryAfterMs?: number };

/** `vendorRequest` for JSON APIs: a non-2xx answer throws `httpError`, a 2xx body must parse. */
export async function requestJson(provider: string, url: string, req: VendorRequest, readError?: ErrorReader): Promise<unknown> {
  const res = await vendorRequest(provider, url, req);
  if (res.status < 200 || res.status >= 300) throw httpError(provider, res, readError);
  try {
    return JSON.parse(res.text);
  } catch (cause) {
    throw new ProviderError(provider, `unreadable response (HTTP ${res.status})`, { retryable: true, status: res.status, cause });
  }
}

/**
 * The error for a failed answer: `HTTP {status}[ {tag}]: {message}`, the message read from the body by
 * `read` (else the body's first 300 characters). Retryable unless `read` or INPUT_STATUSES say the
 * request itself is at fault. Retry-After (seconds or an HTTP date) is kept for the poller.
 */
export function httpError(provider: string, res: VendorResponse, read?: ErrorReader): VendorHttpError {
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    body = undefined;
  }
  const said = read?.(body, res.status) ?? {};
  const message = said.message || res.text.slice(0, 300);
  const modelUnavailable = said.modelUnavailable ?? false;
  const account = !modelUnavailable && (said.account ?? ACCOUNT_STATUSES.has(res.status));
  const inputProblem = !modelUnavailable && !account && (said.inputProblem ?? INPUT_STATUSES.has(res.status));
  return new VendorHttpError(provider, `HTTP ${res.status}${said.tag ? ` ${said.tag}` : ''}: ${message}`, {
    retryable: !inputProblem && !account && !modelUnavailable,
    status: res.status,
    retryAfterMs: said.retryAfterMs !== undefined ? Math.min(Math.max(said.retryAfterMs, 0), MAX_RETRY_AFTER_MS) : retryAfterMs(res.headers.get('retry-after')),
    code: modelUnavailable ? 'MODEL_UNAVAILABLE' : account ? 'PROVIDER_ACCOUNT' : undefined,
  });
}

function retryAfterMs(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : undefined;
}

export interface PollOptions<S> {
  signal: AbortSignal;
  /** Factor applied to the wait after each read, up to the vendor's maxPollIntervalMs. */
  growth: number;
  /** Retryable read failures tolerated in a row: the remote work keeps running meanwhile. */
  retries: number;
  /** Give up (retryable) once the next wait would pass this long since the start. */
  maxWaitMs?: number;
  /** One status read. */
  read: () => Promise<S>;
  /** True once the remote work is finished; throws on a terminal failure. */
  done: (status: S) => boolean;
}

/** Polls a remote task until `done`; after a failed read it waits at least what Retry-After asked. */
export async function pollUntil<S>(vendor: VendorSettings, o: PollOptions<S>): Promise<S> {
  const started = Date.now();
  let wait = vendor.pollIntervalMs;
  let failures = 0;
  for (;;) {
    let status: S;
    try {
      status = await o.read();
      failures = 0;
    } catch (err) {
      if (!(err instanceof ProviderError) || !err.retryable || ++failures > o.retries) throw err;
      await sleep(Math.max(wait, err instanceof VendorHttpError ? (err.retryAfterMs ?? 0) : 0), o.signal);
      continue;
    }
    if (o.done(status)) return status;
    if (o.maxWaitMs !== undefined && Date.now() - started + wait > o.maxWaitMs) {
      throw new ProviderError(vendor.provider, `request still queued after ${o.maxWaitMs} ms`, { retryable: true });
    }
    await sleep(wait, o.signal);
    wait = Math.min(Math.round(wait * o.growth), vendor.maxPollIntervalMs);
  }
}

/** Waits `ms`, or rejects with the signal's reason as soon as it fires. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export interface DownloadOptions {
  signal: AbortSignal;
  timeoutMs: number;
  maxBytes: number;
  /** Names the file in messages: `GLB`, `model`, `result image`. */
  what: string;
  /** Whether an unusable URL (invalid, not https) is worth another attempt of the whole call. */
  badUrlRetryable: boolean;
}

/**
 * Fetches a result file from the vendor's CDN: https only, without the API key (the URL is signed or
 * public), stopped as soon as it exceeds `maxBytes` (declared or streamed).
 */
export async function downloadCapped(provider: string, url: string, o: DownloadOptions): Promise<{ bytes: Uint8Array; contentType: string | null }> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ProviderError(provider, `${o.what} URL is invalid`, { retryable: o.badUrlRetryable });
  }
  if (parsed.protocol !== 'https:') throw new ProviderError(provider, `${o.what} URL is not https`, { retryable: o.badUrlRetryable });
  const tooLarge = () => new ProviderError(provider, `${o.what} is larger than ${o.maxBytes} bytes`, { retryable: false });
  const timeout = AbortSignal.timeout(o.timeoutMs);
  try {
    const res = await fetch(parsed, { signal: AbortSignal.any([o.signal, timeout]) });
    if (!res.ok) {
      await res.body?.cancel();
      throw new ProviderError(provider, `${o.what} download failed: HTTP ${res.status}`, { retryable: true, status: res.status });
    }
    if (Number(res.headers.get('content-length') ?? 0) > o.maxBytes) {
      await res.body?.cancel();
      throw tooLarge();
    }
    const chunks: Uint8Array[] = [];
    let total = 0;
    const reader = res.body?.getReader();
    while (reader) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > o.maxBytes) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
    return { bytes: new Uint8Array(Buffer.concat(chunks)), contentType: res.headers.get('content-type') };
  } catch (cause) {
    if (cause instanceof ProviderError) throw cause;
    throw transportError(provider, cause, o.signal, timeout, o.timeoutMs, `${o.what} download`, `${o.what} download failed`);
  }
}

/**
 * Runs one live-check request and classifies the outcome for the start-up report: the key rejected,
 * the vendor unreachable (offline deployments carry on), or the parsed answer.
 */
export async function checkRequest(provider: string, url: string, req: VendorRequest, read?: ErrorReader): Promise<{ ok: true; body: any } | { ok: false; check: VendorCheck }> {
  try {
    return { ok: true, body: await requestJson(provider, url, req, read) };
  } catch (e) {
    if (req.signal.aborted) throw req.signal.reason;
    const err = e as ProviderError;
    if (err instanceof ProviderError && err.code === 'PROVIDER_ACCOUNT') return { ok: false, check: { provider, status: 'account_refused', message: err.message } };
    if (err instanceof ProviderError && err.code === 'MODEL_UNAVAILABLE') return { ok: false, check: { provider, status: 'model_missing', message: err.message } };
    if (err instanceof ProviderError && err.status === undefined) return { ok: false, check: { provider, status: 'unreachable', message: err.message } };
    return { ok: false, check: { provider, status: 'error', message: (err as Error).message } };
  }
}

/** A binary glTF starts with the ASCII magic "glTF"; anything else (an HTML error page) is refused. */
export function requireGlb(provider: string, bytes: Uint8Array): Uint8Array {
  if (bytes.byteLength < 12 || Buffer.from(bytes.subarray(0, 4)).toString('latin1') !== 'glTF') {
    throw new ProviderError(provider, 'the downloaded model is not a GLB', { retryable: false });
  }
  return bytes;
}

function transportError(provider: string, cause: unknown, signal: AbortSignal, timeout: AbortSignal, timeoutMs: number, doing: string, failed: string): unknown {
  if (signal.aborted) return signal.reason;
  if (timeout.aborted) return new ProviderError(provider, `${doing} timed out after ${timeoutMs} ms`, { retryable: true, cause });
  return new ProviderError(provider, `${failed}: ${(cause as Error)?.message ?? String(cause)}`, { retryable: true, cause });
}
