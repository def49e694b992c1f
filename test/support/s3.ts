import { createHash } from 'node:crypto';
import { createWriteStream, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import S3rver from '@20minutes/s3rver';

/**
 * A real S3-protocol server on loopback (@20minutes/s3rver: signatures checked, multipart uploads,
 * ranges), with one bucket, for the blob store contract and the cross-machine tests. Its default
 * credentials are S3RVER / S3RVER.
 */
export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** The service's settings for this store. */
  env: Record<string, string>;
  /** Every key in the bucket (with the prefix, if any). */
  keys(prefix?: string): Promise<string[]>;
  close(): Promise<void>;
}

export async function startS3Server(bucket = 'fitroom-test'): Promise<TestS3> {
  const dir = mkdtempSync(path.join(tmpdir(), 'fitroom-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: bucket }] });
  readAfterWrite((server as unknown as { store: FilesystemStore }).store);
  const addr = (await server.run()) as AddressInfo;
  const endpoint = `http://127.0.0.1:${addr.port}`;
  return {
    endpoint,
    bucket,
    env: { BLOB_STORE: 's3', S3_ENDPOINT: endpoint, S3_BUCKET: bucket, S3_REGION: 'us-east-1', S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER', S3_FORCE_PATH_STYLE: 'true' },
    async keys(prefix = '') {
      // What the server holds, read from its own files (`<key>._S3rver_object`); multipart uploads in
      // progress or abandoned would show as leftover part files too.
      const root = path.join(dir, bucket);
      const walk = (d: string, rel: string): string[] =>
        readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name), `${rel}${e.name}/`) : [`${rel}${e.name}`]));
      return walk(root, '')
        .filter((f) => !f.endsWith('.metadata.json') && !f.endsWith('.object.md5'))
        .map((f) => f.replace(/\._S3rver_object$/, ''))
        .filter((k) => k.startsWith(prefix))
        .sort();
    },
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The parts of s3rver's file store that `readAfterWrite` replaces. */
interface FilesystemStore {
  putContent(objectPath: string, content: unknown): Promise<[number, string]>;
  deleteObject(bucket: string, key: string): Promise<void>;
  getResourcePath(bucket: string, key: string, resourceType: string): string;
}

/**
 * Real S3 stores read an object back as soon as its write is answered. s3rver's file store does
 * not, in two places, which made start-up probes of several processes at once fail now and then:
 * it answers a PUT of a small body before the file is written (it ends the write stream and
 * resolves at once), and deleting an object removes its emptied directory, which a concurrent
 * write into that directory then loses. Writes here resolve when the file is flushed, and deletes
 * leave the directories.
 */
function readAfterWrite(store: FilesystemStore): void {
  const putContent = store.putContent.bind(store);
  store.putContent = (objectPath, content) => {
    if (!Buffer.isBuffer(content)) return putContent(objectPath, content);
    return new Promise((resolve, reject) => {
      const out = createWriteStream(objectPath);
      out.on('error', reject);
      out.on('finish', () => resolve([content.length, createHash('md5').update(content).digest('hex')]));
      out.end(content);
    });
  };
  store.deleteObject = async (bucket, key) => {
    await Promise.all(['object', 'object.md5', 'metadata.json'].map((type) => unlink(store.getResourcePath(bucket, key, type)).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    })));
  };
}
