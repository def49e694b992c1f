import sharp from 'sharp';
import type { EncodedImage, RasterImage } from '../../../core/images.ts';

/** PNG / JPEG / WebP encoding of RGBA rasters (sharp), for textures and previews. */
export async function encodeRaster(img: RasterImage, format: 'png' | 'jpeg' | 'webp' = 'png', quality = 90): Promise<EncodedImage> {
  const input = sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength), { raw: { width: img.width, height: img.height, channels: 4 } });
  if (format === 'png') return { bytes: new Uint8Array(await input.png({ compressionLevel: 6 }).toBuffer()), contentType: 'image/png' };
  if (format === 'jpeg') return { bytes: new Uint8Array(await input.flatten({ background: '#ffffff' }).jpeg({ quality, mozjpeg: true }).toBuffer()), contentType: 'image/jpeg' };
  return { bytes: new Uint8Array(await input.webp({ quality }).toBuffer()), contentType: 'image/webp' };
}

/** Decodes PNG / JPEG / WebP bytes to RGBA (textures read back from GLBs). */
export async function decodeRaster(bytes: Uint8Array): Promise<RasterImage> {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}
