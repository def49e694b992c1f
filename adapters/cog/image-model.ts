import { randomUUID } from 'node:crypto';
import type { EncodedImage } from '../../core/images.ts';
import { ProviderError } from '../../core/ports/image-model.ts';
import type { ImageModelProvider, ModelCall, ModelSpec, VendorCheck } from '../../core/ports/image-model.ts';
import { OutboundError, type OutboundHttp } from '../../core/ports/outbound-http.ts';
import { modelsForProvider } from '../../core/tryon/models.ts';
import { checkBaseUrl, checkRequest, dataUri, downloadCapped, onOrigin, pollUntil, positiveOption, requestJson, vendorRequest } from '../http/vendor.ts';
import type { ErrorReader, VendorSettings } from '../http/vendor.ts';
import { FASHN_CATEGORY, fashnGarment, fromDataUri, tryOnInputs } from '../http/tryon-inputs.ts';

/**
 * How Fitroom's try-on inputs map onto a Cog model's `input` fields (each model names its own).
 * Default: FASHN VTON v1.5's `person_image`, `garment_image` and `category` (tops, bottoms, one-pieces).
 */
export interface CogInputMap {
  person: string;
  garment: string;
  /** The field for the garment category, if the model takes one. */
  category?: string;
  /** Category values by Fitroom slot (topGarment, bottomGarment, fullBodyGarment, auto). */
  categories?: Record<string, string>;
  /** The field for the garment photo type (`model` for an on-model photo, else `flat-lay`), if any. */
  photoType?: string;
  /** Constant inputs sent as they are (steps, seed, ...). */
  extra?: Record<string, unknown>;
}

export const FASHN_VTON_INPUTS: CogInputMap = {
  person: 'person_image',
  garment: 'garment_image',
  category: 'category',
  categories: { topGarment: FASHN_CATEGORY.topGarment, bottomGarment: FASHN_CATEGORY.bottomGarment, fullBodyGarment: FASHN_CATEGORY.fullBodyGarment },
};

export interface CogOptions {
  /** `cog`: the merchant's own Cog container (FITROOM_COG_URL); `replicate`: Replicate's hosted API. */
  id: 'cog' | 'replicate';
  /** The container's base URL, or Replicate's API (default https://api.replicate.com/v1). */
  baseUrl?: string;
  /** Bearer token: Replicate's API token, or whatever auth proxy guards a Cog container. */
  token?: string;
  /** Replicate: `owner/name` (its latest version), `owner/name:version` or a version id. */
  model?: string;
  inputs?: CogInputMap;
  /** Safe fetches for result URLs a Cog container returns (it may name any address). */
  outbound?: OutboundHttp;
  /** Timeout of each request; a Cog prediction is synchronous, so it covers the generation. Default 180 s (Replicate: 90 s). */
  timeoutMs?: number;
  /** Replicate: how long the create call holds for the result (`Prefer: wait=n`, 1-60). Default 30. */
  syncWaitSeconds?: number;
  pollIntervalMs?: number;
  maxPollIntervalMs?: number;
  /** Give up on a prediction after this long. Default 5 min. */
  maxWaitMs?: number;
  /** Largest result image accepted. Default 50 MB. */
  maxImageBytes?: number;
  /** Replicate: inputs larger than this go through its Files API instead of a data URI (its docs: data URIs under 1 MB). */
  dataUriMaxBytes?: number;
}

/** A Cog prediction (cog docs/http.md) and Replicate's prediction object (its HTTP API). */
interface Prediction {
  id?: string;
  status?: 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled' | 'aborted' | string;
  output?: unknown;
  error?: unknown;
  logs?: string;
  urls?: { get?: string; cancel?: string };
}

const TERMINAL = new Set(['succeeded', 'failed', 'canceled', 'aborted']);
/** Failures a model raises about the content itself (its safety checker): another try with the same images fails too. */
const CONTENT_REFUSED = /\bnsfw\b|sensitive content|safety check|flagged/i;

/**
 * Cog predictions: the HTTP interface of every Cog container (github replicate/cog, docs/http.md) and
 * of Replicate's hosted API, which shares its prediction object. A merchant runs an open try-on model on
 * their own GPU in a Cog container and points FITROOM_COG_URL at it: Fitroom sends
 * `PUT /predictions/{id}` (synchronous and idempotent: a retried request joins the running prediction)
 * with the person and garment images inline as data URIs, and reads `{status, output, error}`. A result
 * URL (a container started with --upload-url) is fetched through the safe outbound client, as any URL
 * that configuration can point anywhere. On Replicate: `POST /models/{owner}/{name}/predictions` (or
 * `/predictions` with a version) with `Prefer: wait`, then `GET` polling of a prediction still
 * `starting` or `processing`, and a cancel when Fitroom stops waiting.
 */
export class CogImageModel implements ImageModelProvider {
  readonly id: 'cog' | 'replicate';
  readonly #http: VendorSettings;
  readonly #token: string | undefined;
  readonly #model: string | undefined;
  readonly #inputs: CogInputMap;
  readonly #outbound: OutboundHttp | undefined;
  readonly #syncWait: number;
  readonly #maxWaitMs: number;
  readonly #maxImageBytes: number;
  readonly #dataUriMaxBytes: number;

  constructor(options: CogOptions) {
    this.id = options.id;
    const replicate = options.id === 'replicate';
    const baseUrl = options.baseUrl ?? (replicate ? 'https://api.replicate.com/v1' : undefined);
    if (!baseUrl) throw new TypeError('cog: the Cog container URL is required (configure FITROOM_COG_URL)');
    if (replicate && !options.token?.trim()) throw new TypeError('replicate: an API token is required (configure REPLICATE_API_TOKEN)');
    if (replicate && !/^([\w.-]+\/[\w.-]+(:[0-9a-f]{64})?|[0-9a-f]{64})$/.test(options.model ?? '')) {
      throw new TypeError(`replicate: REPLICATE_MODEL must be owner/name, owner/name:version or a version id, got "${options.model ?? ''}"`);
    }
    if (!replicate && !options.outbound) throw new TypeError('cog: the safe outbound client is required for result URLs');
    this.#http = {
      provider: options.id,
      apiKey: options.token?.trim() ?? '',
      baseUrl: checkBaseUrl(options.id, baseUrl),
      timeoutMs: positiveOption(options.id, 'timeoutMs', options.timeoutMs ?? (replicate ? 90_000 : 180_000)),
      pollIntervalMs: positiveOption(options.id, 'pollIntervalMs', options.pollIntervalMs ?? 1_000),
      maxPollIntervalMs: positiveOption(options.id, 'maxPollIntervalMs', options.maxPollIntervalMs ?? 5_000),
    };
    this.#token = options.token?.trim() || undefined;
    this.#model = options.model;
    this.#inputs = checkInputMap(options.id, options.inputs ?? FASHN_VTON_INPUTS);
    this.#outbound = options.outbound;
    this.#syncWait = Math.min(60, Math.max(1, Math.round(options.syncWaitSeconds ?? 30)));
    this.#maxWaitMs = positiveOption(options.id, 'maxWaitMs', options.maxWaitMs ?? 300_000);
    this.#maxImageBytes = positiveOption(options.id, 'maxImageBytes', options.maxImageBytes ?? 50 * 1024 * 1024);
    this.#dataUriMaxBytes = positiveOption(options.id, 'dataUriMaxBytes', options.dataUriMaxBytes ?? 1024 * 1024);
  }

  models(): readonly ModelSpec[] {
    return modelsForProvider(this.id);
  }

  async run(call: ModelCall): Promise<EncodedImage[]> {
    const input = await this.#input(call);
    const prediction = this.id === 'replicate' ? await this.#replicate(input, call.signal) : await this.#cog(input, call.signal);
    if (prediction.status !== 'succeeded') throw failure(this.id, call.model, prediction);
    const outputs = (Array.isArray(prediction.output) ? prediction.output : [prediction.output]).filter((o): o is string => typeof o === 'string' && o.length > 0);
    if (outputs.length === 0) throw new ProviderError(this.id, `${call.model} succeeded without an image output`, { retryable: true });
    const images: EncodedImage[] = [];
    for (const out of outputs.slice(0, 4)) images.push(await this.#image(out, call.signal));
    return images;
  }

  /**
   * Live check, free (no prediction runs). A Cog container: `GET /health-check` (READY or BUSY; STARTING
   * while setup() runs; SETUP_FAILED, DEFUNCT, UNHEALTHY are errors), then `GET /openapi.json`, whose
   * `Input` schema must hold the fields the input mapping names. Replicate: `GET /v1/account` (the
   * token), then the model (`GET /v1/models/{owner}/{name}`, or its version) and the same input fields
   * in its `openapi_schema`. A mapping the model does not accept takes the model out of the chain.
   */
  async check(modelIds: readonly string[], signal: AbortSignal): Promise<VendorCheck> {
    const req = { headers: this.#headers(), signal, timeoutMs: Math.min(this.#http.timeoutMs, 10_000) };
    const base = this.#http.baseUrl;
    let schema: unknown;
    let note: string | undefined;
    if (this.id === 'cog') {
      const health = await checkRequest(this.id, `${base}/health-check`, req, readError);
      if (!health.ok) return health.check;
      const status = String(health.body?.status ?? '');
      if (!['READY', 'BUSY', 'STARTING'].includes(status)) {
        const why = health.body?.user_healthcheck_error ?? (status === 'SETUP_FAILED' ? String(health.body?.setup?.logs ?? '').slice(-300) : '');
        return { provider: this.id, status: 'error', message: `the container reports ${status || 'no status'}${why ? `: ${why}` : ''}` };
      }
      if (status === 'STARTING') note = 'the model is still in setup()';
      const api = await checkRequest(this.id, `${base}/openapi.json`, req, readError);
      if (!api.ok) return api.check;
      schema = api.body;
    } else {
      const account = await checkRequest(this.id, `${base}/account`, req, readError);
      if (!account.ok) return account.check;
      const [name, version] = this.#model!.includes('/') ? this.#model!.split(':') : [undefined, this.#model];
      if (!name) {
        // a bare version id: Replicate has no read for it without the model's name
        return { provider: this.id, status: 'ok', message: `account ${account.body?.username ?? ''}`.trim(), models: modelIds.map((id) => ({ id, available: true, unverified: true, detail: `version ${version} (name it owner/name:version to have it checked)` })) };
      }
      const found = await checkRequest(this.id, version ? `${base}/models/${name}/versions/${version}` : `${base}/models/${name}`, req, readError);
      if (!found.ok) {
        if (found.check.status !== 'model_missing') return found.check;
        return { provider: this.id, status: 'model_missing', message: `${this.#model} not found on Replicate`, models: modelIds.map((id) => ({ id, available: false, detail: `${this.#model}: ${found.check.message ?? 'not found'}` })) };
      }
      schema = version ? found.body?.openapi_schema : found.body?.latest_version?.openapi_schema;
    }
    const problems = inputProblems(schema, this.#inputs);
    const target = this.id === 'cog' ? base : this.#model!;
    if (problems.length) {
      const detail = `${target} does not take ${problems.join('; ')} (set ${this.id === 'cog' ? 'FITROOM_COG_INPUTS' : 'REPLICATE_INPUTS'})`;
      return { provider: this.id, status: 'model_missing', message: detail, models: modelIds.map((id) => ({ id, available: false, detail })) };
    }
    return { provider: this.id, status: 'ok', ...(note ? { message: note } : {}), models: modelIds.map((id) => ({ id, available: true, detail: `${target}: input fields match` })) };
  }

  /** The model's input: the person and the garment under the mapped names, category and photo type if it takes them. */
  async #input(call: ModelCall): Promise<Record<string, unknown>> {
    const { person, garment } = tryOnInputs(this.id, call);
    const map = this.#inputs;
    const g = map.photoType ? fashnGarment(garment) : { image: garment.image, photoType: 'flat-lay' as const };
    const input: Record<string, unknown> = { ...map.extra, [map.person]: await this.#file(person, call.signal), [map.garment]: await this.#file(g.image, call.signal) };
    if (map.category) {
      const value = (map.categories ?? FASHN_CATEGORY)[garment.slot];
      if (value === undefined) throw new ProviderError(this.id, `${call.model} has no category for ${garment.slot} (set "categories" in the input mapping)`, { retryable: true });
      input[map.category] = value;
    }
    if (map.photoType) input[map.photoType] = g.photoType;
    return input;
  }

  /** An input file: a data URI (Cog accepts them for File and Path inputs); large ones to Replicate's Files API. */
  async #file(image: EncodedImage, signal: AbortSignal): Promise<string> {
    if (this.id !== 'replicate' || image.bytes.byteLength <= this.#dataUriMaxBytes) return dataUri(image);
    const form = new FormData();
    form.append('content', new Blob([Buffer.from(image.bytes)], { type: image.contentType }), `input.${image.contentType.split('/')[1] ?? 'bin'}`);
    const file = (await requestJson(this.id, `${this.#http.baseUrl}/files`, { method: 'POST', headers: this.#headers(), form, signal, timeoutMs: this.#http.timeoutMs }, readError)) as { urls?: { get?: string } };
    if (!file.urls?.get) throw new ProviderError(this.id, 'file upload answered without urls.get', { retryable: true });
    return file.urls.get;
  }

  /** The merchant's Cog container: one synchronous, idempotent PUT (a 409 means every slot is busy). */
  async #cog(input: Record<string, unknown>, signal: AbortSignal): Promise<Prediction> {
    const id = randomUUID().replace(/-/g, '');
    const put = async () => (await requestJson(this.id, `${this.#http.baseUrl}/predictions/${id}`, { method: 'PUT', headers: this.#headers(), json: { input }, signal, timeoutMs: this.#http.timeoutMs }, readError)) as Prediction;
    try {
      return await put();
    } catch (e) {
      // a dropped connection: the same PUT joins the prediction still running instead of starting another
      if (signal.aborted || !(e instanceof ProviderError) || e.status !== undefined || /timed out/.test(e.message)) throw e;
      return put();
    }
  }

  /** Replicate: create (holding up to `Prefer: wait`), then poll the prediction until it ends. */
  async #replicate(input: Record<string, unknown>, signal: AbortSignal): Promise<Prediction> {
    const base = this.#http.baseUrl;
    const [name, version] = this.#model!.includes('/') ? this.#model!.split(':') : [undefined, this.#model];
    const url = version ? `${base}/predictions` : `${base}/models/${name}/predictions`;
    const body = version ? { version, input } : { input };
    const created = (await requestJson(this.id, url, { method: 'POST', headers: { ...this.#headers(), prefer: `wait=${this.#syncWait}` }, json: body, signal, timeoutMs: this.#http.timeoutMs }, readError)) as Prediction;
    if (TERMINAL.has(created.status ?? '')) return created;
    if (!created.id) throw new ProviderError(this.id, 'prediction created without an id', { retryable: true });
    const getUrl = onOrigin(created.urls?.get, this.#http.baseUrl) ?? `${base}/predictions/${encodeURIComponent(created.id)}`;
    const cancelUrl = onOrigin(created.urls?.cancel, this.#http.baseUrl) ?? `${base}/predictions/${encodeURIComponent(created.id)}/cancel`;
    try {
      return await pollUntil<Prediction>(this.#http, {
        signal,
        growth: 1.5,
        retries: 3,
        maxWaitMs: this.#maxWaitMs,
        read: async () => (await requestJson(this.id, getUrl, { headers: this.#headers(), signal, timeoutMs: this.#http.timeoutMs }, readError)) as Prediction,
        done: (p) => TERMINAL.has(p.status ?? ''),
      });
    } catch (e) {
      // a prediction nobody waits for should not keep running (and billing)
      vendorRequest(this.id, cancelUrl, { method: 'POST', headers: this.#headers(), signal: AbortSignal.timeout(5_000), timeoutMs: 5_000 }).catch(() => undefined);
      throw e;
    }
  }

  async #image(out: string, signal: AbortSignal): Promise<EncodedImage> {
    const inline = fromDataUri(out);
    if (inline) {
      if (inline.bytes.byteLength > this.#maxImageBytes) throw new ProviderError(this.id, `result image is larger than ${this.#maxImageBytes} bytes`, { retryable: false });
      return inline;
    }
    if (this.id === 'replicate') {
      const file = await downloadCapped(this.id, out, { signal, timeoutMs: this.#http.timeoutMs, maxBytes: this.#maxImageBytes, what: 'result image', badUrlRetryable: true });
      const type = (file.contentType ?? '').split(';')[0].trim();
      return { bytes: file.bytes, contentType: type.startsWith('image/') ? type : 'image/png' };
    }
    try {
      const got = await this.#outbound!.fetch(out, { maxBytes: this.#maxImageBytes, timeoutMs: this.#http.timeoutMs, accept: ['image/'], signal });
      return { bytes: got.bytes, contentType: got.contentType };
    } catch (e) {
      if (signal.aborted) throw signal.reason;
      if (e instanceof OutboundError) {
        const hint = e.reason === 'blocked_address' ? ' (a private address: add its network to ALLOWED_PRIVATE_NETWORKS)' : '';
        throw new ProviderError(this.id, `result image ${out.slice(0, 120)} could not be fetched: ${e.message}${hint}`, { retryable: e.reason !== 'too_large', cause: e });
      }
      throw e;
    }
  }

  #headers(): Record<string, string> {
    return { accept: 'application/json', ...(this.#token ? { authorization: `Bearer ${this.#token}` } : {}) };
  }

}

function failure(provider: string, model: string, p: Prediction): ProviderError {
  const error = typeof p.error === 'string' ? p.error : p.error ? JSON.stringify(p.error) : '';
  const said = error ? `: ${error.slice(0, 300)}` : '';
  if (p.status === 'failed' && CONTENT_REFUSED.test(error)) return new ProviderError(provider, `${model} refused the content${said}`, { retryable: false });
  return new ProviderError(provider, `${model} prediction ${p.status ?? 'without a status'}${said}`, { retryable: true });
}

/**
 * What the model's OpenAPI `Input` schema (Cog derives it from run()'s arguments) does not accept of
 * the mapping: a field it lacks, or a category value outside its choices (an enum, inline or by $ref).
 */
export function inputProblems(schema: unknown, map: CogInputMap): string[] {
  const components = (schema as { components?: { schemas?: Record<string, { properties?: Record<string, any>; enum?: unknown[] }> } } | undefined)?.components?.schemas;
  const props = components?.Input?.properties;
  if (!props) return ['any input (its OpenAPI schema has no Input)'];
  const problems: string[] = [];
  for (const field of [map.person, map.garment, map.category, map.photoType, ...Object.keys(map.extra ?? {})]) {
    if (field && !(field in props)) problems.push(`the input "${field}"`);
  }
  if (map.category && props[map.category]) {
    const p = props[map.category];
    const ref = String(p.$ref ?? p.allOf?.[0]?.$ref ?? '').split('/').pop();
    const choices = Array.isArray(p.enum) ? p.enum : ref ? components?.[ref]?.enum : undefined;
    const used = Object.values(map.categories ?? FASHN_CATEGORY).filter((v) => map.categories || v !== 'auto');
    const outside = Array.isArray(choices) ? used.filter((v) => !choices.includes(v)) : [];
    if (outside.length) problems.push(`${map.category} ${outside.map((v) => JSON.stringify(v)).join(', ')} (choices: ${choices!.join(', ')})`);
  }
  return problems;
}

function checkInputMap(provider: string, map: CogInputMap): CogInputMap {
  if (!map || typeof map.person !== 'string' || typeof map.garment !== 'string' || !map.person || !map.garment) {
    throw new TypeError(`${provider}: the input mapping needs "person" and "garment" field names, e.g. {"person":"person_image","garment":"garment_image","category":"category"}`);
  }
  return map;
}

/**
 * Errors: Cog answers FastAPI's `{detail: [{loc, msg, type}]}` for an invalid input (422) and 409 when
 * every prediction slot is busy; Replicate answers problem details `{title, detail, status}` (401 a bad
 * token, 402 no credit or a spend limit, 404 an unknown model or version, 422 invalid input, 429
 * throttled with Retry-After).
 */
const readError: ErrorReader = (body: { detail?: unknown; title?: unknown } | undefined, status) => {
  let message: string | undefined;
  if (typeof body?.detail === 'string') message = body.detail;
  else if (Array.isArray(body?.detail)) message = body.detail.map((d: { loc?: unknown[]; msg?: string }) => `${d?.loc ? `${d.loc.join('.')}: ` : ''}${d?.msg ?? JSON.stringify(d)}`).join('; ');
  if (status === 409 && !message) message = 'every prediction slot is busy';
  return {
    message: message?.slice(0, 500),
    tag: typeof body?.title === 'string' ? body.title : undefined,
    account: status === 401 || status === 402 || status === 403,
    modelUnavailable: status === 404,
    inputProblem: status === 400 || status === 413 || status === 422,
  };
};
