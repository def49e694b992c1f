import { FitroomError } from './errors.ts';
import type { EncodedImage, RasterImage } from './images.ts';
import type { ImageCodec, DecodeLimits } from './ports/image-codec.ts';
import { OutboundError, type OutboundHttp, type Validators } from './ports/outbound-http.ts';

/** Image formats the spec accepts in data URLs (and, by content type, from http(s) URLs). */
export const IMAGE_FORMATS = ['png', 'jpeg', 'jpg', 'gif', 'webp', 'svg+xml'] as const;
const DATA_URL = /^data:image\/(png|jpeg|jpg|gif|webp|svg\+xml);base64,/i;

/** Returns a problem description for a malformed image string, or null when it is acceptable. */
export function imageStringProblem(value: string): string | null {
  if (value.startsWith('data:')) {
    if (!DATA_URL.test(value)) return `must be a data URL of the form data:image/<format>;base64,<data> with format one of ${IMAGE_FORMATS.join(', ')}`;
    const payload = value.slice(value.indexOf(',') + 1);
    if (payload.length === 0 || !/^[A-Za-z0-9+/=\s]+$/.test(payload)) return 'has no valid base64 data';
    return null;
  }
  try {
    const u = new URL(value);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must be an http(s) URL or a data URL';
    return null;
  } catch {
    return 'must be an http(s) URL or a data URL';
  }
}

export interface LoadedImage {
  raster: RasterImage;
  /** The original bytes (for vendors that take files). */
  source: EncodedImage;
}

/** Fetches (safely) and decodes user-supplied images; failures become clear job errors. */
export class ImageLoader {
  private readonly http: OutboundHttp;
  private readonly codec: ImageCodec;
  private readonly maxBytes: number;
  constructor(http: OutboundHttp, codec: ImageCodec, maxBytes: number) {
    this.http = http;
    this.codec = codec;
    this.maxBytes = maxBytes;
  }

  async load(url: string, label: string, limits: DecodeLimits, signal?: AbortSignal): Promise<LoadedImage> {
    let fetched;
    try {
      fetched = await this.http.fetch(url, { maxBytes: this.maxBytes, accept: ['image/'], signal });
    } catch (e) {
      const reason = e instanceof OutboundError ? `${e.reason}: ${e.message}` : (e as Error).message;
      throw new FitroomError('IMAGE_FETCH_FAILED', `Could not fetch ${label}: ${reason}`, { retryable: e instanceof OutboundError && (e.reason === 'timeout' || e.reason === 'network' || (e.status ?? 0) >= 500) });
    }
    try {
      const raster = await this.codec.decode(fetched.bytes, limits);
      return { raster, source: { bytes: fetched.bytes, contentType: fetched.contentType } };
    } catch (e) {
      throw new FitroomError('IMAGE_INVALID', `Could not decode ${label}: ${(e as Error).message}`);
    }
  }

  /** Fetches raw bytes (GLBs and other files) under the same protections; with `validators`, a conditional request. */
  async fetchBytes(url: string, label: string, maxBytes: number, signal?: AbortSignal, validators?: Validators) {
    try {
      return await this.http.fetch(url, { maxBytes, signal, validators });
    } catch (e) {
      const reason = e instanceof OutboundError ? `${e.reason}: ${e.message}` : (e as Error).message;
      throw new FitroomError('IMAGE_FETCH_FAILED', `Could not fetch ${label}: ${reason}`);
    }
  }
}
