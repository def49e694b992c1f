import { FitroomError, validationError } from '../../core/errors.ts';
import type { RasterImage } from '../../core/images.ts';
import type { ImageCodec } from '../../core/ports/image-codec.ts';
import type { ImageModelProvider } from '../../core/ports/image-model.ts';
import type { TexturePainter, TexturePaintMode, TextureWrap } from '../../core/ports/texture-painter.ts';
import { runModelChain } from '../../core/tryon/model-chain.ts';
import { cpuTask, type CpuPool } from '../../core/ports/cpu-pool.ts';
import type { MaskInput } from './tasks.ts';

const TASKS = new URL('./tasks.ts', import.meta.url);
const maskTask = cpuTask<MaskInput, { mask: Uint8Array; painted: number }>(TASKS, 'paintedMask');
const compositeTask = cpuTask<{ texture: Uint8Array; vendor: Uint8Array; mask: Uint8Array }, { rgba: Uint8Array }>(TASKS, 'composite');
const answerTask = cpuTask<{ png: Uint8Array; fields: Record<string, unknown> }, { json: Uint8Array }>(TASKS, 'answer');

/** Strict caps: the route has no credentials, so every request is bounded before any work. */
export const LIMITS = {
  maxSide: 2048,
  maxPixels: 2048 * 2048,
  /** Decoded bytes of the texture and of the mask. */
  maxTextureBytes: 8 * 1024 * 1024,
  maxMaskBytes: 4 * 1024 * 1024,
  maxBodyBytes: 17 * 1024 * 1024,
  /** Most painted pixels one request may ask to process. */
  maxPaintedPixels: 1024 * 1024,
  /** Enhancements running at once in one process; further requests wait in line, up to `maxWaiting`. */
  concurrent: 2,
  maxWaiting: 8,
  /** Per client address: enhancements per minute and at once (besides the submission rate limit). */
  perAddressPerMinute: 10,
  perAddressConcurrent: 2,
  vendorTimeoutMs: 60_000,
};

export interface EnhanceRequest {
  texture: string;
  mask: string;
  prompt?: string;
  mode?: TexturePaintMode;
  wrap?: TextureWrap;
  detail?: number;
}

export interface EnhanceOutcome {
  png: Uint8Array;
  width: number;
  height: number;
  mode: TexturePaintMode;
  wrap: TextureWrap;
  regions: number;
  paintedPixels: number;
  engine: { provider: string; model: string | null; fallbackReason?: string };
}

const DATA_URL = /^data:(image\/(?:png|jpeg|webp));base64,/;

/**
 * The image bytes of a base64 data URL. No regular expression walks the payload (50 ms per 9 MB on the
 * event loop): Node's decoder skips characters outside the alphabet, so a payload holding any decodes
 * to fewer bytes than its length says.
 */
function decodeDataUrl(value: string, field: string, maxBytes: number): { bytes: Uint8Array; contentType: string } {
  const m = DATA_URL.exec(value);
  const bad = () => validationError([{ field, message: 'must be a base64 data URL of a PNG, JPEG or WebP image' }]);
  if (!m) throw bad();
  const payload = value.slice(m[0].length);
  if ((payload.length * 3) / 4 > maxBytes + 3) throw new FitroomError('PAYLOAD_TOO_LARGE', `${field} is larger than ${maxBytes} bytes`);
  const pad = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0;
  const bytes = Buffer.from(payload, 'base64');
  if (bytes.length !== Math.floor(((payload.length - pad) * 3) / 4)) throw bad();
  return { bytes, contentType: m[1] };
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
  codec: ImageCodec;
  /** Pixel loops and the answer's encoding run here, off the HTTP event loop. */
  pool: CpuPool;
  painter: TexturePainter;
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
 * The texture painter's enhancement: decodes and checks the texture and mask within the caps,
 * tries the configured vendor image models (model chain, task `enhance`) and keeps their pixels
 * only inside the painted region, or runs the builtin engine (also when every vendor fails).
 */
export class TextureEnhancer {
  readonly #d: TextureEnhancerDeps;
  readonly #gate = new Gate();
  constructor(deps: TextureEnhancerDeps) {
    this.#d = deps;
  }

  /** Two at once from decoding to the answer (each holds tens of megabytes of pixels), the rest in line. */
  enhance(req: EnhanceRequest, signal: AbortSignal): Promise<EnhanceOutcome> {
    return this.#gate.run(() => this.#enhance(req, signal));
  }

  async #enhance(req: EnhanceRequest, signal: AbortSignal): Promise<EnhanceOutcome> {
    const textureIn = decodeDataUrl(req.texture, 'texture', LIMITS.maxTextureBytes);
    const maskIn = decodeDataUrl(req.mask, 'mask', LIMITS.maxMaskBytes);
    const limits = { maxPixels: LIMITS.maxPixels };
    const texture = await this.#decode(textureIn.bytes, 'texture', limits);
    const maskImage = await this.#decode(maskIn.bytes, 'mask', limits);
    if (maskImage.width !== texture.width || maskImage.height !== texture.height) {
      throw validationError([{ field: 'mask', message: `must be the texture's size (${texture.width}x${texture.height}), got ${maskImage.width}x${maskImage.height}` }]);
    }
    const { width, height } = texture;
    const { mask, painted } = await this.#d.pool.run(maskTask, { rgba: maskImage.data, width, height }, { signal });
    if (!painted) throw validationError([{ field: 'mask', message: 'marks no painted pixel (white, opaque pixels mark the painted region)' }]);
    if (painted > LIMITS.maxPaintedPixels) throw new FitroomError('PAYLOAD_TOO_LARGE', `The mask marks ${painted} pixels; at most ${LIMITS.maxPaintedPixels} can be processed per request`);
    const mode = req.mode ?? 'blend', wrap = req.wrap ?? 'none';
    {
      const vendors = this.#d.providers().filter((p) => p.id !== 'builtin');
      let fallbackReason: string | undefined;
      if (vendors.length) {
        try {
          const r = await runModelChain({
            call: { task: 'enhance', prompt: vendorPrompt(req.prompt, mode), references: [{ role: 'input', image: textureIn }, { role: 'mask', image: maskIn }], quality: 'standard', signal },
            providers: vendors,
            chain: this.#d.chain ?? undefined,
            attemptTimeoutMs: LIMITS.vendorTimeoutMs,
          });
          const out = await this.#vendorComposite(texture, mask, r.images[0].bytes, signal);
          return { png: (await this.#d.codec.encode(out, 'png')).bytes, width, height, mode, wrap, regions: 0, paintedPixels: painted, engine: { provider: r.provider, model: r.model } };
        } catch (e) {
          if (signal.aborted) throw e;
          fallbackReason = e instanceof Error ? e.message : String(e);
        }
      }
      const r = await this.#d.painter.enhance({ texture, mask, mode, wrap, detail: req.detail ?? 1, signal });
      const png = (await this.#d.codec.encode(r.texture, 'png')).bytes;
      return { png, width, height, mode, wrap, regions: r.regions, paintedPixels: painted, engine: { provider: 'builtin', model: 'builtin-texture-painter', ...(fallbackReason ? { fallbackReason } : {}) } };
    }
  }

  async #decode(bytes: Uint8Array, field: string, limits: { maxPixels: number }): Promise<RasterImage> {
    let img: RasterImage;
    try {
      img = await this.#d.codec.decode(bytes, limits);
    } catch (e) {
      if (e instanceof FitroomError && /pixel|large/i.test(e.message)) throw new FitroomError('PAYLOAD_TOO_LARGE', `${field} is larger than ${LIMITS.maxSide}x${LIMITS.maxSide} pixels`);
      throw validationError([{ field, message: 'is not a readable PNG, JPEG or WebP image' }]);
    }
    if (img.width > LIMITS.maxSide || img.height > LIMITS.maxSide) throw new FitroomError('PAYLOAD_TOO_LARGE', `${field} is ${img.width}x${img.height} pixels; at most ${LIMITS.maxSide} on a side`);
    return img;
  }

  /** The vendor's picture, at the texture's size, inside the painted region only. */
  async #vendorComposite(texture: RasterImage, mask: Uint8Array, bytes: Uint8Array, signal: AbortSignal): Promise<RasterImage> {
    let v = await this.#d.codec.decode(bytes, { maxPixels: 4 * LIMITS.maxPixels });
    if (v.width !== texture.width || v.height !== texture.height) v = await this.#d.codec.resize(v, texture.width, texture.height);
    const { rgba } = await this.#d.pool.run(compositeTask, { texture: texture.data, vendor: v.data, mask }, { signal });
    return { width: texture.width, height: texture.height, data: rgba };
  }

  /** The 200 answer's JSON bytes, built off the event loop. */
  async answer(out: EnhanceOutcome, signal: AbortSignal): Promise<Uint8Array> {
    const { png, ...fields } = out;
    return (await this.#d.pool.run(answerTask, { png, fields }, { signal })).json;
  }
}
