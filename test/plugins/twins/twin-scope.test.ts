/**
 * Twins are owner-scoped (issue 28, item 7): a twin id works only for the account that made it (any
 * key or token of that account); another account gets the same 404 as for a twin that does not exist,
 * so size fitting on a guessed or leaked id reveals nobody's measurements.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, waitForJob, type TestService } from '../../support/harness.ts';
import { dataUrl, twinImages } from './fixtures.ts';

let svc: TestService;
let shopA: string;
let shopA2: string;
let shopB: string;
let face: string;
let twin: string;

const BODY = { bodyMeasurements: { height: 171, chest: 91, waist: 73 }, gender: 'female' };
const PRODUCTS = [{ id: 'tee', category: 'top', sizeChart: { version: 1, basis: 'body', unit: 'cm', sizes: [{ label: 'S', measurements: { chest: { min: 82, max: 90 } } }, { label: 'M', measurements: { chest: { min: 90, max: 98 } } }] } }];

async function createTwin(key: string): Promise<{ status: number; twinId: string }> {
  const r = await svc.call('POST', '/api/v1/digital-twin', { key, body: { faceImage: face, ...BODY } });
  expect([200, 202], r.text).toContain(r.status);
  const job = await waitForJob(svc, key, r.body.jobId);
  expect(job.status, JSON.stringify(job)).toBe('completed');
  return { status: r.status, twinId: job.digitalTwinId };
}

beforeAll(async () => {
  svc = await startTestService();
  shopA = (await svc.createKey({ accountId: 'shop-a' })).key;
  shopA2 = (await svc.createKey({ accountId: 'shop-a' })).key;
  shopB = (await svc.createKey({ accountId: 'shop-b' })).key;
  face = dataUrl((await twinImages()).face);
  twin = (await createTwin(shopA)).twinId;
}, 60_000);
afterAll(async () => {
  await svc?.close();
});

describe('twin scoping', () => {
  it('the account that made the twin (any of its keys) uses it', async () => {
    expect((await svc.call('GET', `/api/v1/digital-twin/${twin}`, { key: shopA })).status).toBe(200);
    expect((await svc.call('GET', `/api/v1/digital-twin/${twin}`, { key: shopA2 })).status).toBe(200);
    const fit = await svc.call('POST', '/api/v1/size-fitting', { key: shopA2, body: { digitalTwinId: twin, products: PRODUCTS } });
    expect(fit.status, fit.text).toBe(200);
    expect(fit.body.available).toBe(true);
    expect(fit.body.products[0].dimensions.length).toBeGreaterThan(0);
  });

  it('another account gets 404 as for a twin that does not exist: validity, size fitting, try-on', async () => {
    const unknown = 'e'.repeat(64);
    const validity = await svc.call('GET', `/api/v1/digital-twin/${twin}`, { key: shopB });
    const validityUnknown = await svc.call('GET', `/api/v1/digital-twin/${unknown}`, { key: shopB });
    expect(validity.status).toBe(404);
    expect(validity.body).toEqual(validityUnknown.body);

    const fit = await svc.call('POST', '/api/v1/size-fitting', { key: shopB, body: { digitalTwinId: twin, products: PRODUCTS } });
    const fitUnknown = await svc.call('POST', '/api/v1/size-fitting', { key: shopB, body: { digitalTwinId: unknown, products: PRODUCTS } });
    expect(fit.status).toBe(404);
    expect(fit.body).toEqual(fitUnknown.body);
    expect(fit.text).not.toMatch(/chest|fitProbability|distanceCm/);

    const tryOn = await svc.call('POST', '/api/v1/tryon/clothing', { key: shopB, body: { digitalTwinId: twin, topGarment: face, options: { quality: 'draft' } } });
    expect(tryOn.status, tryOn.text).toBe(404);
  });

  it('the same inputs from another account make that account its own twin', async () => {
    const b = await createTwin(shopB);
    expect(b.status).toBe(202); // not the other account's cached twin
    expect(b.twinId).not.toBe(twin);
    expect((await svc.call('GET', `/api/v1/digital-twin/${b.twinId}`, { key: shopB })).status).toBe(200);
    expect((await svc.call('GET', `/api/v1/digital-twin/${b.twinId}`, { key: shopA })).status).toBe(404);
    // and the first account's identical submission is still its cached twin
    const again = await createTwin(shopA);
    expect(again).toEqual({ status: 200, twinId: twin });
  });
});
