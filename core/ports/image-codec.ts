import type { EncodedImage, RasterImage } from '../images.ts';

/** Bounds applied before and while decoding untrusted images. */
export interface DecodeLimits {
  /** Largest accepted width * height, checked from the header before decoding. */
  maxPixels: number;
  /** Decoded images larger than this on either side are scaled down (aspect kept). */
  maxSide?: number;
  /** Decoded images with more pixels than this are scaled down (aspect kept): a job's memory budget. */
  maxDecodedPixels?: number;
}

/**
 * ImageCodec: turns untrusted bytes (png, jpeg, gif, webp, svg) into RGBA rasters and back.
 * Applies EXIF orientation and converts to sRGB. Configured in the composition root (sharp adapter).
 * Throws FitroomError('IMAGE_INVALID') for bytes it cannot decode or that exceed the limits.
 */
export interface ImageCodec {
  /** Decodes (and, with `maxSide` / `maxDecodedPixels`, scales down while decoding, aspect kept). */
  decode(bytes: Uint8Array, limits: DecodeLimits): Promise<RasterImage>;
  /** PNG (lossless), JPEG (flattened on white) or WebP (with alpha) at `quality` 1-100 (default 90). */
  encode(image: RasterImage, format: 'png' | 'jpeg' | 'webp', quality?: number): Promise<EncodedImage>;
  /** Resamples to exactly width x height (aspect not kept) with a sharp filter (Lanczos 3). */
  resize(image: RasterImage, width: number, height: number): Promise<RasterImage>;
}
