/**
 * Person-photo and shoe try-on through the builtin engine, failed jobs not charged (key usage
 * refunded, AI quota freed), and the monthly AI quota per the credential table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, waitForJob, type TestService } from '../../support/harness.ts';
import { syntheticPerson } from '../../support/images.ts';
import { dataUrl, images, makeTwin, type Images } from './helpers.ts';

let svc: TestService;
let img: Images;
let person: string;
let blank: string;

const usage = (id: string) => svc.usage(id);

beforeAll(async () => {
  svc = await startTestService();
  img = await images();
  person = await dataUrl(syntheticPerson().image);
  // a "packshot" with nothing on it: the engine cannot find a garment, the job fails
  blank = await dataUrl({ width: 64, height: 64, data: new Uint8Array(64 * 64 * 4).fill(255) });
}, 60_000);

afterAll(async () => {
  await svc?.close();
});

describe('try-on with person photos and shoes', () => {
  it('dresses a person photo (personImages) with a product image and auto category', async () => {
    const { key } = await svc.createKey();
    const r = await svc.call('POST', '/api/v1/tryon/clothing', { key, body: { personImages: [person], productImage: img.top, options: { quality: 'draft', preserveBackground: false } } });
    expect(r.status, r.text).toBe(202);
    expect(r.body.digitalTwinId).toBeUndefined();
    const job = await waitForJob(svc, key, r.body.jobId, undefined, 90_000);
    expect(job.status, JSON.stringify(job)).toBe('completed');
    expect(job.results[0].digitalTwinId).toBeUndefined();
  });

  it('puts shoes on a twin through /api/v1/tryon/shoes', async () => {
    const { key } = await svc.createKey();
    const twinId = await makeTwin(svc, key, img.face);
    const r = await svc.call('POST', '/api/v1/tryon/shoes', { key, body: { digitalTwinId: twinId, shoeImages: [{ url: img.shoes, angle: 'side' }], options: { quality: 'draft' } } });
    expect(r.status, r.text).toBe(202);
    const job = await waitForJob(svc, key, r.body.jobId, undefined, 90_000);
    expect(job.status, JSON.stringify(job)).toBe('completed');
    expect(job.results[0].digitalTwinId).toBe(twinId);
  });
});

describe('usage and the monthly AI quota', () => {
  it('refunds key usage and frees the AI quota when a job fails', async () => {
    const { key, id } = await svc.createKey({ monthlyQuota: 1 });
    const r = await svc.call('POST', '/api/v1/tryon/clothing', { key, body: { personImages: [person], topGarment: blank, options: { quality: 'draft' } } });
    expect(r.status, r.text).toBe(202);
    // (usage is not read here: the job may already have failed and been refunded)
    const job = await waitForJob(svc, key, r.body.jobId, undefined, 90_000);
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/garment/i);
    expect(await usage(id)).toBe(0);
    // the failed call did not use the quota: the next one is accepted
    const next = await svc.call('POST', '/api/v1/tryon/clothing', { key, body: { personImages: [person], topGarment: img.top, options: { quality: 'draft' } } });
    expect(next.status, next.text).toBe(202);
    // and that one did
    const over = await svc.call('POST', '/api/v1/tryon/clothing', { key, body: { personImages: [person], topGarment: img.top2, options: { quality: 'draft' } } });
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('QUOTA_EXCEEDED');
    expect(await usage(id)).toBe(1);
    await waitForJob(svc, key, next.body.jobId, undefined, 90_000);
  });

  it('counts the quota per account across its keys; service keys count nothing', async () => {
    const a = await svc.createKey({ accountId: 'acct-7', monthlyQuota: 1 });
    const b = await svc.createKey({ accountId: 'acct-7', monthlyQuota: 1 });
    const first = await svc.call('POST', '/api/v1/tryon/clothing', { key: a.key, body: { personImages: [person], topGarment: img.top, options: { quality: 'draft' } } });
    expect(first.status).toBe(202);
    const second = await svc.call('POST', '/api/v1/tryon/clothing', { key: b.key, body: { personImages: [person], topGarment: img.top, options: { quality: 'draft' } } });
    expect(second.status).toBe(429);
    await svc.call('DELETE', `/api/v1/jobs/${first.body.jobId}`, { key: a.key });

    const service = await svc.createKey({ kind: 'service', monthlyQuota: 0 });
    const s = await svc.call('POST', '/api/v1/tryon/clothing', { key: service.key, body: { personImages: [person], topGarment: img.top, options: { quality: 'draft' } } });
    expect(s.status, s.text).toBe(202);
    expect(await usage(service.id)).toBe(0);
    await svc.call('DELETE', `/api/v1/jobs/${s.body.jobId}`, { key: service.key });
  });
});
