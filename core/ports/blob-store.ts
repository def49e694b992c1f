import type { Readable } from 'node:stream';

/**
 * BlobStore: bytes by key (images, GLBs, USDZ). Filesystem under DATA_DIR by default; an
 * S3-compatible store when several machines share the blobs.
 */
export interface BlobStore {
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** Streams into the store, failing (and removing the partial blob) past maxBytes. Returns the size. */
  putStream(key: string, stream: Readable, contentType: string, maxBytes: number): Promise<number>;
  get(key: string): Promise<Uint8Array | null>;
  stream(key: string): Promise<{ stream: Readable; size: number } | null>;
  delete(key: string): Promise<void>;
}

export class BlobTooLargeError extends Error {
  override name = 'BlobTooLargeError';
}
