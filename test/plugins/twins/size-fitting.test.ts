import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TWINS } from '../../../core/ports/twin-store.ts';
import { SIZE_FITTING_RESPONSE_SCHEMA } from '../../../core/sizing/size-fitting-schema.ts';
import { startTestService, waitForJob } from '../../support/harness.ts';
import type { TestService } from '../../support/harness.ts';
import { dataUrl, twinImages } from './fixtures.ts';

let svc: TestService;
let key: string;
let keyId: string;
let measured: string;
let sized: string;
let photo: string;
let direct: string;

async function createTwin(body: unknown): Promise<string> {
  const r = await svc.call('POST', '/api/v1/digital-twin', { key, body });
  expect(r.status, r.text).toBe(202);
  const job = await waitForJob(svc, key, r.body.jobId);
  expect(job.status, JSON.stringify(job)).toBe('completed');
  return job.digitalTwinId;
}

beforeAll(async () => {
  svc = await startTestService();
  ({ key, id: keyId } = await svc.createKey());
  const images = await twinImages();
  const face = dataUrl(images.face);
  [measured, sized, photo, direct] = await Promise.all([
    createTwin({ faceImage: face, bodyMeasurements: { height: 178, chest: 98, waist: 84 }, gender: 'male' }),
    createTwin({ faceImage: face, clothingSize: { height: 165, size: 'S' } }),
    createTwin({ faceImage: face, bodyPhotoUrl: dataUrl(images.photo) }),
    createTwin({ faceImage: face, silhouetteImage: dataUrl(images.silhouette) }),
  ]);
});

afterAll(async () => {
  await svc?.close();
});

const fit = (body: unknown) => svc.call('POST', '/api/v1/size-fitting', { key, body });

/** EN 13402-3 men's letters by chest (cm). */
const MEN_TOPS = [
  { label: 'S', measurements: { chest: { min: 86, max: 94 } } },
  { label: 'M', measurements: { chest: { min: 94, max: 102 } } },
  { label: 'L', measurements: { chest: { min: 102, max: 110 } } },
];
const chart = (sizes: unknown[], unit = 'cm') => ({ version: 1, basis: 'body', unit, sizes });
const toInches = (sizes: typeof MEN_TOPS) =>
  sizes.map((s) => ({ label: s.label, measurements: { chest: { min: s.measurements.chest.min / 2.54, max: s.measurements.chest.max / 2.54 } } }));

describe('POST /api/v1/size-fitting', () => {
  it('recommends sizes per product with per-dimension verdicts, in the published response shape', async () => {
    const r = await fit({
      digitalTwinId: measured,
      products: [
        { id: 'tee', category: 'top', sizeChart: chart(MEN_TOPS) },
        {
          id: 'chinos',
          category: 'bottom',
          sizeChart: chart([
            { label: '30', measurements: { waist: { min: 74, max: 80 }, inseam: { min: 78, max: 92 } } },
            { label: '32', measurements: { waist: { min: 80, max: 86 }, inseam: { min: 78, max: 92 } } },
            { label: '34', measurements: { waist: { min: 86, max: 92 }, inseam: { min: 78, max: 92 } } },
          ]),
        },
      ],
    });
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    const validate = new Ajv2020({ strict: true }).compile(SIZE_FITTING_RESPONSE_SCHEMA);
    expect(validate(r.body), JSON.stringify(validate.errors)).toBe(true);
    expect(r.body.success).toBe(true);
    expect(r.body.available).toBe(true);
    expect(r.body.digitalTwinId).toBe(measured);
    const [tee, chinos] = r.body.products;
    expect(tee).toMatchObject({ id: 'tee', recommendedSize: 'M', dimensions: [{ dimension: 'chest', status: 'fit', distanceCm: 0, supplied: true }] });
    expect(tee.confidence).toBeGreaterThan(0.8);
    expect(tee.alternatives.map((a: any) => a.label)).toEqual(expect.arrayContaining(['S', 'L']));
    expect(chinos.recommendedSize).toBe('32');
    expect(chinos.dimensions).toEqual([
      { dimension: 'waist', status: 'fit', distanceCm: 0, supplied: true, fitProbability: expect.any(Number) },
      { dimension: 'inseam', status: 'fit', distanceCm: 0, supplied: false, fitProbability: expect.any(Number) },
    ]);
    // Waist 84 in 80-86 with a tape's 1.5 cm: likely inside; the imputed inseam, in a wide band, too.
    expect(chinos.dimensions[0].fitProbability).toBeGreaterThan(0.8);
    expect(chinos.dimensions[1].fitProbability).toBeGreaterThan(0.8);
    expect(chinos).toMatchObject({ fitPreference: 'regular', reason: '32: waist fits, inseam (estimated) fits.' });
    for (const p of r.body.products) {
      for (const s of [p.confidence, ...p.alternatives.map((a: any) => a.score)]) {
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1);
      }
    }
  });

  it('converts inch charts before evaluating: the same chart in inches gives the same answer', async () => {
    const cm = await fit({ digitalTwinId: measured, products: [{ id: 'a', category: 'top', sizeChart: chart(MEN_TOPS) }] });
    const inches = await fit({ digitalTwinId: measured, products: [{ id: 'a', category: 'top', sizeChart: chart(toInches(MEN_TOPS), 'in') }] });
    expect(inches.status).toBe(200);
    expect(inches.body.products[0].recommendedSize).toBe(cm.body.products[0].recommendedSize);
    expect(inches.body.products[0].confidence).toBeCloseTo(cm.body.products[0].confidence, 2);
    // A chest range given in inches, read as inches: 40-43 in is 101.6-109.2 cm, above a 98 cm chest.
    const loose = await fit({ digitalTwinId: measured, products: [{ id: 'b', category: 'top', sizeChart: chart([{ label: 'L', measurements: { chest: { min: 40, max: 43 } } }], 'in') }] });
    expect(loose.body.products[0].dimensions[0]).toMatchObject({ dimension: 'chest', status: 'loose', distanceCm: -3.6, supplied: true });
  });

  it('settles a chest/waist conflict by the smaller total miss, says which dimension decided, and follows fitPreference', async () => {
    // The twin: chest 98 and waist 84. M fits the chest but not the waist; L the waist but not the chest.
    const sizes = [
      { label: 'M', measurements: { chest: { min: 94, max: 102 }, waist: { min: 76, max: 82 } } },
      { label: 'L', measurements: { chest: { min: 101, max: 109 }, waist: { min: 82, max: 88 } } },
    ];
    const r = await fit({
      digitalTwinId: measured,
      products: (['regular', 'loose', 'snug'] as const).map((fitPreference) => ({ id: fitPreference, category: 'top', sizeChart: chart(sizes), fitPreference })),
    });
    expect(r.status, r.text).toBe(200);
    const [regular, loose, snug] = r.body.products;
    // M misses by 2 cm of waist, L by 3 cm of chest: M, decided by the chest.
    expect(regular).toMatchObject({ recommendedSize: 'M', decidedBy: 'chest', fitPreference: 'regular', confidence: 1 });
    expect(regular.reason).toBe('M: chest fits, waist is 2 cm above the range. Chosen over L by the chest.');
    // Liking room: the waist's tightness counts double (4) and L's chest slack half (1.5): L, decided by the waist.
    expect(loose).toMatchObject({ recommendedSize: 'L', decidedBy: 'waist', fitPreference: 'loose' });
    expect(snug).toMatchObject({ recommendedSize: 'M', fitPreference: 'snug' });
    const bad = await fit({ digitalTwinId: measured, products: [{ id: 'x', category: 'top', sizeChart: chart(sizes), fitPreference: 'baggy' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([{ field: 'products[0].fitPreference', message: 'must be one of: regular, loose, snug' }]);
  });

  it('sizes a clothing-size twin from its letter', async () => {
    const women = [
      { label: 'XS', measurements: { chest: { min: 74, max: 82 } } },
      { label: 'S', measurements: { chest: { min: 82, max: 90 } } },
      { label: 'M', measurements: { chest: { min: 90, max: 98 } } },
    ];
    const r = await fit({ digitalTwinId: sized, products: [{ id: 'blouse', category: 'top', sizeChart: chart(women) }] });
    expect(r.body.products[0].recommendedSize).toBe('S');
    expect(r.body.products[0].dimensions[0]).toMatchObject({ dimension: 'chest', status: 'fit', supplied: true });
  });

  it('answers available: false for photo-mode and direct twins', async () => {
    for (const id of [photo, direct]) {
      const r = await fit({ digitalTwinId: id, products: [{ id: 'tee', category: 'top', sizeChart: chart(MEN_TOPS) }] });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ success: true, available: false, digitalTwinId: id, reason: expect.any(String) });
    }
  });

  it('answers 404 for unknown and expired twins', async () => {
    const unknown = await fit({ digitalTwinId: 'e'.repeat(64), products: [{ id: 'tee', category: 'top', sizeChart: chart(MEN_TOPS) }] });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: 'Digital twin not found or expired' } });
    await svc.fitroom.pool.query("update twins set expires_at = now() - interval '1 second' where id = $1", [sized]);
    const expired = await fit({ digitalTwinId: sized, products: [{ id: 'tee', category: 'top', sizeChart: chart(MEN_TOPS) }] });
    expect(expired.status).toBe(404);
  });

  it('is not billable: the key usage counter does not move', async () => {
    const usage = () => svc.usage(keyId);
    const before = await usage();
    for (let i = 0; i < 3; i++) expect((await fit({ digitalTwinId: measured, products: [{ id: 't', category: 'top', sizeChart: chart(MEN_TOPS) }] })).status).toBe(200);
    expect(await usage()).toBe(before);
  });

  it('publishes the twin render to other plugins (mask, depth, landmarks)', async () => {
    const twins = svc.fitroom.get(TWINS);
    const scope = (await svc.fitroom.pool.query<{ scope: string }>('select scope from twins where id = $1', [measured])).rows[0].scope;
    const render = await twins.loadRender(measured, scope);
    expect(render).not.toBeNull();
    const { image, mask, depth, landmarks, pose, pixelsPerCm } = render!;
    expect(pose).toBe('man_pose');
    expect(mask.length).toBe(image.width * image.height);
    expect(depth.length).toBe(mask.length);
    const inside = mask.reduce((n, v) => n + (v ? 1 : 0), 0);
    expect(inside / mask.length).toBeGreaterThan(0.05);
    expect(pixelsPerCm).toBeGreaterThan(0);
    expect(landmarks.headTop.y).toBeLessThan(landmarks.leftAnkle.y);
    // Depth is positive exactly where the body is.
    let agree = 0;
    for (let i = 0; i < mask.length; i++) if ((mask[i] > 0) === (depth[i] > 0)) agree++;
    expect(agree / mask.length).toBeGreaterThan(0.99);
    expect(await twins.loadRender('f'.repeat(64), scope)).toBeNull();
    // another scope gets nothing, as for a twin that does not exist
    expect(await twins.loadRender(measured, 'account:someone-else')).toBeNull();
  });

  it('still sizes twins stored before profiles carried their distribution', async () => {
    const body = { digitalTwinId: measured, products: [{ id: 'tee', category: 'top', sizeChart: chart(MEN_TOPS) }] };
    const before = await fit(body);
    await svc.fitroom.pool.query("update twins set profile = profile - 'distribution' where id = $1", [measured]);
    const after = await fit(body);
    expect(after.status, after.text).toBe(200);
    expect(after.body.products[0]).toMatchObject({ recommendedSize: before.body.products[0].recommendedSize, confidence: before.body.products[0].confidence });
  });
});

describe('POST /api/v1/size-fitting validation', () => {
  const valid = () => ({ digitalTwinId: measured, products: [{ id: 'tee', category: 'top', sizeChart: chart(MEN_TOPS) }] });
  const P = 'products[0].sizeChart';
  const cases: [string, (b: any) => void, { field: string; message: string }[]][] = [
    ['twin id required', (b) => delete b.digitalTwinId, [{ field: 'digitalTwinId', message: 'is required' }]],
    ['twin id pattern', (b) => (b.digitalTwinId = 'abc'), [{ field: 'digitalTwinId', message: 'has an invalid format' }]],
    ['products required', (b) => delete b.products, [{ field: 'products', message: 'is required' }]],
    ['products not empty', (b) => (b.products = []), [{ field: 'products', message: 'must NOT have fewer than 1 items' }]],
    ['product id required', (b) => delete b.products[0].id, [{ field: 'products[0].id', message: 'is required' }]],
    ['category values', (b) => (b.products[0].category = 'shoe'), [{ field: 'products[0].category', message: 'must be one of: top, bottom, fullBody' }]],
    ['size chart required', (b) => delete b.products[0].sizeChart, [{ field: 'products[0].sizeChart', message: 'is required' }]],
    ['version must be 1', (b) => (b.products[0].sizeChart.version = 2), [{ field: `${P}.version`, message: 'must be 1' }]],
    ['basis must be body', (b) => (b.products[0].sizeChart.basis = 'garment'), [{ field: `${P}.basis`, message: 'must be "body"' }]],
    ['unit values', (b) => (b.products[0].sizeChart.unit = 'mm'), [{ field: `${P}.unit`, message: 'must be one of: cm, in' }]],
    ['sizes not empty', (b) => (b.products[0].sizeChart.sizes = []), [{ field: `${P}.sizes`, message: 'must NOT have fewer than 1 items' }]],
    ['label required', (b) => delete b.products[0].sizeChart.sizes[1].label, [{ field: `${P}.sizes[1].label`, message: 'is required' }]],
    ['min required', (b) => delete b.products[0].sizeChart.sizes[1].measurements.chest.min, [{ field: `${P}.sizes[1].measurements.chest.min`, message: 'is required' }]],
    ['max is a number', (b) => (b.products[0].sizeChart.sizes[1].measurements.chest.max = 'big'), [{ field: `${P}.sizes[1].measurements.chest.max`, message: 'must be number' }]],
    ['unknown dimension', (b) => (b.products[0].sizeChart.sizes[1].measurements.neck = { min: 1, max: 2 }), [{ field: `${P}.sizes[1].measurements.neck`, message: 'is not allowed' }]],
    ['unique labels', (b) => (b.products[0].sizeChart.sizes[2].label = 'S'), [{ field: `${P}.sizes[2].label`, message: 'duplicate label "S"; labels must be unique' }]],
    ['max >= min', (b) => (b.products[0].sizeChart.sizes[1].measurements.chest = { min: 102, max: 94 }), [{ field: `${P}.sizes[1].measurements.chest.max`, message: 'must be greater than or equal to min (102)' }]],
    [
      'top rows need chest or waist',
      (b) => (b.products[0].sizeChart.sizes[0].measurements = { hip: { min: 90, max: 96 } }),
      [{ field: `${P}.sizes[0].measurements`, message: 'must include at least one dimension relevant to a top: chest, waist' }],
    ],
    [
      'bottom rows need waist, hip or inseam',
      (b) => (b.products[0].category = 'bottom'),
      [0, 1, 2].map((i) => ({ field: `${P}.sizes[${i}].measurements`, message: 'must include at least one dimension relevant to a bottom: waist, hip, inseam' })),
    ],
    [
      'fullBody rows need chest, waist, hip or height',
      (b) => {
        b.products[0].category = 'fullBody';
        b.products[0].sizeChart.sizes[1].measurements = { inseam: { min: 70, max: 80 } };
      },
      [{ field: `${P}.sizes[1].measurements`, message: 'must include at least one dimension relevant to a fullBody: chest, waist, hip, height' }],
    ],
  ];

  it.each(cases)('%s', async (_name, change, details) => {
    const body = structuredClone(valid());
    change(body);
    const r = await fit(body);
    expect(r.status, r.text).toBe(400);
    expect(r.body).toEqual({ success: false, error: { code: 'VALIDATION_ERROR', message: expect.any(String), details } });
  });

  it('accepts every relevant dimension for its category', async () => {
    const rows = (dims: string[]) => [{ label: 'A', measurements: Object.fromEntries(dims.map((d) => [d, { min: 50, max: 200 }])) }];
    for (const [category, dims] of [['top', ['waist']], ['bottom', ['inseam']], ['fullBody', ['height']]] as const) {
      const r = await fit({ digitalTwinId: measured, products: [{ id: 'x', category, sizeChart: chart(rows([...dims])) }] });
      expect(r.status, `${category} ${r.text}`).toBe(200);
    }
  });
});
