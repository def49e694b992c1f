/**
 * The texture painter's pixel and text work, run on a CPU pool thread (a 2048² texture is 4 M pixels,
 * and its answer a 9 MB data URL: tens of milliseconds each on the HTTP event loop).
 */
import { FitroomError, validationError } from '../../core/errors.ts';
import type { RasterImage } from '../../core/images.ts';
import type { ImageCodec } from '../../core/ports/image-codec.ts';
import type { TexturePaintMode, TextureWrap } from '../../core/ports/texture-painter.ts';
// A pool thread has no service container: it builds the builtin adapters it needs itself.
import { SharpImageCodec } from '../../adapters/sharp/image-codec.ts';
import { BuiltinTexturePainter } from '../../adapters/builtin/texture-painter/engine.ts';

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

const DATA_URL = /^data:(image\/(?:png|jpeg|webp));base64,/;

/**
 * The image bytes of a base64 data URL. No regular expression walks the payload: Node's decoder skips
 * characters outside the alphabet, so a payload holding any decodes to fewer bytes than its length says.
 */
export function decodeDataUrl(value: string | ImageInput, field: string, maxBytes: number): ImageInput {
  if (typeof value !== 'string') {
    if (value.bytes.length > maxBytes) throw new FitroomError('PAYLOAD_TOO_LARGE', `${field} is larger than ${maxBytes} bytes`);
    return value;
  }
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

/** Decodes an image within the caps; failures are the route's 400 and 413 answers. */
export async function decodeImage(codec: ImageCodec, bytes: Uint8Array, field: string): Promise<RasterImage> {
  let img: RasterImage;
  try {
    img = await codec.decode(bytes, { maxPixels: LIMITS.maxPixels });
  } catch (e) {
    if (e instanceof FitroomError && /pixel|large/i.test(e.message)) throw new FitroomError('PAYLOAD_TOO_LARGE', `${field} is larger than ${LIMITS.maxSide}x${LIMITS.maxSide} pixels`);
    throw validationError([{ field, message: 'is not a readable PNG, JPEG or WebP image' }]);
  }
  if (img.width > LIMITS.maxSide || img.height > LIMITS.maxSide) throw new FitroomError('PAYLOAD_TOO_LARGE', `${field} is ${img.width}x${img.height} pixels; at most ${LIMITS.maxSide} on a side`);
  return img;
}

/** The decoded texture and painted mask of a request, checked (sizes, painted pixels) in the route's order. */
export async function checkedInputs(codec: ImageCodec, textureIn: Uint8Array, maskIn: Uint8Array): Promise<{ texture: RasterImage; mask: Uint8Array; painted: number }> {
  const texture = await decodeImage(codec, textureIn, 'texture');
  const maskImage = await decodeImage(codec, maskIn, 'mask');
  if (maskImage.width !== texture.width || maskImage.height !== texture.height) {
    throw validationError([{ field: 'mask', message: `must be the texture's size (${texture.width}x${texture.height}), got ${maskImage.width}x${maskImage.height}` }]);
  }
  const { mask, painted } = paintedMask({ rgba: maskImage.data, width: texture.width, height: texture.height });
  if (!painted) throw validationError([{ field: 'mask', message: 'marks no painted pixel (white, opaque pixels mark the painted region)' }]);
  if (painted > LIMITS.maxPaintedPixels) throw new FitroomError('PAYLOAD_TOO_LARGE', `The mask marks ${painted} pixels; at most ${LIMITS.maxPaintedPixels} can be processed per request`);
  return { texture, mask, painted };
}

export interface MaskInput {
  rgba: Uint8Array;
  width: number;
  height: number;
}

/** White opaque pixels of the mask image (white strokes on black or on transparency) are painted. */
export function paintedMask(input: MaskInput): { mask: Uint8Array; painted: number } {
  const n = input.width * input.height, d = input.rgba;
  const mask = new Uint8Array(n);
  let painted = 0;
  for (let i = 0; i < n; i++) {
    const o = i * 4;
    if (d[o + 3] >= 128 && d[o] * 0.299 + d[o + 1] * 0.587 + d[o + 2] * 0.114 >= 128) {
      mask[i] = 1;
      painted++;
    }
  }
  return { mask, painted };
}

/** The vendor's picture inside the painted region only, over the texture. */
export function composite(input: { texture: Uint8Array; vendor: Uint8Array; mask: Uint8Array }): { rgba: Uint8Array } {
  const out = Uint8Array.from(input.texture);
  for (let i = 0; i < input.mask.length; i++) if (input.mask[i]) for (let c = 0; c < 3; c++) out[i * 4 + c] = input.vendor[i * 4 + c];
  return { rgba: out };
}

/** The 200 answer as UTF-8 JSON bytes, the PNG as a data URL, without a JSON.stringify of 9 MB on the loop. */
export function answer(input: { png: Uint8Array; fields: Record<string, unknown> }): { json: Uint8Array } {
  const b64 = Buffer.from(input.png.buffer, input.png.byteOffset, input.png.byteLength).toString('base64');
  const rest = JSON.stringify(input.fields).slice(1); // the fields' members and the closing brace
  const text = `{"success":true,"texture":"data:image/png;base64,${b64}"${rest === '}' ? '' : ','}${rest}`;
  return { json: Buffer.from(text, 'utf8') };
}

/** An image of the request: its bytes, already decoded from the data URL. */
export interface ImageInput {
  bytes: Uint8Array;
  contentType: string;
}

export interface BuiltinEnhanceInput {
  /** The request's data URLs as sent, or their bytes (large ones, decoded on a pool thread when the body was read); decoded here, not on the event loop. */
  texture: string | ImageInput;
  mask: string | ImageInput;
  mode: TexturePaintMode;
  wrap: TextureWrap;
  detail: number;
  /** Why the vendor models were passed over, when they were tried first. */
  fallbackReason?: string;
}

/** A refusal as plain data: errors lose their fields across threads. */
export interface TaskRefusal {
  code: FitroomError['code'];
  message: string;
  details?: FitroomError['details'];
}

let codec: ImageCodec | undefined;
let engine: BuiltinTexturePainter | undefined;

/**
 * The whole builtin enhancement of one request on a pool thread: data URLs to pixels, the checks, the
 * engine, the PNG and the answer's JSON bytes (moved back to the event loop, which only writes them).
 */
export async function enhanceBuiltin(input: BuiltinEnhanceInput): Promise<{ json: Uint8Array } | { refused: TaskRefusal }> {
  try {
    const textureIn = decodeDataUrl(input.texture, 'texture', LIMITS.maxTextureBytes);
    const maskIn = decodeDataUrl(input.mask, 'mask', LIMITS.maxMaskBytes);
    codec ??= new SharpImageCodec();
    engine ??= new BuiltinTexturePainter();
    const { texture, mask, painted } = await checkedInputs(codec, textureIn.bytes, maskIn.bytes);
    const r = await engine.enhance({ texture, mask, mode: input.mode, wrap: input.wrap, detail: input.detail });
    const png = (await codec.encode(r.texture, 'png')).bytes;
    const engineInfo = { provider: 'builtin', model: 'builtin-texture-painter', ...(input.fallbackReason ? { fallbackReason: input.fallbackReason } : {}) };
    return answer({ png, fields: { width: texture.width, height: texture.height, mode: input.mode, wrap: input.wrap, regions: r.regions, paintedPixels: painted, engine: engineInfo } });
  } catch (e) {
    if (e instanceof FitroomError) return { refused: { code: e.code, message: e.message, details: e.details } };
    throw e;
  }
}
