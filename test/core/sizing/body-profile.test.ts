import { describe, expect, it } from 'vitest';
import { BodyProfiler, profileFromClothingSize, profileFromMeasurements } from '../../../core/sizing/body-profile.ts';
import { CLOTHING_SIZES, EN13402_CHEST_BANDS } from '../../../core/sizing/en13402.ts';
import { summarise } from '../../../core/sizing/body-distribution.ts';
import { MEASUREMENT_BOUNDS } from '../../../core/sizing/measurement-bounds.ts';
import { NearestBodies } from '../../../core/sizing/nearest-bodies.ts';
import { HELD_OUT_BODIES, TRAINING_BODIES } from '../../../core/sizing/reference/reference-bodies.ts';
import { DIMENSIONS } from '../../../core/twins/body.ts';
import type { Dimension } from '../../../core/twins/body.ts';

function expectInBounds(m: Record<Dimension, number>) {
  for (const d of DIMENSIONS) {
    expect(m[d], d).toBeGreaterThanOrEqual(MEASUREMENT_BOUNDS[d].min);
    expect(m[d], d).toBeLessThanOrEqual(MEASUREMENT_BOUNDS[d].max);
  }
}

describe('profileFromMeasurements', () => {
  it('keeps supplied values exactly and marks only them as supplied', () => {
    const p = profileFromMeasurements({ height: 171.3, waist: 77.7, inseam: 80.1 }, 'female');
    expect(p.measurements.height).toBe(171.3);
    expect(p.measurements.waist).toBe(77.7);
    expect(p.measurements.inseam).toBe(80.1);
    expect(p.supplied).toEqual({ height: true, chest: false, waist: true, hip: false, inseam: true });
    expect(p.source).toBe('measurements');
    expect(p.gender).toBe('female');
  });

  it('fills every other dimension with a plausible value for the body', () => {
    const p = profileFromMeasurements({ height: 165, chest: 92 }, 'female');
    // ANSUR women at 165 cm / 92 cm bust: waist about 80, hip about 100, inseam about 78.
    expect(p.measurements.waist).toBeGreaterThan(72);
    expect(p.measurements.waist).toBeLessThan(90);
    expect(p.measurements.hip).toBeGreaterThan(92);
    expect(p.measurements.hip).toBeLessThan(108);
    expect(p.measurements.inseam).toBeGreaterThan(72);
    expect(p.measurements.inseam).toBeLessThan(84);
    // Imputed values carry more uncertainty than measured ones.
    expect(p.uncertainty!.waist!).toBeGreaterThan(p.uncertainty!.chest!);
  });

  it('imputes bigger bodies for bigger inputs', () => {
    const small = profileFromMeasurements({ height: 160, waist: 70 }, 'male');
    const large = profileFromMeasurements({ height: 190, waist: 110 }, 'male');
    for (const d of ['chest', 'hip', 'inseam'] as const) expect(large.measurements[d], d).toBeGreaterThan(small.measurements[d]);
  });

  it('never rejects in-bounds extremes: extrapolates and stays inside the spec bounds', () => {
    const cases: [Partial<Record<Dimension, number>>, 'male' | 'female' | null][] = [
      [{ height: 210, chest: 160 }, null],
      [{ height: 210, chest: 160 }, 'female'],
      [{ height: 140, chest: 160 }, 'male'],
      [{ height: 140, waist: 170 }, 'female'],
      [{ waist: 55, hip: 170 }, null],
      [{ chest: 70, inseam: 100 }, 'male'],
      [{ height: 210, chest: 70, waist: 55, hip: 70 }, 'female'],
    ];
    for (const [m, g] of cases) {
      const p = profileFromMeasurements(m, g);
      expectInBounds(p.measurements);
      for (const [d, v] of Object.entries(m)) expect(p.measurements[d as Dimension]).toBe(v);
    }
    // Beyond the data, regression follows the trend instead of stopping at the largest body.
    const huge = profileFromMeasurements({ height: 200, chest: 160 }, 'female');
    const maxWaist = Math.max(...TRAINING_BODIES.filter((b) => b.gender === 'female').map((b) => b.measurements.waist));
    expect(huge.measurements.waist).toBeGreaterThan(maxWaist);
  });

  it('searches both genders when the gender is omitted, leaning to the likelier one', () => {
    const tallBroad = profileFromMeasurements({ height: 188, chest: 112 }, null);
    const asMale = profileFromMeasurements({ height: 188, chest: 112 }, 'male');
    const asFemale = profileFromMeasurements({ height: 188, chest: 112 }, 'female');
    expect(tallBroad.gender).toBeNull();
    // A 188 cm, 112 cm-chest body is far likelier male: the mixture sits near the male answer.
    expect(Math.abs(tallBroad.measurements.hip - asMale.measurements.hip)).toBeLessThan(Math.abs(tallBroad.measurements.hip - asFemale.measurements.hip));
    const petite = profileFromMeasurements({ height: 152, hip: 96 }, null);
    const petiteF = profileFromMeasurements({ height: 152, hip: 96 }, 'female');
    expect(Math.abs(petite.measurements.waist - petiteF.measurements.waist)).toBeLessThan(1.5);
  });

  it('gender changes the imputation: same height and waist, a woman has the larger hip', () => {
    const f = profileFromMeasurements({ height: 170, waist: 85 }, 'female');
    const m = profileFromMeasurements({ height: 170, waist: 85 }, 'male');
    expect(f.measurements.hip).toBeGreaterThan(m.measurements.hip + 3);
  });

  it('beats averaging the ten nearest bodies on held-out bodies (height + chest)', () => {
    const regression = new BodyProfiler();
    const nearest = new NearestBodies(TRAINING_BODIES, 10);
    const sample = HELD_OUT_BODIES.slice(0, 300);
    let errReg = 0;
    let errKnn = 0;
    for (const b of sample) {
      const known = { height: b.measurements.height, chest: b.measurements.chest };
      const r = regression.fromMeasurements(known, b.gender).measurements;
      const k = nearest.impute(known, b.gender).mean;
      for (const d of ['waist', 'hip', 'inseam'] as const) {
        errReg += Math.abs(r[d] - b.measurements[d]);
        errKnn += Math.abs(k[d] - b.measurements[d]);
      }
    }
    const maeReg = errReg / (sample.length * 3);
    expect(maeReg).toBeLessThan(4.5);
    expect(maeReg).toBeLessThan(errKnn / (sample.length * 3));
  });

  it('carries the joint distribution size fitting integrates over: supplied values exact, imputed ones spread', () => {
    const p = profileFromMeasurements({ height: 170, waist: 85 }, 'female');
    const [c] = p.distribution!.components;
    expect(p.distribution!.space).toBe('log');
    expect(p.distribution!.components).toHaveLength(1);
    expect(Math.exp(c.mean[0])).toBeCloseTo(170, 6);
    expect(c.cov[0][0]).toBe(0);
    expect(c.cov[2][2]).toBe(0);
    // Chest and hip given waist and height still vary together.
    const corr = c.cov[1][3] / Math.sqrt(c.cov[1][1] * c.cov[3][3]);
    expect(corr).toBeGreaterThan(0.1);
    // Its summary is the profile's point and spread.
    const { median, sd } = summarise(p.distribution!);
    expect(p.measurements.hip).toBeCloseTo(median.hip, 1);
    expect(p.uncertainty!.hip).toBeCloseTo(sd.hip, 1);
    // Without a gender: one component per gender, weighted by how likely each makes the input.
    const both = profileFromMeasurements({ height: 188, chest: 112 }, null).distribution!.components;
    expect(both.map((x) => x.gender)).toEqual(['female', 'male']);
    expect(both[1].weight).toBeGreaterThan(0.9);
    expect(both[0].weight + both[1].weight).toBeCloseTo(1, 9);
  });
});

describe('profileFromClothingSize', () => {
  it('spreads the chest over the EN 13402-3 band, weighted by the population at that height', () => {
    const p = profileFromClothingSize(168, 'M', 'female');
    expect(p.measurements.height).toBe(168);
    expect(p.source).toBe('clothing_size');
    expect(p.supplied).toEqual({ height: true, chest: true, waist: false, hip: false, inseam: false });
    const { components } = p.distribution!;
    const chests = components.map((c) => Math.exp(c.mean[1]));
    // Bust band 90-98: every point inside it, more weight towards the population's centre (~94 at 168 cm).
    for (const c of chests) {
      expect(c).toBeGreaterThan(90);
      expect(c).toBeLessThan(98);
    }
    expect(components.reduce((s, c) => s + c.weight, 0)).toBeCloseTo(1, 9);
    expect(p.measurements.chest).toBeGreaterThan(92);
    expect(p.measurements.chest).toBeLessThan(96);
    // A letter fixes the chest only to its band: wider than a measured chest, narrower than an imputed one.
    const direct = profileFromMeasurements({ height: 168, chest: 94 }, 'female');
    expect(p.uncertainty!.chest!).toBeGreaterThan(1.5);
    expect(p.uncertainty!.chest!).toBeLessThan(8 / Math.sqrt(12) + 0.2);
    expect(p.uncertainty!.waist!).toBeGreaterThan(direct.uncertainty!.waist!);
    expect(Math.abs(p.measurements.waist - direct.measurements.waist)).toBeLessThan(1.5);
  });

  it('defaults to female and uses the men\'s bands for men', () => {
    const chest = (g: 'female' | 'male' | null) => profileFromClothingSize(175, 'L', g).measurements.chest;
    expect(chest(null)).toBeGreaterThan(98); // women 98-107
    expect(chest(null)).toBeLessThan(107);
    expect(profileFromClothingSize(175, 'L', null).gender).toBe('female');
    expect(chest('male')).toBeGreaterThan(102); // men 102-110
    expect(chest('male')).toBeLessThan(110);
  });

  it('orders sizes: every larger letter gives larger girths, inside its band even where no one was measured', () => {
    for (const g of ['female', 'male'] as const) {
      const profiles = CLOTHING_SIZES.map((s) => profileFromClothingSize(170, s, g));
      for (let i = 1; i < profiles.length; i++) {
        expect(profiles[i].measurements.chest).toBeGreaterThan(profiles[i - 1].measurements.chest);
        expect(profiles[i].measurements.waist).toBeGreaterThan(profiles[i - 1].measurements.waist);
        expectInBounds(profiles[i].measurements);
      }
      const [lo, hi] = EN13402_CHEST_BANDS[g]['3XL'];
      expect(profiles.at(-1)!.measurements.chest).toBeGreaterThan(lo);
      expect(profiles.at(-1)!.measurements.chest).toBeLessThan(hi);
    }
  });
});
