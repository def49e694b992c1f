import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { BlobRange, BlobStore } from './ports/blob-store.ts';
import type { FileStore } from './ports/file-store.ts';
import type { JobResult } from './jobs.ts';
import { FitroomError, notFound } from './errors.ts';
import type { Links } from './links.ts';
import type { Caller } from './credentials.ts';

export interface FileRecord {
  id: string;
  ownerHash: string;
  blobKey: string;
  contentType: string;
  size: number;
  filename: string | null;
  /** Internal files (twin renders) are never downloadable. */
  internal: boolean;
  expiresAt: Date | null;
  createdAt: Date;
}

export interface StoreFileOptions {
  ownerHash: string;
  contentType: string;
  filename?: string;
  /** Seconds until the file expires; null keeps it. */
  ttlSeconds: number | null;
  internal?: boolean;
}

/**
 * Result files: stored in the blob store with metadata, downloadable by the submitting key or with
 * a signed `token` + `expires` pair (HMAC over id and expiry with the deployment's signing secret).
 */
export class FileService {
  private readonly blobs: BlobStore;
  private readonly files: FileStore;
  private readonly secret: string;
  constructor(blobs: BlobStore, files: FileStore, signingSecret: string) {
    this.blobs = blobs;
    this.files = files;
    this.secret = signingSecret;
  }

  async store(bytes: Uint8Array, opts: StoreFileOptions): Promise<FileRecord> {
    const id = randomUUID();
    const rec: FileRecord = {
      id,
      ownerHash: opts.ownerHash,
      blobKey: `files/${id.slice(0, 2)}/${id}`,
      contentType: opts.contentType,
      size: bytes.byteLength,
      filename: opts.filename ?? null,
      internal: opts.internal ?? false,
      expiresAt: opts.ttlSeconds === null ? null : new Date(Date.now() + opts.ttlSeconds * 1000),
      createdAt: new Date(),
    };
    await this.blobs.put(rec.blobKey, bytes, rec.contentType);
    try {
      await this.files.insert(rec);
    } catch (e) {
      await this.blobs.delete(rec.blobKey).catch(() => undefined);
      throw e;
    }
    return rec;
  }

  /** Records a blob already written (streamed uploads). */
  async adopt(blobKey: string, size: number, opts: StoreFileOptions & { id?: string }): Promise<FileRecord> {
    const rec: FileRecord = {
      id: opts.id ?? randomUUID(),
      ownerHash: opts.ownerHash,
      blobKey,
      contentType: opts.contentType,
      size,
      filename: opts.filename ?? null,
      internal: opts.internal ?? false,
      expiresAt: opts.ttlSeconds === null ? null : new Date(Date.now() + opts.ttlSeconds * 1000),
      createdAt: new Date(),
    };
    await this.files.insert(rec);
    return rec;
  }

  get(id: string): Promise<FileRecord | null> {
    return UUID.test(id) ? this.files.get(id) : Promise.resolve(null);
  }

  read(rec: FileRecord): Promise<Uint8Array | null> {
    return this.blobs.get(rec.blobKey);
  }

  private sign(id: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`${id}.${expires}`).digest('base64url');
  }

  /** A URL that downloads the file without a key until the file expires (or `maxSeconds`). */
  signedUrl(rec: FileRecord, links: Links): JobResult {
    const expires = rec.expiresAt ? Math.floor(rec.expiresAt.getTime() / 1000) : Math.floor(Date.now() / 1000) + 7 * 24 * 3600;
    const token = this.sign(rec.id, expires);
    return { url: links.file(rec.id, { expires, token }), expiresAt: new Date(expires * 1000).toISOString() };
  }

  /** Opens a file for download: the owner's key, or a valid unexpired signature. Same 404 otherwise. */
  async openForDownload(id: string, access: { caller: Caller | null; token?: string; expires?: string }, rangeHeader?: string) {
    const rec = await this.get(id);
    if (!rec || rec.internal) throw notFound('File not found');
    if (rec.expiresAt && rec.expiresAt.getTime() <= Date.now()) throw notFound('File not found');
    let allowed = false;
    if (access.caller && access.caller.ownerHash === rec.ownerHash) allowed = true;
    else if (access.token && access.expires) {
      const exp = Number(access.expires);
      if (Number.isInteger(exp) && exp * 1000 > Date.now()) {
        const expected = Buffer.from(this.sign(rec.id, exp));
        const given = Buffer.from(access.token);
        allowed = expected.length === given.length && timingSafeEqual(expected, given);
      }
    }
    if (!allowed) throw notFound('File not found');
    const range = rangeHeader ? parseRange(rangeHeader, rec.size) : undefined;
    const s = await this.blobs.stream(rec.blobKey, range ?? undefined);
    if (!s) throw new FitroomError('NOT_FOUND', 'File not found');
    return { rec, ...s };
  }

  /** Deletes expired files and their blobs; returns how many were removed. */
  async purgeExpired(limit = 500): Promise<number> {
    const list = await this.files.expired(new Date(), limit);
    for (const f of list) {
      await this.blobs.delete(f.blobKey).catch(() => undefined);
      await this.files.delete(f.id);
    }
    return list.length;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * One `bytes=` range of an HTTP Range header (RFC 9110 14.2): `a-b`, `a-` or the suffix `-n`, clipped to
 * the size. Several ranges, other units or a malformed header are ignored (the whole file, 200); a range
 * that starts past the end answers 416.
 */
export function parseRange(header: string, size: number): BlobRange | null {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0) throw new FitroomError('RANGE_NOT_SATISFIABLE', `The file has ${size} bytes`);
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return null;
  }
  if (start >= size) throw new FitroomError('RANGE_NOT_SATISFIABLE', `The file has ${size} bytes`);
  return { start, end };
}
