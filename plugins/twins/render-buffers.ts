import { gunzipSync, gzipSync } from 'node:zlib';

/**
 * A twin render's per-pixel body buffers as one file: the mask (1 byte per pixel) followed by the
 * depth (float32 per pixel, little-endian), gzip-compressed (mostly zeros outside the body).
 */
export function packBodyBuffers(mask: Uint8Array, depth: Float32Array): Uint8Array {
  if (mask.length !== depth.length) throw new Error('mask and depth sizes differ');
  const out = new Uint8Array(mask.length * 5);
  out.set(mask, 0);
  const view = new DataView(out.buffer);
  for (let i = 0; i < depth.length; i++) view.setFloat32(mask.length + i * 4, depth[i], true);
  return gzipSync(out);
}

export function unpackBodyBuffers(bytes: Uint8Array, pixels: number): { mask: Uint8Array; depth: Float32Array } {
  const raw = gunzipSync(bytes);
  if (raw.length !== pixels * 5) throw new Error(`body buffers hold ${raw.length} bytes, expected ${pixels * 5}`);
  const mask = new Uint8Array(raw.subarray(0, pixels));
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const depth = new Float32Array(pixels);
  for (let i = 0; i < pixels; i++) depth[i] = view.getFloat32(pixels + i * 4, true);
  return { mask, depth };
}
