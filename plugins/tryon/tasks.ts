/**
 * Try-on work run on a CPU pool thread: the SHA-256 of a fetched product or person image (up to
 * FETCH_MAX_BYTES, 25 MB: about 15 ms of the HTTP event loop).
 */
import { sha256Hex } from '../../core/tryon/cache-key.ts';

/** The bytes' hash; the bytes come back (moved both ways, not copied). */
export function hashBytes(input: { bytes: Uint8Array }): { sha256: string; bytes: Uint8Array } {
  return { sha256: sha256Hex(input.bytes), bytes: input.bytes };
}
