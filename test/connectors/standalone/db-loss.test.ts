/**
 * An external PostgreSQL (DATABASE_URL) that goes away and comes back while the all-in-one service
 * runs (hardening: defect 3). The service cannot restart someone else's database: it must answer
 * health 503 DATABASE_UNAVAILABLE meanwhile, keep its API and worker processes alive, reconnect by
 * itself, and finish the job it accepted before the outage exactly once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../../adapters/postgres/embedded.ts';
import { callService, runUntilExit, startServiceProcess, tempDataDir, until, watchHealth } from '../../support/service-process.ts';

const running = new Set<ChildProcess>();
const dirs: string[] = [];
let cluster: EmbeddedDatabase | null = null;

afterAll(async () => {
  for (const p of running) p.kill('SIGKILL');
  await cluster?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function startCluster(dir: string, port?: number): Promise<EmbeddedDatabase> {
  const db = await startEmbeddedPostgres({ dir, port, persistent: true });
  const admin = new pg.Client(db.adminUrl);
  await admin.connect();
  if (!(await admin.query(`select 1 from pg_database where datname = 'fitroom'`)).rowCount) await admin.query('create database fitroom');
  await admin.end();
  return db;
}

describe('an external database lost and back', () => {
  it('health 503 DATABASE_UNAVAILABLE while it is down, 200 after; processes stay up; the running job completes exactly once', async () => {
    const dataDir = tempDataDir('fitroom-dbloss-');
    dirs.push(dataDir);
    const clusterDir = path.join(dataDir, 'external-pg');
    cluster = await startCluster(clusterDir);
    const port = cluster.port;
    const s = await startServiceProcess(dataDir, { DATABASE_URL: cluster.urlFor('fitroom') }, running);
    const key = (await callService(s, 'POST', '/admin/v1/keys', { admin: true, body: { name: 'db-loss' } })).body.key as string;
    expect((await callService(s, 'GET', '/api/v1/health')).status).toBe(200);

    // a job whose last stages fall into the outage
    const job = (await callService(s, 'POST', '/api/v1/test-jobs', { key, body: { mode: 'wait', waitMs: 1500, text: 'through the outage' } })).body.jobId as string;
    await until(async () => (await callService(s, 'GET', `/api/v1/jobs/${job}`, { key })).body.status === 'processing', 90_000);

    const health = watchHealth(s);
    const downAt = Date.now();
    await cluster.stop(); // fast shutdown: every connection is terminated (57P01)
    cluster = null;
    const down = await until(async () => health.seen.find((h) => h.at > downAt && h.status === 503), 90_000);
    expect(down.code).toBe('DATABASE_UNAVAILABLE');
    // requests that need the database answer 503 with the code, never 500
    const during = await callService(s, 'GET', `/api/v1/jobs/${job}`, { key });
    expect(during.status).toBe(503);
    expect(during.body.error.code).toBe('DATABASE_UNAVAILABLE');
    await new Promise((r) => setTimeout(r, 6000));

    const upAt = Date.now();
    cluster = await startCluster(clusterDir, port);
    const back = await until(async () => health.seen.find((h) => h.at > upAt && h.status === 200), 60_000);
    await health.stop();
    const outage = health.seen.filter((h) => h.at >= down.at && h.at < back.at);
    console.log(`[db-loss] database down ${upAt - downAt} ms; health 503 from +${down.at - downAt} ms to +${back.at - downAt} ms (200 again ${back.at - upAt} ms after the database was back)`);
    expect(outage.every((h) => h.status === 503 && h.code === 'DATABASE_UNAVAILABLE')).toBe(true);

    const final = await until(async () => {
      const r = await callService(s, 'GET', `/api/v1/jobs/${job}`, { key });
      return r.status === 200 && (r.body.status === 'completed' || r.body.status === 'failed') ? r.body : null;
    }, 90_000);
    console.log(`[db-loss] job ${final.status} ${Date.now() - upAt} ms after the database was back`);
    expect(final.status).toBe('completed');
    const file = await fetch(final.results[0].url.replace(/^http:\/\/[^/]+/, s.api));
    expect(await file.text()).toBe('through the outage');
    const trace = (await callService(s, 'GET', `/api/v1/jobs/${job}/trace`, { key })).body;
    console.log(trace.timeline.map((t: { stage: string; attempt: number; outcome: string }) => `${t.stage}#${t.attempt}:${t.outcome}`).join(' '));
    expect(trace.timeline.filter((t: { stage: string; outcome: string }) => t.stage === 'store' && t.outcome === 'ok')).toHaveLength(1);

    // a job accepted after the outage runs as usual
    const after = (await callService(s, 'POST', '/api/v1/test-jobs', { key, body: { mode: 'complete', text: 'after' } })).body.jobId as string;
    const done = await until(async () => {
      const r = await callService(s, 'GET', `/api/v1/jobs/${after}`, { key });
      return r.body.status === 'completed' ? r.body : null;
    }, 90_000);
    expect(done.status).toBe('completed');
    // the worker process waited for the database instead of dying and being replaced
    expect(s.log()).not.toMatch(/worker process \d+ exited/);
    expect(s.log()).toMatch(/database unreachable \(.*\): jobs wait until it answers/);
    expect(s.log()).toMatch(/database reachable again after \d+ ms: jobs resume/);
    s.proc.kill('SIGTERM');
    expect(await s.exited).toBe(0);
  });

  it('a start while the database cannot be reached exits 1 with the cause and what to check', async () => {
    const dataDir = tempDataDir('fitroom-dbloss-');
    dirs.push(dataDir);
    const { code, output: out } = await runUntilExit('api', { DATA_DIR: dataDir, DATABASE_URL: `postgres://fitroom:fitroom@127.0.0.1:${await freePort()}/fitroom`, PORT: '0', AR_PORT: '0', ADMIN_KEY: 'db-loss-admin-key-0123456789' });
    expect(code).toBe(1);
    expect(out).toMatch(/failed to start: the database cannot be reached \(connect ECONNREFUSED 127\.0\.0\.1:\d+\); check DATABASE_URL/);
    expect(out).not.toMatch(/undefined/);
  });
});
