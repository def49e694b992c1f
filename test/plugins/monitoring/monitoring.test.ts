import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import sharp from 'sharp';
import { startTestService, waitForJob, type TestService } from '../../support/harness.ts';
import { testPlugin } from '../../support/test-plugin.ts';
import { until } from '../../support/service-process.ts';
import { TOKENS } from '../../../core/tokens.ts';
import { SHOTS, launchChromium } from '../ar-host/browser.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../support/tls.ts';

describe('monitoring routes refused without an allowlist', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ worker: false });
  });
  afterAll(() => svc?.close());

  it('answers 403 FORBIDDEN in the envelope for everyone, with or without a key', async () => {
    const { key } = await svc.createKey();
    for (const p of ['/monitoring', '/monitoring/summary', '/monitoring/metrics']) {
      for (const k of [undefined, key]) {
        const r = await svc.call('GET', p, { key: k });
        expect(r.status, p).toBe(403);
        expect(r.body.error.code).toBe('FORBIDDEN');
        expect(r.body.error.message).toMatch(/MONITORING_ALLOWED_IPS/);
      }
    }
  });

  it('ignores X-Forwarded-For when TRUST_PROXY is unset', async () => {
    const r = await svc.call('GET', '/monitoring/summary', { headers: { 'x-forwarded-for': '127.0.0.1' } });
    expect(r.status).toBe(403);
  });
});

describe('TRUST_PROXY', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ worker: false, env: { MONITORING_ALLOWED_IPS: '10.0.0.0/8', TRUST_PROXY: '1' } });
  });
  afterAll(() => svc?.close());

  it('takes the client address the proxy appended to X-Forwarded-For, not one the client wrote', async () => {
    expect((await svc.call('GET', '/monitoring/summary')).status).toBe(403); // loopback itself is not allowed
    expect((await svc.call('GET', '/monitoring/summary', { headers: { 'x-forwarded-for': '10.1.2.3' } })).status).toBe(200);
    // a client that forges 10.x in front of its real address (appended by the proxy) stays refused
    const forged = await svc.call('GET', '/monitoring/summary', { headers: { 'x-forwarded-for': '10.1.2.3, 192.0.2.9' } });
    expect(forged.status).toBe(403);
    expect((await svc.call('GET', '/monitoring/metrics', { headers: { 'x-forwarded-for': '192.0.2.9, 10.9.9.9' } })).status).toBe(200);
  });
});

describe('monitoring with the loopback allowed', () => {
  let svc: TestService;
  let hook: HttpsReceiver;
  beforeAll(async () => {
    hook = await startHttpsReceiver();
    svc = await startTestService({ plugins: [testPlugin], env: { MONITORING_ALLOWED_IPS: '127.0.0.1/32,::1/128' } });
    const { key } = await svc.createKey();
    const ids: string[] = [];
    for (const mode of ['complete', 'complete', 'fail'] as const) {
      const r = await svc.call('POST', '/api/v1/test-jobs', { key, body: { mode, webhookUrl: `${hook.url}/hook` } });
      expect(r.status).toBe(202);
      ids.push(r.body.jobId);
    }
    for (const id of ids) await waitForJob(svc, key, id);
    // wait until the three webhooks are delivered
    await until(async () => (await svc.fitroom.pool.query("select count(*)::int as n from webhook_deliveries where state = 'delivered'")).rows[0].n === 3, 60_000, 'three webhooks delivered');
    // refusals through the rate limiter every operation uses
    const limiter = svc.fitroom.get(TOKENS.rateLimiter);
    for (let i = 0; i < 5; i++) await limiter.consume('submission:ip:192.0.2.1', 2, 60);
    await limiter.consume('status:ip:192.0.2.1', 0, 60);
  });
  afterAll(async () => {
    await svc?.close();
    await hook?.close();
  });

  it('summarises jobs, stages, failures, webhooks, queues and refusals as JSON', async () => {
    const r = await svc.call('GET', '/monitoring/summary?hours=2');
    expect(r.status).toBe(200);
    const s = r.body;
    expect(s.windowHours).toBe(2);
    expect(s.jobs.total).toBe(3);
    expect(s.jobs.byStatus).toEqual({ completed: 2, failed: 1 });
    expect(s.jobs.byKind).toEqual(expect.arrayContaining([{ kind: 'test-job', status: 'completed', count: 2 }, { kind: 'test-job', status: 'failed', count: 1 }]));
    expect(s.failures).toEqual([{ kind: 'test-job', reason: 'VALIDATION_ERROR', count: 1 }]);
    const work = s.stages.find((x: any) => x.stage === 'work');
    expect(work.runs).toBe(3);
    expect(work.p95Ms).toBeGreaterThanOrEqual(work.p50Ms);
    expect(s.stages.find((x: any) => x.stage === 'store').runs).toBe(2);
    expect(s.webhooks).toMatchObject({ delivered: 3, failed: 0, pending: 0, successRate: 1 });
    expect(s.rateLimitRefusals.byCategory).toEqual(expect.arrayContaining([{ category: 'submission', count: 3 }, { category: 'status', count: 1 }]));
    expect(s.rateLimitRefusals.total).toBe(4);
    expect(Array.isArray(s.queues)).toBe(true);
    for (const q of s.queues) expect(q).toEqual({ queue: expect.any(String), waiting: expect.any(Number), running: expect.any(Number), failed: expect.any(Number) });
  });

  it('shows waiting entries per queue', async () => {
    await svc.fitroom.pool.query("select graphile_worker.add_job('monitoring_probe_task', '{}'::json, queue_name => 'probe-queue', run_at => now() + interval '1 hour')");
    const s = (await svc.call('GET', '/monitoring/summary')).body;
    expect(s.queues).toContainEqual({ queue: 'probe-queue', waiting: 1, running: 0, failed: 0 });
  });

  it('refuses a bad window', async () => {
    for (const h of ['0', '169', 'abc', '-1']) {
      const r = await svc.call('GET', `/monitoring/summary?hours=${h}`);
      expect(r.status, h).toBe(400);
      expect(r.body.error.details[0].field).toBe('hours');
    }
  });

  it('exposes Prometheus metrics with prom-client', async () => {
    const r = await svc.call('GET', '/monitoring/metrics');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const t = r.text;
    expect(t).toContain('# TYPE fitroom_jobs_24h gauge');
    expect(t).toMatch(/^fitroom_jobs_24h\{kind="test-job",status="completed"\} 2$/m);
    expect(t).toMatch(/^fitroom_job_failures_24h\{kind="test-job",reason="VALIDATION_ERROR"\} 1$/m);
    expect(t).toMatch(/^fitroom_webhook_deliveries_24h\{state="delivered"\} 3$/m);
    expect(t).toMatch(/^fitroom_rate_limit_refusals_24h\{category="submission"\} 3$/m);
    expect(t).toMatch(/^fitroom_rate_limit_refusals_total\{category="submission"\} 3$/m);
    expect(t).toMatch(/^fitroom_stage_duration_seconds_24h\{stage="work",quantile="0.95"\} [0-9.e-]+$/m);
    expect(t).toMatch(/^fitroom_queue_jobs\{queue="probe-queue",state="waiting"\} 1$/m);
    expect(t).toMatch(/^fitroom_process_cpu_user_seconds_total /m);
  });

  it('draws the page with charts and no script', async () => {
    const r = await svc.call('GET', '/monitoring?hours=6');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(r.text).not.toContain('<script');
    for (const title of ['Queue depth per queue', 'Jobs submitted per hour', 'Stage duration p50 / p95', 'Failure reasons', 'Webhook deliveries (success 100 %', 'Rate-limit refusals (429), 4 in the window']) expect(r.text).toContain(title);
    expect((r.text.match(/<svg /g) ?? []).length).toBeGreaterThanOrEqual(7);

    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1480, height: 1100 } });
      const errors: string[] = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      await page.goto(`${svc.api}/monitoring?hours=6`);
      const file = path.join(SHOTS, 'monitoring.png');
      const png = await page.screenshot({ fullPage: true });
      writeFileSync(file, png);
      expect(errors).toEqual([]);
      // the charts are drawn: a good share of coloured (saturated) pixels
      const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      let coloured = 0;
      for (let i = 0; i < data.length; i += 3) if (Math.max(data[i], data[i + 1], data[i + 2]) - Math.min(data[i], data[i + 1], data[i + 2]) > 60) coloured++;
      expect(coloured / (info.width * info.height)).toBeGreaterThan(0.01);
    } finally {
      await browser.close();
    }
  });
});
