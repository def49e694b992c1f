import { Transform, type Readable } from 'node:stream';

/** Inclusive byte positions, as in an HTTP Range header. */
export interface BlobRange {
  start: number;
  end: number;
}

/**
 * BlobStore: bytes by key (images, GLBs, USDZ). Filesystem under DATA_DIR by default
 * (`adapters/fs`); an S3-compatible bucket when several machines share the blobs (`adapters/s3`).
 * Not found is `null`, never an error.
 */
export interface BlobStore {
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** Streams into the store, failing (and removing the partial blob) past maxBytes. Returns the size. */
  putStream(key: string, stream: Readable, contentType: string, maxBytes: number): Promise<number>;
  get(key: string): Promise<Uint8Array | null>;
  /** The blob, or the bytes of `range` (within the blob: the caller checks against the size); `size` is the whole blob's. */
  stream(key: string, range?: BlobRange): Promise<{ stream: Readable; size: number; range?: BlobRange } | null>;
  delete(key: string): Promise<void>;
}

/**
 * The store failed (unreachable, no answer within its timeout, refused the request): the request was
 * valid and may succeed later. Adapters throw this for every failure of the store itself, so that
 * it is reported as STORAGE_UNAVAILABLE (503), never as a client or database error.
 */
export class BlobStoreUnavailableError extends Error {
  override name = 'BlobStoreUnavailableError';
}

export class BlobTooLargeError extends Error {
  override name = 'BlobTooLargeError';
}

/** A pass-through that counts bytes and fails with BlobTooLargeError past `maxBytes` (every store's putStream). */
export function byteLimit(maxBytes: number): { stream: Transform; size: () => number } {
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      size += chunk.length;
      if (size > maxBytes) cb(new BlobTooLargeError(`larger than ${maxBytes} bytes`));
      else cb(null, chunk);
    },
  });
  return { stream, size: () => size };
}
