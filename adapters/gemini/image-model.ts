import type { EncodedImage } from '../../core/images.ts';
import { ProviderError } from '../../core/ports/image-model.ts';
import type { ImageModelProvider, ModelCall, ModelSpec } from '../../core/ports/image-model.ts';
import { modelsForProvider } from '../../core/tryon/models.ts';
import { checkBaseUrl, positiveOption, requestJson, requireApiKey } from '../http/vendor.ts';
import type { ErrorReader } from '../http/vendor.ts';

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
    this.#apiKey = requireApiKey('gemini', options?.apiKey, 'GEMINI_API_KEY');
    this.#baseUrl = checkBaseUrl('gemini', options.baseUrl ?? DEFAULT_BASE_URL);
    this.#timeoutMs = positiveOption('gemini', 'timeoutMs', options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
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
    // One synchronous call: the request timeout covers the whole generation.
    const json = (await requestJson('gemini', url, { method: 'POST', headers: { 'x-goog-api-key': this.#apiKey }, json: body, signal: call.signal, timeoutMs: this.#timeoutMs }, readError)) as GeminiResponse;
    return imagesFrom(json);
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

/** Gemini error bodies: `{error:{code,message,status}}`. */
const readError: ErrorReader = (body: { error?: { code?: number; message?: string; status?: string } } | undefined, status) => {
  const rpcStatus = body?.error?.status ?? '';
  // INVALID_ARGUMENT and friends describe the request; FAILED_PRECONDITION (billing, region) is the deployment's.
  const inputProblem = (status === 400 && rpcStatus !== 'FAILED_PRECONDITION') || status === 413 || status === 422;
  return { message: body?.error?.message, tag: rpcStatus, inputProblem };
};
