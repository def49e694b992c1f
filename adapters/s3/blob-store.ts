import { randomUUID } from 'node:crypto';
import { PassThrough, Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client, S3ServiceException, type ServerSideEncryption } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { BlobStoreUnavailableError, BlobTooLargeError, byteLimit, type BlobRange, type BlobStore } from '../../core/ports/blob-store.ts';

export interface S3BlobStoreOptions {
  bucket: string;
  region: string;
  /** Any S3-compatible endpoint (MinIO, R2, Ceph RGW); unset for AWS. */
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** `https://endpoint/bucket/key` instead of `https://bucket.endpoint/key` (MinIO, Ceph). */
  forcePathStyle?: boolean;
  /** Server-side encryption of every object written. */
  sse?: ServerSideEncryption;
  sseKmsKeyId?: string;
  /** Key prefix inside the bucket (several deployments in one bucket). */
  prefix?: string;
  /** Multipart part size for streamed uploads (at least 5 MiB, S3's minimum). */
  partSize?: number;
  /** Connecting to the store (S3_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
  /** One call, retries included, until the store answers; also the longest silence within a transfer (S3_TIMEOUT_MS). */
  timeoutMs?: number;
}

/**
 * Blobs in an S3-compatible bucket, with the AWS SDK v3: the S3 client speaks to AWS, R2, MinIO and
 * Ceph alike (path-style or virtual-host addressing), and lib-storage's Upload streams request bodies of
 * unknown length as a multipart upload, which is aborted (nothing left behind) when the stream fails
 * or passes its size limit. Checksums are only sent where the API requires them, as S3-compatible
 * stores other than AWS do not all accept the SDK's default trailers.
 */
export class S3BlobStore implements BlobStore {
  readonly #s3: S3Client;
  readonly #o: S3BlobStoreOptions;

  constructor(o: S3BlobStoreOptions) {
    this.#o = o;
    this.#s3 = new S3Client({
      region: o.region,
      ...(o.endpoint ? { endpoint: o.endpoint } : {}),
      forcePathStyle: o.forcePathStyle ?? false,
      ...(o.accessKeyId && o.secretAccessKey ? { credentials: { accessKeyId: o.accessKeyId, secretAccessKey: o.secretAccessKey } } : {}),
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
      // a store that accepts connections and never answers fails the call instead of holding the request
      requestHandler: { connectionTimeout: o.connectTimeoutMs ?? 2000, requestTimeout: this.#timeoutMs },
    });
  }

  get #timeoutMs(): number {
    return this.#o.timeoutMs ?? 10_000;
  }

  /** One call to the store within the total timeout; every failure of the store becomes BlobStoreUnavailableError. */
  async #send<T>(what: string, call: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(new Error(`no answer within ${this.#timeoutMs} ms`)), this.#timeoutMs);
    try {
      return await call(ac.signal);
    } catch (e) {
      if (isNotFound(e)) throw e;
      throw storageFault(what, ac.signal.aborted ? ac.signal.reason : e);
    } finally {
      clearTimeout(timer);
    }
  }

  #key(key: string): string {
    if (!/^[A-Za-z0-9/_.-]+$/.test(key) || key.includes('..') || key.startsWith('/')) throw new Error(`Invalid blob key ${key}`);
    return (this.#o.prefix ?? '') + key;
  }

  #encryption() {
    return this.#o.sse ? { ServerSideEncryption: this.#o.sse, ...(this.#o.sseKmsKeyId ? { SSEKMSKeyId: this.#o.sseKmsKeyId } : {}) } : {};
  }

  async put(key: string, bytes: Uint8Array, contentType: string) {
    const cmd = new PutObjectCommand({ Bucket: this.#o.bucket, Key: this.#key(key), Body: bytes, ContentType: contentType, ContentLength: bytes.byteLength, ...this.#encryption() });
    await this.#send('write', (abortSignal) => this.#s3.send(cmd, { abortSignal }));
  }

  async putStream(key: string, stream: Readable, contentType: string, maxBytes: number): Promise<number> {
    const limit = byteLimit(maxBytes);
    const body = new PassThrough();
    const abort = new AbortController();
    const upload = new Upload({
      client: this.#s3,
      params: { Bucket: this.#o.bucket, Key: this.#key(key), Body: body, ContentType: contentType, ...this.#encryption() },
      partSize: Math.max(5 * 1024 * 1024, this.#o.partSize ?? 8 * 1024 * 1024),
      queueSize: 2,
      // a failed multipart upload is aborted, so no parts or object remain
      leavePartsOnError: false,
      abortController: abort,
    });
    // The store is stuck when it has not taken bytes for the timeout while it has some waiting (its
    // buffer full) or the client has sent everything; a slow client alone is not the store's fault.
    let lastProgress = Date.now();
    let clientDone = false;
    const progress = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        lastProgress = Date.now();
        cb(null, chunk);
      },
    });
    const watchdog = setInterval(() => {
      if (Date.now() - lastProgress > this.#timeoutMs && (clientDone || body.writableNeedDrain)) abort.abort(new Error(`no answer within ${this.#timeoutMs} ms`));
    }, Math.max(50, Math.floor(this.#timeoutMs / 4)));
    // Whose failure came first: the client's stream (cut, too large) or the store's. Each failure
    // tears the other side down, so only the first one says whose fault it is.
    let first: { side: 'client' | 'store'; error: unknown } | null = null;
    stream.on('error', (e) => (first ??= { side: 'client', error: e }));
    limit.stream.on('error', (e) => (first ??= { side: 'client', error: e }));
    const uploading = upload.done();
    // A store that fails stops reading the body: end the stream at once rather than leave it waiting.
    uploading.catch((e) => {
      first ??= { side: 'store', error: abort.signal.aborted ? abort.signal.reason : e };
      body.destroy(e as Error);
    });
    try {
      await Promise.all([
        pipeline(stream, limit.stream, progress, body).then(() => {
          clientDone = true;
          lastProgress = Date.now();
        }),
        uploading,
      ]);
      return limit.size();
    } catch (e) {
      const cause = first as { side: 'client' | 'store'; error: unknown } | null;
      if (cause?.side === 'store') {
        // the store failed: clean up in the background, the answer does not wait for a store that hangs
        void uploading.catch(() => undefined).then(() => this.delete(key)).catch(() => undefined);
        throw storageFault('write', cause.error);
      }
      await upload.abort().catch(() => undefined);
      await uploading.catch(() => undefined);
      // a single-part upload may have completed before the stream failed
      await this.delete(key).catch(() => undefined);
      // the client's stream failing first (cut, too large) is the client's fault
      throw cause?.error instanceof BlobTooLargeError ? cause.error : e;
    } finally {
      clearInterval(watchdog);
    }
  }

  async get(key: string): Promise<Uint8Array | null> {
    const r = await this.#getObject(key);
    if (!r) return null;
    try {
      return await r.Body!.transformToByteArray(); // no copy of the bytes
    } catch (e) {
      throw storageFault('read', e);
    }
  }

  async stream(key: string, range?: BlobRange) {
    const r = await this.#getObject(key, range);
    if (!r) return null;
    const stream = r.Body instanceof Readable ? r.Body : Readable.fromWeb(r.Body!.transformToWebStream() as never);
    // ContentRange "bytes a-b/total" carries the whole size for a ranged read
    const total = range ? Number(/\/(\d+)$/.exec(r.ContentRange ?? '')?.[1] ?? NaN) : Number(r.ContentLength ?? NaN);
    return { stream, size: total, ...(range ? { range } : {}) };
  }

  async delete(key: string) {
    const cmd = new DeleteObjectCommand({ Bucket: this.#o.bucket, Key: this.#key(key) });
    await this.#send('delete', (abortSignal) => this.#s3.send(cmd, { abortSignal }));
  }

  /**
   * The start-up check: an object can be written to the bucket, read back and deleted with these
   * credentials. Throws an Error saying which step failed and what the store answered.
   */
  async probe(): Promise<void> {
    const step = async (what: string, fn: () => Promise<unknown>) => {
      try {
        return await fn();
      } catch (e) {
        const err = e as S3ServiceException & { code?: string };
        const said = err.name && err.name !== 'Error' ? `${err.name}${err.$metadata?.httpStatusCode ? ` (HTTP ${err.$metadata.httpStatusCode})` : ''}: ${err.message}` : `${err.code ?? ''} ${err.message}`.trim();
        throw new Error(`the S3 store failed to ${what}: ${said}`, { cause: e });
      }
    };
    // object-level calls only: bucket-level ones (HeadBucket, listing) need more permissions than
    // Fitroom uses, and a missing bucket shows as NoSuchBucket on the write anyway
    const key = `_probe/${randomUUID()}`;
    const bytes = new TextEncoder().encode('fitroom probe');
    await step(`write a probe object to bucket "${this.#o.bucket}"`, () => this.put(key, bytes, 'text/plain'));
    const back = await step('read the probe object back', () => this.get(key));
    if (!back || Buffer.compare(Buffer.from(back as Uint8Array), Buffer.from(bytes)) !== 0) throw new Error('the S3 store returned different bytes for the probe object');
    await step('delete the probe object', () => this.delete(key));
  }

  close() {
    this.#s3.destroy();
  }

  async #getObject(key: string, range?: BlobRange) {
    const cmd = new GetObjectCommand({ Bucket: this.#o.bucket, Key: this.#key(key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) });
    try {
      // the total timeout runs until the answer's headers; the body then streams, bounded by the socket timeout
      return await this.#send('read', (abortSignal) => this.#s3.send(cmd, { abortSignal }));
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  }
}

function isNotFound(e: unknown): boolean {
  const err = e as S3ServiceException;
  return err?.name === 'NoSuchKey' || err?.name === 'NotFound' || err?.$metadata?.httpStatusCode === 404;
}

/** A failure of the store, saying what it answered (or that it did not). */
function storageFault(what: string, e: unknown): BlobStoreUnavailableError {
  const err = e as S3ServiceException & { code?: string };
  const said = err?.$metadata?.httpStatusCode ? `${err.name} (HTTP ${err.$metadata.httpStatusCode}): ${err.message}` : `${err?.code ? `${err.code} ` : ''}${err?.message ?? String(e)}`;
  return new BlobStoreUnavailableError(`the S3 store failed to ${what}: ${said}`, { cause: e });
}
