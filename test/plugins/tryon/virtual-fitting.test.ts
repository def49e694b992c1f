/**
 * Virtual fitting end to end on the real PostgreSQL: a twin from the twins API, the builtin engine
 * through the model chain, the result cache (a hit answers completed at once), the cache-hit
 * webhook written before success (500 and no usage when it cannot be), and key usage.
 */
import pg from 'pg';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, waitForJob, type TestService } from '../../support/harness.ts';
import { images, makeTwin, type Images } from './helpers.ts';

let svc: TestService;
let db: pg.Client;
let img: Images;
let key: string;
let keyId: string;
let twinId: string;

const usage = (id: string) => svc.usage(id);

beforeAll(async () => {
  svc = await startTestService();
  db = new pg.Client({ connectionString: svc.dbUrl });
  await db.connect();
  img = await images();
  ({ key, id: keyId } = await svc.createKey());
  twinId = await makeTwin(svc, key, img.face);
}, 120_000);

afterAll(async () => {
  await db?.end();
  await svc?.close();
});

describe('POST /api/v1/virtual-fitting', () => {
  let firstResult: string;

  it('dresses a twin: queued, then completed with the result image and the twin id', async () => {
    const before = await usage(keyId);
    const r = await svc.call('POST', '/api/v1/virtual-fitting', { key, body: { digitalTwinId: twinId, topGarment: [img.top, img.top2], bottomGarment: img.bottom } });
    expect(r.status, r.text).toBe(202);
    expect(r.body).toMatchObject({ success: true, status: 'queued', statusUrl: expect.stringContaining(`/api/v1/jobs/${r.body.jobId}`) });
    expect(r.body.estimatedProcessingTime).toBeGreaterThan(0);
    expect(await usage(keyId)).toBe(before + 1);
    const job = await waitForJob(svc, key, r.body.jobId, undefined, 90_000);
    expect(job.status, JSON.stringify(job)).toBe('completed');
    expect(job.progress).toEqual({ stage: 'completed', percentage: 100 });
    expect(job.results[0]).toMatchObject({ url: expect.any(String), expiresAt: expect.any(String), digitalTwinId: twinId });
    expect(job.digitalTwinId).toBe(twinId);
    expect(job.result.imageUrl).toBe(job.results[0].url);
    firstResult = job.results[0].url;

    const png = await fetch(job.results[0].url);
    expect(png.status).toBe(200);
    const meta = await sharp(Buffer.from(await png.arrayBuffer())).metadata();
    expect(meta.format).toBe('png');
    expect(Math.max(meta.width!, meta.height!)).toBe(1024);

    const trace = await svc.call('GET', `/api/v1/jobs/${r.body.jobId}/trace`, { key });
    expect(trace.body.stages).toEqual(['validate inputs', 'resolve identity', 'build garment grid', 'generate', 'store']);
    const generate = trace.body.timeline.find((t: { stage: string }) => t.stage === 'generate');
    expect(generate.detail.model).toBe('builtin-warp');
    // vendors without credentials were passed over, the builtin engine answered
    expect(generate.detail.attempts.at(-1)).toMatchObject({ model: 'builtin-warp', outcome: 'succeeded' });
  });

  it('answers an identical request from the result cache: completed at once, results, no work', async () => {
    const before = await usage(keyId);
    const r = await svc.call('POST', '/api/v1/virtual-fitting', { key, body: { digitalTwinId: twinId, topGarment: [img.top, img.top2], bottomGarment: img.bottom } });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ success: true, status: 'completed', estimatedProcessingTime: 0, digitalTwinId: twinId });
    expect(r.body.results).toHaveLength(1);
    expect(new URL(r.body.results[0].url).pathname).toBe(new URL(firstResult).pathname);
    expect(r.body.results[0].digitalTwinId).toBe(twinId);
    expect(await usage(keyId)).toBe(before + 1);
    // the job exists, already completed, and ran no stage
    const job = await svc.call('GET', `/api/v1/jobs/${r.body.jobId}`, { key });
    expect(job.body.status).toBe('completed');
    const trace = await svc.call('GET', `/api/v1/jobs/${r.body.jobId}/trace`, { key });
    expect(trace.body.timeline).toEqual([]);
  });

  it('misses the cache when an output-affecting option or a garment changes, or when asked to skip it', async () => {
    const base = { digitalTwinId: twinId, topGarment: [img.top, img.top2], bottomGarment: img.bottom };
    const variants: Record<string, unknown>[] = [{ ...base, options: { skipResultCache: true } }, { ...base, options: { quality: 'draft' } }, { ...base, topGarment: img.top }];
    for (const body of variants) {
      const r = await svc.call('POST', '/api/v1/virtual-fitting', { key, body });
      expect(r.status, JSON.stringify(body.options ?? {})).toBe(202);
      await svc.call('DELETE', `/api/v1/jobs/${r.body.jobId}`, { key });
    }
  });

  it('returns 500 and counts no usage when a cache hit cannot enqueue its webhook; a retry reuses the result', async () => {
    const body = { digitalTwinId: twinId, topGarment: [img.top, img.top2], bottomGarment: img.bottom, webhookUrl: 'https://hooks.example.com/fitroom' };
    const before = await usage(keyId);
    const jobsBefore = Number((await db.query('select count(*) from jobs').then((r) => r.rows[0].count)));
    await db.query('alter table webhook_deliveries rename to webhook_deliveries_unavailable');
    let failed;
    try {
      failed = await svc.call('POST', '/api/v1/virtual-fitting', { key, body });
    } finally {
      await db.query('alter table webhook_deliveries_unavailable rename to webhook_deliveries');
    }
    expect(failed.status).toBe(500);
    expect(await usage(keyId)).toBe(before);
    expect(Number((await db.query('select count(*) from jobs').then((r) => r.rows[0].count)))).toBe(jobsBefore);

    const retried = await svc.call('POST', '/api/v1/virtual-fitting', { key, body });
    expect(retried.status).toBe(200);
    expect(retried.body.status).toBe('completed');
    expect(await usage(keyId)).toBe(before + 1);
    const deliveries = await db.query('select event from webhook_deliveries where job_id = $1', [retried.body.jobId]);
    expect(deliveries.rows.map((d) => d.event)).toEqual(['job.completed']);
  });

  it('does not share cached results between keys: another account cannot even use the twin', async () => {
    const other = await svc.createKey();
    const r = await svc.call('POST', '/api/v1/virtual-fitting', { key: other.key, body: { digitalTwinId: twinId, topGarment: [img.top, img.top2], bottomGarment: img.bottom } });
    // twins are owner-scoped: to another account this twin does not exist, so neither do its results
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('NOT_FOUND');
    expect(r.body.results).toBeUndefined();
  });
});
