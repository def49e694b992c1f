/**
 * Tops on real person photos (test/fixtures/real-photos): every pair meets the acceptance targets
 * on the hand-marked boxes: the garment covers the chest-to-waist box, the face, legs and
 * background stay as they were, the old top's hem is hidden.
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LearnedPersonAnalyzer } from '../../../../adapters/human/person-analyzer.ts';
import { renderTryOn } from '../../../../adapters/builtin/tryon/render-tryon.ts';
import { MARKS, REAL_PHOTOS, TARGETS, loadPhoto, measurePair, type PairMetrics } from '../../../support/tryon-metrics.ts';
import type { RasterImage } from '../../../../core/images.ts';

const analyzer = new LearnedPersonAnalyzer();
const measured: { pair: string; m: PairMetrics; person: RasterImage; result: RasterImage }[] = [];

beforeAll(async () => {
  for (const p of MARKS.pairs) {
    const person = await loadPhoto(path.join(REAL_PHOTOS, 'persons', p.person));
    const garment = await loadPhoto(path.join(REAL_PHOTOS, 'garments', p.topGarment));
    const a = await analyzer.analyze(person, new AbortController().signal);
    const result = renderTryOn({ body: a.body!, garments: { top: garment }, quality: 'standard', preserveBackground: true });
    measured.push({ pair: `${p.person} + ${p.topGarment}`, m: measurePair(person, garment, result, MARKS.persons[p.person]), person, result });
  }
}, 180_000);

describe('tops on real person photos', () => {
  it('every pair is informative (the garment does not share the colours of the person own top)', () => {
    for (const { pair, m } of measured) expect(m.uninformative, pair).toBe(false);
  });

  it('covers at least 80 % of the chest-to-waist box with the garment colours', () => {
    for (const { pair, m } of measured) expect(m.coverage, pair).toBeGreaterThanOrEqual(TARGETS.coverage);
  });

  it('changes at most 2 % of face, 5 % of leg and 2 % of background pixels', () => {
    for (const { pair, m } of measured) {
      expect(m.face, pair).toBeLessThanOrEqual(TARGETS.face);
      expect(m.legs, pair).toBeLessThanOrEqual(TARGETS.legs);
      expect(m.background, pair).toBeLessThanOrEqual(TARGETS.background);
    }
  });

  it('leaves at most 20 % of the old top hem band as it was', () => {
    for (const { pair, m } of measured) expect(m.hemLeft, pair).toBeLessThanOrEqual(TARGETS.hemLeft);
  });

  it('keeps the photo size and leaves the pixels far from the person untouched', () => {
    for (const { pair, person, result } of measured) {
      expect([result.width, result.height], pair).toEqual([person.width, person.height]);
      // the top-left corner is background in every fixture
      for (let i = 0; i < 20; i++) expect(result.data[i * 4], pair).toBe(person.data[i * 4]);
    }
  });
});
