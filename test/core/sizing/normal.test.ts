import { describe, expect, it } from 'vitest';
import { erfc, logPhi, logProbInRange } from '../../../core/sizing/normal.ts';

describe('normal helpers', () => {
  it('erfc matches known values', () => {
    expect(erfc(0)).toBeCloseTo(1, 6);
    expect(erfc(1)).toBeCloseTo(0.157299207, 6);
    expect(erfc(-1)).toBeCloseTo(1.842700793, 6);
  });

  it('probabilities of a range match the normal CDF', () => {
    expect(Math.exp(logProbInRange(0, 1, -1, 1))).toBeCloseTo(0.682689, 5);
    expect(Math.exp(logProbInRange(10, 2, 12, 14))).toBeCloseTo(0.135905, 5);
    expect(Math.exp(logProbInRange(10, 2, 6, 8))).toBeCloseTo(0.135905, 5);
    expect(Math.exp(logPhi(-3))).toBeCloseTo(0.0013499, 6);
  });

  it('stays finite and ordered far in the tails', () => {
    const near = logProbInRange(0, 1, 20, 24);
    const far = logProbInRange(0, 1, 30, 34);
    expect(Number.isFinite(near)).toBe(true);
    expect(Number.isFinite(far)).toBe(true);
    expect(far).toBeLessThan(near);
    expect(logProbInRange(0, 1, -34, -30)).toBeCloseTo(far, 6);
    // Continuity where the tail formula takes over.
    expect(logPhi(-8 + 1e-9)).toBeCloseTo(logPhi(-8 - 1e-9), 3);
  });
});
