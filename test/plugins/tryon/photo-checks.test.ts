/**
 * Bad person and garment photos fail before any model runs, each with its code (real photos from
 * test/fixtures/real-photos, cropped or combined here).
 */
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, waitForJob, type TestService } from '../../support/harness.ts';
import { REAL_PHOTOS } from '../../support/tryon-metrics.ts';
import { images, type Images } from './helpers.ts';

let svc: TestService;
let key: string;
let img: Images;

const file = (dir: string, name: string) => path.join(REAL_PHOTOS, dir, name);
const jpegUrl = (buf: Buffer) => `data:image/jpeg;base64,${buf.toString('base64')}`;
const photo = async (dir: string, name: string) => jpegUrl(await sharp(file(dir, name)).jpeg().toBuffer());
const crop = async (name: string, left: number, top: number, width: number, height: number) => jpegUrl(await sharp(file('persons', name)).extract({ left, top, width, height }).jpeg().toBuffer());

/** Two people side by side (each photo scaled to half the width). */
async function twoPeople(): Promise<string> {
  const half = async (name: string) => sharp(file('persons', name)).resize(384, 512).toBuffer();
  const canvas = sharp({ create: { width: 768, height: 512, channels: 3, background: '#d8d8d8' } });
  return jpegUrl(await canvas.composite([{ input: await half('model_5.jpg'), left: 0, top: 0 }, { input: await half('model_7.jpg'), left: 384, top: 0 }]).jpeg().toBuffer());
}

async function failure(body: Record<string, unknown>): Promise<{ errorCode: string; error: string; trace: unknown }> {
  const r = await svc.call('POST', '/api/v1/tryon/clothing', { key, body: { ...body, options: { quality: 'draft' } } });
  expect(r.status, r.text).toBe(202);
  const job = await waitForJob(svc, key, r.body.jobId, undefined, 90_000);
  expect(job.status, JSON.stringify(job)).toBe('failed');
  const trace = await svc.call('GET', `/api/v1/jobs/${r.body.jobId}/trace`, { key });
  return { errorCode: job.errorCode, error: job.error, trace: trace.body };
}

beforeAll(async () => {
  svc = await startTestService();
  ({ key } = await svc.createKey());
  img = await images();
}, 60_000);

afterAll(async () => {
  await svc?.close();
});

describe('person photo checks before generation', () => {
  it('a garment packshot in the person slot: PERSON_NOT_FOUND, with where a product photo belongs', async () => {
    const f = await failure({ personImages: [await photo('garments', '050191_1.jpg')], topGarment: await photo('garments', '00055_00.jpg') });
    expect(f.errorCode).toBe('PERSON_NOT_FOUND');
    expect(f.error).toMatch(/product photo/);
  });

  it('two people in the photo: MULTIPLE_PEOPLE', async () => {
    const f = await failure({ personImages: [await twoPeople()], topGarment: await photo('garments', '00055_00.jpg') });
    expect(f.errorCode).toBe('MULTIPLE_PEOPLE');
    expect(f.error).toMatch(/2 people/);
  });

  it('only a head: PERSON_INCOMPLETE', async () => {
    const f = await failure({ personImages: [await crop('model_1.jpg', 290, 60, 230, 240)], topGarment: await photo('garments', '00055_00.jpg') });
    expect(f.errorCode).toBe('PERSON_INCOMPLETE');
    expect(f.error).toMatch(/only a head/);
  });

  it('a head-and-shoulders portrait with a top: PERSON_INCOMPLETE (cut off above the hips)', async () => {
    const f = await failure({ personImages: [await crop('model_1.jpg', 120, 40, 540, 400)], topGarment: await photo('garments', '00055_00.jpg') });
    expect(f.errorCode).toBe('PERSON_INCOMPLETE');
    expect(f.error).toMatch(/above the hips/);
  });

  it('trousers on a photo cut off above the knees: PERSON_INCOMPLETE', async () => {
    const f = await failure({ personImages: [await photo('persons', '05997_00.jpg')], bottomGarment: await photo('garments', '051946_1.jpg') });
    expect(f.errorCode).toBe('PERSON_INCOMPLETE');
    expect(f.error).toMatch(/knees/);
  });

  it('a dress on a photo cut off above the knees: PERSON_INCOMPLETE', async () => {
    const f = await failure({ personImages: [await photo('persons', '05997_00.jpg')], fullBodyGarment: await photo('garments', '053319_1.jpg') });
    expect(f.errorCode).toBe('PERSON_INCOMPLETE');
    expect(f.error).toMatch(/knees/);
  });

  it('a dress on a full-length photo completes', async () => {
    // (on 052964_0 the old houndstooth dress shows in strips beside this one: the gate refuses it)
    const r = await svc.call('POST', '/api/v1/tryon/clothing', { key, body: { personImages: [await photo('persons', '052472_0.jpg')], fullBodyGarment: await photo('garments', '053319_1.jpg'), options: { quality: 'draft' } } });
    expect(r.status, r.text).toBe(202);
    const job = await waitForJob(svc, key, r.body.jobId, undefined, 90_000);
    expect(job.status, JSON.stringify(job)).toBe('completed');
  });

  it('shoes on a full-length photo complete', async () => {
    const r = await svc.call('POST', '/api/v1/tryon/shoes', { key, body: { personImages: [await photo('persons', '052964_0.jpg')], shoeImages: [{ url: await photo('garments', 'sneaker-side.jpg'), angle: 'side' }], options: { quality: 'draft' } } });
    expect(r.status, r.text).toBe(202);
    const job = await waitForJob(svc, key, r.body.jobId, undefined, 90_000);
    expect(job.status, JSON.stringify(job)).toBe('completed');
  });

  it('shoes on a photo without feet: PERSON_INCOMPLETE', async () => {
    const f = await failure({ personImages: [await photo('persons', 'model_1.jpg')], topGarment: await photo('garments', '00055_00.jpg'), shoes: img.shoes });
    expect(f.errorCode).toBe('PERSON_INCOMPLETE');
    expect(f.error).toMatch(/feet/);
  });

  it('a person photo in a garment slot: PERSON_IN_GARMENT_SLOT', async () => {
    const f = await failure({ personImages: [await photo('persons', 'model_1.jpg')], topGarment: await photo('persons', 'model_6.jpg') });
    expect(f.errorCode).toBe('PERSON_IN_GARMENT_SLOT');
    expect(f.error).toMatch(/topGarment/);
  });

  it('a good pair completes, and the trace names the learned engine', async () => {
    const r = await svc.call('POST', '/api/v1/tryon/clothing', { key, body: { personImages: [await photo('persons', 'model_8.jpg')], topGarment: await photo('garments', '049805_1.jpg'), options: { quality: 'draft' } } });
    expect(r.status, r.text).toBe(202);
    const job = await waitForJob(svc, key, r.body.jobId, undefined, 90_000);
    expect(job.status, JSON.stringify(job)).toBe('completed');
    const trace = await svc.call('GET', `/api/v1/jobs/${r.body.jobId}/trace`, { key });
    expect(JSON.stringify(trace.body)).toMatch(/"engine":"learned"/);
  });
});
