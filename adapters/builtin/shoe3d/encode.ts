import { crc32, deflateSync } from 'node:zlib';
import type { EncodedImage, RasterImage } from '../../../core/images.ts';

/**
 * PNG writing for the builtin engines' own rasters (baked textures, test fixtures): RGBA, 8 bits,
 * no row filter, zlib level 6 — lossless, with no image library. Anything else (JPEG, WebP,
 * decoding, resizing) goes through the ImageCodec port, which the composition root hands in.
 */
export async function encodeRaster(img: RasterImage, _format: 'png' = 'png'): Promise<EncodedImage> {
  return { bytes: encodePng(img), contentType: 'image/png' };
}

export function encodePng(img: RasterImage): Uint8Array {
  const { width, height, data } = img;
  if (data.length !== width * height * 4) throw new Error(`encodePng: ${data.length} bytes for ${width}x${height} RGBA`);
  const stride = width * 4;
  const raw = new Uint8Array((stride + 1) * height);
  for (let y = 0; y < height; y++) raw.set(data.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1); // filter byte 0: none
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, width);
  v.setUint32(4, height);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8 bits, RGBA, deflate, adaptive filtering, no interlace
  const idat = deflateSync(raw, { level: 6 });
  const chunks = [chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', new Uint8Array(0))];
  const out = new Uint8Array(8 + chunks.reduce((n, c) => n + c.length, 0));
  out.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  let at = 8;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function chunk(type: string, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + body.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, body.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(body, 8);
  v.setUint32(8 + body.length, crc32(out.subarray(4, 8 + body.length)));
  return out;
}
