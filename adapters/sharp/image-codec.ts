import sharp from 'sharp';
import type { EncodedImage, RasterImage } from '../../core/images.ts';
import type { DecodeLimits, ImageCodec } from '../../core/ports/image-codec.ts';
import { FitroomError } from '../../core/errors.ts';

// One libvips thread per decode (jobs already run side by side) and no operation cache: memory
// follows the images in flight, not what was decoded before.
sharp.concurrency(1);
sharp.cache(false);

/**
 * sharp (libvips) decoding of untrusted images: header-checked pixel limit before decoding, EXIF
 * orientation applied, converted to sRGB RGBA. SVG is rasterised by librsvg without external resources.
 */
export class SharpImageCodec implements ImageCodec {
  async decode(bytes: Uint8Array, limits: DecodeLimits): Promise<RasterImage> {
    let meta;
    try {
      meta = await sharp(bytes, { limitInputPixels: limits.maxPixels, failOn: 'error' }).metadata();
    } catch (e) {
      throw new FitroomError('IMAGE_INVALID', `not a supported image (${(e as Error).message.split('\n')[0]})`);
    }
    if (!meta.width || !meta.height) throw new FitroomError('IMAGE_INVALID', 'image has no dimensions');
    if (meta.width * meta.height > limits.maxPixels) throw new FitroomError('IMAGE_INVALID', `image has more than ${limits.maxPixels} pixels`);
    try {
      let img = sharp(bytes, { limitInputPixels: limits.maxPixels, failOn: 'error', animated: false }).rotate().toColourspace('srgb').ensureAlpha();
      // The decoded size is bounded by side and by area; libvips shrinks while decoding (no full-size copy).
      const area = limits.maxDecodedPixels && meta.width * meta.height > limits.maxDecodedPixels ? Math.sqrt(limits.maxDecodedPixels / (meta.width * meta.height)) : 1;
      const side = limits.maxSide ? Math.min(1, limits.maxSide / Math.max(meta.width, meta.height)) : 1;
      const scale = Math.min(area, side);
      if (scale < 1) img = img.resize({ width: Math.max(1, Math.floor(meta.width * scale)), height: Math.max(1, Math.floor(meta.height * scale)), fit: 'fill' });
      const { data, info } = await img.raw().toBuffer({ resolveWithObject: true });
      return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
    } catch (e) {
      throw new FitroomError('IMAGE_INVALID', `could not decode image (${(e as Error).message.split('\n')[0]})`);
    }
  }

  async encode(image: RasterImage, format: 'png' | 'jpeg' | 'webp', quality = 90): Promise<EncodedImage> {
    const s = sharp(image.data, { raw: { width: image.width, height: image.height, channels: 4 } });
    const out = format === 'png' ? s.png({ compressionLevel: 6 }) : format === 'jpeg' ? s.flatten({ background: '#ffffff' }).jpeg({ quality }) : s.webp({ quality });
    const buf = await out.toBuffer();
    return { bytes: new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength), contentType: `image/${format}` }; // a view, no copy
  }

  async resize(image: RasterImage, width: number, height: number): Promise<RasterImage> {
    const { data, info } = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 4 } })
      .resize(width, height, { fit: 'fill' })
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
  }
}
