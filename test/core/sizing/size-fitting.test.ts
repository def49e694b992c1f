import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { profileFromClothingSize, profileFromMeasurements } from '../../../core/sizing/body-profile.ts';
import { EN13402_CHEST_BANDS } from '../../../core/sizing/en13402.ts';
import type { EstimatedBodyProfile } from '../../../core/sizing/estimated-profile.ts';
import type { SizeFittingProduct, SizeRow } from '../../../core/sizing/size-chart.ts';
import { sizeFittingResponse } from '../../../core/sizing/size-fitting-response.ts';
import { SIZE_FITTING_RESPONSE_SCHEMA } from '../../../core/sizing/size-fitting-schema.ts';
import { evaluateProducts } from '../../../core/sizing/size-fitting.ts';
import { DIMENSIONS } from '../../../core/twins/body.ts';
import type { Dimension } from '../../../core/twins/body.ts';

function profile(m: Record<Dimension, number>, supplied: Dimension[], uncertainty?: Partial<Record<Dimension, number>>): EstimatedBodyProfile {
  return {
    gender: 'male',
    measurements: m,
    supplied: Object.fromEntries(DIMENSIONS.map((d) => [d, supplied.includes(d)])) as Record<Dimension, boolean>,
    source: 'measurements',
    uncertainty,
  };
}

const BODY = { height: 178, chest: 98, waist: 84, hip: 99, inseam: 82 };
const ALL: Dimension[] = ['height', 'chest', 'waist', 'hip', 'inseam'];

function product(rows: SizeRow[], category: SizeFittingProduct['category'] = 'top', unit: 'cm' | 'in' = 'cm'): SizeFittingProduct {
  return { id: 'p1', category, sizeChart: { version: 1, basis: 'body', unit, sizes: rows } };
}

const menTops = product(
  Object.entries(EN13402_CHEST_BANDS.male).map(([label, [min, max]]) => ({ label, measurements: { chest: { min, max } } })),
);

describe('evaluateProducts', () => {
  it('recommends the row a body sits squarely inside, with every dimension fit', () => {
    const chart = product([
      { label: 'S', measurements: { chest: { min: 86, max: 94 }, waist: { min: 72, max: 80 } } },
      { label: 'M', measurements: { chest: { min: 94, max: 102 }, waist: { min: 80, max: 88 } } },
      { label: 'L', measurements: { chest: { min: 102, max: 110 }, waist: { min: 88, max: 96 } } },
    ]);
    const [fit] = evaluateProducts(profile(BODY, ALL), [chart]);
    expect(fit.id).toBe('p1');
    expect(fit.recommendedSize).toBe('M');
    expect(fit.confidence).toBe(1);
    expect(fit.dimensions).toEqual([
      { dimension: 'chest', status: 'fit', distanceCm: 0, supplied: true, fitProbability: expect.any(Number) },
      { dimension: 'waist', status: 'fit', distanceCm: 0, supplied: true, fitProbability: expect.any(Number) },
    ]);
    // 98 sits mid-band (4 cm from each edge, tape sd 1.5): about 99% sure it is inside.
    expect(fit.dimensions[0].fitProbability).toBeGreaterThan(0.98);
    expect(fit.alternatives.map((a) => a.label).sort()).toEqual(['L', 'S']);
    for (const a of fit.alternatives) expect(a.score).toBe(0);
    expect(fit.reason).toBe('M: chest fits, waist fits.');
    expect(fit.fitPreference).toBe('regular');
  });

  it('reports signed distances: below a range is loose (negative), above is tight (positive)', () => {
    const chart = product([{ label: 'One', measurements: { chest: { min: 100, max: 104 }, waist: { min: 70, max: 80 } } }]);
    const [fit] = evaluateProducts(profile(BODY, ALL), [chart]);
    expect(fit.dimensions.map(({ fitProbability: _p, ...rest }) => rest)).toEqual([
      { dimension: 'chest', status: 'loose', distanceCm: -2, supplied: true },
      { dimension: 'waist', status: 'tight', distanceCm: 4, supplied: true },
    ]);
    expect(fit.dimensions[1].fitProbability).toBeLessThan(0.01);
    expect(fit.decidedBy).toBeNull(); // nothing competed
    expect(fit.reason).toBe('One: chest is 2 cm below the range, waist is 4 cm above the range.');
  });

  it('converts inch charts to centimetres before evaluating', () => {
    const inches = product(
      [
        { label: 'M', measurements: { chest: { min: 37, max: 40 } } }, // 93.98-101.6 cm
        { label: 'L', measurements: { chest: { min: 40, max: 43 } } }, // 101.6-109.22 cm
      ],
      'top',
      'in',
    );
    const [fit] = evaluateProducts(profile({ ...BODY, chest: 103 }, ALL), [inches]);
    expect(fit.recommendedSize).toBe('L');
    expect(fit.dimensions[0]).toMatchObject({ status: 'fit', distanceCm: 0 });
    const [small] = evaluateProducts(profile({ ...BODY, chest: 90 }, ALL), [inches]);
    expect(small.recommendedSize).toBe('M');
    expect(small.dimensions[0]).toMatchObject({ dimension: 'chest', status: 'loose', distanceCm: -4, supplied: true });
    // The same chart read as centimetres would fit nobody: every row far below the chest.
    const [asCm] = evaluateProducts(profile({ ...BODY, chest: 103 }, ALL), [{ ...inches, sizeChart: { ...inches.sizeChart, unit: 'cm' } }]);
    expect(asCm.dimensions[0].status).toBe('tight');
    expect(asCm.dimensions[0].fitProbability).toBe(0);
  });

  it('picks the nearest row when the body is outside the chart, and the first of two rows a body fits equally', () => {
    const [edge] = evaluateProducts(profile({ ...BODY, chest: 102 }, ALL), [menTops]);
    expect(edge.recommendedSize).toBe('M'); // on the M/L boundary: both fit, equally central
    expect(edge.dimensions[0].fitProbability).toBeGreaterThan(0.4);
    expect(edge.dimensions[0].fitProbability).toBeLessThan(0.6);
    expect(edge.reason).toMatch(/^M: chest fits, close to the upper edge\./);
    const [huge] = evaluateProducts(profile({ ...BODY, chest: 158 }, ALL), [menTops]);
    expect(huge.recommendedSize).toBe('3XL');
    expect(huge.dimensions[0]).toMatchObject({ dimension: 'chest', status: 'tight', distanceCm: 17, supplied: true, fitProbability: 0 });
    const [tiny] = evaluateProducts(profile({ ...BODY, chest: 71 }, ALL), [menTops]);
    expect(tiny.recommendedSize).toBe('XS');
    expect(tiny.dimensions[0].status).toBe('loose');
  });

  it('settles a conflict between dimensions by the smaller total miss and says which dimension decided', () => {
    // Chest 100 is M; waist 89 is L (1 cm above M's waist band, chest 2 cm below L's).
    const chart = product([
      { label: 'M', measurements: { chest: { min: 94, max: 102 }, waist: { min: 80, max: 88 } } },
      { label: 'L', measurements: { chest: { min: 102, max: 110 }, waist: { min: 88, max: 96 } } },
    ]);
    const body = { ...BODY, chest: 100, waist: 89 };
    const [regular] = evaluateProducts(profile(body, ALL), [chart]);
    expect(regular.recommendedSize).toBe('M');
    expect(regular.decidedBy).toBe('chest');
    expect(regular.reason).toBe('M: chest fits, waist is 1 cm above the range. Chosen over L by the chest.');
    // A shopper who likes room: the waist's 1 cm of tightness counts double, the chest's 2 cm of slack half.
    const [loose] = evaluateProducts(profile(body, ALL), [{ ...chart, fitPreference: 'loose' }]);
    expect(loose.recommendedSize).toBe('L');
    expect(loose.decidedBy).toBe('waist');
    expect(loose.fitPreference).toBe('loose');
    const [snug] = evaluateProducts(profile(body, ALL), [{ ...chart, fitPreference: 'snug' }]);
    expect(snug.recommendedSize).toBe('M');
  });

  it('integrates over imputed values: the size most likely right for the full body, with its probability', () => {
    // Chest known in M; the waist decides between M and L and is only estimated.
    const chart = product([
      { label: 'M', measurements: { chest: { min: 94, max: 102 }, waist: { min: 78, max: 86 } } },
      { label: 'L', measurements: { chest: { min: 102, max: 110 }, waist: { min: 86, max: 94 } } },
    ]);
    const body = { ...BODY, chest: 100, waist: 88 };
    const sure = evaluateProducts(profile(body, ['height', 'chest'], { waist: 1 }), [chart])[0];
    const unsure = evaluateProducts(profile(body, ['height', 'chest'], { waist: 6 }), [chart])[0];
    // Waist 88 (±1): M misses by about 2, L by chest's 2: a toss-up settled by the spread either way.
    expect(sure.confidence + sure.alternatives[0].score).toBeCloseTo(1, 5);
    expect(unsure.confidence).toBeGreaterThanOrEqual(0.5);
    const waist = unsure.dimensions.find((d) => d.dimension === 'waist')!;
    expect(waist.supplied).toBe(false);
    expect(unsure.reason).toContain('waist (estimated)');
    expect(unsure.reason).toMatch(/Between sizes: \d+% \w+, \d+% \w+/);
  });

  it('keeps every score and confidence within [0, 1] for random profiles and charts', () => {
    let seed = 12345;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let t = 0; t < 300; t++) {
      const m = { height: 140 + 70 * rand(), chest: 70 + 90 * rand(), waist: 55 + 115 * rand(), hip: 70 + 100 * rand(), inseam: 60 + 40 * rand() };
      const p = profile(m, ALL.filter(() => rand() < 0.5), Object.fromEntries(ALL.map((d) => [d, 0.5 + 8 * rand()])));
      const rows: SizeRow[] = Array.from({ length: 1 + Math.floor(rand() * 6) }, (_, i) => {
        const lo = 50 + 120 * rand();
        return { label: `R${i}`, measurements: { waist: { min: lo, max: lo + 12 * rand() }, ...(rand() < 0.5 ? { hip: { min: lo, max: lo + 30 } } : {}) } };
      });
      const prefs = ['regular', 'loose', 'snug'] as const;
      const [fit] = evaluateProducts(p, [{ ...product(rows, 'bottom', rand() < 0.5 ? 'cm' : 'in'), fitPreference: prefs[t % 3] }]);
      expect(fit.confidence).toBeGreaterThanOrEqual(0);
      expect(fit.confidence).toBeLessThanOrEqual(1);
      const total = fit.confidence + fit.alternatives.reduce((s, a) => s + a.score, 0);
      expect(total).toBeLessThanOrEqual(1.002);
      for (const a of fit.alternatives) {
        expect(a.score).toBeGreaterThanOrEqual(0);
        expect(a.score).toBeLessThanOrEqual(fit.confidence);
      }
      for (const d of fit.dimensions) {
        expect(Math.sign(d.distanceCm)).toBe(d.status === 'fit' ? 0 : d.status === 'tight' ? 1 : -1);
        expect(d.fitProbability).toBeGreaterThanOrEqual(0);
        expect(d.fitProbability).toBeLessThanOrEqual(1);
      }
      expect(fit.reason.length).toBeGreaterThan(0);
    }
  });

  it('evaluates several products in request order', () => {
    const bottoms = product([{ label: '32', measurements: { waist: { min: 80, max: 86 }, inseam: { min: 78, max: 84 } } }], 'bottom');
    const fits = evaluateProducts(profile(BODY, ALL), [menTops, { ...bottoms, id: 'jeans' }]);
    expect(fits.map((f) => f.id)).toEqual(['p1', 'jeans']);
    expect(fits[0].recommendedSize).toBe('M');
    expect(fits[1].recommendedSize).toBe('32');
  });

  it('sizes a clothing-size twin back to its own letter', () => {
    for (const g of ['female', 'male'] as const) {
      const tops = product(Object.entries(EN13402_CHEST_BANDS[g]).map(([label, [min, max]]) => ({ label, measurements: { chest: { min, max } } })));
      for (const size of ['S', 'M', 'L', 'XL'] as const) {
        const [fit] = evaluateProducts(profileFromClothingSize(170, size, g), [tops]);
        expect(fit.recommendedSize).toBe(size);
        expect(fit.confidence).toBeGreaterThan(0.99);
      }
    }
  });
});

describe('sizeFittingResponse', () => {
  const ajv = new Ajv2020({ strict: true });
  const validate = ajv.compile(SIZE_FITTING_RESPONSE_SCHEMA);
  const twin = 'f'.repeat(64);

  it('matches the published response schema when available', () => {
    const body = sizeFittingResponse(twin, profileFromMeasurements({ height: 180, chest: 104 }, 'male'), [menTops]);
    expect(body.available).toBe(true);
    expect(body.products![0].recommendedSize).toBe('L');
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    const sized = sizeFittingResponse(twin, profileFromClothingSize(165, 'M', 'female'), [{ ...menTops, fitPreference: 'snug' }]);
    expect(validate(sized), JSON.stringify(validate.errors)).toBe(true);
  });

  it('answers available: false for a twin without a body profile', () => {
    const body = sizeFittingResponse(twin, null, [menTops]);
    expect(body).toMatchObject({ success: true, available: false, digitalTwinId: twin });
    expect(body.products).toBeUndefined();
    expect(validate(body)).toBe(true);
  });
});
