/**
 * The CLI as an operator runs it (a child process on the service's database): jobs get, watch,
 * trace and cancel, and doctor's checks with their exit codes and fixes.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../adapters/postgres/embedded.ts';
import { startTestService, waitForJob, type TestService } from '../../support/harness.ts';
import { releaseTestJob, testPlugin } from '../../support/test-plugin.ts';

let svc: TestService;
let key: string;
let dataDir: string;

beforeAll(async () => {
  svc = await startTestService({ plugins: [testPlugin] });
  key = (await svc.createKey()).key;
  dataDir = mkdtempSync(path.join(tmpdir(), 'fitroom-cli-'));
}, 60_000);
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await svc?.close();
});

/** Runs the CLI without blocking this process (the service under test answers in it). */
function cli(args: string[], env: Record<string, string> = {}, onStderr?: (all: string) => void): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawn('node_modules/.bin/node', ['connectors/standalone/cli.ts', ...args], { env: { PATH: process.env.PATH!, HOME: process.env.HOME!, DATABASE_URL: svc.dbUrl, DATA_DIR: dataDir, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  proc.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
    onStderr?.(stderr);
  });
  return new Promise((resolve) => proc.once('exit', (code) => resolve({ code, stdout, stderr })));
}

async function submit(body: Record<string, unknown>): Promise<string> {
  const r = await svc.call('POST', '/api/v1/test-jobs', { key, body });
  expect(r.status, r.text).toBe(202);
  return r.body.jobId;
}

describe('fitroom jobs', () => {
  it('lists the job commands in --help and refuses unknown ones with 2', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    for (const c of ['jobs get ID', 'jobs watch ID', 'jobs trace ID', 'jobs cancel ID', 'doctor']) expect(help.stdout).toContain(c);
    expect((await cli(['jobs', 'frob', 'x'])).code).toBe(2);
    const noId = await cli(['jobs', 'get']);
    expect(noId.code).toBe(1);
    expect(noId.stderr).toMatch(/needs the job's id/);
    const unknown = await cli(['jobs', 'get', '00000000-0000-4000-8000-000000000000']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no job 00000000-/);
  });

  it('watches a job to its end with progress, then gets and traces it', async () => {
    // the work stage lasts until the CLI has shown it (however long its start takes on a loaded machine)
    const id = await submit({ mode: 'wait', waitMs: 60_000, text: 'hello' });
    const watched = await cli(['jobs', 'watch', id], {}, (err) => /processing \(work\)/.test(err) && releaseTestJob(id));
    expect(watched.code, watched.stderr).toBe(0);
    // not a terminal: one progress line per change, from a running stage to completed at 100 %
    const lines = watched.stderr.trim().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.some((l) => /processing \(work\)/.test(l))).toBe(true);
    expect(lines.at(-1)).toMatch(/^\[#{24}\] 100% completed/);
    expect(watched.stdout).toMatch(new RegExp(`^${id}  test-job  completed  stage: completed  progress: 100%`));
    expect(watched.stdout).toMatch(/file: http:\/\/127\.0\.0\.1:\d+\/api\/v1\/files\//);

    const got = await cli(['jobs', 'get', id, '--json']);
    expect(got.code).toBe(0);
    const json = JSON.parse(got.stdout);
    expect(json).toMatchObject({ id, kind: 'test-job', status: 'completed', progress: 100 });
    expect(json.ownerHash).toBeUndefined();
    expect(json.input).toBeUndefined();

    const trace = await cli(['jobs', 'trace', id]);
    expect(trace.code).toBe(0);
    expect(trace.stdout).toMatch(/^\s+1 {2}validate inputs\s+ok\s+\d+ ms$/m);
    // each stage with its duration, and what it noted
    expect(trace.stdout).toMatch(/^\s+2 {2}work\s+ok\s+\d+ ms\n {7}mode: wait, attempt: 1$/m);
    expect(trace.stdout).toMatch(/^\s+3 {2}store\s+ok/m);
  });

  it('cancels a running job; a second cancel and a failed job exit 1', async () => {
    const id = await submit({ mode: 'wait', waitMs: 30_000 });
    await waitForJob(svc, key, id, (j) => j.progress?.stage === 'work');
    const cancelled = await cli(['jobs', 'cancel', id]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stderr).toMatch(/^Cancelled /);
    const job = (await svc.call('GET', `/api/v1/jobs/${id}`, { key })).body;
    expect(job).toMatchObject({ status: 'failed', errorCode: 'CANCELLED' });
    const again = await cli(['jobs', 'cancel', id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already cancelled/);

    const failing = await submit({ mode: 'fail' });
    const watched = await cli(['jobs', 'watch', failing]);
    expect(watched.code).toBe(1);
    expect(watched.stdout).toMatch(/error: VALIDATION_ERROR: The test input asked to fail/);
  });
});

describe('fitroom doctor', () => {
  let other: Server;
  let otherPort: number;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    other = createServer((s) => {
      sockets.add(s);
      s.end('not http\r\n');
    });
    otherPort = await freePort();
    await new Promise<void>((r) => other.listen(otherPort, '127.0.0.1', () => r()));
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => other.close(() => r()));
  });

  const apiPort = () => new URL(svc.api).port;

  it('passes with a reachable database, free ports and a writable DATA_DIR', async () => {
    const r = await cli(['doctor'], { HOST: '127.0.0.1', PORT: String(await freePort()), AR_PORT: String(await freePort()) });
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/^ok {4}Node {8}\d+\.\d+\.\d+/m);
    expect(r.stdout).toMatch(/^ok {4}Database {4}DATABASE_URL answers \(PostgreSQL \d+/m);
    expect(r.stdout).toMatch(/^ok {4}Disk {8}[\d.]+ GB free for /m);
    expect(r.stdout).toMatch(/^ok {4}Blob store {2}.*blobs is writable/m);
    expect(r.stdout).toMatch(/^ok {4}AI vendors {2}none configured/m);
    expect(r.stdout).toMatch(/^ok {4}API host {4}port \d+ is free/m);
    expect(r.stdout.trim()).toMatch(/Ready: npm start$/);
  });

  it('tells a running Fitroom from another program on a port, and says how to fix it', async () => {
    const r = await cli(['doctor'], { HOST: '127.0.0.1', PORT: apiPort(), AR_PORT: String(otherPort), GEMINI_API_KEY: 'test-key' });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^ok {4}API host {4}port ${apiPort()} is in use by a running Fitroom \\d+\\.\\d+\\.\\d+`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^FAIL {2}AR host {5}port ${otherPort} is in use by another program\\n\\s+→ stop that program or choose another port: AR_PORT=<port> npm start`, 'm'));
    // the vendor is asked live: without a route to it a warning (jobs fall back), with one the made-up
    // key is refused; never the key itself in the output
    expect(r.stdout).toMatch(/^(warn {2}AI vendors {2}gemini: unreachable.*\n\s+→ .*jobs fall back along the chain|FAIL {2}AI vendors {2}gemini: account refused)/m);
    expect(r.stdout).not.toContain('test-key');
    expect(r.stdout).toMatch(/[12] problems? to fix before npm start/);
  });

  it('reports an unreachable database and an unwritable blob store', async () => {
    const file = path.join(dataDir, 'not-a-folder');
    writeFileSync(file, 'x');
    const r = await cli(['doctor'], { HOST: '127.0.0.1', PORT: String(await freePort()), AR_PORT: String(await freePort()), DATABASE_URL: `postgres://nobody:x@127.0.0.1:${await freePort()}/none`, DATA_DIR: file });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL {2}Database {4}DATABASE_URL does not answer: .*ECONNREFUSED.*\n\s+→ check DATABASE_URL/m);
    expect(r.stdout).toMatch(/^FAIL {2}Blob store {2}.*not-a-folder\/blobs: ENOTDIR\n\s+→ make DATA_DIR writable/m);
    expect(r.stdout).toMatch(/2 problems to fix before npm start/);
  });
});
