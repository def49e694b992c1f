import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ADMIN_KEY, startTestService, waitForJob, type TestService } from '../../support/harness.ts';
import { testPlugin } from '../../support/test-plugin.ts';
import { TOKENS } from '../../../core/tokens.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ plugins: [testPlugin], env: { MAX_JSON_BYTES: '4096' } });
});
afterAll(async () => svc?.close());

const admin = (method: string, path: string, body?: unknown, key = ADMIN_KEY) => svc.call(method, path, { body, headers: key ? { 'x-admin-key': key } : {} });

describe('health and warm-up', () => {
  it('answers health publicly with the spec schema and rate-limit headers', async () => {
    const r = await svc.call('GET', '/api/v1/health');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'ok', version: '1.2.0' });
    expect(Number.isNaN(Date.parse(r.body.timestamp))).toBe(false);
    expect(r.headers.get('x-ratelimit-limit')).toBe('5000');
    expect(Number(r.headers.get('x-ratelimit-remaining'))).toBeLessThan(5000);
    expect(Number(r.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
  });

  it('warms up with a real queue round trip', async () => {
    const { key } = await svc.createKey();
    const r = await svc.call('GET', '/api/v1/warmup', { key });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('ok');
    expect(r.body.queue.warm).toBe(true);
    expect(r.body.queue.roundTripMs).toBeGreaterThanOrEqual(0);
    expect(typeof r.body.modal.warm).toBe('boolean');
    const q = await svc.call('POST', '/api/v1/queue/warmup', { key });
    expect(q.body).toMatchObject({ status: 'ok', queueWarm: true });
  });
});

describe('API keys', () => {
  const submit = (key?: string) => svc.call('POST', '/api/v1/test-jobs', { key, body: { mode: 'complete' } });

  it('refuses missing, unknown, expired and revoked keys with 401 HTTP_ERROR', async () => {
    const missing = await submit();
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ success: false, error: { code: 'HTTP_ERROR', message: expect.stringMatching(/X-API-Key/) } });
    expect((await submit('fr_live_nonexistent')).body.error.code).toBe('HTTP_ERROR');
    const expired = await svc.createKey({ expiresAt: new Date(Date.now() - 1000) });
    const e = await submit(expired.key);
    expect(e.status).toBe(401);
    expect(e.body.error).toMatchObject({ code: 'HTTP_ERROR', message: expect.stringMatching(/expired/) });
    const revoked = await svc.createKey();
    expect((await admin('DELETE', `/admin/v1/keys/${revoked.id}`)).status).toBe(200);
    const r = await submit(revoked.key);
    expect(r.status).toBe(401);
    expect(r.body.error.message).toMatch(/revoked/);
  });

  it('counts usage on successful billable submissions only and refuses keys over maxUsage', async () => {
    const { key, id } = await svc.createKey({ maxUsage: 2 });
    expect((await svc.call('GET', '/api/v1/health', { key })).status).toBe(200);
    expect((await svc.call('POST', '/api/v1/test-jobs', { key, body: { mode: 'bogus' } })).status).toBe(400);
    expect((await submit(key)).status).toBe(202);
    expect((await submit(key)).status).toBe(202);
    const over = await submit(key);
    expect(over.status).toBe(401);
    expect(over.body.error.message).toMatch(/usage limit/);
    const list = await admin('GET', '/admin/v1/keys');
    expect(list.body.keys.find((k: any) => k.id === id).usageCount).toBe(2);
  });

  it('stores only hashes: the admin listing never shows a secret', async () => {
    const created = await admin('POST', '/admin/v1/keys', { name: 'shop', kind: 'service', accountId: 'acct-1' });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^fr_svc_/);
    expect(created.body.apiKey).toMatchObject({ name: 'shop', kind: 'service', accountId: 'acct-1', isActive: true });
    const list = await admin('GET', '/admin/v1/keys');
    expect(JSON.stringify(list.body)).not.toContain(created.body.key);
    expect(JSON.stringify(list.body)).not.toMatch(/[0-9a-f]{64}/);
  });

  it('rotates a key: the new key works, the old one is refused, and old jobs stay with the old key', async () => {
    const created = await admin('POST', '/admin/v1/keys', { name: 'rotating' });
    const oldKey = created.body.key;
    const job = await submit(oldKey);
    await waitForJob(svc, oldKey, job.body.jobId);
    const rotated = await admin('POST', `/admin/v1/keys/${created.body.apiKey.id}/rotate`);
    expect(rotated.status).toBe(201);
    expect(rotated.body.apiKey.rotatedFrom).toBe(created.body.apiKey.id);
    expect((await submit(rotated.body.key)).status).toBe(202);
    expect((await submit(oldKey)).status).toBe(401);
    expect((await svc.call('GET', `/api/v1/jobs/${job.body.jobId}`, { key: rotated.body.key })).status).toBe(404);
    expect((await admin('POST', `/admin/v1/keys/${created.body.apiKey.id}/rotate`)).status).toBe(409);
  });

  it('guards the admin API with X-Admin-Key and validates its input', async () => {
    expect((await admin('GET', '/admin/v1/keys', undefined, '')).status).toBe(401);
    const wrong = await admin('GET', '/admin/v1/keys', undefined, 'wrong');
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('HTTP_ERROR');
    const bad = await admin('POST', '/admin/v1/keys', { name: '', kind: 'root', extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: any) => d.field).sort()).toEqual(['extra', 'kind', 'name']);
    expect((await admin('DELETE', '/admin/v1/keys/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const { key } = await svc.createKey();
    expect((await svc.call('GET', '/admin/v1/keys', { key })).status).toBe(401);
  });
});

describe('error envelope', () => {
  it('answers malformed JSON with 400 VALIDATION_ERROR', async () => {
    const { key } = await svc.createKey();
    const r = await svc.call('POST', '/api/v1/test-jobs', { key, body: '{"mode": "complete",', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', details: [{ field: '(body)', message: 'is not valid JSON' }] } });
  });

  it('answers an oversized body with 413 in the envelope', async () => {
    const { key } = await svc.createKey();
    const r = await svc.call('POST', '/api/v1/test-jobs', { key, body: { mode: 'complete', text: 'x'.repeat(900), pad: 'y'.repeat(8000) } });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('lists schema violations as field details', async () => {
    const { key } = await svc.createKey();
    const r = await svc.call('POST', '/api/v1/test-jobs', { key, body: { mode: 'sometimes', waitMs: -1, surprise: true } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('VALIDATION_ERROR');
    const fields = Object.fromEntries(r.body.error.details.map((d: any) => [d.field, d.message]));
    expect(fields.mode).toMatch(/one of: complete, fail, flaky, wait/);
    expect(fields.waitMs).toMatch(/>= 0/);
    expect(fields.surprise).toBe('is not allowed');
    const missing = await svc.call('POST', '/api/v1/test-jobs', { key, body: {} });
    expect(missing.body.error.details).toEqual([{ field: 'mode', message: 'is required' }]);
    const notJson = await svc.call('POST', '/api/v1/test-jobs', { key, body: 'mode=complete', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(notJson.status).toBe(415);
    const webhook = await svc.call('POST', '/api/v1/test-jobs', { key, body: { mode: 'complete', webhookUrl: 'http://example.com/hook' } });
    expect(webhook.status).toBe(400);
    expect(webhook.body.error.details).toEqual([{ field: 'webhookUrl', message: 'must be an https URL' }]);
  });

  it('answers unknown routes and methods in the envelope', async () => {
    const r = await svc.call('GET', '/api/v1/nothing-here');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    const m = await svc.call('PUT', '/api/v1/health');
    expect(m.status).toBe(405);
    expect(m.body.error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('answers unexpected errors with 500 and no internal text', async () => {
    const r = await svc.call('POST', '/api/v1/test-explode');
    expect(r.status).toBe(500);
    expect(r.body.error.code).toBe('INTERNAL_ERROR');
    expect(r.text).not.toMatch(/secret|\/srv|at /);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
  });
});

describe('rate limits', () => {
  it('refuses the 51st submission in a minute with 429 and the rate-limit headers', async () => {
    const { key } = await svc.createKey();
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof svc.call>> | undefined;
    for (let i = 0; i < 51; i++) {
      last = await svc.call('POST', '/api/v1/test-jobs', { key, body: { mode: 'invalid' } });
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 50).every((s) => s === 400)).toBe(true);
    expect(statuses[50]).toBe(429);
    expect(last!.body.error.code).toBe('RATE_LIMITED');
    expect(last!.headers.get('x-ratelimit-limit')).toBe('50');
    expect(last!.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    // Other keys and other categories keep their own budgets.
    const other = await svc.createKey();
    expect((await svc.call('POST', '/api/v1/test-jobs', { key: other.key, body: { mode: 'invalid' } })).status).toBe(400);
    const status = await svc.call('GET', '/api/v1/jobs/00000000-0000-4000-8000-000000000000', { key });
    expect(status.status).toBe(404);
    expect(status.headers.get('x-ratelimit-limit')).toBe('500');
  });

  it('gives development keys ten times the budget in development mode', async () => {
    const dev = await startTestService({ plugins: [testPlugin], env: { FITROOM_ENV: 'development' }, worker: false });
    try {
      const { key } = await dev.createKey({ kind: 'development' });
      const r = await dev.call('POST', '/api/v1/test-jobs', { key, body: { mode: 'invalid' } });
      expect(r.headers.get('x-ratelimit-limit')).toBe('500');
    } finally {
      await dev.close();
    }
  });
});

describe('result files', () => {
  it('downloads with the owner key or a valid signature, and hides them from everyone else', async () => {
    const { key } = await svc.createKey();
    const sub = await svc.call('POST', '/api/v1/test-jobs', { key, body: { mode: 'complete', text: 'result-bytes' } });
    const job = await waitForJob(svc, key, sub.body.jobId);
    const url = new URL(job.results[0].url);
    expect(Date.parse(job.results[0].expiresAt)).toBeGreaterThan(Date.now() + 6 * 24 * 3600 * 1000);
    const signed = await fetch(url);
    expect(await signed.text()).toBe('result-bytes');
    const byKey = await svc.call('GET', url.pathname, { key });
    expect(byKey.text).toBe('result-bytes');
    const other = await svc.createKey();
    expect((await svc.call('GET', url.pathname, { key: other.key })).status).toBe(404);
    expect((await svc.call('GET', url.pathname)).status).toBe(401);
    const tampered = new URL(url);
    tampered.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 60));
    expect((await fetch(tampered)).status).toBe(404);
    const past = new URL(url);
    past.searchParams.set('expires', String(Math.floor(Date.now() / 1000) - 10));
    expect((await fetch(past)).status).toBe(404);
  });
});

describe('OpenAPI document and reference page', () => {
  it('publishes a valid OpenAPI 3.1 document with version 1.2.0, the operations and the webhooks', async () => {
    const r = await svc.call('GET', '/api/v1/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    expect(r.body.info.version).toBe('1.2.0');
    expect(Object.keys(r.body.webhooks)).toEqual(['job.completed', 'job.failed', 'batch.completed']);
    expect(r.body.paths['/api/v1/jobs/{jobId}'].get.operationId).toBe('getJob');
    expect(r.body.paths['/api/v1/jobs/{jobId}'].delete.responses['409']).toBeDefined();
    expect(r.body.components.schemas.Job.properties.status.enum).toEqual(['queued', 'validating', 'processing', 'uploading', 'completed', 'failed']);
    const result = await new Validator().validate(r.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('serves a readable reference at /docs with a strict CSP', async () => {
    const page = await fetch(`${svc.api}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(await page.text()).toMatch(/swagger-ui-bundle\.js/);
    const js = await fetch(`${svc.api}/docs/assets/swagger-ui-bundle.js`);
    expect(js.status).toBe(200);
    expect((await js.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });
});

describe('admin API without ADMIN_KEY on an external database', () => {
  it('answers 503', async () => {
    const other = await startTestService({ env: { ADMIN_KEY: '' }, worker: false });
    try {
      const r = await other.call('GET', '/admin/v1/keys', { headers: { 'x-admin-key': 'anything' } });
      expect(r.status).toBe(503);
      expect(r.body.error.code).toBe('ADMIN_NOT_CONFIGURED');
    } finally {
      await other.close();
    }
  });
});

describe('CLI', () => {
  it('creates a key that the API accepts', async () => {
    const out = spawnSync('node_modules/.bin/node', ['connectors/standalone/cli.ts', 'keys', 'create', '--name', 'from-cli', '--kind', 'development'], {
      env: { ...process.env, DATABASE_URL: svc.dbUrl },
      encoding: 'utf8',
    });
    expect(out.status).toBe(0);
    const key = out.stdout.trim();
    expect(key).toMatch(/^fr_dev_/);
    expect((await svc.call('GET', '/api/v1/warmup', { key })).status).toBe(200);
    const bad = spawnSync('node_modules/.bin/node', ['connectors/standalone/cli.ts', 'keys', 'create', '--name', 'x', '--kind', 'root'], { env: { ...process.env, DATABASE_URL: svc.dbUrl }, encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/--kind must be one of/);
  });

  it('helps, rotates and revokes', async () => {
    const cli = (...args: string[]) => spawnSync('node_modules/.bin/node', ['connectors/standalone/cli.ts', ...args], { env: { ...process.env, DATABASE_URL: svc.dbUrl }, encoding: 'utf8' });
    const help = cli('--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/keys revoke ID/);
    expect(cli('nonsense').status).toBe(2);
    const { key, id } = await svc.createKey();
    const rotated = cli('keys', 'rotate', id);
    expect(rotated.status, rotated.stderr).toBe(0);
    const fresh = rotated.stdout.trim();
    expect((await svc.call('GET', '/api/v1/warmup', { key })).status).toBe(401);
    expect((await svc.call('GET', '/api/v1/warmup', { key: fresh })).status).toBe(200);
    const newId = (await svc.fitroom.get(TOKENS.credentials).list()).find((k) => k.rotatedFrom === id)!.id;
    expect(cli('keys', 'revoke', newId).status).toBe(0);
    expect((await svc.call('GET', '/api/v1/warmup', { key: fresh })).status).toBe(401);
    expect(cli('keys', 'revoke').stderr).toMatch(/needs the key's id/);
  });
});

describe('the OpenAPI servers', () => {
  it('lists the AR host as a second server and puts each AR operation under it', async () => {
    const svc = await startTestService({ worker: false });
    try {
      const doc = (await svc.call('GET', '/api/v1/openapi.json')).body;
      expect(doc.servers.map((s: { url: string }) => s.url)).toEqual([svc.api, svc.ar]);
      expect(doc.paths['/tryon/api/upload_shoe'].post.servers).toEqual([{ url: svc.ar }]);
      expect(doc.paths['/api/v1/jobs/{jobId}'].get.servers).toBeUndefined();
    } finally {
      await svc.close();
    }
  });
});
