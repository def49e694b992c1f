/**
 * Virtual fitting with faceImage plus an inline body source: the twins capability (INLINE_TWINS)
 * creates or reuses the same twin POST /api/v1/digital-twin would, the response names it at once,
 * and the job renders it (when new) and dresses it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, waitForJob, type TestService } from '../../support/harness.ts';
import { images, type Images } from './helpers.ts';

let svc: TestService;
let img: Images;
let key: string;

beforeAll(async () => {
  svc = await startTestService();
  img = await images();
  ({ key } = await svc.createKey());
}, 120_000);

afterAll(async () => svc?.close());

describe('virtual fitting with an inline body', () => {
  it('creates the twin inside the fitting job, names it at once, and reuses it afterwards', async () => {
    const body = { faceImage: img.face, clothingSize: { height: 176, size: 'L' }, gender: 'male', poseId: 'man_pose', topGarment: img.top, options: { quality: 'draft' } };
    const first = await svc.call('POST', '/api/v1/virtual-fitting', { key, body });
    expect(first.status, first.text).toBe(202);
    const twinId = first.body.digitalTwinId;
    expect(twinId).toMatch(/^[a-f0-9]{64}$/);
    // Not valid until the job has rendered it.
    const job = await waitForJob(svc, key, first.body.jobId, undefined, 90_000);
    expect(job.status, JSON.stringify(job)).toBe('completed');
    expect(job.digitalTwinId).toBe(twinId);
    expect((await svc.call('GET', `/api/v1/digital-twin/${twinId}`, { key })).body).toEqual({ valid: true });

    // The twin endpoint derives the same id for the same face, body and pose: it is a cache hit.
    const twin = await svc.call('POST', '/api/v1/digital-twin', { key, body: { faceImage: img.face, clothingSize: { height: 176, size: 'L' }, gender: 'male', poseId: 'man_pose' } });
    expect(twin.body).toMatchObject({ status: 'completed', digitalTwinId: twinId });

    // A second fitting with another garment reuses the twin.
    const second = await svc.call('POST', '/api/v1/virtual-fitting', { key, body: { ...body, topGarment: img.top, bottomGarment: img.bottom } });
    expect(second.status, second.text).toBe(202);
    expect(second.body.digitalTwinId).toBe(twinId);
    const done = await waitForJob(svc, key, second.body.jobId, undefined, 90_000);
    expect(done.status, JSON.stringify(done)).toBe('completed');
  });

  it('validates the inline body with the twin rules, naming the virtual-fitting fields', async () => {
    const r = await svc.call('POST', '/api/v1/virtual-fitting', { key, body: { faceImage: img.face, photoUrl: img.top, bodyMeasurements: { height: 170, chest: 92 }, topGarment: img.top } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(r.body.error.details)).toMatch(/bodyMeasurements|photoUrl/);
    expect(JSON.stringify(r.body.error.details)).not.toMatch(/bodyPhotoUrl/);
  });
});
