/**
 * A 3D vendor that fails, times out or is cancelled: the job falls back to the builtin engine and
 * completes, saying so in its trace; the vendor task is stored before the first status read and is
 * stopped (Meshy: deleted) when the job gives up on it or is cancelled.
 *
 * Fixtures: Meshy's API reference (docs.meshy.ai, multi-image-to-3d: create → `{result}`, retrieve,
 * `DELETE .../{id}`) and Tripo's v3 API as its official Go SDK calls it (VAST-AI-Research/tripo-go-sdk:
 * `POST /files`, `POST /generation/multiview-to-model`, `GET /tasks/{id}` with `error_code` and
 * `error_message` on a failed task).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import nock from 'nock';
import { BuiltinProductReconstructor } from '../../../adapters/builtin/shoe3d/builtin-reconstructor.ts';
import { MeshyProductReconstructor } from '../../../adapters/meshy/product-reconstructor.ts';
import { TripoProductReconstructor } from '../../../adapters/tripo/product-reconstructor.ts';
import type { ProductReconstructor } from '../../../core/ports/product-reconstructor.ts';
import { TOKENS } from '../../../core/tokens.ts';
import type { TestService } from '../../support/harness.ts';
import { until } from '../../support/service-process.ts';
import { followJob, shoePhotos, startShoe3dService } from './helpers.ts';

const MESHY = 'https://api.meshy.ai';
const TRIPO = 'https://openapi.tripo3d.ai';
const FAST = { pollIntervalMs: 10, maxPollIntervalMs: 20 };

/** The chain a deployment with FITROOM_RECONSTRUCTOR=<vendor> gets: the vendor, then builtin; swapped per test. */
let chain: ProductReconstructor[] = [];
const switchable = (i: number): ProductReconstructor => ({
  get id() {
    return chain[i].id;
  },
  get taskTimeoutMs() {
    return chain[i].taskTimeoutMs;
  },
  reconstruct: (req) => chain[i].reconstruct(req),
  cancel: (task, signal) => chain[i].cancel?.(task, signal) ?? Promise.resolve(false),
});

let svc: TestService;
let key: string;
let photos: string[];

beforeAll(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  svc = await startShoe3dService((api) => api.provide(TOKENS.reconstructors, [switchable(0), switchable(1)]));
  key = (await svc.createKey()).key;
  photos = await shoePhotos([0, 90], 240);
}, 120_000);
afterEach(() => nock.cleanAll());
afterAll(async () => {
  await svc?.close();
  nock.enableNetConnect();
});

async function trace(jobId: string) {
  return (await svc.call('GET', `/api/v1/jobs/${jobId}/trace`, { key })).body;
}

describe('3D vendor failures fall back to the builtin engine', () => {
  it('a failed Tripo task: the job completes with builtin, the trace says "tripo failed: ...; builtin used", one task created', async () => {
    chain = [new TripoProductReconstructor({ apiKey: 'tsk_test', ...FAST }), new BuiltinProductReconstructor()];
    let creates = 0;
    let uploads = 0;
    nock(TRIPO).post('/v3/files').times(4).reply(200, () => ({ code: 0, data: { file_token: `tok-${++uploads}` } }));
    nock(TRIPO).post('/v3/generation/multiview-to-model').times(3).reply(200, () => (creates++, { code: 0, data: { task_id: 'tk-f' } }));
    nock(TRIPO).get('/v3/tasks/tk-f').reply(200, { code: 0, data: { task_id: 'tk-f', status: 'failed', progress: 100, error_code: 1001, error_message: 'Fatal error on server side' } });
    const sub = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images: photos } });
    expect(sub.status).toBe(202);
    const { job } = await followJob(svc, key, sub.body.jobId, 120_000);
    const t = await trace(sub.body.jobId);
    expect(job.status, JSON.stringify(job)).toBe('completed');
    expect(creates, JSON.stringify(t.timeline)).toBe(1);
    const stage = t.timeline.find((e: any) => e.stage === 'reconstruct');
    expect(stage.outcome).toBe('ok');
    expect(stage.detail.reconstructor).toBe('builtin');
    expect(stage.detail.fallback).toMatch(/^tripo failed: tripo: task tk-f failed: Fatal error on server side \(error_code 1001\); builtin used$/);
    expect(t.diagnostics.vendorTask).toMatchObject({ reconstructor: 'tripo', id: 'tk-f', outcome: 'failed' });
    expect(t.diagnostics.reconstructionFallback).toBe(stage.detail.fallback);
  }, 150_000);

  it('a Meshy task past its timeout: given up on, deleted at Meshy, builtin used and the job completes', async () => {
    chain = [new MeshyProductReconstructor({ apiKey: 'msy-test', ...FAST, taskTimeoutMs: 400 }), new BuiltinProductReconstructor()];
    nock(MESHY).post('/openapi/v1/multi-image-to-3d').reply(202, { result: 'slow-1' });
    nock(MESHY).get('/openapi/v1/multi-image-to-3d/slow-1').times(10_000).reply(200, { id: 'slow-1', status: 'IN_PROGRESS', progress: 20 });
    const deleted = nock(MESHY).delete('/openapi/v1/multi-image-to-3d/slow-1').reply(200, {});
    const sub = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images: photos } });
    const { job } = await followJob(svc, key, sub.body.jobId, 120_000);
    expect(job.status, JSON.stringify(job)).toBe('completed');
    expect(deleted.isDone()).toBe(true);
    const stage = (await trace(sub.body.jobId)).timeline.find((e: any) => e.stage === 'reconstruct');
    expect(stage.detail.fallback).toMatch(/^meshy failed: .*(still queued after|no result after) \d+ ms; builtin used$/);
  }, 150_000);

  it('an account refusal at Meshy (402) falls back too, without a retry of the creation', async () => {
    chain = [new MeshyProductReconstructor({ apiKey: 'msy-test', ...FAST }), new BuiltinProductReconstructor()];
    let creates = 0;
    nock(MESHY).post('/openapi/v1/multi-image-to-3d').times(3).reply(() => (creates++, [402, { message: 'Insufficient funds' }]));
    const sub = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images: photos } });
    const { job } = await followJob(svc, key, sub.body.jobId, 120_000);
    expect(job.status).toBe('completed');
    expect(creates).toBe(1);
    const t = await trace(sub.body.jobId);
    expect(t.timeline.find((e: any) => e.stage === 'reconstruct').detail.fallback).toBe('meshy failed: meshy: HTTP 402: Insufficient funds; builtin used');
    // no task was created: nothing stored
    expect(t.diagnostics.vendorTask).toBeUndefined();
  }, 150_000);
});

describe('cancelling a job with a running Meshy task', () => {
  it('DELETE /api/v1/jobs/{id} deletes the Meshy task and the job ends cancelled', async () => {
    chain = [new MeshyProductReconstructor({ apiKey: 'msy-test', ...FAST }), new BuiltinProductReconstructor()];
    let polls = 0;
    nock(MESHY).post('/openapi/v1/multi-image-to-3d').reply(202, { result: 'busy-1' });
    nock(MESHY).get('/openapi/v1/multi-image-to-3d/busy-1').times(100_000).reply(200, () => (polls++, { id: 'busy-1', status: 'IN_PROGRESS', progress: 30 }));
    let deletes = 0;
    nock(MESHY).delete('/openapi/v1/multi-image-to-3d/busy-1').times(2).reply(() => (deletes++, [200, {}]));
    const sub = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images: photos } });
    // the task is stored before the first poll
    await until(async () => polls > 0 && (await trace(sub.body.jobId)).diagnostics.vendorTask?.id === 'busy-1', 60_000);
    expect((await svc.call('DELETE', `/api/v1/jobs/${sub.body.jobId}`, { key })).status).toBe(200);
    await until(async () => deletes >= 1, 90_000);
    const { job } = await followJob(svc, key, sub.body.jobId, 60_000);
    expect(job).toMatchObject({ status: 'failed', cancelled: true, errorCode: 'CANCELLED' });
    const stage = (await trace(sub.body.jobId)).timeline.find((e: any) => e.stage === 'reconstruct');
    expect(stage.outcome).toBe('cancelled');
    // the builtin engine never ran for a cancelled job
    expect(stage.detail?.reconstructor).toBeUndefined();
  }, 150_000);
});
