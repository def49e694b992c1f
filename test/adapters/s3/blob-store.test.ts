import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3BlobStore } from '../../../adapters/s3/blob-store.ts';
import { startS3Server, type TestS3 } from '../../support/s3.ts';
import { blobStoreContract } from '../blob-store.contract.ts';

let s3: TestS3;
let store: S3BlobStore;
beforeAll(async () => {
  s3 = await startS3Server();
  store = new S3BlobStore({ endpoint: s3.endpoint, bucket: s3.bucket, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', forcePathStyle: true, prefix: 'tenant-a/' });
});
afterAll(async () => {
  store?.close();
  await s3?.close();
});

describe('the S3 blob store against an S3-protocol server', () => {
  blobStoreContract(() => ({ store, keys: () => s3.keys() }));

  it('writes under its prefix and passes the start-up probe, leaving no probe object', async () => {
    await store.put('p/x.bin', new Uint8Array([7]), 'application/octet-stream');
    expect(await s3.keys()).toContain('tenant-a/p/x.bin');
    await store.delete('p/x.bin');
    await store.probe();
    expect(await s3.keys()).toEqual([]);
  });

  it('says what failed when the bucket or the credentials are wrong', async () => {
    const noBucket = new S3BlobStore({ endpoint: s3.endpoint, bucket: 'no-such-bucket', region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', forcePathStyle: true });
    await expect(noBucket.probe()).rejects.toThrow(/failed to write a probe object to bucket "no-such-bucket": NoSuchBucket/);
    noBucket.close();
    const badKey = new S3BlobStore({ endpoint: s3.endpoint, bucket: s3.bucket, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'wrong', forcePathStyle: true });
    await expect(badKey.probe()).rejects.toThrow(/the S3 store failed to/);
    badKey.close();
    const down = new S3BlobStore({ endpoint: 'http://127.0.0.1:9', bucket: s3.bucket, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', forcePathStyle: true });
    await expect(down.probe()).rejects.toThrow(/failed to write a probe object/);
    down.close();
  });
});
