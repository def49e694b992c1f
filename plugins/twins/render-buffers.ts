import { gunzipSync, gzipSync } from 'node:zlib';

/**
 * A twin render's per-pixel body buffers as one file: the mask (1 byte per pixel), the depth
 * (float32 per pixel, little-endian) and, when the renderer gave them, the PERSON_PART labels
 * (1 byte per pixel), gzip-compressed (mostly zeros outside the body). Files stored before the
 * labels were kept hold mask and depth only and still read.
 */
export function packBodyBuffers(mask: Uint8Array, depth: Float32Array, parts?: Uint8Array): Uint8Array {
  if (mask.length !== depth.length || (parts && parts.length !== mask.length)) throw new Error('mask, depth and parts sizes differ');
  const n = mask.length;
  const out = new Uint8Array(n * (parts ? 6 : 5));
  out.set(mask, 0);
  const view = new DataView(out.buffer);
  for (let i = 0; i < n; i++) view.setFloat32(n + i * 4, depth[i], true);
  if (parts) out.set(parts, n * 5);
  return gzipSync(out);
}

export function unpackBodyBuffers(bytes: Uint8Array, pixels: number): { mask: Uint8Array; depth: Float32Array; parts?: Uint8Array } {
  const raw = gunzipSync(bytes);
  if (raw.length !== pixels * 5 && raw.length !== pixels * 6) throw new Error(`body buffers hold ${raw.length} bytes, expected ${pixels * 5} or ${pixels * 6}`);
  const mask = new Uint8Array(raw.subarray(0, pixels));
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const depth = new Float32Array(pixels);
  for (let i = 0; i < pixels; i++) depth[i] = view.getFloat32(pixels + i * 4, true);
  if (raw.length === pixels * 5) return { mask, depth };
  return { mask, depth, parts: new Uint8Array(raw.subarray(pixels * 5)) };
}
