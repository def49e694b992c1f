/**
 * Input rules of the try-on operations, answered with VALIDATION_ERROR and field details, and the
 * model checks that run before any outbound request.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/harness.ts';
import { images, type Images } from './helpers.ts';

let svc: TestService;
let key: string;
let img: Images;
const twin = 'a'.repeat(64);
let server: http.Server;
let hits = 0;
let imageUrl: string;

beforeAll(async () => {
  svc = await startTestService({ worker: false });
  key = (await svc.createKey()).key;
  img = await images();
  // a loopback image server that counts requests: nothing may be fetched for a refused call
  server = http.createServer((_req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'image/png' });
    res.end(Buffer.from(img.top.split(',')[1], 'base64'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  imageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/top.png`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  await svc?.close();
});

async function expectInvalid(path: string, body: unknown, field: string, message?: RegExp) {
  const r = await svc.call('POST', path, { key, body });
  expect(r.status, r.text).toBe(400);
  expect(r.body.success).toBe(false);
  expect(r.body.error.code).toBe('VALIDATION_ERROR');
  const detail = r.body.error.details.find((d: { field: string }) => d.field === field);
  expect(detail, `no detail for ${field} in ${r.text}`).toBeDefined();
  if (message) expect(detail.message).toMatch(message);
}

describe('virtual-fitting and clothing try-on input rules', () => {
  it('needs an identity, and only one', async () => {
    await expectInvalid('/api/v1/virtual-fitting', { topGarment: img.top }, '(body)', /identity is required/);
    await expectInvalid('/api/v1/virtual-fitting', { digitalTwinId: twin, personImages: [img.face], topGarment: img.top }, 'personImages', /one way/);
    await expectInvalid('/api/v1/virtual-fitting', { digitalTwinId: twin, faceImage: img.face, bodyMeasurements: { height: 170, chest: 90 }, topGarment: img.top }, 'faceImage');
    await expectInvalid('/api/v1/tryon/clothing', { topGarment: img.top }, 'personImages', /required when digitalTwinId is absent/);
    await expectInvalid('/api/v1/tryon/clothing', { digitalTwinId: twin, personImages: [img.face], topGarment: img.top }, 'personImages');
  });

  it('pairs faceImage with exactly one inline body source', async () => {
    await expectInvalid('/api/v1/virtual-fitting', { faceImage: img.face, topGarment: img.top }, 'faceImage', /exactly one body source/);
    await expectInvalid('/api/v1/virtual-fitting', { faceImage: img.face, bodyMeasurements: { height: 170, chest: 90 }, clothingSize: { height: 170, size: 'M' }, topGarment: img.top }, 'clothingSize', /exactly one/);
    await expectInvalid('/api/v1/virtual-fitting', { bodyMeasurements: { height: 170, chest: 90 }, topGarment: img.top }, 'faceImage', /required with bodyMeasurements/);
    await expectInvalid('/api/v1/virtual-fitting', { digitalTwinId: twin, clothingSize: { height: 170, size: 'M' }, topGarment: img.top }, 'clothingSize', /needs faceImage/);
    await expectInvalid('/api/v1/virtual-fitting', { digitalTwinId: twin, gender: 'male', topGarment: img.top }, 'gender');
    // the inline sources keep their own schemas (the twins plugin's)
    await expectInvalid('/api/v1/virtual-fitting', { faceImage: img.face, bodyMeasurements: { height: 300, chest: 90 }, topGarment: img.top }, 'bodyMeasurements.height');
  });

  it('needs a clothing slot or a product image, never both', async () => {
    await expectInvalid('/api/v1/virtual-fitting', { digitalTwinId: twin }, '(body)', /clothing slot/);
    await expectInvalid('/api/v1/virtual-fitting', { digitalTwinId: twin, shoes: img.shoes }, '(body)', /add-on/);
    await expectInvalid('/api/v1/virtual-fitting', { digitalTwinId: twin, productImage: img.top, topGarment: img.top }, 'topGarment', /productImage/);
    await expectInvalid('/api/v1/virtual-fitting', { digitalTwinId: twin, productImage: img.top, shoes: img.shoes }, 'shoes', /productImage/);
    await expectInvalid('/api/v1/tryon/clothing', { digitalTwinId: twin, topGarment: img.top, productCategory: 'top' }, 'productCategory', /needs one/);
  });

  it('checks slot, image and option shapes with the schema', async () => {
    await expectInvalid('/api/v1/virtual-fitting', { digitalTwinId: twin, topGarment: [img.top, img.top, img.top] }, 'topGarment');
    await expectInvalid('/api/v1/tryon/clothing', { personImages: [img.face, img.face, img.face, img.face], topGarment: img.top }, 'personImages');
    await expectInvalid('/api/v1/virtual-fitting', { digitalTwinId: twin, topGarment: 'ftp://example.com/a.png' }, 'topGarment');
    await expectInvalid('/api/v1/virtual-fitting', { digitalTwinId: twin, topGarment: 'data:image/bmp;base64,AAAA' }, 'topGarment');
    await expectInvalid('/api/v1/virtual-fitting', { digitalTwinId: 'ABC', topGarment: img.top }, 'digitalTwinId');
    await expectInvalid('/api/v1/virtual-fitting', { digitalTwinId: twin, topGarment: img.top, webhookUrl: 'http://example.com/hook' }, 'webhookUrl');
    await expectInvalid('/api/v1/virtual-fitting', { digitalTwinId: twin, topGarment: img.top, options: { quality: 'ultra' } }, 'options.quality');
    await expectInvalid('/api/v1/virtual-fitting', { digitalTwinId: twin, topGarment: img.top, options: { promptPreset: 'clothing-9' } }, 'options.promptPreset');
    await expectInvalid('/api/v1/virtual-fitting', { digitalTwinId: twin, topGarment: img.top, options: { provider: 'openai' } }, 'options.provider');
    await expectInvalid('/api/v1/virtual-fitting', { digitalTwinId: twin, topGarment: img.top, extra: 1 }, 'extra');
  });

  it('refuses a pinned model with too few reference slots before fetching anything', async () => {
    const before = hits;
    const r = await svc.call('POST', '/api/v1/tryon/clothing', { key, body: { personImages: [imageUrl], topGarment: imageUrl, options: { model: 'fal-ai/flux-pro/kontext' } } });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('INPUT_REFERENCE_LIMIT');
    expect(r.body.error.message).toMatch(/at most 1 input reference; this call sends 2/);
    // three person images and a grid: four references, too many for the one slot of Kontext [max] too
    const r2 = await svc.call('POST', '/api/v1/tryon/clothing', { key, body: { personImages: [imageUrl, imageUrl, imageUrl], topGarment: imageUrl, options: { model: 'fal-ai/flux-pro/kontext/max' } } });
    expect(r2.body.error.code).toBe('INPUT_REFERENCE_LIMIT');
    expect(hits).toBe(before);
    await expectInvalid('/api/v1/tryon/clothing', { personImages: [imageUrl], topGarment: imageUrl, options: { model: 'no-such-model' } }, 'options.model');
    expect(hits).toBe(before);
  });

  it('answers 404 for an unknown twin', async () => {
    const r = await svc.call('POST', '/api/v1/virtual-fitting', { key, body: { digitalTwinId: twin, topGarment: img.top } });
    expect(r.status).toBe(404);
  });
});

describe('shoe try-on, generation and pose-transfer input rules', () => {
  it('shoe try-on: 1-4 shoe images with distinct angles, one identity', async () => {
    await expectInvalid('/api/v1/tryon/shoes', { digitalTwinId: twin }, 'shoeImages');
    await expectInvalid('/api/v1/tryon/shoes', { digitalTwinId: twin, shoeImages: [] }, 'shoeImages');
    await expectInvalid('/api/v1/tryon/shoes', { digitalTwinId: twin, shoeImages: Array(5).fill({ url: img.shoes }) }, 'shoeImages');
    await expectInvalid('/api/v1/tryon/shoes', { digitalTwinId: twin, shoeImages: [{ url: img.shoes, angle: 'top' }] }, 'shoeImages[0].angle');
    await expectInvalid('/api/v1/tryon/shoes', { digitalTwinId: twin, shoeImages: [{ url: img.shoes, angle: 'side' }, { url: img.shoes, angle: 'side' }] }, 'shoeImages', /once/);
    await expectInvalid('/api/v1/tryon/shoes', { shoeImages: [{ url: img.shoes }] }, 'personImages');
    await expectInvalid('/api/v1/tryon/shoes', { personImages: [img.face, img.face, img.face], shoeImages: [{ url: img.shoes }] }, 'personImages');
  });

  it('generation: prompt of 1-2000 characters, at most 4 input images', async () => {
    await expectInvalid('/api/v1/generate', {}, 'prompt');
    await expectInvalid('/api/v1/generate', { prompt: '' }, 'prompt');
    await expectInvalid('/api/v1/generate', { prompt: 'x'.repeat(2001) }, 'prompt');
    await expectInvalid('/api/v1/generate', { prompt: 'a dress', inputImages: Array(5).fill(img.top) }, 'inputImages');
  });

  it('generation needs a configured vendor model: 503 without one', async () => {
    const r = await svc.call('POST', '/api/v1/generate', { key, body: { prompt: 'a red dress on a mannequin' } });
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('SERVICE_UNAVAILABLE');
  });

  it('pose transfer: a person and exactly one pose source', async () => {
    await expectInvalid('/api/v1/pose-transfer', { poseId: 'walking_pose' }, 'personImage');
    await expectInvalid('/api/v1/pose-transfer', { personImage: img.face }, '(body)', /exactly one of poseImage or poseId/);
    await expectInvalid('/api/v1/pose-transfer', { personImage: img.face, poseImage: img.face, poseId: 'walking_pose' }, 'poseId');
    await expectInvalid('/api/v1/pose-transfer', { personImage: img.face, poseId: 'sitting' }, 'poseId');
  });

  it('publishes the operations and their schemas in the OpenAPI document', async () => {
    const r = await svc.call('GET', '/api/v1/openapi.json');
    expect(r.status).toBe(200);
    for (const p of ['/api/v1/virtual-fitting', '/api/v1/tryon/clothing', '/api/v1/tryon/shoes', '/api/v1/generate', '/api/v1/pose-transfer']) expect(r.body.paths[p]?.post, p).toBeDefined();
    expect(r.body.components.schemas.PoseTransferRequest.properties.poseId).toBeDefined();
  });
});
