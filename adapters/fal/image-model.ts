import type { EncodedImage } from '../../core/images.ts';
import { ProviderError } from '../../core/ports/image-model.ts';
import type { ImageModelProvider, ModelCall, ModelSpec } from '../../core/ports/image-model.ts';
import { modelsForProvider } from '../../core/tryon/models.ts';

export interface FalOptions {
  apiKey: string;
  /** The queue host. Default https://queue.fal.run */
  baseUrl?: string;
  /** Timeout of each HTTP request (submit, status, result, download). Default 30 s. */
  timeoutMs?: number;
  /** First wait between status polls; doubles up to maxPollIntervalMs. Default 500 ms. */
  pollIntervalMs?: number;
  /** Default 5 s. */
  maxPollIntervalMs?: number;
  /** Give up on a queued request after this long (the chain's per-attempt timeout is usually shorter). Default 10 min. */
  maxWaitMs?: number;
  /** Largest output image accepted. Default 50 MB. */
  maxImageBytes?: number;
}

interface QueueSubmit {
  request_id?: string;
  status_url?: string;
  response_url?: string;
  cancel_url?: string;
}

interface QueueStatus {
  status?: 'IN_QUEUE' | 'IN_PROGRESS' | 'COMPLETED' | string;
  queue_position?: number;
  error?: string | null;
  error_type?: string | null;
}

interface FalResult {
  images?: { url?: string; content_type?: string }[];
  image?: { url?: string; content_type?: string };
  has_nsfw_concepts?: boolean[];
}

/** Transient status-read failures tolerated in a row. */
const STATUS_RETRIES = 2;

/**
 * fal.ai queue API: submit to `queue.fal.run/{model}`, poll the returned `status_url` with backoff until
 * COMPLETED, fetch the result from `response_url` and download the output images (fal returns URLs).
 * References travel as base64 data URIs; models with one slot take `image_url`, the others `image_urls`.
 */
export class FalImageModel implements ImageModelProvider {
  readonly id = 'fal' as const;
  readonly #apiKey: string;
  readonly #baseUrl: URL;
  readonly #timeoutMs: number;
  readonly #pollMs: number;
  readonly #maxPollMs: number;
  readonly #maxWaitMs: number;
  readonly #maxImageBytes: number;

  constructor(options: FalOptions) {
    const key = options?.apiKey;
    if (typeof key !== 'string' || key.trim() === '') throw new TypeError('fal: an API key is required (configure FAL_KEY)');
    this.#apiKey = key.trim();
    this.#baseUrl = httpUrl(options.baseUrl ?? 'https://queue.fal.run');
    this.#timeoutMs = positive(options.timeoutMs ?? 30_000, 'timeoutMs');
    this.#pollMs = positive(options.pollIntervalMs ?? 500, 'pollIntervalMs');
    this.#maxPollMs = positive(options.maxPollIntervalMs ?? 5_000, 'maxPollIntervalMs');
    this.#maxWaitMs = positive(options.maxWaitMs ?? 600_000, 'maxWaitMs');
    this.#maxImageBytes = positive(options.maxImageBytes ?? 50 * 1024 * 1024, 'maxImageBytes');
  }

  models(): readonly ModelSpec[] {
    return modelsForProvider('fal');
  }

  async run(call: ModelCall): Promise<EncodedImage[]> {
    const spec = this.models().find((m) => m.id === call.model);
    const input: Record<string, unknown> = { prompt: call.prompt, num_images: 1, ...(spec ? spec.params(call.quality) : {}) };
    const uris = call.references.map((r) => `data:${r.image.contentType};base64,${Buffer.from(r.image.bytes).toString('base64')}`);
    if (spec?.maxReferences === 1) {
      input.image_url = uris[0];
    } else if (uris.length > 0) {
      input.image_urls = uris;
    }

    const base = this.#baseUrl.href.replace(/\/+$/, '');
    const submit = (await this.#json('POST', `${base}/${call.model}`, call.signal, input)) as QueueSubmit;
    if (!submit.request_id) throw new ProviderError('fal', 'submit returned no request_id', { retryable: true });
    const id = encodeURIComponent(submit.request_id);
    // Status and result URLs drop a model's sub-path (fal-ai/flux-pro/kontext -> fal-ai/flux-pro), so
    // prefer the ones fal returns; they must stay on the queue host because they carry the key.
    const appPath = call.model.split('/').slice(0, 2).join('/');
    const statusUrl = this.#sameHost(submit.status_url) ?? `${base}/${appPath}/requests/${id}/status`;
    const responseUrl = this.#sameHost(submit.response_url) ?? `${base}/${appPath}/requests/${id}`;
    const cancelUrl = this.#sameHost(submit.cancel_url) ?? `${base}/${appPath}/requests/${id}/cancel`;

    let done: QueueStatus;
    try {
      done = await this.#waitCompleted(statusUrl, call.signal);
    } catch (e) {
      this.#cancel(cancelUrl);
      throw e;
    }
    if (done.error) {
      throw new ProviderError('fal', `${call.model} failed${done.error_type ? ` (${done.error_type})` : ''}: ${done.error}`, { retryable: true });
    }
    const result = (await this.#json('GET', responseUrl, call.signal)) as FalResult;
    const files = result.images ?? (result.image ? [result.image] : []);
    const flags = result.has_nsfw_concepts ?? [];
    const kept = files.filter((f, i) => f.url && flags[i] !== true);
    if (kept.length === 0) {
      if (files.length > 0 && flags.some((f) => f)) {
        throw new ProviderError('fal', `${call.model}: output flagged by the safety checker`, { retryable: false });
      }
      throw new ProviderError('fal', `${call.model}: result has no images`, { retryable: true });
    }
    const images: EncodedImage[] = [];
    for (const file of kept) images.push(await this.#download(file.url!, file.content_type, call.signal));
    return images;
  }

  async #waitCompleted(statusUrl: string, signal: AbortSignal): Promise<QueueStatus> {
    const started = Date.now();
    let wait = this.#pollMs;
    let failures = 0;
    for (;;) {
      let status: QueueStatus;
      try {
        status = (await this.#json('GET', statusUrl, signal)) as QueueStatus;
        failures = 0;
      } catch (err) {
        // The request keeps running in fal's queue; one flaky status read should not waste it.
        if (!(err instanceof ProviderError) || !err.retryable || ++failures > STATUS_RETRIES) throw err;
        await sleep(wait, signal);
        continue;
      }
      if (status.status === 'COMPLETED') return status;
      if (status.status !== 'IN_QUEUE' && status.status !== 'IN_PROGRESS') {
        throw new ProviderError('fal', `unexpected queue status ${JSON.stringify(status.status)}`, { retryable: true });
      }
      if (Date.now() - started + wait > this.#maxWaitMs) {
        throw new ProviderError('fal', `request still queued after ${this.#maxWaitMs} ms`, { retryable: true });
      }
      await sleep(wait, signal);
      wait = Math.min(wait * 2, this.#maxPollMs);
    }
  }

  /** One authenticated queue request with a timeout; maps failures to ProviderError. */
  async #json(method: 'GET' | 'POST' | 'PUT', url: string, signal: AbortSignal, body?: unknown): Promise<unknown> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    let status: number;
    let text: string;
    try {
      const res = await fetch(url, {
        method,
        headers: { authorization: `Key ${this.#apiKey}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.any([signal, timeout]),
      });
      status = res.status;
      text = await res.text();
    } catch (cause) {
      throw transportError(cause, signal, timeout, this.#timeoutMs);
    }
    if (status < 200 || status >= 300) throw errorFromResponse(status, text);
    try {
      return JSON.parse(text);
    } catch (cause) {
      throw new ProviderError('fal', `unreadable response (HTTP ${status})`, { retryable: true, status, cause });
    }
  }

  /** Output files live on fal's CDN: fetched without the key, https only, size-capped. */
  async #download(url: string, declaredType: string | undefined, signal: AbortSignal): Promise<EncodedImage> {
    if (url.startsWith('data:')) return decodeDataUri(url, this.#maxImageBytes);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ProviderError('fal', 'result image URL is invalid', { retryable: true });
    }
    if (parsed.protocol !== 'https:') throw new ProviderError('fal', 'result image URL is not https', { retryable: true });
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    try {
      const res = await fetch(parsed, { signal: AbortSignal.any([signal, timeout]) });
      if (!res.ok) throw new ProviderError('fal', `image download failed: HTTP ${res.status}`, { retryable: true, status: res.status });
      const bytes = await readCapped(res, this.#maxImageBytes);
      const type = (res.headers.get('content-type') ?? declaredType ?? '').split(';')[0].trim();
      return { bytes, contentType: type.startsWith('image/') ? type : (declaredType ?? 'image/png') };
    } catch (cause) {
      if (cause instanceof ProviderError) throw cause;
      throw transportError(cause, signal, timeout, this.#timeoutMs);
    }
  }

  /** Best effort: a request we stopped waiting for should not keep running (and billing). */
  #cancel(url: string): void {
    fetch(url, { method: 'PUT', headers: { authorization: `Key ${this.#apiKey}` }, signal: AbortSignal.timeout(5_000) })
      .then((res) => res.body?.cancel())
      .catch(() => undefined);
  }

  #sameHost(url: string | undefined): string | undefined {
    if (!url) return undefined;
    try {
      return new URL(url).origin === this.#baseUrl.origin ? url : undefined;
    } catch {
      return undefined;
    }
  }
}

/** fal errors: `{detail: string | [{loc,msg,type}]}`; 422 is input validation. */
function errorFromResponse(status: number, text: string): ProviderError {
  let message = text.slice(0, 300);
  try {
    const body = JSON.parse(text) as { detail?: unknown; error?: unknown; message?: unknown };
    const detail = body.detail ?? body.error ?? body.message;
    if (typeof detail === 'string') message = detail;
    else if (Array.isArray(detail)) {
      message = detail.map((d: { msg?: string; loc?: unknown[] }) => (d?.loc ? `${d.loc.join('.')}: ` : '') + (d?.msg ?? JSON.stringify(d))).join('; ');
    }
  } catch {
    // not JSON
  }
  const inputProblem = status === 400 || status === 413 || status === 415 || status === 422;
  return new ProviderError('fal', `HTTP ${status}: ${message.slice(0, 500)}`, { retryable: !inputProblem, status });
}

function transportError(cause: unknown, signal: AbortSignal, timeout: AbortSignal, timeoutMs: number): unknown {
  if (signal.aborted) return signal.reason;
  if (timeout.aborted) return new ProviderError('fal', `request timed out after ${timeoutMs} ms`, { retryable: true, cause });
  return new ProviderError('fal', `network error: ${(cause as Error)?.message ?? String(cause)}`, { retryable: true, cause });
}

async function readCapped(res: Response, max: number): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > max) {
    await res.body?.cancel();
    throw new ProviderError('fal', `image is larger than ${max} bytes`, { retryable: false });
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = res.body?.getReader();
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      throw new ProviderError('fal', `image is larger than ${max} bytes`, { retryable: false });
    }
    chunks.push(value);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

function decodeDataUri(uri: string, max: number): EncodedImage {
  const m = /^data:([^;,]+)(;base64)?,(.*)$/s.exec(uri);
  if (!m || !m[2]) throw new ProviderError('fal', 'result image data URI is not base64', { retryable: true });
  const bytes = new Uint8Array(Buffer.from(m[3], 'base64'));
  if (bytes.byteLength > max) throw new ProviderError('fal', `image is larger than ${max} bytes`, { retryable: false });
  return { bytes, contentType: m[1] };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
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

function httpUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`fal: baseUrl is not a URL: ${value}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`fal: baseUrl must be http(s): ${value}`);
  return url;
}

function positive(n: number, name: string): number {
  if (!Number.isFinite(n) || n <= 0) throw new TypeError(`fal: ${name} must be a positive number`);
  return n;
}
