import { GoogleAuth, JWT } from 'google-auth-library';
import type { EncodedImage } from '../../core/images.ts';
import { ProviderError } from '../../core/ports/image-model.ts';
import type { ImageModelProvider, ModelCall, ModelSpec } from '../../core/ports/image-model.ts';
import { modelsForProvider } from '../../core/tryon/models.ts';
import { checkBaseUrl, positiveOption, requestJson, sleep } from '../http/vendor.ts';
import type { ErrorReader } from '../http/vendor.ts';
import { tryOnInputs } from '../http/tryon-inputs.ts';

export interface VertexOptions {
  /** The Google Cloud project that runs the model (billing, quota). */
  project: string;
  /** Vertex AI region. Default us-central1; `global` uses the global endpoint. */
  location?: string;
  /**
   * A service-account key (the JSON Google issues). Without it Google's Application Default Credentials
   * apply: GOOGLE_APPLICATION_CREDENTIALS (a key file), or the metadata server on Google Cloud.
   */
  credentials?: Record<string, unknown>;
  /** Override of `https://{location}-aiplatform.googleapis.com` (tests, private endpoints). */
  baseUrl?: string;
  /** Timeout of the predict call (synchronous: it covers the generation) and of a token request. Default 90 s. */
  timeoutMs?: number;
  /** `safetySetting`; default block_medium_and_above (Vertex's own default). */
  safetySetting?: string;
  /** `personGeneration`; default allow_adult. */
  personGeneration?: string;
  /** A 429 whose Retry-After asks for at most this long is waited out and sent once more. Default 10 s. */
  maxRetryWaitMs?: number;
}

const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

interface Prediction {
  mimeType?: string;
  bytesBase64Encoded?: string;
  raiFilteredReason?: string;
}

/**
 * Google Vertex AI Virtual Try-On (model-reference/virtual-try-on-api): one synchronous
 * `POST .../publishers/google/models/{model}:predict` with `instances: [{personImage, productImages}]`
 * (images inline as base64) and `parameters` (sampleCount, baseSteps, safetySetting,
 * personGeneration, outputOptions); the images come back inline. Nothing is kept by Google beyond the
 * call (no storageUri is set). Access tokens come from Google's own auth library (service account or
 * Application Default Credentials), cached and refreshed by it.
 */
export class VertexImageModel implements ImageModelProvider {
  readonly id = 'vertex' as const;
  readonly #project: string;
  readonly #location: string;
  readonly #baseUrl: string;
  readonly #timeoutMs: number;
  readonly #maxRetryWaitMs: number;
  readonly #safetySetting: string;
  readonly #personGeneration: string;
  /** A service account's JWT client, or Application Default Credentials; both cache and refresh tokens. */
  readonly #auth: JWT | GoogleAuth;

  constructor(options: VertexOptions) {
    if (!options?.project?.trim()) throw new TypeError('vertex: a Google Cloud project is required (configure VERTEX_PROJECT)');
    this.#project = options.project.trim();
    this.#location = (options.location ?? 'us-central1').trim();
    if (!/^[a-z0-9-]+$/.test(this.#location)) throw new TypeError(`vertex: location is not a region name: ${options.location}`);
    this.#baseUrl = checkBaseUrl('vertex', options.baseUrl ?? (this.#location === 'global' ? 'https://aiplatform.googleapis.com' : `https://${this.#location}-aiplatform.googleapis.com`));
    this.#timeoutMs = positiveOption('vertex', 'timeoutMs', options.timeoutMs ?? 90_000);
    this.#maxRetryWaitMs = options.maxRetryWaitMs ?? 10_000;
    this.#safetySetting = options.safetySetting ?? 'block_medium_and_above';
    this.#personGeneration = options.personGeneration ?? 'allow_adult';
    if (options.credentials && (typeof options.credentials.client_email !== 'string' || typeof options.credentials.private_key !== 'string')) {
      throw new TypeError('vertex: the credentials must be a service-account key with client_email and private_key');
    }
    const c = options.credentials;
    this.#auth = c
      ? new JWT({ email: c.client_email as string, key: c.private_key as string, ...(typeof c.private_key_id === 'string' ? { keyId: c.private_key_id } : {}), scopes: [SCOPE] })
      : new GoogleAuth({ scopes: [SCOPE] });
  }

  models(): readonly ModelSpec[] {
    return modelsForProvider('vertex');
  }

  async run(call: ModelCall): Promise<EncodedImage[]> {
    const spec = this.models().find((m) => m.id === call.model);
    const { person, garment } = tryOnInputs('vertex', call);
    const body = {
      instances: [{ personImage: { image: { bytesBase64Encoded: base64(person) } }, productImages: [{ image: { bytesBase64Encoded: base64(garment.image) } }] }],
      parameters: {
        sampleCount: 1,
        safetySetting: this.#safetySetting,
        personGeneration: this.#personGeneration,
        outputOptions: { mimeType: 'image/png' },
        ...(spec ? spec.params(call.quality) : {}),
      },
    };
    const url = `${this.#baseUrl}/v1/projects/${encodeURIComponent(this.#project)}/locations/${this.#location}/publishers/google/models/${encodeURIComponent(call.model)}:predict`;
    const send = async () => {
      const authorization = await this.#token(call.signal);
      return requestJson('vertex', url, { method: 'POST', headers: { authorization }, json: body, signal: call.signal, timeoutMs: this.#timeoutMs }, readError);
    };
    let json: { predictions?: Prediction[] };
    try {
      json = (await send()) as typeof json;
    } catch (e) {
      // 50 requests a minute a project: a short Retry-After is waited out once
      const wait = e instanceof ProviderError && e.status === 429 ? (e as { retryAfterMs?: number }).retryAfterMs : undefined;
      if (wait === undefined || wait > this.#maxRetryWaitMs) throw e;
      await sleep(wait, call.signal);
      json = (await send()) as typeof json;
    }
    return imagesFrom(call.model, json.predictions ?? []);
  }

  /** `Bearer <token>` from google-auth-library; a rejected key is the account, an unreachable token server is not. */
  async #token(signal: AbortSignal): Promise<string> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const stop = AbortSignal.any([signal, timeout]);
    try {
      const got = await Promise.race([
        this.#auth.getAccessToken(),
        new Promise<never>((_, reject) => {
          if (stop.aborted) reject(stop.reason);
          stop.addEventListener('abort', () => reject(stop.reason), { once: true });
        }),
      ]);
      const token = typeof got === 'string' ? got : got?.token;
      if (!token) throw new ProviderError('vertex', 'Google auth returned no access token', { retryable: false, code: 'PROVIDER_ACCOUNT' });
      return `Bearer ${token}`;
    } catch (e) {
      if (signal.aborted) throw signal.reason;
      if (e instanceof ProviderError) throw e;
      if (timeout.aborted) throw new ProviderError('vertex', `no access token within ${this.#timeoutMs} ms`, { retryable: true, cause: e });
      const status = (e as { status?: number; response?: { status?: number } }).status ?? (e as { response?: { status?: number } }).response?.status;
      const message = (e as Error)?.message ?? String(e);
      // the token server answered (invalid_grant, a deleted key, a disabled account): an operator must act
      if (status !== undefined && status >= 400 && status < 500) throw new ProviderError('vertex', `Google refused the service account: ${message}`, { retryable: false, status, code: 'PROVIDER_ACCOUNT', cause: e });
      if (/Could not load the default credentials|Unable to detect a Project Id/i.test(message)) throw new ProviderError('vertex', message, { retryable: false, code: 'PROVIDER_ACCOUNT', cause: e });
      throw new ProviderError('vertex', `access token request failed: ${message}`, { retryable: true, cause: e });
    }
  }
}

function base64(image: EncodedImage): string {
  return Buffer.from(image.bytes).toString('base64');
}

function imagesFrom(model: string, predictions: Prediction[]): EncodedImage[] {
  const images = predictions.filter((p) => p.bytesBase64Encoded).map((p) => ({ bytes: new Uint8Array(Buffer.from(p.bytesBase64Encoded!, 'base64')), contentType: p.mimeType ?? 'image/png' }));
  if (images.length > 0) return images;
  const filtered = predictions.find((p) => p.raiFilteredReason)?.raiFilteredReason;
  if (filtered) throw new ProviderError('vertex', `${model}: output refused by Responsible AI filters: ${filtered}`, { retryable: false });
  throw new ProviderError('vertex', `${model} returned no image`, { retryable: true });
}

interface GoogleRpcError {
  error?: { code?: number; message?: string; status?: string };
}

/**
 * Vertex error bodies (google.rpc.Status): UNAUTHENTICATED and PERMISSION_DENIED (the API not enabled,
 * a role missing) are the account; NOT_FOUND names a model the region does not serve (or a retired id);
 * INVALID_ARGUMENT is the request, including images refused by the usage guidelines;
 * RESOURCE_EXHAUSTED (quota) and UNAVAILABLE are worth another model.
 */
const readError: ErrorReader = (body: GoogleRpcError | undefined, status) => {
  const rpc = body?.error?.status ?? '';
  return {
    message: body?.error?.message,
    tag: rpc,
    account: status === 401 || status === 403 || rpc === 'UNAUTHENTICATED' || rpc === 'PERMISSION_DENIED',
    modelUnavailable: status === 404 || rpc === 'NOT_FOUND',
    inputProblem: status === 400 || rpc === 'INVALID_ARGUMENT' || status === 413,
  };
};
