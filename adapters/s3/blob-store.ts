import { randomUUID } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client, S3ServiceException, type ServerSideEncryption } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { byteLimit, type BlobRange, type BlobStore } from '../../core/ports/blob-store.ts';

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
    });
  }

  #key(key: string): string {
    if (!/^[A-Za-z0-9/_.-]+$/.test(key) || key.includes('..') || key.startsWith('/')) throw new Error(`Invalid blob key ${key}`);
    return (this.#o.prefix ?? '') + key;
  }

  #encryption() {
    return this.#o.sse ? { ServerSideEncryption: this.#o.sse, ...(this.#o.sseKmsKeyId ? { SSEKMSKeyId: this.#o.sseKmsKeyId } : {}) } : {};
  }

  async put(key: string, bytes: Uint8Array, contentType: string) {
    await this.#s3.send(new PutObjectCommand({ Bucket: this.#o.bucket, Key: this.#key(key), Body: bytes, ContentType: contentType, ContentLength: bytes.byteLength, ...this.#encryption() }));
  }

  async putStream(key: string, stream: Readable, contentType: string, maxBytes: number): Promise<number> {
    const limit = byteLimit(maxBytes);
    const body = new PassThrough();
    const upload = new Upload({
      client: this.#s3,
      params: { Bucket: this.#o.bucket, Key: this.#key(key), Body: body, ContentType: contentType, ...this.#encryption() },
      partSize: Math.max(5 * 1024 * 1024, this.#o.partSize ?? 8 * 1024 * 1024),
      queueSize: 2,
      // a failed multipart upload is aborted, so no parts or object remain
      leavePartsOnError: false,
    });
    const uploading = upload.done();
    try {
      await pipeline(stream, limit.stream, body);
      await uploading;
      return limit.size();
    } catch (e) {
      await upload.abort().catch(() => undefined);
      await uploading.catch(() => undefined);
      // a single-part upload may have completed before the stream failed
      await this.delete(key).catch(() => undefined);
      throw e;
    }
  }

  async get(key: string): Promise<Uint8Array | null> {
    const r = await this.#getObject(key);
    return r ? await r.Body!.transformToByteArray() : null;
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
    await this.#s3.send(new DeleteObjectCommand({ Bucket: this.#o.bucket, Key: this.#key(key) }));
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
    try {
      return await this.#s3.send(new GetObjectCommand({ Bucket: this.#o.bucket, Key: this.#key(key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }));
    } catch (e) {
      const err = e as S3ServiceException;
      if (err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata?.httpStatusCode === 404) return null;
      throw e;
    }
  }
}
