import type { EncodedImage } from '../../core/images.ts';
import { ProviderError } from '../../core/ports/image-model.ts';
import type { ImageModelProvider, ModelCall, ModelSpec, VendorCheck } from '../../core/ports/image-model.ts';
import { modelsForProvider } from '../../core/tryon/models.ts';
import { INPUT_STATUSES, checkBaseUrl, checkRequest, downloadCapped, httpError, onOrigin, pollUntil, positiveOption, requestJson, vendorRequest, vendorSettings } from '../http/vendor.ts';
import type { ErrorReader, VendorOptions, VendorSettings } from '../http/vendor.ts';
import { FASHN_CATEGORY, fashnGarment, tryOnInputs } from '../http/tryon-inputs.ts';

export interface FalOptions extends VendorOptions {
  /** The queue host. Default https://queue.fal.run */
  baseUrl?: string;
  /** fal's REST host, for storage uploads of the references. Default https://rest.fal.ai */
  storageUrl?: string;
  /** fal's platform API, for the live model check. Default https://api.fal.ai/v1 */
  platformUrl?: string;
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
  /**
   * Lifetime asked of fal storage for what a call leaves there: the uploaded references (shoppers'
   * photos) and the generated images, which are downloaded at once. Default 3600 s.
   */
  objectTtlSeconds?: number;
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
 * References are uploaded to fal storage first and travel as file URLs; models with one slot take
 * `image_url`, the others `image_urls`. Input validation errors arrive from `response_url` (422).
 */
export class FalImageModel implements ImageModelProvider {
  readonly id = 'fal' as const;
  readonly #http: VendorSettings;
  readonly #maxWaitMs: number;
  readonly #maxImageBytes: number;
  readonly #storageUrl: string;
  readonly #platformUrl: string;
  readonly #lifecycle: Record<string, string>;

  constructor(options: FalOptions) {
    this.#http = vendorSettings('fal', 'FAL_KEY', options, { baseUrl: 'https://queue.fal.run', timeoutMs: 30_000, pollIntervalMs: 500, maxPollIntervalMs: 5_000 });
    this.#storageUrl = checkBaseUrl('fal', options.storageUrl ?? 'https://rest.fal.ai');
    this.#platformUrl = checkBaseUrl('fal', options.platformUrl ?? 'https://api.fal.ai/v1');
    this.#maxWaitMs = positiveOption('fal', 'maxWaitMs', options.maxWaitMs ?? 600_000);
    this.#maxImageBytes = positiveOption('fal', 'maxImageBytes', options.maxImageBytes ?? 50 * 1024 * 1024);
    this.#lifecycle = lifecycleHeaders(positiveOption('fal', 'objectTtlSeconds', options.objectTtlSeconds ?? 3600));
  }

  models(): readonly ModelSpec[] {
    return modelsForProvider('fal');
  }

  async run(call: ModelCall): Promise<EncodedImage[]> {
    const spec = this.models().find((m) => m.id === call.model);
    // dedicated try-on endpoints take the person and garment photos in their own fields, no prompt
    const dedicated = spec?.kind === 'tryon';
    const input: Record<string, unknown> = dedicated ? await this.#tryOnInput(call, spec) : { prompt: call.prompt, num_images: 1, ...(spec ? spec.params(call.quality) : {}) };
    // fal documents URLs as the input every model takes (data URIs only "some" models accept), and
    // its SDK uploads files to fal storage first: so do we, one reference at a time.
    const uris: string[] = [];
    for (const [i, r] of (dedicated ? [] : call.references).entries()) uris.push(await this.#upload(r.image, `reference-${i + 1}`, call.signal));
    if (spec?.maxReferences === 1) {
      input.image_url = uris[0];
    } else if (uris.length > 0) {
      input.image_urls = uris;
    }

    const base = this.#http.baseUrl;
    const submit = (await this.#json('POST', `${base}/${call.model}`, call.signal, input, this.#lifecycle)) as QueueSubmit;
    if (!submit.request_id) throw new ProviderError('fal', 'submit returned no request_id', { retryable: true });
    const id = encodeURIComponent(submit.request_id);
    // Status and result URLs drop a model's sub-path (fal-ai/flux-pro/kontext -> fal-ai/flux-pro), so
    // prefer the ones fal returns; they must stay on the queue host because they carry the key.
    const appPath = call.model.split('/').slice(0, 2).join('/');
    const statusUrl = onOrigin(submit.status_url, this.#http.baseUrl) ?? `${base}/${appPath}/requests/${id}/status`;
    const responseUrl = onOrigin(submit.response_url, this.#http.baseUrl) ?? `${base}/${appPath}/requests/${id}`;
    const cancelUrl = onOrigin(submit.cancel_url, this.#http.baseUrl) ?? `${base}/${appPath}/requests/${id}/cancel`;

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

  /**
   * The input of a dedicated try-on endpoint, its photos uploaded to fal storage first: FASHN v1.6
   * (`model_image`, `garment_image`, `category`, `mode`, `garment_photo_type`; fal-ai/fashn/tryon/v1.6
   * llms.txt) or Kling Kolors (`human_image_url`, `garment_image_url`; its llms.txt).
   */
  async #tryOnInput(call: ModelCall, spec: ModelSpec): Promise<Record<string, unknown>> {
    const { person, garment } = tryOnInputs('fal', call);
    if (call.model.startsWith('fal-ai/fashn/')) {
      const g = fashnGarment(garment);
      return {
        model_image: await this.#upload(person, 'person', call.signal),
        garment_image: await this.#upload(g.image, 'garment', call.signal),
        category: FASHN_CATEGORY[garment.slot] ?? 'auto',
        garment_photo_type: g.photoType,
        num_samples: 1,
        output_format: 'png',
        ...spec.params(call.quality),
      };
    }
    if (call.model.includes('kolors')) {
      return { human_image_url: await this.#upload(person, 'person', call.signal), garment_image_url: await this.#upload(garment.image, 'garment', call.signal), ...spec.params(call.quality) };
    }
    throw new ProviderError('fal', `${call.model}: no known input fields for this try-on endpoint (fal-ai/fashn/... or a Kolors endpoint)`, { retryable: true });
  }

  /**
   * fal storage, as its SDK uploads (@fal-ai/client 1.10 storage.ts): `POST {rest}/storage/upload/initiate`
   * with the content type and a file name answers `{upload_url, file_url}`; the bytes go to the presigned
   * `upload_url` with PUT (no key); the model gets `file_url`.
   */
  async #upload(image: EncodedImage, name: string, signal: AbortSignal): Promise<string> {
    const { apiKey, timeoutMs } = this.#http;
    const ext = (image.contentType.split('/')[1] ?? 'bin').split(/[;+-]/)[0];
    const init = (await requestJson('fal', `${this.#storageUrl}/storage/upload/initiate?storage_type=fal-cdn-v3`, { method: 'POST', headers: { authorization: `Key ${apiKey}`, accept: 'application/json', ...this.#lifecycle }, json: { content_type: image.contentType, file_name: `${name}.${ext}` }, signal, timeoutMs }, readError)) as { upload_url?: string; file_url?: string };
    if (!init.upload_url || !init.file_url) throw new ProviderError('fal', 'storage upload answered without upload_url and file_url', { retryable: true });
    const put = await vendorRequest('fal', init.upload_url, { method: 'PUT', headers: { 'content-type': image.contentType }, bytes: image.bytes, signal, timeoutMs });
    if (put.status < 200 || put.status >= 300) throw httpError('fal', put, readError);
    return init.file_url;
  }

  /**
   * Live check: the platform API's model search (`GET /v1/models?endpoint_id=...`) says whether each
   * endpoint exists and is active; a storage upload initiation (free, nothing stored) proves the key.
   */
  async check(modelIds: readonly string[], signal: AbortSignal): Promise<VendorCheck> {
    const { apiKey } = this.#http;
    const timeoutMs = Math.min(this.#http.timeoutMs, 10_000);
    const key = await checkRequest('fal', `${this.#storageUrl}/storage/upload/initiate?storage_type=fal-cdn-v3`, { method: 'POST', headers: { authorization: `Key ${apiKey}`, ...this.#lifecycle }, json: { content_type: 'image/png', file_name: 'fitroom-check.png' }, signal, timeoutMs }, readError);
    if (!key.ok) return key.check;
    const query = modelIds.map((id) => `endpoint_id=${encodeURIComponent(id)}`).join('&');
    const found = await checkRequest('fal', `${this.#platformUrl}/models?${query}`, { headers: { authorization: `Key ${apiKey}` }, signal, timeoutMs }, readError);
    if (!found.ok) return found.check;
    const listed = new Map<string, { status?: string; display_name?: string }>(((found.body?.models ?? []) as { endpoint_id: string; metadata?: { status?: string; display_name?: string } }[]).map((m) => [m.endpoint_id, m.metadata ?? {}]));
    const models = modelIds.map((id) => {
      const m = listed.get(id);
      if (!m) return { id, available: false, detail: 'not listed by fal' };
      return { id, available: m.status !== 'deprecated', detail: `${m.display_name ?? id} (${m.status ?? 'status unknown'})` };
    });
    const missing = models.filter((m) => !m.available);
    return { provider: 'fal', status: missing.length ? 'model_missing' : 'ok', models, ...(missing.length ? { message: `not available: ${missing.map((m) => m.id).join(', ')}` } : {}) };
  }

  #waitCompleted(statusUrl: string, signal: AbortSignal): Promise<QueueStatus> {
    return pollUntil<QueueStatus>(this.#http, {
      signal,
      growth: 2,
      // The request keeps running in fal's queue; one flaky status read should not waste it.
      retries: STATUS_RETRIES,
      maxWaitMs: this.#maxWaitMs,
      read: async () => (await this.#json('GET', statusUrl, signal)) as QueueStatus,
      done: (status) => {
        if (status.status === 'COMPLETED') return true;
        if (status.status !== 'IN_QUEUE' && status.status !== 'IN_PROGRESS') {
          throw new ProviderError('fal', `unexpected queue status ${JSON.stringify(status.status)}`, { retryable: true });
        }
        return false;
      },
    });
  }

  /** One authenticated queue request. */
  #json(method: 'GET' | 'POST', url: string, signal: AbortSignal, body?: unknown, headers: Record<string, string> = {}): Promise<unknown> {
    const { apiKey, timeoutMs } = this.#http;
    return requestJson('fal', url, { method, headers: { authorization: `Key ${apiKey}`, accept: 'application/json', ...headers }, json: body, signal, timeoutMs }, readError);
  }

  /** Output files live on fal's CDN (or come inline as data URIs). */
  async #download(url: string, declaredType: string | undefined, signal: AbortSignal): Promise<EncodedImage> {
    if (url.startsWith('data:')) return decodeDataUri(url, this.#maxImageBytes);
    const file = await downloadCapped('fal', url, { signal, timeoutMs: this.#http.timeoutMs, maxBytes: this.#maxImageBytes, what: 'result image', badUrlRetryable: true });
    const type = (file.contentType ?? declaredType ?? '').split(';')[0].trim();
    return { bytes: file.bytes, contentType: type.startsWith('image/') ? type : (declaredType ?? 'image/png') };
  }

  /** Best effort: a request we stopped waiting for should not keep running (and billing). */
  #cancel(url: string): void {
    fetch(url, { method: 'PUT', headers: { authorization: `Key ${this.#http.apiKey}` }, signal: AbortSignal.timeout(5_000) })
      .then((res) => res.body?.cancel())
      .catch(() => undefined);
  }

}

/**
 * The shortest storage life a call needs, as fal takes it: on an upload's initiation fal's SDK sends
 * `X-Fal-Object-Lifecycle` (`{expiration_duration_seconds, allow_io_storage}`, fal-js storage.ts), and
 * fal's data-retention page documents `X-Fal-Object-Lifecycle-Preference` (`{expiration_duration_seconds}`)
 * for the CDN files of a request, input uploads included; both are sent. `X-Fal-Store-IO: 0` keeps the
 * request's JSON (the file URLs, the prompt) out of fal's 30-day request history.
 */
function lifecycleHeaders(seconds: number): Record<string, string> {
  return {
    'x-fal-object-lifecycle': JSON.stringify({ expiration_duration_seconds: seconds, allow_io_storage: true }),
    'x-fal-object-lifecycle-preference': JSON.stringify({ expiration_duration_seconds: seconds }),
    'x-fal-store-io': '0',
  };
}

/** fal errors: `{detail: string | [{loc,msg,type}]}`; 422 is input validation, 415 an unusable file. */
const readError: ErrorReader = (body: { detail?: unknown; error?: unknown; message?: unknown } | undefined, status) => {
  const detail = body?.detail ?? body?.error ?? body?.message;
  let message: string | undefined;
  if (typeof detail === 'string') message = detail;
  else if (Array.isArray(detail)) {
    message = detail.map((d: { msg?: string; loc?: unknown[] }) => (d?.loc ? `${d.loc.join('.')}: ` : '') + (d?.msg ?? JSON.stringify(d))).join('; ');
  }
  return { message: message?.slice(0, 500), inputProblem: INPUT_STATUSES.has(status) || status === 415 };
};

function decodeDataUri(uri: string, max: number): EncodedImage {
  const m = /^data:([^;,]+)(;base64)?,(.*)$/s.exec(uri);
  if (!m || !m[2]) throw new ProviderError('fal', 'result image data URI is not base64', { retryable: true });
  const bytes = new Uint8Array(Buffer.from(m[3], 'base64'));
  if (bytes.byteLength > max) throw new ProviderError('fal', `result image is larger than ${max} bytes`, { retryable: false });
  return { bytes, contentType: m[1] };
}
