import type { EncodedImage } from '../../core/images.ts';
import { ProviderError } from '../../core/ports/image-model.ts';
import type { ImageModelProvider, ModelCall, ModelSpec } from '../../core/ports/image-model.ts';
import { modelsForProvider } from '../../core/tryon/models.ts';
import { dataUri, downloadCapped, pollUntil, positiveOption, requestJson, vendorRequest, httpError, vendorSettings } from '../http/vendor.ts';
import type { ErrorReader, VendorOptions, VendorSettings } from '../http/vendor.ts';
import { FASHN_CATEGORY, fashnGarment, fromDataUri, tryOnInputs } from '../http/tryon-inputs.ts';

export interface FashnOptions extends VendorOptions {
  /** Default https://api.fashn.ai/v1 */
  baseUrl?: string;
  /** Timeout of each HTTP request. Default 30 s. */
  timeoutMs?: number;
  /** First wait between status polls (FASHN's SDK polls every second); grows up to maxPollIntervalMs. Default 1 s. */
  pollIntervalMs?: number;
  /** Default 3 s. */
  maxPollIntervalMs?: number;
  /** Give up on a prediction after this long (FASHN's SDK: 5 min). Default 5 min. */
  maxWaitMs?: number;
  /** Largest result image accepted. Default 50 MB. */
  maxImageBytes?: number;
  /** Told the credits a finished prediction used (FASHN's `x-fashn-credits-used` header). */
  onCredits?: (use: { model: string; predictionId: string; credits: number }) => void;
}

interface FashnStatus {
  id?: string;
  status?: 'starting' | 'in_queue' | 'processing' | 'completed' | 'failed' | 'canceled' | 'time_out' | string;
  output?: string[] | null;
  error?: { name?: string; message?: string } | null;
}

/** Runtime errors about the inputs (FASHN SDK `PredictionStatusResponse.Error.name`): another try with the same images fails the same way. */
const INPUT_ERRORS: Readonly<Record<string, string>> = {
  ImageLoadError: 'could not load an image',
  ContentModerationError: 'the images were refused by content moderation',
  PoseError: 'no body pose found in the person photo',
  InputValidationError: 'invalid inputs',
};

/** Transient status-read failures tolerated in a row (the prediction keeps running meanwhile). */
const STATUS_RETRIES = 3;

/**
 * FASHN's own API (docs.fashn.ai; official SDK fashn-AI/fashn-typescript-sdk): `POST /v1/run` with
 * `{model_name, inputs}` answers a prediction id, `GET /v1/status/{id}` is polled until `completed`
 * (the SDK's way; FASHN's webhooks carry no signature, so a job polls instead of trusting one).
 * Images travel inline as base64 data URIs and results come back as base64 (`return_base64`), which
 * FASHN keeps for 60 minutes instead of 72 hours on its CDN. FASHN has no cancel endpoint.
 */
export class FashnImageModel implements ImageModelProvider {
  readonly id = 'fashn' as const;
  readonly #http: VendorSettings;
  readonly #maxWaitMs: number;
  readonly #maxImageBytes: number;
  readonly #onCredits: FashnOptions['onCredits'];

  constructor(options: FashnOptions) {
    this.#http = vendorSettings('fashn', 'FASHN_API_KEY', options, { baseUrl: 'https://api.fashn.ai/v1', timeoutMs: 30_000, pollIntervalMs: 1_000, maxPollIntervalMs: 3_000 });
    this.#maxWaitMs = positiveOption('fashn', 'maxWaitMs', options.maxWaitMs ?? 300_000);
    this.#maxImageBytes = positiveOption('fashn', 'maxImageBytes', options.maxImageBytes ?? 50 * 1024 * 1024);
    this.#onCredits = options.onCredits;
  }

  models(): readonly ModelSpec[] {
    return modelsForProvider('fashn');
  }

  async run(call: ModelCall): Promise<EncodedImage[]> {
    const spec = this.models().find((m) => m.id === call.model);
    const { person, garment } = tryOnInputs('fashn', call);
    const params = spec ? spec.params(call.quality) : {};
    // Try-On Max takes `product_image` and `generation_mode` (FASHN SDK TryOnMaxRequest); v1.6 the rest
    const max = call.model === 'tryon-max' || 'generation_mode' in params;
    const inputs: Record<string, unknown> = !max
      ? v16Inputs(person, garment, params)
      : { model_image: dataUri(person), product_image: dataUri(garment.onModel ?? garment.image), num_images: 1, output_format: 'png', return_base64: true, ...params };

    const { apiKey, baseUrl, timeoutMs } = this.#http;
    const headers = { authorization: `Bearer ${apiKey}`, accept: 'application/json' };
    const started = (await requestJson('fashn', `${baseUrl}/run`, { method: 'POST', headers, json: { model_name: call.model, inputs }, signal: call.signal, timeoutMs }, readError)) as { id?: string; error?: unknown };
    if (started.error) throw new ProviderError('fashn', `${call.model} was not started: ${typeof started.error === 'string' ? started.error : JSON.stringify(started.error)}`, { retryable: true });
    if (!started.id) throw new ProviderError('fashn', 'run answered without a prediction id', { retryable: true });
    const id = started.id;

    let credits: string | null = null;
    const done = await pollUntil<FashnStatus>(this.#http, {
      signal: call.signal,
      growth: 1.5,
      retries: STATUS_RETRIES,
      maxWaitMs: this.#maxWaitMs,
      read: async () => {
        const res = await vendorRequest('fashn', `${baseUrl}/status/${encodeURIComponent(id)}`, { headers, signal: call.signal, timeoutMs });
        if (res.status < 200 || res.status >= 300) throw httpError('fashn', res, readError);
        credits = res.headers.get('x-fashn-credits-used');
        try {
          return JSON.parse(res.text) as FashnStatus;
        } catch (cause) {
          throw new ProviderError('fashn', `unreadable status (HTTP ${res.status})`, { retryable: true, status: res.status, cause });
        }
      },
      done: (s) => {
        if (s.status === 'completed') return true;
        if (s.status === 'starting' || s.status === 'in_queue' || s.status === 'processing') return false;
        throw runtimeError(call.model, id, s);
      },
    });
    if (credits !== null && Number.isFinite(Number(credits))) this.#onCredits?.({ model: call.model, predictionId: id, credits: Number(credits) });
    const outputs = (done.output ?? []).filter((o): o is string => typeof o === 'string' && o.length > 0);
    if (outputs.length === 0) throw new ProviderError('fashn', `${call.model} completed without an output`, { retryable: true });
    const images: EncodedImage[] = [];
    for (const out of outputs) images.push(await this.#image(out, call.signal));
    return images;
  }

  /** A result: base64 (what we ask for) or a CDN URL (kept 72 h by FASHN). */
  async #image(out: string, signal: AbortSignal): Promise<EncodedImage> {
    const inline = fromDataUri(out);
    if (inline) {
      if (inline.bytes.byteLength > this.#maxImageBytes) throw new ProviderError('fashn', `result image is larger than ${this.#maxImageBytes} bytes`, { retryable: false });
      return inline;
    }
    const file = await downloadCapped('fashn', out, { signal, timeoutMs: this.#http.timeoutMs, maxBytes: this.#maxImageBytes, what: 'result image', badUrlRetryable: true });
    const type = (file.contentType ?? '').split(';')[0].trim();
    return { bytes: file.bytes, contentType: type.startsWith('image/') ? type : 'image/png' };
  }
}

/** tryon-v1.6's inputs: category from the slot, photo type from whether the garment was shown worn. */
function v16Inputs(person: EncodedImage, garment: Parameters<typeof fashnGarment>[0], params: Record<string, unknown>): Record<string, unknown> {
  const g = fashnGarment(garment);
  return {
    model_image: dataUri(person),
    garment_image: dataUri(g.image),
    category: FASHN_CATEGORY[garment.slot] ?? 'auto',
    garment_photo_type: g.photoType,
    num_samples: 1,
    output_format: 'png',
    return_base64: true,
    ...params,
  };
}

/** A failed, canceled or timed-out prediction as a ProviderError (FASHN does not charge failed runs). */
function runtimeError(model: string, id: string, s: FashnStatus): ProviderError {
  const name = s.error?.name ?? '';
  const said = s.error?.message ? `: ${s.error.message}` : '';
  if (s.status === 'failed' && INPUT_ERRORS[name]) {
    return new ProviderError('fashn', `${model} ${name}, ${INPUT_ERRORS[name]}${said} (prediction ${id})`, { retryable: false });
  }
  if (s.status === 'failed') return new ProviderError('fashn', `${model} failed${name ? ` (${name})` : ''}${said} (prediction ${id})`, { retryable: true });
  return new ProviderError('fashn', `${model} prediction ${id} ended as ${JSON.stringify(s.status)}${said}`, { retryable: true });
}

/**
 * API-level errors (docs.fashn.ai/api-overview/error-handling): `{error: name, message}`. 401
 * UnauthorizedAccess and 429 OutOfCredits are the deployment's account; 429 RateLimitExceeded and
 * ConcurrencyLimitExceeded wait (Retry-After) and try again; 400 BadRequest is the request; 404 NotFound
 * (an unknown route, or a prediction no longer tracked) lets another model try.
 */
const readError: ErrorReader = (body: { error?: unknown; message?: unknown } | undefined, status) => {
  const tag = typeof body?.error === 'string' ? body.error : undefined;
  const message = typeof body?.message === 'string' ? body.message : undefined;
  return {
    tag,
    message,
    account: status === 401 || status === 403 || tag === 'UnauthorizedAccess' || tag === 'OutOfCredits',
    inputProblem: status === 400 || status === 413 || status === 422,
  };
};
