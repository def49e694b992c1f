import type { EncodedImage } from '../../core/images.ts';
import { ProviderError } from '../../core/ports/image-model.ts';
import type { ImageModelProvider, ModelCall, ModelSpec } from '../../core/ports/image-model.ts';
import { modelsForProvider } from '../../core/tryon/models.ts';

export interface GeminiOptions {
  apiKey: string;
  /** Default https://generativelanguage.googleapis.com/v1beta */
  baseUrl?: string;
  /** Per-request timeout; image generation answers in 5-40 s. Default 120 s. */
  timeoutMs?: number;
}

const DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';
const DEFAULT_TIMEOUT_MS = 120_000;

/** Finish reasons meaning the content itself was refused: another model may refuse it too. */
const BLOCKED_FINISH = new Set(['SAFETY', 'IMAGE_SAFETY', 'PROHIBITED_CONTENT', 'IMAGE_PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII', 'RECITATION', 'IMAGE_RECITATION']);

interface GeminiPart {
  text?: string;
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

  constructor(options: GeminiOptions) {
    this.#apiKey = requireKey(options?.apiKey, 'gemini', 'GEMINI_API_KEY');
    this.#baseUrl = checkBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL, 'gemini');
    this.#timeoutMs = checkTimeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 'gemini');
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
    const { status, text } = await this.#post(url, body, call.signal);
    if (status < 200 || status >= 300) throw errorFromResponse(status, text);
    let json: GeminiResponse;
    try {
      json = JSON.parse(text) as GeminiResponse;
    } catch (cause) {
      throw new ProviderError('gemini', `unreadable response (HTTP ${status})`, { retryable: true, status, cause });
    }
    return imagesFrom(json);
  }

  /** One POST with the caller's signal and a request timeout covering the body too. */
  async #post(url: string, body: unknown, signal: AbortSignal): Promise<{ status: number; text: string }> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': this.#apiKey },
        body: JSON.stringify(body),
        signal: AbortSignal.any([signal, timeout]),
      });
      return { status: res.status, text: await res.text() };
    } catch (cause) {
      if (signal.aborted) throw signal.reason;
      if (timeout.aborted) throw new ProviderError('gemini', `request timed out after ${this.#timeoutMs} ms`, { retryable: true, cause });
      throw new ProviderError('gemini', `network error: ${(cause as Error)?.message ?? String(cause)}`, { retryable: true, cause });
    }
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

/** Maps the Gemini error body `{error:{code,message,status}}` to a ProviderError. */
function errorFromResponse(status: number, text: string): ProviderError {
  let message = text.slice(0, 300);
  let rpcStatus = '';
  try {
    const body = JSON.parse(text) as { error?: { code?: number; message?: string; status?: string } };
    if (body.error?.message) message = body.error.message;
    rpcStatus = body.error?.status ?? '';
  } catch {
    // not JSON: keep the raw text
  }
  // INVALID_ARGUMENT and friends describe the request; FAILED_PRECONDITION (billing, region) is the deployment's.
  const inputProblem = (status === 400 && rpcStatus !== 'FAILED_PRECONDITION') || status === 413 || status === 422;
  return new ProviderError('gemini', `HTTP ${status}${rpcStatus ? ` ${rpcStatus}` : ''}: ${message}`, { retryable: !inputProblem, status });
}

function requireKey(key: string | undefined, provider: string, envName: string): string {
  if (typeof key !== 'string' || key.trim() === '') {
    throw new TypeError(`${provider}: an API key is required (configure ${envName})`);
  }
  return key.trim();
}

function checkBaseUrl(url: string, provider: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`${provider}: baseUrl is not a URL: ${url}`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new TypeError(`${provider}: baseUrl must be http(s): ${url}`);
  return url.replace(/\/+$/, '');
}

function checkTimeout(ms: number, provider: string): number {
  if (!Number.isFinite(ms) || ms <= 0) throw new TypeError(`${provider}: timeoutMs must be a positive number`);
  return ms;
}
