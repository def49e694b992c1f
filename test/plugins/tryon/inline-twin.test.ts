/**
 * Virtual fitting with faceImage plus an inline body source goes through the INLINE_TWINS port:
 * the response names the twin at once and the job dresses that twin. Without the port the request
 * is refused with a pointer to POST /api/v1/digital-twin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePlugin } from '../../../core/plugin.ts';
import { TWINS } from '../../../core/ports/twin-store.ts';
import { INLINE_TWINS, type InlineTwinRequest } from '../../../core/tryon/inline-twins.ts';
import { startTestService, waitForJob, type TestService } from '../../support/harness.ts';
import { images, makeTwin, type Images } from './helpers.ts';

let svc: TestService;
let bare: TestService;
let img: Images;
let key: string;
let twinId = '';
const seen: InlineTwinRequest[] = [];

/** Stands in for the twins capability: every inline body resolves to one prepared twin. */
const inlineTwinsPlugin = definePlugin({
  name: 'inline-twins-for-test',
  setup(api) {
    api.provide(INLINE_TWINS, {
      async identify(req) {
        seen.push(req);
        return { digitalTwinId: twinId, cached: true, handle: { twinId } };
      },
      async ensure(handle) {
        const render = await api.get(TWINS).loadRender((handle as { twinId: string }).twinId);
        if (!render) throw new Error('twin missing');
        return render;
      },
    });
  },
});

beforeAll(async () => {
  svc = await startTestService({ plugins: [inlineTwinsPlugin] });
  bare = await startTestService({ worker: false, shareDatabaseWith: svc });
  img = await images();
  ({ key } = await svc.createKey());
  twinId = await makeTwin(svc, key, img.face);
}, 120_000);

afterAll(async () => {
  await bare?.close();
  await svc?.close();
});

describe('virtual fitting with an inline body', () => {
  it('creates or reuses the twin, names it at once and dresses it', async () => {
    const r = await svc.call('POST', '/api/v1/virtual-fitting', {
      key,
      body: { faceImage: img.face, clothingSize: { height: 176, size: 'L' }, gender: 'male', poseId: 'man_pose', topGarment: img.top, options: { quality: 'draft' } },
    });
    expect(r.status, r.text).toBe(202);
    expect(r.body.digitalTwinId).toBe(twinId);
    expect(seen.at(-1)).toMatchObject({ faceImage: img.face, clothingSize: { height: 176, size: 'L' }, gender: 'male', poseId: 'man_pose' });
    const job = await waitForJob(svc, key, r.body.jobId, undefined, 90_000);
    expect(job.status, JSON.stringify(job)).toBe('completed');
    expect(job.digitalTwinId).toBe(twinId);
  });

  it('is refused where no twins capability offers inline bodies', async () => {
    const r = await bare.call('POST', '/api/v1/virtual-fitting', { key, body: { faceImage: img.face, bodyMeasurements: { height: 170, chest: 92 }, topGarment: img.top } });
    expect(r.status).toBe(503);
    expect(r.body.error.message).toMatch(/digitalTwinId/);
  });
});
