/**
 * The logs of the real service (`main.ts all`, JSON lines): a submission's request line names its
 * job, and every line the worker process writes for that job names the same request id; failures
 * carry their cause and code; no key ever appears.
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callService, startServiceProcess, tempDataDir, until, type ServiceProcess } from '../../support/service-process.ts';

const running = new Set<ChildProcess>();
let svc: ServiceProcess;
let dataDir: string;
let key: string;

beforeAll(async () => {
  dataDir = tempDataDir('fitroom-logs-');
  svc = await startServiceProcess(dataDir, { LOG_FORMAT: 'json', LOG_LEVEL: 'info' }, running);
  key = (await callService(svc, 'POST', '/admin/v1/keys', { admin: true, body: { name: 'logs' } })).body.key;
}, 90_000);
afterAll(async () => {
  for (const p of running) {
    p.kill('SIGTERM');
    await new Promise((r) => p.once('exit', r));
  }
  rmSync(dataDir, { recursive: true, force: true });
});

const lines = () => svc.log().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, any>);

async function submit(body: Record<string, unknown>) {
  const res = await fetch(`${svc.api}/api/v1/test-jobs`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(202);
  return { jobId: ((await res.json()) as { jobId: string }).jobId, requestId: res.headers.get('x-request-id')! };
}

describe('log lines', () => {
  it('thread the request id from the submission through every line of its job', async () => {
    const { jobId, requestId } = await submit({ mode: 'complete' });
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    await until(async () => lines().some((l) => l.jobId === jobId && l.msg === 'job completed'), 90_000);
    const request = lines().find((l) => l.reqId === requestId && l.msg === 'request')!;
    expect(request).toMatchObject({ op: 'submitTestJob', method: 'POST', status: 202, caller: 'user', jobId, name: 'fitroom' });
    const job = lines().filter((l) => l.jobId === jobId && l.msg !== 'request');
    expect(job.map((l) => [l.msg, l.stage])).toEqual([['job started', undefined], ['job stage done', 'validate inputs'], ['job stage done', 'work'], ['job stage done', 'store'], ['job completed', undefined]]);
    // written by the worker process, each naming the request that submitted the job
    expect(job.every((l) => l.reqId === requestId && l.name === 'fitroom worker' && l.kind === 'test-job')).toBe(true);
  });

  it('say why a job failed, with its code, and never hold the key', async () => {
    const { jobId, requestId } = await submit({ mode: 'fail' });
    const failed = await until(async () => lines().find((l) => l.jobId === jobId && l.msg === 'job failed'), 90_000);
    expect(failed).toMatchObject({ reqId: requestId, errorCode: 'VALIDATION_ERROR', level: 50 });
    expect(JSON.stringify(failed.err)).toContain('The test input asked to fail');
    expect(lines().find((l) => l.jobId === jobId && l.msg === 'job stage ended early')).toMatchObject({ reqId: requestId, stage: 'work', outcome: 'failed' });
    expect(svc.log()).not.toContain(key);
  });
});
