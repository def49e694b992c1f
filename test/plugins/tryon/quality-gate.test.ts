/**
 * The builtin engine's quality gate through the API: a virtual fitting on a real person photo whose
 * result the gate refuses fails with RESULT_UNRELIABLE and the reason, and the trace holds every
 * check with its value and bound; a result it accepts completes with the checks in the trace.
 * To refuse a good result on purpose, one service runs the builtin engine with a coverage bound
 * no garment can reach (the gate's bounds themselves are tested on constructed cases in
 * test/adapters/builtin/tryon/quality-gate.test.ts).
 */
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinTryOnProvider } from '../../../adapters/builtin/tryon/provider.ts';
import { SharpImageCodec } from '../../../adapters/sharp/image-codec.ts';
import type { ImageModelProvider } from '../../../core/ports/image-model.ts';
import { TOKENS } from '../../../core/tokens.ts';
import { startTestService, waitForJob, type TestService } from '../../support/harness.ts';
import { REAL_PHOTOS } from '../../support/tryon-metrics.ts';
import { images, makeTwin } from './helpers.ts';

let svc: TestService;
let key: string;
const photo = async (dir: string, name: string) => `data:image/jpeg;base64,${(await sharp(path.join(REAL_PHOTOS, dir, name)).jpeg().toBuffer()).toString('base64')}`;

/** Replaces the builtin engine of a running service (the worker resolves providers per job). */
function useBuiltin(s: TestService, provider: BuiltinTryOnProvider) {
  const models = s.fitroom.get(TOKENS.imageModels) as ImageModelProvider[];
  models[models.findIndex((m) => m.id === 'builtin')] = provider;
}

async function fitting(): Promise<{ job: any; generate: any }> {
  const body = { personImages: [await photo('persons', 'model_6.jpg')], topGarment: await photo('garments', '03032_00.jpg'), options: { quality: 'draft', skipResultCache: true } };
  const r = await svc.call('POST', '/api/v1/virtual-fitting', { key, body });
  expect(r.status, r.text).toBe(202);
  const job = await waitForJob(svc, key, r.body.jobId, undefined, 120_000);
  const trace = await svc.call('GET', `/api/v1/jobs/${r.body.jobId}/trace`, { key });
  return { job, generate: trace.body.timeline.find((t: { stage: string }) => t.stage === 'generate') };
}

beforeAll(async () => {
  svc = await startTestService();
  ({ key } = await svc.createKey());
}, 60_000);

afterAll(async () => {
  await svc?.close();
});

describe('the quality gate through POST /api/v1/virtual-fitting', () => {
  it('a result the gate accepts completes, the trace holding every check with its value and bound', async () => {
    const { job, generate } = await fitting();
    expect(job.status, JSON.stringify(job)).toBe('completed');
    const attempt = generate.detail.attempts.at(-1);
    expect(attempt).toMatchObject({ model: 'builtin-warp', outcome: 'succeeded', facts: { qualityGate: { passed: true } } });
    const checks = attempt.facts.qualityGate.checks as { check: string; value: number | string; passed: boolean }[];
    expect(checks.map((c) => c.check)).toEqual(['warp-folded', 'warp-stretch', 'warp-squeeze', 'coverage', 'old-garment', 'fill-area', 'garment-gap', 'print-structure', 'old-cloth', 'limb-repainted', 'limb-synthesised', 'arm-widened', 'foreign-fragments', 'garment-lost', 'neck-fill', 'neck-seam', 'neck-outline', 'arm-join']);
    const coverage = checks.find((c) => c.check === 'coverage')!;
    expect(coverage).toMatchObject({ layer: 'top', min: 0.6, passed: true, by: 'renderer' });
    expect(coverage.value).toBeGreaterThan(0.6);
  });

  it('a result the gate refuses fails the job with RESULT_UNRELIABLE, the reason in the error and the failing check in the trace', async () => {
    useBuiltin(svc, new BuiltinTryOnProvider(new SharpImageCodec(), { gate: { coverage: 1.01 } }));
    const { job, generate } = await fitting();
    expect(job.status, JSON.stringify(job)).toBe('failed');
    expect(job.errorCode).toBe('RESULT_UNRELIABLE');
    expect(job.error).toMatch(/^builtin-warp refused its own result: the new top covers only \d+\.\d % of the torso \(bound 101 %\)$/);
    expect(generate.outcome).toBe('failed');
    const attempt = generate.detail.attempts.at(-1);
    expect(attempt).toMatchObject({ model: 'builtin-warp', outcome: 'failed' });
    expect(attempt.facts.qualityGate.reason).toMatch(/covers only/);
    expect(attempt.facts.qualityGate.checks.find((c: { check: string }) => c.check === 'coverage')).toMatchObject({ min: 1.01, passed: false });
  });

  it('trousers on a full-length person photo fail with RESULT_UNRELIABLE before anything is drawn (they would lie flat over her own)', async () => {
    const body = { personImages: [await photo('persons', '049713_0.jpg')], bottomGarment: await photo('garments', '051946_1.jpg'), options: { quality: 'draft', skipResultCache: true } };
    const r = await svc.call('POST', '/api/v1/virtual-fitting', { key, body });
    expect(r.status, r.text).toBe(202);
    const job = await waitForJob(svc, key, r.body.jobId, undefined, 120_000);
    expect(job.status, JSON.stringify(job)).toBe('failed');
    expect(job.errorCode).toBe('RESULT_UNRELIABLE');
    expect(job.error).toMatch(/trousers or a skirt on a person photo .* fits bottoms to digital twins only/);
  });

  it('a twin is dressed on its own parts and its result passes the same gate (a real packshot, the trace holding the checks)', async () => {
    useBuiltin(svc, new BuiltinTryOnProvider(new SharpImageCodec()));
    const twinId = await makeTwin(svc, key, (await images()).face);
    const body = { digitalTwinId: twinId, topGarment: await photo('garments', '049949_1.jpg'), options: { quality: 'draft', skipResultCache: true } };
    const r = await svc.call('POST', '/api/v1/virtual-fitting', { key, body });
    expect(r.status, r.text).toBe(202);
    const job = await waitForJob(svc, key, r.body.jobId, undefined, 120_000);
    expect(job.status, JSON.stringify(job)).toBe('completed');
    const trace = await svc.call('GET', `/api/v1/jobs/${r.body.jobId}/trace`, { key });
    const attempt = trace.body.timeline.find((t: { stage: string }) => t.stage === 'generate').detail.attempts.at(-1);
    expect(attempt).toMatchObject({ model: 'builtin-warp', outcome: 'succeeded', facts: { qualityGate: { passed: true } } });
    const checks = attempt.facts.qualityGate.checks as { check: string; value: number | string; passed: boolean }[];
    // the shirt's panel whole and its print upright, measured on the twin as on a photo
    expect(checks.find((c) => c.check === 'garment-gap')?.value).toBeLessThan(0.06);
    expect(typeof checks.find((c) => c.check === 'print-structure')?.value).toBe('number');
  });
});
