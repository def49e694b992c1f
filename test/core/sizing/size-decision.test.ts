import { describe, expect, it } from 'vitest';
import { bottomCharts, FULL_BODY_CHARTS, TOP_CHARTS } from '../../../core/sizing/charts/market-charts.ts';
import type { BodyDistribution } from '../../../core/sizing/body-distribution.ts';
import { normalQuantile, phi } from '../../../core/sizing/normal.ts';
import { TRAINING_BODIES } from '../../../core/sizing/reference/reference-bodies.ts';
import { decide, prepareChart, sizeOdds } from '../../../core/sizing/size-decision.ts';
import type { SizeChart } from '../../../core/sizing/size-chart.ts';
import { validateSizeFittingRequest } from '../../../core/sizing/size-fitting-validation.ts';

const chart = (sizes: SizeChart['sizes'], unit: SizeChart['unit'] = 'cm'): SizeChart => ({ version: 1, basis: 'body', unit, sizes });
const TOPS = chart([
  { label: 'S', measurements: { chest: { min: 86, max: 94 }, waist: { min: 72, max: 80 } } },
  { label: 'M', measurements: { chest: { min: 94, max: 102 }, waist: { min: 80, max: 88 } } },
  { label: 'L', measurements: { chest: { min: 102, max: 110 }, waist: { min: 88, max: 96 } } },
]);

describe('decide: the rule for a body whose every value is known', () => {
  it('picks the size the body misses by the fewest centimetres in total (brute force over random bodies)', () => {
    const prepared = prepareChart(TOPS);
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const missOf = (v: number, r: { min: number; max: number }) => Math.max(0, r.min - v, v - r.max);
    for (let t = 0; t < 500; t++) {
      const body = [80 + 40 * rand(), 65 + 40 * rand()];
      const totals = TOPS.sizes.map((s) => missOf(body[0], s.measurements.chest!) + missOf(body[1], s.measurements.waist!));
      const least = Math.min(...totals);
      expect(totals[decide(prepared, body)]).toBeCloseTo(least, 9);
    }
  });

  it('sends a body that fits two overlapping sizes to the one it sits more centrally in, then to the first', () => {
    const overlap = prepareChart(chart([
      { label: 'A', measurements: { waist: { min: 70, max: 90 } } },
      { label: 'B', measurements: { waist: { min: 80, max: 100 } } },
    ]));
    expect(overlap.labels[decide(overlap, [82])]).toBe('A');
    expect(overlap.labels[decide(overlap, [88])]).toBe('B');
    expect(overlap.labels[decide(overlap, [85])]).toBe('A');
  });

  it('shifts conflicts with the fit preference: loose leans larger, snug smaller', () => {
    const prepared = prepareChart(TOPS);
    // Chest 99 in M; waist 90 in L: M misses by 2 (waist), L by 3 (chest).
    const body = [99, 90];
    expect(prepared.labels[decide(prepared, body, 'regular')]).toBe('M');
    expect(prepared.labels[decide(prepared, body, 'loose')]).toBe('L'); // M: 2 x 2 = 4 tight; L: 3 x 0.5 = 1.5 loose
    expect(prepared.labels[decide(prepared, body, 'snug')]).toBe('M');
    // Without a conflict, every preference agrees.
    for (const pref of ['regular', 'loose', 'snug'] as const) expect(prepared.labels[decide(prepared, [98, 84], pref)]).toBe('M');
  });

  it('reads inch charts in centimetres', () => {
    const inches = prepareChart(chart([{ label: 'M', measurements: { chest: { min: 37, max: 40 } } }], 'in'));
    expect(inches.lo[0]).toBeCloseTo(93.98, 6);
    expect(inches.hi[0]).toBeCloseTo(101.6, 6);
  });
});

describe('sizeOdds: the rule integrated over an uncertain body', () => {
  const prepared = prepareChart(TOPS);
  // Chest known (98, in M); waist uncertain around 88 (the M/L boundary), cm space.
  const dist = (waistSd: number, waist = 88): BodyDistribution => ({
    space: 'cm',
    components: [
      {
        weight: 1,
        gender: 'male',
        mean: [178, 98, waist, 100, 82],
        cov: [0, 1, 2, 3, 4].map((i) => [0, 1, 2, 3, 4].map((j) => (i === 2 && j === 2 ? waistSd ** 2 : 0))),
      },
    ],
  });

  it('gives the probability of each size under the exact rule, summing to 1', () => {
    // M wins unless the waist exceeds 88 by more than the chest's 4 cm slack to L: waist > 92.
    const { probability } = sizeOdds(prepared, dist(4));
    expect(probability.reduce((s, p) => s + p, 0)).toBeCloseTo(1, 9);
    expect(probability[1]).toBeCloseTo(phi(1), 1);
    expect(probability[2]).toBeCloseTo(1 - phi(1), 1);
    expect(probability[0]).toBe(0);
  });

  it('collapses to the rule when nothing is uncertain', () => {
    const { probability } = sizeOdds(prepared, dist(0, 95));
    expect(Array.from(probability)).toEqual([0, 0, 1]);
  });

  it('mixes components by weight', () => {
    const a = dist(0, 84).components[0];
    const b = dist(0, 95).components[0];
    const { probability } = sizeOdds(prepared, { space: 'cm', components: [{ ...a, weight: 0.3 }, { ...b, weight: 0.7 }] });
    expect(probability[1]).toBeCloseTo(0.3, 9);
    expect(probability[2]).toBeCloseTo(0.7, 9);
  });
});

describe('normalQuantile', () => {
  it('inverts the normal CDF', () => {
    for (const p of [1e-6, 0.01, 0.02425, 0.1, 0.5, 0.8, 0.975, 0.999]) expect(phi(normalQuantile(p))).toBeCloseTo(p, 6);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(() => normalQuantile(1)).toThrow(RangeError);
  });
});

describe('benchmark charts', () => {
  it('are valid size-fitting charts of their category, with the dimensions the benchmark claims', () => {
    const all = [...TOP_CHARTS, ...FULL_BODY_CHARTS, ...bottomCharts(TRAINING_BODIES)];
    const products = all.map((c) => c.product);
    expect(validateSizeFittingRequest({ digitalTwinId: 'a'.repeat(64), products })).toEqual([]);
    const dims = (id: string) => Object.keys(all.find((c) => c.id === id)!.product.sizeChart.sizes[0].measurements).sort();
    for (const c of TOP_CHARTS) expect(dims(c.id)).toEqual(['chest', 'waist']);
    for (const c of FULL_BODY_CHARTS) expect(dims(c.id)).toEqual(['chest', 'hip', 'waist']);
    for (const c of bottomCharts(TRAINING_BODIES)) expect(dims(c.id)).toEqual(['hip', 'inseam', 'waist']);
    for (const g of ['female', 'male']) expect(TOP_CHARTS.filter((c) => c.gender === g)).toHaveLength(3);
    // Rows run small to large.
    for (const c of all) {
      const mids = c.product.sizeChart.sizes.map((s) => (s.measurements.waist!.min + s.measurements.waist!.max) / 2);
      for (let i = 1; i < mids.length; i++) expect(mids[i]).toBeGreaterThan(mids[i - 1]);
    }
  });
});
