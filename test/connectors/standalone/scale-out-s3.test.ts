import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../support/database.ts';
import { startS3Server, type TestS3 } from '../../support/s3.ts';
import { FAULTS_ADMIN_KEY, startRoleProcess, until, type RoleProcess } from '../../support/service-process.ts';
import { shoeGlb } from '../../plugins/shoe3d/helpers.ts';
import { releaseFileOf } from '../../support/test-plugin.ts';

/**
 * Many machines, one database, one S3 store: two API processes (A and C) and two worker processes
 * (B1, B2), each with its own DATA_DIR, as on separate machines. Files cross processes only through
 * the bucket: an upload to A is a job's input on a worker and downloads through C; an AR object
 * uploaded to A is served by C; a worker killed mid-job is replaced by the other. At the end no
 * DATA_DIR holds a blob.
 */

let db: { url: string; drop(): Promise<void> };
let s3: TestS3;
let a: RoleProcess;
let c: RoleProcess;
let workers: RoleProcess[];
const running = new Set<ChildProcess>();
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  s3 = await startS3Server();
  const env = { ...s3.env, DATABASE_URL: db.url, ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8', WORKER_DEAD_AFTER_SECONDS: '2', FITROOM_PLUGINS: './test/support/test-plugin.ts', WORKER_CONCURRENCY: '1' };
  [a, c] = await Promise.all([startRoleProcess('api', env, running), startRoleProcess('api', env, running)]);
  workers = await Promise.all([startRoleProcess('worker', env, running), startRoleProcess('worker', env, running)]);
  const r = await fetch(`${a.api}/admin/v1/keys`, { method: 'POST', headers: { 'x-admin-key': FAULTS_ADMIN_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'scale-out' }) });
  key = ((await r.json()) as { key: string }).key;
}, 120_000);

afterAll(async () => {
  for (const p of running) p.kill('SIGKILL');
  await s3?.close();
  await db?.drop();
  for (const f of released) rmSync(f, { force: true });
});

const released: string[] = [];

const call = async (host: string, method: string, p: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${host}${p}`, { method, headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}), ...headers }, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
};
const onHost = (url: string, host: string) => url.replace(/^http:\/\/[^/]+/, host);
const ranBy = (jobId: string) => workers.filter((w) => w.log().includes(jobId));

describe('API and workers on several machines with one S3 store', () => {
  it('uses a file uploaded to A as the input of a job a worker runs, and serves the result through C, ranges included', async () => {
    const glb = await shoeGlb(128);
    const form = new FormData();
    form.append('file', new Blob([Buffer.from(glb)], { type: 'model/gltf-binary' }), 'input.glb');
    const up = await fetch(`${a.api}/api/v1/files/upload`, { method: 'POST', body: form, headers: { 'x-api-key': key } });
    expect(up.status).toBe(200);
    const { url } = (await up.json()) as { url: string };
    // the upload is in the bucket, not in A's DATA_DIR
    expect((await s3.keys()).length).toBeGreaterThan(0);

    const sub = await call(a.api, 'POST', '/api/v1/shoe-3d', { images: [], glbInput: url });
    expect(sub.status).toBe(202);
    const job = await until(async () => {
      const r = await call(c.api, 'GET', `/api/v1/jobs/${sub.body.jobId}`);
      return r.body.status === 'completed' || r.body.status === 'failed' ? r.body : null;
    }, 90_000);
    expect(job.status, JSON.stringify(job)).toBe('completed');
    expect(ranBy(sub.body.jobId)).toHaveLength(1);

    const whole = await fetch(onHost(job.result.glbUrl, c.api));
    expect(whole.status).toBe(200);
    const bytes = Buffer.from(await whole.arrayBuffer());
    expect(bytes.subarray(0, 4).toString('latin1')).toBe('glTF');
    const part = await fetch(onHost(job.result.glbUrl, c.api), { headers: { range: 'bytes=4-11' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 4-11/${bytes.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(4, 12))).toBe(true);
    const past = await fetch(onHost(job.result.glbUrl, c.api), { headers: { range: `bytes=${bytes.length}-` } });
    expect(past.status).toBe(416);
  }, 120_000);

  it('serves an AR object uploaded to A from C', async () => {
    const glb = await shoeGlb(64);
    const form = new FormData();
    form.append('file', new Blob([Buffer.from(glb)], { type: 'model/gltf-binary' }), 'bag.glb');
    const up = await fetch(`${a.ar}/api/upload_mesh`, { method: 'POST', body: form, headers: { authorization: `Bearer ${key}` } });
    expect(up.status).toBe(200);
    const { id } = (await up.json()) as { id: string };
    const got = await fetch(`${c.ar}/api/get_gltf/${id}`);
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).subarray(0, 4).toString('latin1')).toBe('glTF');
  }, 60_000);

  it('finishes on the other worker a job whose worker was killed, and its result downloads through C', async () => {
    // the job runs until released (whatever the machine's load, it is still running when its worker is killed)
    const sub = await call(a.api, 'POST', '/api/v1/test-jobs', { mode: 'wait', waitMs: 60_000, text: 'survived' });
    expect(sub.status).toBe(202);
    const first = await until(async () => ranBy(sub.body.jobId)[0], 30_000);
    first.proc.kill('SIGKILL');
    await first.exited;
    released.push(releaseFileOf(sub.body.jobId));
    writeFileSync(released[0], '');
    const other = workers.find((w) => w !== first)!;
    const job = await until(async () => {
      const r = await call(c.api, 'GET', `/api/v1/jobs/${sub.body.jobId}`);
      return r.body.status === 'completed' || r.body.status === 'failed' ? r.body : null;
    }, 60_000);
    expect(job.status).toBe('completed');
    expect(other.log()).toContain(sub.body.jobId);
    const text = await (await fetch(onHost(job.results[0].url, c.api))).text();
    expect(text).toBe('survived');
  }, 120_000);

  it('leaves no blob in any DATA_DIR: the bucket is the only store', () => {
    for (const p of [a, c, ...workers]) {
      const blobs = path.join(p.dataDir, 'blobs');
      expect(existsSync(blobs) ? readdirSync(blobs) : [], `${p.role} ${p.dataDir}`).toEqual([]);
    }
  });
});
