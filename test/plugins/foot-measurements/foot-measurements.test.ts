import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/harness.ts';
import { FOOT_MEASUREMENT_STORE } from '../../../core/ports/foot-measurement-store.ts';
import { shoeSizes } from '../../../plugins/foot-measurements/shoe-sizes.ts';

const FOOT_KEY = 'foot-admin-secret-0123456789abcdef';
const SCAN = { left: { lengthMm: 268, widthMm: 101 }, right: { lengthMm: 270, widthMm: 103, girthMm: 248 }, device: { platform: 'ios', model: 'iPhone15,2', sdkVersion: '2.4.1', lidar: true } };

describe('foot measurements', () => {
  let svc: TestService;
  let clientId: string;
  // null: no header at all
  const scan = (body: unknown, id: string | null = clientId) => svc.call('POST', '/api/v1/foot-measurements', { body, headers: id === null ? {} : { 'x-client-id': id } });
  const admin = (method: string, path: string, key: string | null = FOOT_KEY) => svc.call(method, path, { headers: key === null ? {} : { 'x-admin-key': key } });

  beforeAll(async () => {
    svc = await startTestService({ worker: false, env: { FOOT_ADMIN_KEY: FOOT_KEY, FOOT_SCAN_RETENTION_DAYS: '30' } });
    const r = await svc.call('POST', '/admin/v1/foot-clients', { body: { name: 'Size kiosk' }, headers: { 'x-admin-key': ADMIN_KEY } });
    expect(r.status).toBe(201);
    expect(r.body.clientId).toMatch(/^fc_[A-Za-z0-9]{24}$/);
    clientId = r.body.clientId;
  }, 60_000);
  afterAll(() => svc?.close());

  it('stores a scan sent with X-Client-Id and answers the sizes of the longer foot', async () => {
    const r = await scan(SCAN);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ clientId, feet: { left: SCAN.left, right: SCAN.right }, device: SCAN.device });
    // 270 mm: last = foot + 2 units; EU 1.5 × 27 + 2 = 42.5 → 43; UK 3 × 10.63 − 23 = 8.89 → 9; US men 10; US women 11.5
    expect(r.body.recommended).toMatchObject({ basis: 'right', footLengthMm: 270, footWidthMm: 103, eu: 43, uk: 9, usMen: 10, usWomen: 11.5, mondopoint: '270/103' });
    expect(r.body.recommended.perFoot.left).toEqual(shoeSizes(SCAN.left));
    expect(r.body.recommended.source).toMatch(/wikipedia\.org\/wiki\/Shoe_size/);
    expect(r.body.recommended.source).toMatch(/ISO 9407/);
    const days = (Date.parse(r.body.expiresAt) - Date.parse(r.body.createdAt)) / 86_400_000;
    expect(days).toBe(30);
  });

  it('converts along the published formulas', () => {
    expect(shoeSizes({ lengthMm: 230, widthMm: 88 })).toEqual({ eu: 37, uk: 4.5, usMen: 5.5, usWomen: 7, mondopoint: '230/88' });
    expect(shoeSizes({ lengthMm: 300, widthMm: 112.4 })).toEqual({ eu: 47, uk: 12.5, usMen: 13.5, usWomen: 15, mondopoint: '300/112' });
    // sizes grow with the foot and never shrink
    let last = shoeSizes({ lengthMm: 150, widthMm: 60 });
    for (let l = 151; l <= 340; l++) {
      const s = shoeSizes({ lengthMm: l, widthMm: 90 });
      expect(s.eu).toBeGreaterThanOrEqual(last.eu);
      expect(s.uk).toBeGreaterThanOrEqual(last.uk);
      last = s;
    }
  });

  it('refuses a missing, malformed, unknown or revoked client id with 401', async () => {
    for (const id of [null, 'nope', 'fc_AAAAAAAAAAAAAAAAAAAAAAAA']) {
      const r = await scan(SCAN, id);
      expect(r.status, String(id)).toBe(401);
      expect(r.body.error.code).toBe('HTTP_ERROR');
    }
    expect((await scan(SCAN, null)).body.error.message).toMatch(/X-Client-Id/);
    const c = await svc.call('POST', '/admin/v1/foot-clients', { body: { name: 'old app' }, headers: { 'x-admin-key': ADMIN_KEY } });
    expect((await scan(SCAN, c.body.clientId)).status).toBe(201);
    expect((await svc.call('DELETE', `/admin/v1/foot-clients/${c.body.clientId}`, { headers: { 'x-admin-key': ADMIN_KEY } })).status).toBe(204);
    expect((await scan(SCAN, c.body.clientId)).status).toBe(401);
    // an API key is not a client id
    const { key } = await svc.createKey();
    expect((await svc.call('POST', '/api/v1/foot-measurements', { key, body: SCAN })).status).toBe(401);
  });

  it('refuses bad measurements with the field named', async () => {
    const cases: [unknown, string][] = [
      [{}, '(body)'],
      [{ device: { platform: 'web' } }, 'left'],
      [{ left: { lengthMm: 1000, widthMm: 100 } }, 'left.lengthMm'],
      [{ left: { lengthMm: 260 } }, 'left.widthMm'],
      [{ left: { lengthMm: 260, widthMm: 200 } }, 'left.widthMm'],
      [{ left: { lengthMm: 260, widthMm: 190 } }, 'left.widthMm'],
      [{ left: { lengthMm: '260', widthMm: 100 } }, 'left.lengthMm'],
      [{ left: { lengthMm: 260, widthMm: 100, toes: 5 } }, 'left'],
      [{ right: { lengthMm: 260, widthMm: 100 }, device: { nested: { a: 1 } } }, 'device.nested'],
      [{ right: { lengthMm: 260, widthMm: 100 }, owner: 'x' }, 'owner'],
    ];
    for (const [body, field] of cases) {
      const r = await scan(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
      expect(r.body.error.details.map((d: any) => d.field).join(' '), JSON.stringify(body)).toContain(field);
    }
  });

  it('lists and deletes scans with FOOT_ADMIN_KEY only', async () => {
    expect((await admin('GET', '/api/v1/foot-measurements/recent', null)).status).toBe(401);
    const wrong = await admin('GET', '/api/v1/foot-measurements/recent', 'wrong-key');
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('HTTP_ERROR');
    // the deployment's ADMIN_KEY is a different secret
    expect((await admin('GET', '/api/v1/foot-measurements/recent', ADMIN_KEY)).status).toBe(401);
    const list = await admin('GET', `/api/v1/foot-measurements/recent?limit=200&clientId=${clientId}`);
    expect(list.status).toBe(200);
    expect(list.body.scans.length).toBeGreaterThanOrEqual(1);
    expect(list.body.scans.every((s: any) => s.clientId === clientId)).toBe(true);
    const id = list.body.scans[0].id;
    expect((await admin('DELETE', `/api/v1/foot-measurements/${id}`, 'wrong-key')).status).toBe(401);
    expect((await admin('DELETE', `/api/v1/foot-measurements/${id}`)).status).toBe(204);
    expect((await admin('DELETE', `/api/v1/foot-measurements/${id}`)).status).toBe(404);
    expect((await admin('DELETE', '/api/v1/foot-measurements/not-a-uuid')).status).toBe(400);
    for (const q of ['limit=0', 'limit=201', 'clientId=abc']) expect((await admin('GET', `/api/v1/foot-measurements/recent?${q}`)).status, q).toBe(400);
  });

  it('drops scans past their retention', async () => {
    const r = await scan(SCAN);
    await svc.fitroom.pool.query("update foot_scans set expires_at = now() - interval '1 second' where id = $1", [r.body.id]);
    const list = await admin('GET', '/api/v1/foot-measurements/recent?limit=200');
    expect(list.body.scans.map((s: any) => s.id)).not.toContain(r.body.id);
    expect((await admin('DELETE', `/api/v1/foot-measurements/${r.body.id}`)).status).toBe(404);
    expect(await svc.fitroom.get(FOOT_MEASUREMENT_STORE).purgeExpired(new Date())).toBeGreaterThanOrEqual(1);
    expect((await svc.fitroom.pool.query('select 1 from foot_scans where id = $1', [r.body.id])).rowCount).toBe(0);
  });

  it('documents the routes in OpenAPI', async () => {
    const doc = (await svc.call('GET', '/api/v1/openapi.json')).body;
    expect(Object.keys(doc.paths['/api/v1/foot-measurements'])).toEqual(['post']);
    expect(doc.paths['/api/v1/foot-measurements/recent'].get.responses['503']).toBeDefined();
    expect(doc.paths['/api/v1/foot-measurements/{id}'].delete).toBeDefined();
    expect(doc.components.schemas.FootMeasurementRequest).toBeDefined();
    expect(doc.components.schemas.RecommendedShoeSizes).toBeDefined();
    // the whole document (with the monitoring and texture-painter operations) stays valid OpenAPI 3.1
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
  });
});

describe('foot measurement admin routes without FOOT_ADMIN_KEY', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ worker: false });
  }, 60_000);
  afterAll(() => svc?.close());

  it('answer 503 ADMIN_NOT_CONFIGURED', async () => {
    for (const [m, p] of [['GET', '/api/v1/foot-measurements/recent'], ['DELETE', '/api/v1/foot-measurements/7a0e9a52-4d36-4c53-9d3e-2f4ed4c1b7a1']]) {
      for (const headers of [{}, { 'x-admin-key': 'anything' }, { 'x-admin-key': ADMIN_KEY }] as Record<string, string>[]) {
        const r = await svc.call(m, p, { headers });
        expect(r.status, `${m} ${p}`).toBe(503);
        expect(r.body.error.code).toBe('ADMIN_NOT_CONFIGURED');
        expect(r.body.error.message).toMatch(/FOOT_ADMIN_KEY/);
      }
    }
  });
});
