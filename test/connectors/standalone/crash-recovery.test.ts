import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestService, waitForJob, type TestService } from '../../support/harness.ts';
import { until, watchWorker, type WorkerChild } from '../../support/service-process.ts';
import { releaseFileOf, testPlugin } from '../../support/test-plugin.ts';
import { JOB_TASK } from '../../../adapters/postgres/job-store.ts';

/**
 * Worker processes as they run in production (`main.ts worker` on a shared database), killed and
 * stopped for real: SIGKILL mid-job must not lose the job, SIGTERM must let a running job finish.
 * The API runs in this process without a worker; every job is run by a child process.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const DEAD_AFTER_SECONDS = 3;

const children: WorkerChild[] = [];
let svc: TestService;
let key: string;

function spawnWorker(): WorkerChild {
  const proc = spawn(NODE, ['connectors/standalone/main.ts', 'worker'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: svc.dbUrl,
      DATA_DIR: svc.dataDir,
      FITROOM_PLUGINS: './test/support/test-plugin.ts',
      WORKER_DEAD_AFTER_SECONDS: String(DEAD_AFTER_SECONDS),
      FITROOM_ENV: 'production',
      ADMIN_KEY: 'crash-recovery-admin-key-0123',
      PORT: '0',
      AR_PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const child = watchWorker(proc);
  children.push(child);
  return child;
}

const releaseFiles: string[] = [];

/** A job whose work stage runs until the test releases it (release()), whatever the machine's load. */
async function submitWait(text: string): Promise<{ jobId: string; release: () => void }> {
  const sub = await svc.call('POST', '/api/v1/test-jobs', { key, body: { mode: 'wait', waitMs: 60_000, text } });
  expect(sub.status).toBe(202);
  const file = releaseFileOf(sub.body.jobId);
  releaseFiles.push(file);
  return { jobId: sub.body.jobId, release: () => writeFileSync(file, '') };
}

/** Resolves when the worker has printed a line matching `re` (already or later). */
function said(w: WorkerChild, re: RegExp): Promise<void> {
  return new Promise((resolve) => {
    if (re.test(w.output.join(''))) return resolve();
    const onData = () => {
      if (!re.test(w.output.join(''))) return;
      w.proc.stdout!.off('data', onData);
      w.proc.stderr!.off('data', onData);
      resolve();
    };
    w.proc.stdout!.on('data', onData);
    w.proc.stderr!.on('data', onData);
  });
}

async function timeline(jobId: string) {
  const r = await svc.call('GET', `/api/v1/jobs/${jobId}/trace`, { key });
  expect(r.status).toBe(200);
  return r.body.timeline.map((t: any) => [t.stage, t.attempt, t.outcome]);
}

/** Locked queue rows of job tasks (cron tasks that happen to run are not counted) plus locked queues. */
async function lockedJobRows() {
  const r = await svc.fitroom.pool.query<{ n: number }>(
    `select (select count(*) from graphile_worker._private_jobs g join graphile_worker._private_tasks t on t.id = g.task_id
              where g.locked_by is not null and t.identifier = $1)
          + (select count(*) from graphile_worker._private_job_queues where locked_by is not null) as n`,
    [JOB_TASK],
  );
  return Number(r.rows[0].n);
}

async function heartbeatIdsOf(pid: number): Promise<string[]> {
  const r = await svc.fitroom.pool.query<{ worker_id: string }>('select worker_id from worker_heartbeats where pid = $1', [pid]);
  return r.rows.map((x) => x.worker_id);
}

async function stopGracefully(w: WorkerChild) {
  w.proc.kill('SIGTERM');
  return w.exited;
}

beforeAll(async () => {
  svc = await startTestService({ plugins: [testPlugin], worker: false });
  key = (await svc.createKey()).key;
});

afterAll(async () => {
  for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
  await Promise.all(children.map((c) => c.exited));
  await svc?.close();
  for (const f of releaseFiles) rmSync(f, { force: true });
});

describe('worker crash recovery (separate processes on one database)', () => {
  it('completes a job after its worker was killed with SIGKILL mid-job', async () => {
    const { jobId, release } = await submitWait('survived');
    const first = spawnWorker();
    await first.ready;
    // The status moves to processing before the stage's trace row is written: kill only once the
    // work stage is open in the trace, or the first attempt has nothing to close.
    await until(async () => (await timeline(jobId)).some(([stage, , outcome]: unknown[]) => stage === 'work' && outcome === 'running'), 90_000, 'the work stage to open');
    const firstIds = await heartbeatIdsOf(first.proc.pid!);
    expect(firstIds.length).toBeGreaterThan(0);
    first.proc.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    // The killed worker still holds the lock: nothing else may run the job until its heartbeat is stale.
    expect(await lockedJobRows()).toBe(1);
    expect((await svc.call('GET', `/api/v1/jobs/${jobId}`, { key })).body.status).toBe('processing');

    const second = spawnWorker();
    await second.ready;
    release();
    const done = await waitForJob(svc, key, jobId, undefined, 40_000);
    expect(done.status).toBe('completed');
    expect(done.results).toHaveLength(1);
    const file = await fetch(done.results[0].url);
    expect(file.status).toBe(200);
    expect(await file.text()).toBe('survived');

    // The first attempt's open stage is closed as interrupted; the second attempt runs every stage.
    expect(await timeline(jobId)).toEqual([
      ['validate inputs', 1, 'ok'],
      ['work', 1, 'interrupted'],
      ['validate inputs', 2, 'ok'],
      ['work', 2, 'ok'],
      ['store', 2, 'ok'],
    ]);
    // The second worker released exactly the dead worker's locks, and nothing is left locked.
    const released = second.output.join('').match(/released jobs of stopped workers: (.+)/);
    expect(released).not.toBeNull();
    expect(released![1].split(', ').every((id) => firstIds.includes(id.trim()))).toBe(true);
    expect(await lockedJobRows()).toBe(0);
    const queued = await svc.fitroom.pool.query(`select 1 from graphile_worker._private_jobs where payload->>'jobId' = $1`, [jobId]);
    expect(queued.rowCount).toBe(0);

    const idle = await stopGracefully(second);
    expect(idle.code).toBe(0);
    expect(await heartbeatIdsOf(second.proc.pid!)).toEqual([]);
  });

  it('drains on SIGTERM: the running job finishes, no other worker takes it over, exit code 0', async () => {
    const draining = spawnWorker();
    await draining.ready;
    const { jobId, release } = await submitWait('drained');
    await waitForJob(svc, key, jobId, (j) => j.status === 'processing', 90_000);
    // A second, idle worker whose sweeps would release the job if the draining worker stopped beating.
    const bystander = spawnWorker();
    await bystander.ready;
    const job = await svc.call('GET', `/api/v1/jobs/${jobId}`, { key });
    expect(job.body.status).toBe('processing');

    draining.proc.kill('SIGTERM');
    // the job goes on running while the worker drains; it ends once the drain has begun
    await said(draining, /SIGTERM: draining/);
    release();
    const exit = await draining.exited;
    expect(exit.code).toBe(0);
    expect(draining.output.join('')).toMatch(/SIGTERM: draining[\s\S]*stopped/);

    // The job was finished by the draining worker before it exited, in its first and only attempt.
    const done = await svc.call('GET', `/api/v1/jobs/${jobId}`, { key });
    expect(done.body.status).toBe('completed');
    expect(new Date(done.body.updatedAt).getTime()).toBeLessThanOrEqual(exit.at);
    expect(await (await fetch(done.body.results[0].url)).text()).toBe('drained');
    expect(await timeline(jobId)).toEqual([
      ['validate inputs', 1, 'ok'],
      ['work', 1, 'ok'],
      ['store', 1, 'ok'],
    ]);
    expect(bystander.output.join('')).not.toMatch(/released jobs/);
    expect(await lockedJobRows()).toBe(0);
    expect(await heartbeatIdsOf(draining.proc.pid!)).toEqual([]);

    expect((await stopGracefully(bystander)).code).toBe(0);
  });
});
