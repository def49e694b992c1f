/** Request images for try-on API tests: generated packshots and faces as data URLs. */
import type { TestService } from '../../support/harness.ts';
import { waitForJob } from '../../support/harness.ts';
import { drawBottom, drawShoes, drawTop } from '../../support/garments.ts';
import { syntheticFace } from '../../support/images.ts';

import { pngDataUrl as dataUrl } from '../../support/images.ts';

export { dataUrl };

export interface Images {
  top: string;
  top2: string;
  bottom: string;
  shoes: string;
  face: string;
}

export async function images(): Promise<Images> {
  const [top, top2, bottom, shoes, face] = await Promise.all([
    dataUrl(drawTop()),
    dataUrl(drawTop({ colour: [236, 200, 60] })),
    dataUrl(drawBottom()),
    dataUrl(drawShoes()),
    dataUrl(syntheticFace(256, 320).image),
  ]);
  return { top, top2, bottom, shoes, face };
}

/** A measurements twin made through the twins API; returns its id. */
export async function makeTwin(svc: TestService, key: string, face: string): Promise<string> {
  const r = await svc.call('POST', '/api/v1/digital-twin', { key, body: { faceImage: face, bodyMeasurements: { height: 178, chest: 100, waist: 86 }, gender: 'male', poseId: 'man_pose' } });
  if (r.status !== 202 && r.status !== 200) throw new Error(`twin submission failed: ${r.status} ${r.text}`);
  if (r.body.digitalTwinId) return r.body.digitalTwinId;
  const job = await waitForJob(svc, key, r.body.jobId, undefined, 60_000);
  if (job.status !== 'completed') throw new Error(`twin job failed: ${JSON.stringify(job)}`);
  return job.result.digitalTwinId;
}
