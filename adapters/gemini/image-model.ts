import type { EncodedImage } from '../../core/images.ts';
import { ProviderError } from '../../core/ports/image-model.ts';
import type { ImageModelProvider, ModelCall, ModelSpec, VendorCheck } from '../../core/ports/image-model.ts';
import { modelsForProvider } from '../../core/tryon/models.ts';
import { VendorHttpError, checkBaseUrl, checkRequest, positiveOption, requestJson, requireApiKey, sleep } from '../http/vendor.ts';
import type { ErrorReader } from '../http/vendor.ts';

export interface GeminiOptions {
  apiKey: string;
  /** Default https://generativelanguage.googleapis.com/v1beta */
  baseUrl?: string;
  /** Per-request timeout; image generation answers in 5-40 s. Default 120 s. */
  timeoutMs?: number;
  /** A 429 whose RetryInfo asks for at most this long is waited out and sent once more. Default 20 s. */
  maxRetryWaitMs?: number;
}

const DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';
const DEFAULT_TIMEOUT_MS = 120_000;

/** Finish reasons meaning the content itself was refused: another model may refuse it too. */
const BLOCKED_FINISH = new Set(['SAFETY', 'IMAGE_SAFETY', 'PROHIBITED_CONTENT', 'IMAGE_PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII', 'RECITATION', 'IMAGE_RECITATION']);

interface GeminiPart {
  text?: string;
  /** Gemini 3 image models send interim "thought" images and text before the answer: never results. */
  thought?: boolean;
  inlineData?: { mimeType?: string; data?: string };
  inline_data?: { mime_type?: string; data?: string };
}

interface GeminiResponse {
  candidates?: { content?: { parts?: GeminiPart[] }; finishReason?: string; finishMessage?: string }[];
  promptFeedback?: { blockReason?: string; blockReasonMessage?: string };
}

/**
 * Gemini API image models (`models/{model}:generateContent`): one synchronous call carries the prompt and
 * the references as inline base64 parts; the edited image comes back as an inline part.
 */
export class GeminiImageModel implements ImageModelProvider {
  readonly id = 'gemini' as const;
  readonly #apiKey: string;
  readonly #baseUrl: string;
  readonly #timeoutMs: number;
  readonly #maxRetryWaitMs: number;

  constructor(options: GeminiOptions) {
    this.#apiKey = requireApiKey('gemini', options?.apiKey, 'GEMINI_API_KEY');
    this.#baseUrl = checkBaseUrl('gemini', options.baseUrl ?? DEFAULT_BASE_URL);
    this.#timeoutMs = positiveOption('gemini', 'timeoutMs', options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    this.#maxRetryWaitMs = options.maxRetryWaitMs ?? 20_000;
  }

  models(): readonly ModelSpec[] {
    return modelsForProvider('gemini');
  }

  async run(call: ModelCall): Promise<EncodedImage[]> {
    const spec = this.models().find((m) => m.id === call.model);
    const params = spec ? spec.params(call.quality) : {};
    const parts: unknown[] = [{ text: call.prompt }];
    for (const ref of call.references) {
      parts.push({ inline_data: { mime_type: ref.image.contentType, data: Buffer.from(ref.image.bytes).toString('base64') } });
    }
    const body = {
      contents: [{ role: 'user', parts }],
      generationConfig: { responseModalities: ['IMAGE'], ...params },
    };
    const url = `${this.#baseUrl}/models/${encodeURIComponent(call.model)}:generateContent`;
    const send = () => requestJson('gemini', url, { method: 'POST', headers: { 'x-goog-api-key': this.#apiKey }, json: body, signal: call.signal, timeoutMs: this.#timeoutMs }, readError);
    // One synchronous call: the request timeout covers the whole generation. A rate limit that says
    // how long to wait (RetryInfo) is waited out once when the wait is short.
    let json: GeminiResponse;
    try {
      json = (await send()) as GeminiResponse;
    } catch (e) {
      const wait = e instanceof VendorHttpError && e.status === 429 ? e.retryAfterMs : undefined;
      if (wait === undefined || wait > this.#maxRetryWaitMs) throw e;
      await sleep(wait, call.signal);
      json = (await send()) as GeminiResponse;
    }
    return imagesFrom(json);
  }

  /** `GET /models/{id}` per model (models.get in Google's SDK): the key works and the models exist. */
  async check(modelIds: readonly string[], signal: AbortSignal): Promise<VendorCheck> {
    const models: NonNullable<VendorCheck['models']> = [];
    for (const id of modelIds) {
      const r = await checkRequest('gemini', `${this.#baseUrl}/models/${encodeURIComponent(id)}`, { headers: { 'x-goog-api-key': this.#apiKey }, signal, timeoutMs: Math.min(this.#timeoutMs, 10_000) }, readError);
      if (!r.ok) {
        if (r.check.status !== 'model_missing') return { ...r.check, models };
        models.push({ id, available: false, detail: r.check.message });
      } else models.push({ id, available: true, ...(r.body?.displayName ? { detail: String(r.body.displayName) } : {}) });
    }
    const missing = models.filter((m) => !m.available);
    return { provider: 'gemini', status: missing.length ? 'model_missing' : 'ok', models, ...(missing.length ? { message: `not found: ${missing.map((m) => m.id).join(', ')}` } : {}) };
  }
}

function imagesFrom(json: GeminiResponse): EncodedImage[] {
  const block = json.promptFeedback?.blockReason;
  if (block) {
    throw new ProviderError('gemini', `prompt blocked (${block})${json.promptFeedback?.blockReasonMessage ? `: ${json.promptFeedback.blockReasonMessage}` : ''}`, { retryable: false });
  }
  const candidate = json.candidates?.[0];
  if (!candidate) throw new ProviderError('gemini', 'response has no candidates', { retryable: true });
  const images: EncodedImage[] = [];
  const texts: string[] = [];
  for (const part of candidate.content?.parts ?? []) {
    if (part.thought) continue;
    const inline = part.inlineData ? { mime: part.inlineData.mimeType, data: part.inlineData.data } : part.inline_data ? { mime: part.inline_data.mime_type, data: part.inline_data.data } : undefined;
    if (inline?.data && inline.mime?.startsWith('image/')) {
      images.push({ bytes: new Uint8Array(Buffer.from(inline.data, 'base64')), contentType: inline.mime });
    } else if (part.text) {
      texts.push(part.text);
    }
  }
  if (images.length > 0) return images;
  const reason = candidate.finishReason ?? 'unknown';
  const said = texts.join(' ').slice(0, 200);
  if (BLOCKED_FINISH.has(reason)) {
    throw new ProviderError('gemini', `output refused (${reason})${said ? `: ${said}` : ''}`, { retryable: false });
  }
  // The documented failure mode of image generation: the model answers with text only. Worth a fallback.
  throw new ProviderError('gemini', `no image in the response (finishReason ${reason})${said ? `: ${said}` : ''}`, { retryable: true });
}

interface GoogleRpcError {
  error?: { code?: number; message?: string; status?: string; details?: { '@type'?: string; reason?: string; retryDelay?: string }[] };
}

/**
 * Gemini error bodies (google.rpc.Status): `{error:{code,message,status,details}}`. NOT_FOUND names a
 * model that does not exist (retired ids answer it); API_KEY_INVALID (under 400), UNAUTHENTICATED,
 * PERMISSION_DENIED and FAILED_PRECONDITION (billing, region) are the deployment's account;
 * RESOURCE_EXHAUSTED carries its wait in a RetryInfo detail (`retryDelay: "37s"`).
 */
const readError: ErrorReader = (body: GoogleRpcError | undefined, status) => {
  const rpcStatus = body?.error?.status ?? '';
  const details = body?.error?.details ?? [];
  const keyInvalid = details.some((d) => d.reason === 'API_KEY_INVALID');
  const account = keyInvalid || ['UNAUTHENTICATED', 'PERMISSION_DENIED', 'FAILED_PRECONDITION'].includes(rpcStatus) || status === 401 || status === 403;
  const modelUnavailable = status === 404 || rpcStatus === 'NOT_FOUND';
  const delay = details.find((d) => d['@type']?.endsWith('google.rpc.RetryInfo'))?.retryDelay;
  const seconds = delay ? Number(/^([\d.]+)s$/.exec(delay)?.[1]) : NaN;
  return {
    message: body?.error?.message,
    tag: rpcStatus,
    account,
    modelUnavailable,
    inputProblem: !account && (status === 400 || status === 413 || status === 422),
    ...(Number.isFinite(seconds) ? { retryAfterMs: Math.round(seconds * 1000) } : {}),
  };
};
