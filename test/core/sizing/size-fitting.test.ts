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
    expect(fit.confidence).toBeGreaterThan(0.9);
    expect(fit.dimensions).toEqual([
      { dimension: 'chest', status: 'fit', distanceCm: 0, supplied: true },
      { dimension: 'waist', status: 'fit', distanceCm: 0, supplied: true },
    ]);
    expect(fit.alternatives.map((a) => a.label).sort()).toEqual(['L', 'S']);
    for (const a of fit.alternatives) expect(a.score).toBeLessThan(0.1);
  });

  it('reports signed distances: below a range is loose (negative), above is tight (positive)', () => {
    const chart = product([{ label: 'One', measurements: { chest: { min: 100, max: 104 }, waist: { min: 70, max: 80 } } }]);
    const [fit] = evaluateProducts(profile(BODY, ALL), [chart]);
    expect(fit.dimensions).toEqual([
      { dimension: 'chest', status: 'loose', distanceCm: -2, supplied: true },
      { dimension: 'waist', status: 'tight', distanceCm: 4, supplied: true },
    ]);
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
    expect(small.dimensions[0]).toEqual({ dimension: 'chest', status: 'loose', distanceCm: -4, supplied: true });
    // The same chart read as centimetres would fit nobody: every row far below the chest.
    const [asCm] = evaluateProducts(profile({ ...BODY, chest: 103 }, ALL), [{ ...inches, sizeChart: { ...inches.sizeChart, unit: 'cm' } }]);
    expect(asCm.dimensions[0].status).toBe('tight');
    expect(asCm.confidence).toBe(0);
  });

  it('shares confidence on a band edge and picks the nearest row when the body is outside the chart', () => {
    const [edge] = evaluateProducts(profile({ ...BODY, chest: 102 }, ALL), [menTops]);
    expect(['M', 'L']).toContain(edge.recommendedSize);
    expect(edge.confidence).toBeGreaterThan(0.4);
    expect(edge.confidence).toBeLessThan(0.6);
    const [huge] = evaluateProducts(profile({ ...BODY, chest: 158 }, ALL), [menTops]);
    expect(huge.recommendedSize).toBe('3XL');
    expect(huge.confidence).toBeLessThan(0.01);
    expect(huge.dimensions[0]).toEqual({ dimension: 'chest', status: 'tight', distanceCm: 17, supplied: true });
    const [tiny] = evaluateProducts(profile({ ...BODY, chest: 71 }, ALL), [menTops]);
    expect(tiny.recommendedSize).toBe('XS');
    expect(tiny.dimensions[0].status).toBe('loose');
  });

  it('weighs imputed dimensions less than supplied ones', () => {
    // A fits the chest and misses the waist by 4 cm; B the other way round.
    const chart = product([
      { label: 'A', measurements: { chest: { min: 94, max: 102 }, waist: { min: 88, max: 96 } } },
      { label: 'B', measurements: { chest: { min: 102, max: 110 }, waist: { min: 80, max: 88 } } },
    ]);
    const sd = { chest: 3, waist: 3 };
    const body = { ...BODY, chest: 98, waist: 84 };
    expect(evaluateProducts(profile(body, ['chest'], sd), [chart])[0].recommendedSize).toBe('A');
    expect(evaluateProducts(profile(body, ['waist'], sd), [chart])[0].recommendedSize).toBe('B');
    const [fit] = evaluateProducts(profile(body, ['chest'], sd), [chart]);
    expect(fit.dimensions.map((d) => [d.dimension, d.supplied])).toEqual([['chest', true], ['waist', false]]);
  });

  it('is less confident for uncertain values near an edge', () => {
    const body = { ...BODY, chest: 100 };
    const sure = evaluateProducts(profile(body, ALL, { chest: 1.5 }), [menTops])[0];
    const unsure = evaluateProducts(profile(body, ALL, { chest: 4 }), [menTops])[0];
    expect(sure.recommendedSize).toBe('M');
    expect(unsure.recommendedSize).toBe('M');
    expect(unsure.confidence).toBeLessThan(sure.confidence - 0.2);
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
      const [fit] = evaluateProducts(p, [product(rows, 'bottom', rand() < 0.5 ? 'cm' : 'in')]);
      expect(fit.confidence).toBeGreaterThanOrEqual(0);
      expect(fit.confidence).toBeLessThanOrEqual(1);
      for (const a of fit.alternatives) {
        expect(a.score).toBeGreaterThanOrEqual(0);
        expect(a.score).toBeLessThanOrEqual(1);
      }
      for (const d of fit.dimensions) expect(Math.sign(d.distanceCm)).toBe(d.status === 'fit' ? 0 : d.status === 'tight' ? 1 : -1);
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
    for (const size of ['S', 'M', 'L', 'XL'] as const) {
      const [fit] = evaluateProducts(profileFromClothingSize(178, size, 'male'), [menTops]);
      expect(fit.recommendedSize).toBe(size);
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
  });

  it('answers available: false for a twin without a body profile', () => {
    const body = sizeFittingResponse(twin, null, [menTops]);
    expect(body).toMatchObject({ success: true, available: false, digitalTwinId: twin });
    expect(body.products).toBeUndefined();
    expect(validate(body)).toBe(true);
  });
});
