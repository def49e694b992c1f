import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, waitForJob } from '../../support/harness.ts';
import type { TestService } from '../../support/harness.ts';
import { dataUrl, twinImages } from './fixtures.ts';
import { EN13402_CHEST_BANDS } from '../../../core/sizing/en13402.ts';

let svc: TestService;
let key: string;
let images: Awaited<ReturnType<typeof twinImages>>;
let face: string;
let imageServer: http.Server;
let imageBase: string;

beforeAll(async () => {
  svc = await startTestService();
  key = (await svc.createKey()).key;
  images = await twinImages();
  face = dataUrl(images.face);
  // Serves the same face bytes over HTTP: the twin id depends on bytes, not on how they arrive.
  imageServer = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'image/png' });
    res.end(Buffer.from(req.url === '/face.png' ? images.face : images.otherFace));
  });
  await new Promise<void>((r) => imageServer.listen(0, '127.0.0.1', () => r()));
  imageBase = `http://127.0.0.1:${(imageServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  imageServer?.close();
  await svc?.close();
});

const submit = (body: unknown) => svc.call('POST', '/api/v1/digital-twin', { key, body });
const jobCount = async () => Number((await svc.fitroom.pool.query("select count(*) from jobs where kind = 'digital-twin'")).rows[0].count);

/** Submits, expects a queued job, waits for it and returns the twin id. */
async function createTwin(body: unknown): Promise<{ id: string; job: any; submitted: any }> {
  const r = await submit(body);
  expect(r.status, r.text).toBe(202);
  const job = await waitForJob(svc, key, r.body.jobId);
  expect(job.status, JSON.stringify(job)).toBe('completed');
  return { id: job.result.digitalTwinId, job, submitted: r.body };
}

describe('POST /api/v1/digital-twin validation', () => {
  const measurements = { height: 170, chest: 95 };
  const cases: [string, Record<string, unknown>, { field: string; message: string }[]][] = [
    ['faceImage required', { bodyMeasurements: measurements }, [{ field: 'faceImage', message: 'is required' }]],
    [
      'faceImage format',
      { faceImage: 'ftp://example.com/a.png', bodyMeasurements: measurements },
      [{ field: 'faceImage', message: 'must be an http(s) URL or a data URL of the form data:image/<format>;base64,<data> (png, jpeg, jpg, gif, webp, svg+xml)' }],
    ],
    [
      'a body source is required',
      { faceImage: 'https://example.com/f.png' },
      [{ field: '(body)', message: 'exactly one body source is required next to faceImage: bodyPhotoUrl, silhouetteImage, bodyMeasurements, clothingSize' }],
    ],
    [
      'only one body source',
      { faceImage: 'https://example.com/f.png', bodyMeasurements: measurements, clothingSize: { height: 170, size: 'M' }, silhouetteImage: 'https://example.com/s.png' },
      [
        { field: 'bodyMeasurements', message: 'cannot be combined with silhouetteImage; send exactly one body source' },
        { field: 'clothingSize', message: 'cannot be combined with silhouetteImage; send exactly one body source' },
      ],
    ],
    ['at least two measurements', { faceImage: 'https://example.com/f.png', bodyMeasurements: { height: 170 } }, [{ field: 'bodyMeasurements', message: 'must NOT have fewer than 2 properties' }]],
    ['height lower bound', { faceImage: 'https://example.com/f.png', bodyMeasurements: { height: 139, chest: 90 } }, [{ field: 'bodyMeasurements.height', message: 'must be >= 140' }]],
    ['chest upper bound', { faceImage: 'https://example.com/f.png', bodyMeasurements: { height: 170, chest: 161 } }, [{ field: 'bodyMeasurements.chest', message: 'must be <= 160' }]],
    ['waist lower bound', { faceImage: 'https://example.com/f.png', bodyMeasurements: { height: 170, waist: 54 } }, [{ field: 'bodyMeasurements.waist', message: 'must be >= 55' }]],
    ['hip upper bound', { faceImage: 'https://example.com/f.png', bodyMeasurements: { height: 170, hip: 171 } }, [{ field: 'bodyMeasurements.hip', message: 'must be <= 170' }]],
    ['inseam bounds', { faceImage: 'https://example.com/f.png', bodyMeasurements: { height: 170, inseam: 101 } }, [{ field: 'bodyMeasurements.inseam', message: 'must be <= 100' }]],
    ['measurements are numbers', { faceImage: 'https://example.com/f.png', bodyMeasurements: { height: '170', chest: 90 } }, [{ field: 'bodyMeasurements.height', message: 'must be number' }]],
    ['unknown measurement', { faceImage: 'https://example.com/f.png', bodyMeasurements: { height: 170, neck: 40 } }, [{ field: 'bodyMeasurements.neck', message: 'is not allowed' }]],
    ['clothing size needs height', { faceImage: 'https://example.com/f.png', clothingSize: { size: 'M' } }, [{ field: 'clothingSize.height', message: 'is required' }]],
    ['clothing size height bounds', { faceImage: 'https://example.com/f.png', clothingSize: { height: 211, size: 'M' } }, [{ field: 'clothingSize.height', message: 'must be <= 210' }]],
    ['clothing size letters', { faceImage: 'https://example.com/f.png', clothingSize: { height: 170, size: 'XXXL' } }, [{ field: 'clothingSize.size', message: 'must be one of: XS, S, M, L, XL, XXL, 3XL' }]],
    ['gender values', { faceImage: 'https://example.com/f.png', bodyMeasurements: measurements, gender: 'other' }, [{ field: 'gender', message: 'must be one of: male, female' }]],
    [
      'pose values',
      { faceImage: 'https://example.com/f.png', bodyMeasurements: measurements, poseId: 'sitting' },
      [{ field: 'poseId', message: 'must be one of: standing_arms_down, man_pose, girl_pose, shoe_girl_pose, walking_pose, default' }],
    ],
    ['webhook must be https', { faceImage: 'https://example.com/f.png', bodyMeasurements: measurements, webhookUrl: 'http://example.com/hook' }, [{ field: 'webhookUrl', message: 'must be an https URL' }]],
    ['unknown field', { faceImage: 'https://example.com/f.png', bodyMeasurements: measurements, avatar: true }, [{ field: 'avatar', message: 'is not allowed' }]],
  ];

  it.each(cases)('%s', async (_name, body, details) => {
    const before = await jobCount();
    const r = await submit(body);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error: { code: 'VALIDATION_ERROR', message: expect.any(String), details } });
    expect(await jobCount()).toBe(before);
  });

  it('requires an API key', async () => {
    const r = await svc.call('POST', '/api/v1/digital-twin', { body: { faceImage: face, bodyMeasurements: measurements } });
    expect(r.status).toBe(401);
  });

  it('answers 422 when an image URL cannot be fetched', async () => {
    const r = await submit({ faceImage: `http://127.0.0.1:1/face.png`, bodyMeasurements: measurements });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('IMAGE_FETCH_FAILED');
  });
});

describe('digital twins', () => {
  let measuredId: string;

  it('creates a measurement twin through a staged job, then answers repeats from the cache without a job', async () => {
    const body = { faceImage: face, bodyMeasurements: { height: 182, chest: 104, waist: 90 }, gender: 'male' };
    const { id, job, submitted } = await createTwin(body);
    measuredId = id;
    expect(submitted).toEqual({
      success: true,
      jobId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'queued',
      estimatedProcessingTime: expect.any(Number),
      statusUrl: `${svc.api}/api/v1/jobs/${submitted.jobId}`,
      mode: 'measurements',
    });
    expect(id).toMatch(/^[a-f0-9]{64}$/);
    expect(job.digitalTwinId).toBe(id);
    expect(job.progress).toEqual({ stage: 'completed', percentage: 100 });
    const trace = await svc.call('GET', `/api/v1/jobs/${submitted.jobId}/trace`, { key });
    expect(trace.body.stages).toEqual(['validate inputs', 'resolve body', 'render', 'store']);
    expect(trace.body.timeline.map((t: any) => [t.stage, t.outcome])).toEqual([
      ['validate inputs', 'ok'],
      ['resolve body', 'ok'],
      ['render', 'ok'],
      ['store', 'ok'],
    ]);
    expect(trace.body.timeline[1].detail.imputed).toEqual(['hip', 'inseam']);

    const jobsBefore = await jobCount();
    // Same face bytes (here fetched over HTTP instead of inline), same measurements in another key order.
    const again = await submit({ gender: 'male', bodyMeasurements: { waist: 90, chest: 104, height: 182 }, faceImage: `${imageBase}/face.png` });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ success: true, jobId: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'completed', estimatedProcessingTime: 0, statusUrl: `${svc.api}/api/v1/jobs/${again.body.jobId}`, mode: 'measurements', digitalTwinId: id });
    // The hit is recorded as a job that is completed at once: nothing ran, nothing was queued.
    expect(await jobCount()).toBe(jobsBefore + 1);
    const hitJob = await svc.call('GET', `/api/v1/jobs/${again.body.jobId}`, { key });
    expect(hitJob.body).toMatchObject({ status: 'completed', digitalTwinId: id, result: { digitalTwinId: id } });
    expect((await svc.call('GET', `/api/v1/jobs/${again.body.jobId}/trace`, { key })).body.timeline).toEqual([]);
    const queued = await svc.fitroom.pool.query(`select count(*)::int as n from graphile_worker._private_jobs where payload->>'jobId' = $1`, [again.body.jobId]);
    expect(queued.rows[0].n).toBe(0);

    // The render and body buffers are internal files, never downloadable.
    const twin = (await svc.fitroom.pool.query('select * from twins where id = $1', [id])).rows[0];
    expect(twin.pose).toBe('man_pose');
    expect(twin.profile.measurements).toMatchObject({ height: 182, chest: 104, waist: 90 });
    const files = await svc.fitroom.pool.query('select internal, content_type from files where id = any($1)', [[twin.image_file_id, twin.buffers_file_id]]);
    expect(files.rows).toHaveLength(2);
    expect(files.rows.every((f: any) => f.internal)).toBe(true);
    expect((await svc.call('GET', `/api/v1/files/${twin.image_file_id}`, { key })).status).toBe(404);
  });

  it('GET /api/v1/digital-twin/{id}: valid twins, 404 for unknown or malformed ids', async () => {
    const ok = await svc.call('GET', `/api/v1/digital-twin/${measuredId}`, { key });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ valid: true });
    for (const id of ['0'.repeat(64), 'not-a-twin', measuredId.toUpperCase()]) {
      const r = await svc.call('GET', `/api/v1/digital-twin/${id}`, { key });
      expect(r.status, id).toBe(404);
      expect(r.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: 'Digital twin not found or expired' } });
    }
    expect((await svc.call('GET', `/api/v1/digital-twin/${measuredId}`)).status).toBe(401);
  });

  it('gives each resolved pose its own twin; `default` resolves from configuration and gender', async () => {
    const base = { faceImage: face, bodyMeasurements: { height: 182, chest: 104, waist: 90 }, gender: 'male' };
    // The configured male default is man_pose: explicit man_pose is the same twin.
    const explicit = await submit({ ...base, poseId: 'man_pose' });
    expect(explicit.status).toBe(200);
    expect(explicit.body.digitalTwinId).toBe(measuredId);
    const walking = await createTwin({ ...base, poseId: 'walking_pose' });
    expect(walking.id).not.toBe(measuredId);
    // Gender changes the body (and the default pose): another twin.
    const female = await createTwin({ ...base, gender: 'female', poseId: 'walking_pose' });
    expect(female.id).not.toBe(walking.id);
    // Another face: another twin.
    const otherFace = await createTwin({ ...base, faceImage: `${imageBase}/other.png`, poseId: 'walking_pose' });
    expect(otherFace.id).not.toBe(walking.id);
  });

  it('clothing-size twins default to female; silhouettes ignore the pose', async () => {
    const size = await createTwin({ faceImage: face, clothingSize: { height: 168, size: 'M' } });
    expect(size.submitted.mode).toBe('clothing_size');
    const explicitFemale = await submit({ faceImage: face, clothingSize: { height: 168, size: 'M' }, gender: 'female', poseId: 'girl_pose' });
    expect(explicitFemale.body).toMatchObject({ status: 'completed', digitalTwinId: size.id });
    const row = (await svc.fitroom.pool.query('select gender, pose, profile from twins where id = $1', [size.id])).rows[0];
    expect(row).toMatchObject({ gender: 'female', pose: 'girl_pose' });
    // The chest of a size follows the population inside the size's EN 13402-3 band (not its midpoint).
    const [lo, hi] = EN13402_CHEST_BANDS.female.M;
    expect(row.profile.measurements.chest).toBeGreaterThan(lo);
    expect(row.profile.measurements.chest).toBeLessThan(hi);
    expect(Math.abs(row.profile.measurements.chest - (lo + hi) / 2)).toBeLessThan(1.5);

    const silhouette = dataUrl(images.silhouette);
    const direct = await createTwin({ faceImage: face, silhouetteImage: silhouette, poseId: 'walking_pose' });
    expect(direct.submitted.mode).toBe('direct');
    for (const poseId of ['man_pose', 'default', undefined]) {
      const r = await submit({ faceImage: face, silhouetteImage: silhouette, ...(poseId ? { poseId } : {}) });
      expect(r.body, String(poseId)).toMatchObject({ status: 'completed', digitalTwinId: direct.id, mode: 'direct' });
    }
  });

  it('expires after the cache lifetime: GET 404, resubmission regenerates, purge removes twins and their files', async () => {
    const body = { faceImage: face, bodyMeasurements: { height: 160, hip: 98 }, gender: 'female' };
    const first = await createTwin(body);
    const row = (await svc.fitroom.pool.query('select created_at, expires_at, image_file_id, buffers_file_id from twins where id = $1', [first.id])).rows[0];
    expect(row.expires_at.getTime() - row.created_at.getTime()).toBe(30 * 24 * 3600 * 1000);

    await svc.fitroom.pool.query("update twins set expires_at = now() - interval '1 second' where id = $1", [first.id]);
    expect((await svc.call('GET', `/api/v1/digital-twin/${first.id}`, { key })).status).toBe(404);
    // An expired twin is not a cache hit: a new job regenerates the same id.
    const regenerated = await createTwin(body);
    expect(regenerated.id).toBe(first.id);
    expect((await svc.call('GET', `/api/v1/digital-twin/${first.id}`, { key })).status).toBe(200);
    // The replaced render's files went with it.
    const old = await svc.fitroom.pool.query('select id from files where id = any($1)', [[row.image_file_id, row.buffers_file_id]]);
    expect(old.rows).toHaveLength(0);

    const current = (await svc.fitroom.pool.query('select image_file_id, buffers_file_id from twins where id = $1', [first.id])).rows[0];
    const blobKeys = (await svc.fitroom.pool.query('select blob_key from files where id = any($1)', [[current.image_file_id, current.buffers_file_id]])).rows.map((r: any) => r.blob_key);
    expect(blobKeys).toHaveLength(2);
    await svc.fitroom.pool.query("update twins set expires_at = now() - interval '1 second' where id = $1", [first.id]);
    const purge = svc.fitroom.kernel.crons.find((c) => c.task === 'fitroom_purge_twins');
    expect(purge?.pattern).toMatch(/^\d+ \* \* \* \*$/);
    const others = Number((await svc.fitroom.pool.query('select count(*) from twins where expires_at > now()')).rows[0].count);
    await purge!.run();
    expect((await svc.fitroom.pool.query('select id from twins where id = $1', [first.id])).rows).toHaveLength(0);
    expect((await svc.fitroom.pool.query('select id from files where id = any($1)', [[current.image_file_id, current.buffers_file_id]])).rows).toHaveLength(0);
    const blobs = svc.fitroom.get((await import('../../../core/tokens.ts')).TOKENS.blobStore);
    for (const k of blobKeys) expect(await blobs.get(k)).toBeNull();
    // Unexpired twins are untouched.
    expect(Number((await svc.fitroom.pool.query('select count(*) from twins where expires_at > now()')).rows[0].count)).toBe(others);
    expect((await svc.call('GET', `/api/v1/digital-twin/${measuredId}`, { key })).status).toBe(200);
  });

  it('photo-mode twins are created from a full-body photo', async () => {
    const photo = await createTwin({ faceImage: face, bodyPhotoUrl: dataUrl(images.photo), gender: 'female' });
    expect(photo.submitted.mode).toBe('photo');
    const row = (await svc.fitroom.pool.query('select mode, pose, profile from twins where id = $1', [photo.id])).rows[0];
    expect(row).toEqual({ mode: 'photo', pose: 'girl_pose', profile: null });
  });

  it('fails the job with a clear error when the face bytes are not an image', async () => {
    const r = await submit({ faceImage: `data:image/png;base64,${Buffer.from('not a png at all').toString('base64')}`, bodyMeasurements: { height: 170, chest: 90 } });
    expect(r.status).toBe(202);
    const job = await waitForJob(svc, key, r.body.jobId);
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/image/i);
  });
});
