import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import https from 'node:https';
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { startTestService, waitForJob, type TestService } from '../../support/harness.ts';
import { testTlsOptions } from '../../support/tls.ts';
import { until, watchWorker, type WorkerChild } from '../../support/service-process.ts';
import { shoeGlb, shoePhotos } from '../../plugins/shoe3d/helpers.ts';

/**
 * A worker SIGKILLed while it polls a Meshy task: after the restart the job resumes the same task,
 * and Meshy sees exactly one task creation. The worker runs as a child process (`main.ts worker` on
 * the test's database) with MESHY_BASE_URL pointed at a loopback HTTPS server that plays Meshy's
 * documented multi-image-to-3D API (docs.meshy.ai: `POST /openapi/v1/multi-image-to-3d` → 202
 * `{result}`, `GET .../{id}` → `{status: PENDING | IN_PROGRESS | SUCCEEDED, progress, model_urls.glb}`)
 * and counts the requests: nock cannot reach into another process. The API runs in this process.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const NODE = path.join(ROOT, 'node_modules/.bin/node');

interface StandInTask {
  id: string;
  polls: number;
  /** Status reads answered with a 5xx before the task is reported at all. */
  failPolls: number;
  done: boolean;
}

/** The stand-in for Meshy's API: one task per creation, reported IN_PROGRESS until `finish`. */
interface MeshyStandIn {
  url: string;
  creates: number;
  tasks: Map<string, StandInTask>;
  /** 5xx answers the next created task gives to its first status reads. */
  failFirstPolls: number;
  finish(id: string): void;
  close(): Promise<void>;
}

async function startMeshyStandIn(glb: Uint8Array): Promise<MeshyStandIn> {
  const tasks = new Map<string, StandInTask>();
  const self = { creates: 0, failFirstPolls: 0 } as MeshyStandIn;
  const server = https.createServer(testTlsOptions(), (req, res) => {
    req.resume();
    req.on('end', () => {
      const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const url = req.url ?? '';
      // the model file is a signed CDN URL: fetched without the key
      if (req.method === 'GET' && url.startsWith('/assets/')) return res.writeHead(200, { 'content-type': 'model/gltf-binary' }).end(Buffer.from(glb));
      if (req.headers.authorization !== 'Bearer msy-standin-key') return json(401, { message: 'Invalid API key' });
      if (req.method === 'POST' && url === '/openapi/v1/multi-image-to-3d') {
        const id = `task-${++self.creates}`;
        tasks.set(id, { id, polls: 0, failPolls: self.failFirstPolls, done: false });
        self.failFirstPolls = 0;
        return json(202, { result: id });
      }
      const m = /^\/openapi\/v1\/multi-image-to-3d\/([^/?]+)$/.exec(url);
      if (req.method === 'GET' && m) {
        const task = tasks.get(m[1]);
        if (!task) return json(404, { message: 'Task not found' });
        task.polls++;
        if (task.failPolls > 0) {
          task.failPolls--;
          return json(503, { message: 'Service Unavailable' });
        }
        if (!task.done) return json(200, { id: task.id, status: 'IN_PROGRESS', progress: Math.min(task.polls, 90) });
        return json(200, { id: task.id, status: 'SUCCEEDED', progress: 100, model_urls: { glb: `${self.url}/assets/${task.id}.glb?Expires=1` } });
      }
      return json(404, { message: 'Not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  self.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  self.tasks = tasks;
  self.finish = (id) => {
    const t = tasks.get(id);
    if (t) t.done = true;
  };
  self.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return self;
}

const children: WorkerChild[] = [];
let svc: TestService;
let key: string;
let meshy: MeshyStandIn;
let photos: string[];

function spawnWorker(): WorkerChild {
  const proc = spawn(NODE, ['connectors/standalone/main.ts', 'worker'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: svc.dbUrl,
      DATA_DIR: svc.dataDir,
      WORKER_DEAD_AFTER_SECONDS: '3',
      FITROOM_ENV: 'production',
      ADMIN_KEY: 'vendor-resume-admin-key-0123',
      PORT: '0',
      AR_PORT: '0',
      // the stand-in's certificate is signed by the test CA
      NODE_EXTRA_CA_CERTS: inject('tlsCaPath'),
      MESHY_API_KEY: 'msy-standin-key',
      MESHY_BASE_URL: meshy.url,
      MESHY_POLL_INTERVAL_MS: '40',
      FITROOM_RECONSTRUCTOR: 'meshy',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const child = watchWorker(proc);
  children.push(child);
  return child;
}

async function trace(jobId: string) {
  const r = await svc.call('GET', `/api/v1/jobs/${jobId}/trace`, { key });
  expect(r.status).toBe(200);
  return r.body;
}

/** Submits a shoe-3d job; a worker that polls it is killed with SIGKILL; a new worker finishes it. */
async function killWhilePolling(taskId: string): Promise<{ jobId: string; job: any; trace: any }> {
  const sub = await svc.call('POST', '/api/v1/shoe-3d', { key, body: { images: photos } });
  expect(sub.status).toBe(202);
  const first = spawnWorker();
  await first.ready;
  // polling has begun, and the task was stored with the job before the first status read
  await until(async () => (meshy.tasks.get(taskId)?.polls ?? 0) >= 3, 120_000);
  expect((await trace(sub.body.jobId)).diagnostics.vendorTask).toMatchObject({ reconstructor: 'meshy', id: taskId });
  first.proc.kill('SIGKILL');
  expect((await first.exited).signal).toBe('SIGKILL');

  const pollsBefore = meshy.tasks.get(taskId)!.polls;
  const second = spawnWorker();
  await second.ready;
  // the restarted attempt reads the same task again; only then does the task finish
  await until(async () => meshy.tasks.get(taskId)!.polls > pollsBefore, 120_000);
  meshy.finish(taskId);
  const job = await waitForJob(svc, key, sub.body.jobId, undefined, 180_000);
  second.proc.kill('SIGTERM');
  await second.exited;
  return { jobId: sub.body.jobId, job, trace: await trace(sub.body.jobId) };
}

beforeAll(async () => {
  meshy = await startMeshyStandIn(await shoeGlb());
  svc = await startTestService({ worker: false });
  key = (await svc.createKey()).key;
  photos = await shoePhotos([0, 90], 240);
}, 120_000);

afterAll(async () => {
  for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
  await Promise.all(children.map((c) => c.exited));
  await svc?.close();
  await meshy?.close();
});

describe('a Meshy task survives a worker killed mid-poll', () => {
  it('resumes the same task after a SIGKILL: one task creation, the job completes with the Meshy model', async () => {
    const { job, trace: t } = await killWhilePolling('task-1');
    expect(job.status, JSON.stringify(job)).toBe('completed');
    expect(meshy.creates).toBe(1);
    const reconstruct = t.timeline.filter((e: any) => e.stage === 'reconstruct');
    expect(reconstruct.map((e: any) => [e.attempt, e.outcome])).toEqual([[1, 'interrupted'], [2, 'ok']]);
    expect(reconstruct[1].detail.reconstructor, JSON.stringify(reconstruct[1].detail)).toBe('meshy');
    expect(reconstruct[1].detail.notes.join('\n')).toMatch(/meshy: resuming task task-1/);
    expect(reconstruct[1].detail.fallback).toBeUndefined();
    expect(t.diagnostics.vendorTask).toMatchObject({ reconstructor: 'meshy', id: 'task-1', outcome: 'succeeded' });
  }, 400_000);

  it('the same after a 5xx on the first status read: still one creation for the job', async () => {
    const createsBefore = meshy.creates;
    meshy.failFirstPolls = 1;
    const { job, trace: t } = await killWhilePolling('task-2');
    expect(job.status, JSON.stringify(job)).toBe('completed');
    expect(meshy.creates - createsBefore).toBe(1);
    expect(t.diagnostics.vendorTask).toMatchObject({ id: 'task-2', outcome: 'succeeded' });
    expect(t.timeline.filter((e: any) => e.stage === 'reconstruct').at(-1).detail.reconstructor).toBe('meshy');
  }, 400_000);
});
