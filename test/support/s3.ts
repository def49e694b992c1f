import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
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
