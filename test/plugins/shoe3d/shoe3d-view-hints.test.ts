/**
 * options.views: per-photo hints of which side each photo shows (a named view or an azimuth) and
 * how high the camera was. Checked against the images at submission (one entry per photo, a name
 * and an azimuth that disagree are refused), passed to the reconstructor, and used: hinted azimuths
 * and the hinted elevation show in the trace, the unhinted photos are estimated around them; a
 * photo hinted as a top view is taken from straight above.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../support/harness.ts';
import { materialsVariantsShoe, photographObject } from '../../support/objects.ts';
import { dataUrl, followJob, startShoe3dService } from './helpers.ts';

let svc: TestService;
let key: string;
let photos: string[];
let topPhoto: string;

beforeAll(async () => {
  svc = await startShoe3dService();
  key = (await svc.createKey()).key;
  // the real sneaker model from 10 degrees above, sent as front, side, back three-quarter, front three-quarter
  const shots = photographObject(await materialsVariantsShoe(), [90, 0, 135, 45], { size: 320, elevationDeg: 10, distance: 8, supersample: 2 });
  photos = await Promise.all(shots.map((s) => dataUrl(s.image)));
  // and from straight above, the toe pointing up in the photo
  topPhoto = await dataUrl(photographObject(await materialsVariantsShoe(), [270], { size: 320, elevationDeg: 90, distance: 8, supersample: 2 })[0].image);
});
afterAll(async () => {
  await svc?.close();
});

const submit = (body: unknown) => svc.call('POST', '/api/v1/shoe-3d', { key, body });
const reconstructionNotes = async (jobId: string): Promise<string> => (await svc.call('GET', `/api/v1/jobs/${jobId}/trace`, { key })).body.diagnostics.reconstruction.notes.join('\n');

describe('POST /api/v1/shoe-3d with options.views', () => {
  it('refuses hints that do not match the photos', async () => {
    const short = await submit({ images: photos, options: { views: [{ view: 'front' }] } });
    expect(short.status).toBe(400);
    expect(short.body.error.code).toBe('VALIDATION_ERROR');
    expect(short.body.error.details).toEqual([expect.objectContaining({ field: 'options.views', message: expect.stringMatching(/one entry per photo of images \(4\).*has 1/) })]);
    const conflict = await submit({ images: photos, options: { views: [{ view: 'front', azimuthDeg: 30 }, {}, {}, {}] } });
    expect(conflict.status).toBe(400);
    expect(conflict.body.error.details[0]).toMatchObject({ field: 'options.views[0]', message: expect.stringMatching(/view "front" \(90 degrees\) and azimuthDeg 30/) });
    const unknown = await submit({ images: photos, options: { views: [{ view: 'bottom' }, {}, {}, {}] } });
    expect(unknown.status).toBe(400);
    const raisedTop = await submit({ images: photos, options: { views: [{ view: 'top', elevationDeg: 30 }, {}, {}, {}] } });
    expect(raisedTop.status).toBe(400);
    expect(raisedTop.body.error.details[0]).toMatchObject({ field: 'options.views[0].elevationDeg', message: expect.stringMatching(/straight above/) });
    const steep = await submit({ images: photos, options: { views: [{ elevationDeg: 75 }, {}, {}, {}] } });
    expect(steep.status).toBe(400);
  });

  it('uses every hint: the azimuths as given and the elevation', async () => {
    const views = [{ view: 'front', elevationDeg: 10 }, { view: 'side', elevationDeg: 10 }, { azimuthDeg: 135, elevationDeg: 10 }, { view: 'front-three-quarter', elevationDeg: 10 }];
    const sub = await submit({ images: photos, options: { productType: 'shoe', views } });
    expect(sub.status).toBe(202);
    const { job } = await followJob(svc, key, sub.body.jobId, 120_000);
    expect(job.status).toBe('completed');
    const notes = await reconstructionNotes(sub.body.jobId);
    expect(notes).toMatch(/angles 90\/0\/135\/45 deg \(given\)/);
    expect(notes).toMatch(/camera elevation 10 deg, as hinted/);
    expect(notes).toMatch(/shoe inside \(shoe-last assumptions/);
  });

  it('estimates the photos without a hint around the hinted ones', async () => {
    const sub = await submit({ images: photos, options: { productType: 'shoe', views: [{ view: 'front' }, {}, {}, { view: 'front-three-quarter' }] } });
    expect(sub.status).toBe(202);
    const { job } = await followJob(svc, key, sub.body.jobId, 120_000);
    expect(job.status).toBe('completed');
    const notes = await reconstructionNotes(sub.body.jobId);
    expect(notes).toMatch(/angles 90\/0\/135\/45 deg \(half turn, .*keeping the hinted views\)/);
    expect(notes).toMatch(/camera elevation [\d.]+ deg, estimated/);
  });

  it('takes a photo hinted as a top view from straight above, with the toe where the hint says', async () => {
    const sub = await submit({ images: [...photos, topPhoto], options: { productType: 'shoe', views: [{}, {}, {}, {}, { view: 'top', azimuthDeg: 270 }] } });
    expect(sub.status).toBe(202);
    const { job } = await followJob(svc, key, sub.body.jobId, 120_000);
    expect(job.status).toBe('completed');
    const notes = await reconstructionNotes(sub.body.jobId);
    expect(notes).toMatch(/angles 90\/0\/135\/45\/top\(270\) deg/);
    expect(notes).toMatch(/photo\(s\) 5 from straight above, as hinted/);
    expect(notes).toMatch(/camera elevation [\d.]+ deg, estimated/);
  });
});
