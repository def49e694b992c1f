import { FitroomError } from '../../core/errors.ts';
import type { RasterImage } from '../../core/images.ts';
import type { ImageCodec } from '../../core/ports/image-codec.ts';
import type { ImageModelProvider } from '../../core/ports/image-model.ts';
import type { TexturePaintMode, TextureWrap } from '../../core/ports/texture-painter.ts';
import { runModelChain } from '../../core/tryon/model-chain.ts';
import { cpuTask, type CpuPool } from '../../core/ports/cpu-pool.ts';
import { inlineBytes, inlineData, isInlineStandIn } from '../../core/inline-data.ts';
import { validationError } from '../../core/errors.ts';
import { LIMITS, checkedInputs, decodeDataUrl, type BuiltinEnhanceInput, type ImageInput, type TaskRefusal } from './tasks.ts';

export { LIMITS } from './tasks.ts';

const TASKS = new URL('./tasks.ts', import.meta.url);
const compositeTask = cpuTask<{ texture: Uint8Array; vendor: Uint8Array; mask: Uint8Array }, { rgba: Uint8Array }>(TASKS, 'composite');
const answerTask = cpuTask<{ png: Uint8Array; fields: Record<string, unknown> }, { json: Uint8Array }>(TASKS, 'answer');
const builtinTask = cpuTask<BuiltinEnhanceInput, { json: Uint8Array } | { refused: TaskRefusal }>(TASKS, 'enhanceBuiltin');

export interface EnhanceRequest {
  texture: string;
  mask: string;
  prompt?: string;
  mode?: TexturePaintMode;
  wrap?: TextureWrap;
  detail?: number;
}

/** A small gate: `concurrent` at once, a short line behind them, 503 beyond it. */
class Gate {
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#running >= LIMITS.concurrent) {
      if (this.#waiting.length >= LIMITS.maxWaiting) throw new FitroomError('SERVICE_UNAVAILABLE', 'The texture painter is busy; retry in a few seconds', { retryAfterSeconds: 5 });
      await new Promise<void>((r) => this.#waiting.push(r));
    } else this.#running++;
    try {
      return await fn();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}

export interface TextureEnhancerDeps {
  /** Decodes the vendor path's images (the builtin path decodes on a pool thread with its own codec). */
  codec: ImageCodec;
  /** The builtin enhancement, the vendor path's pixel loops and the answer's encoding run here, off the HTTP event loop. */
  pool: CpuPool;
  /** Configured image model providers; the vendor ones are tried first through the model chain. */
  providers: () => readonly ImageModelProvider[];
  chain: readonly string[] | null;
}

function vendorPrompt(userPrompt: string | undefined, mode: TexturePaintMode): string {
  return [
    'The first image is the base colour texture of a 3D model (a UV layout, not a photo). The second image is a mask: white marks the region the user painted.',
    mode === 'inpaint'
      ? 'Replace the white region with the material around it so that no trace of the painted strokes remains.'
      : 'Keep the painted colours in the white region but give them the material, grain and detail of the surrounding texture so they look printed or dyed into it.',
    'Change nothing outside the white region. Keep the exact image size and the UV layout. No lighting, shadows, perspective or text.',
    userPrompt ? `The user adds: ${userPrompt}` : '',
  ].filter(Boolean).join(' ');
}

/**
 * A large data URL of the body arrives as a stand-in (the operation takes `dataUrlsAsBytes`, so its
 * megabytes of text are never a string on the event loop): its bytes, decoded on a pool thread.
 * Small ones stay data URLs, decoded on the pool thread with the rest.
 */
async function heldImage(value: string, field: string, maxBytes: number): Promise<string | ImageInput> {
  if (!isInlineStandIn(value)) return value;
  const held = inlineData(value);
  if (held && held.size > maxBytes) throw new FitroomError('PAYLOAD_TOO_LARGE', `${field} is larger than ${maxBytes} bytes`);
  const bytes = held ? await inlineBytes(value) : undefined;
  if (!held || !bytes) throw validationError([{ field, message: 'must be a base64 data URL of a PNG, JPEG or WebP image' }]);
  return { bytes, contentType: held.contentType };
}

/**
 * The texture painter's enhancement: decodes and checks the texture and mask within the caps,
 * tries the configured vendor image models (model chain, task `enhance`) and keeps their pixels
 * only inside the painted region, or runs the builtin engine (also when every vendor fails). The
 * builtin path runs whole on a pool thread: the data URLs go there as sent and the answer's JSON bytes
 * come back, so no pixel, PNG or base64 text of it is handled on the event loop.
 */
export class TextureEnhancer {
  readonly #d: TextureEnhancerDeps;
  readonly #gate = new Gate();
  constructor(deps: TextureEnhancerDeps) {
    this.#d = deps;
  }

  /** The 200 answer's JSON bytes. Two at once from decoding to the answer (each holds tens of megabytes of pixels), the rest in line. */
  enhance(req: EnhanceRequest, signal: AbortSignal): Promise<Uint8Array> {
    return this.#gate.run(() => this.#enhance(req, signal));
  }

  async #enhance(req: EnhanceRequest, signal: AbortSignal): Promise<Uint8Array> {
    const mode = req.mode ?? 'blend', wrap = req.wrap ?? 'none', detail = req.detail ?? 1;
    const vendors = this.#d.providers().filter((p) => p.id !== 'builtin');
    const [textureSent, maskSent] = await Promise.all([heldImage(req.texture, 'texture', LIMITS.maxTextureBytes), heldImage(req.mask, 'mask', LIMITS.maxMaskBytes)]);
    let fallbackReason: string | undefined;
    if (vendors.length) {
      const textureIn = decodeDataUrl(textureSent, 'texture', LIMITS.maxTextureBytes);
      const maskIn = decodeDataUrl(maskSent, 'mask', LIMITS.maxMaskBytes);
      const { texture, mask, painted } = await checkedInputs(this.#d.codec, textureIn.bytes, maskIn.bytes);
      try {
        const r = await runModelChain({
          call: { task: 'enhance', prompt: vendorPrompt(req.prompt, mode), references: [{ role: 'input', image: textureIn }, { role: 'mask', image: maskIn }], quality: 'standard', signal },
          providers: vendors,
          chain: this.#d.chain ?? undefined,
          attemptTimeoutMs: LIMITS.vendorTimeoutMs,
        });
        const out = await this.#vendorComposite(texture, mask, r.images[0].bytes, signal);
        const png = (await this.#d.codec.encode(out, 'png')).bytes;
        const fields = { width: texture.width, height: texture.height, mode, wrap, regions: 0, paintedPixels: painted, engine: { provider: r.provider, model: r.model } };
        return (await this.#d.pool.run(answerTask, { png, fields }, { signal })).json;
      } catch (e) {
        if (signal.aborted) throw e;
        fallbackReason = e instanceof Error ? e.message : String(e);
      }
    }
    // the bytes move to the thread (this request is their only reader): no copy of them on the loop
    const transfer = [textureSent, maskSent].flatMap((i) => (typeof i === 'string' || !(i.bytes.buffer instanceof ArrayBuffer) || i.bytes.byteLength !== i.bytes.buffer.byteLength ? [] : [i.bytes.buffer]));
    const r = await this.#d.pool.run(builtinTask, { texture: textureSent, mask: maskSent, mode, wrap, detail, ...(fallbackReason ? { fallbackReason } : {}) }, { signal, transfer });
    if ('refused' in r) throw new FitroomError(r.refused.code, r.refused.message, { details: r.refused.details });
    return r.json;
  }

  /** The vendor's picture, at the texture's size, inside the painted region only. */
  async #vendorComposite(texture: RasterImage, mask: Uint8Array, bytes: Uint8Array, signal: AbortSignal): Promise<RasterImage> {
    let v = await this.#d.codec.decode(bytes, { maxPixels: 4 * LIMITS.maxPixels });
    if (v.width !== texture.width || v.height !== texture.height) v = await this.#d.codec.resize(v, texture.width, texture.height);
    const { rgba } = await this.#d.pool.run(compositeTask, { texture: texture.data, vendor: v.data, mask }, { signal });
    return { width: texture.width, height: texture.height, data: rgba };
  }
}
