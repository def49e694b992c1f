import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, waitForJob, type TestService } from '../../support/harness.ts';
import { testPlugin } from '../../support/test-plugin.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService({ plugins: [testPlugin] });
  key = (await svc.createKey()).key;
});
afterAll(async () => svc?.close());

describe('jobs through the HTTP API', () => {
  it('drives a job through queued → validating → processing → uploading → completed', async () => {
    const sub = await svc.call('POST', '/api/v1/test-jobs', { key, body: { mode: 'wait', waitMs: 400, text: 'hello' } });
    expect(sub.status).toBe(202);
    const seen = new Set<string>();
    const done = await waitForJob(svc, key, sub.body.jobId, (j) => {
      seen.add(j.status);
      return j.status === 'completed' || j.status === 'failed';
    });
    expect(done.status).toBe('completed');
    expect(seen.has('processing')).toBe(true);
    expect(done.progress).toEqual({ stage: 'completed', percentage: 100 });
    expect(done.results).toHaveLength(1);
    const file = await fetch(done.results[0].url);
    expect(file.status).toBe(200);
    expect(await file.text()).toBe('hello');
    const trace = await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}/trace`, { key });
    expect(trace.status).toBe(200);
    expect(trace.body.timeline.map((t: any) => [t.stage, t.status, t.outcome])).toEqual([
      ['validate inputs', 'validating', 'ok'],
      ['work', 'processing', 'ok'],
      ['store', 'uploading', 'ok'],
    ]);
  });

  it('reports a failed job with its error and the failing stage in the trace', async () => {
    const sub = await svc.call('POST', '/api/v1/test-jobs', { key, body: { mode: 'fail' } });
    const done = await waitForJob(svc, key, sub.body.jobId);
    expect(done.status).toBe('failed');
    expect(done.error).toBe('The test input asked to fail');
    expect(done.progress.percentage).toBeUndefined();
    const trace = await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}/trace`, { key });
    expect(trace.body.timeline.at(-1)).toMatchObject({ stage: 'work', outcome: 'failed', detail: { error: 'The test input asked to fail' } });
  });

  it('retries a retryable failure and completes on the next attempt', async () => {
    const sub = await svc.call('POST', '/api/v1/test-jobs', { key, body: { mode: 'flaky' } });
    const done = await waitForJob(svc, key, sub.body.jobId, undefined, 40_000);
    expect(done.status).toBe('completed');
    const trace = await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}/trace`, { key });
    const work = trace.body.timeline.filter((t: any) => t.stage === 'work');
    expect(work.map((t: any) => [t.attempt, t.outcome])).toEqual([
      [1, 'failed'],
      [2, 'ok'],
    ]);
  });

  it('cancels a running job; it never completes afterwards and cannot be cancelled twice', async () => {
    const sub = await svc.call('POST', '/api/v1/test-jobs', { key, body: { mode: 'wait', waitMs: 20_000 } });
    await waitForJob(svc, key, sub.body.jobId, (j) => j.status === 'processing');
    const del = await svc.call('DELETE', `/api/v1/jobs/${sub.body.jobId}`, { key });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ cancelled: true });
    const after = await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}`, { key });
    expect(after.body).toMatchObject({ status: 'failed', cancelled: true });
    // the worker lets go of it: its work stage ends as cancelled (it would read 'running' until then)
    const trace = async () => (await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}/trace`, { key })).body;
    await expect.poll(async () => (await trace()).timeline.find((t: any) => t.stage === 'work').outcome, { timeout: 90_000 }).toBe('cancelled');
    const later = await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}`, { key });
    expect(later.body.status).toBe('failed');
    expect((await trace()).timeline.some((t: any) => t.stage === 'store')).toBe(false);
    const again = await svc.call('DELETE', `/api/v1/jobs/${sub.body.jobId}`, { key });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('JOB_NOT_CANCELLABLE');
  });

  it('cancels a queued job and refuses to cancel a completed one', async () => {
    const sub = await svc.call('POST', '/api/v1/test-jobs', { key, body: { mode: 'complete' } });
    const done = await waitForJob(svc, key, sub.body.jobId);
    const del = await svc.call('DELETE', `/api/v1/jobs/${sub.body.jobId}`, { key });
    expect(done.status).toBe('completed');
    expect(del.status).toBe(409);
    expect(del.body).toMatchObject({ success: false, error: { code: 'JOB_NOT_CANCELLABLE' } });
  });

  it('hides jobs from every other credential with a 404 identical to a missing job', async () => {
    const sub = await svc.call('POST', '/api/v1/test-jobs', { key, body: { mode: 'complete' } });
    const other = (await svc.createKey()).key;
    const foreign = await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}`, { key: other });
    const missing = await svc.call('GET', `/api/v1/jobs/00000000-0000-4000-8000-000000000000`, { key: other });
    const junk = await svc.call('GET', `/api/v1/jobs/not-a-uuid`, { key: other });
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(missing.text);
    expect(junk.text).toBe(missing.text);
    for (const path of [`/api/v1/jobs/${sub.body.jobId}/trace`]) {
      const r = await svc.call('GET', path, { key: other });
      expect(r.status).toBe(404);
      expect(r.text).toBe(missing.text);
    }
    const del = await svc.call('DELETE', `/api/v1/jobs/${sub.body.jobId}`, { key: other });
    expect(del.status).toBe(404);
    expect(del.text).toBe(missing.text);
  });

  it('sends no-store and nosniff on job reads', async () => {
    const sub = await svc.call('POST', '/api/v1/test-jobs', { key, body: { mode: 'complete' } });
    const r = await svc.call('GET', `/api/v1/jobs/${sub.body.jobId}`, { key });
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
