import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, waitForJob, type TestService } from '../../support/harness.ts';
import { startS3Server, type TestS3 } from '../../support/s3.ts';
import { until } from '../../support/service-process.ts';
import { dataUrl, twinImages } from '../../plugins/twins/fixtures.ts';
import { shoeGlb, shoePhotos } from '../../plugins/shoe3d/helpers.ts';

/**
 * Retention on the S3 store: request stashes, uploads, results, twin renders and batch items all
 * live in the bucket; once expired, the purge tasks leave no orphaned object behind.
 */

let s3: TestS3;
let svc: TestService;
let key: string;

beforeAll(async () => {
  s3 = await startS3Server();
  svc = await startTestService({ env: s3.env });
  ({ key } = await svc.createKey());
}, 60_000);
afterAll(async () => {
  await svc?.close();
  await s3?.close();
});

describe('retention with the S3 store', () => {
  it('purges every expired blob from the bucket', async () => {
    const photos = await shoePhotos([0, 90], 200);
    const shoe = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images: photos } });
    expect(shoe.status).toBe(202);
    const form = new FormData();
    form.append('file', new Blob([Buffer.from(await shoeGlb(64))], { type: 'model/gltf-binary' }), 'm.glb');
    expect((await fetch(`${svc.api}/api/v1/files/upload`, { method: 'POST', body: form, headers: { 'x-api-key': key } })).status).toBe(200);
    const images = await twinImages();
    const twin = await svc.call('POST', '/api/v1/digital-twin', { key, body: { faceImage: dataUrl(images.face), clothingSize: { height: 170, size: 'M' } } });
    expect(twin.status, twin.text).toBe(202);
    const batch = await svc.call('POST', '/api/v1/digitization/batches', { key, body: { items: [{ images: photos }] } });
    expect(batch.status).toBe(202);
    for (const id of [shoe.body.jobId, twin.body.jobId, batch.body.items[0].jobId]) expect((await waitForJob(svc, key, id, undefined, 90_000)).status).toBe('completed');
    // the batch is marked complete by its own check after its last item's job: waited for, not slept on
    await until(async () => (await svc.fitroom.pool.query('select completed_at from batches where id = $1', [batch.body.batchId])).rows[0]?.completed_at, 90_000, 'the batch marked complete');
    const stored = await s3.keys();
    expect(stored.length).toBeGreaterThanOrEqual(6);

    // everything expires, then the hourly purges run
    const q = (sql: string) => svc.fitroom.pool.query(sql);
    await q(`update files set expires_at = now() - interval '1 second'`);
    await q(`update twins set expires_at = now() - interval '1 second'`);
    await q(`update batches set expires_at = now() - interval '1 second' where completed_at is not null`);
    for (const cron of svc.fitroom.kernel.crons.filter((c) => c.task.startsWith('fitroom_purge'))) await cron.run();
    expect(await s3.keys()).toEqual([]);
    expect((await q('select count(*)::int as n from files')).rows[0].n).toBe(0);
  }, 150_000);
});
