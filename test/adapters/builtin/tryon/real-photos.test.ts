/**
 * Tops on real person photos (test/fixtures/real-photos): every pair meets the acceptance targets
 * on the hand-marked boxes: the garment covers the chest-to-waist box, the face, legs and
 * background stay as they were, the old top's hem is hidden. Sleeves: a long-sleeve top covers
 * the marked forearms, a T-shirt leaves them as they were.
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LearnedPersonAnalyzer } from '../../../../adapters/human/person-analyzer.ts';
import { renderTryOn } from '../../../../adapters/builtin/tryon/render-tryon.ts';
import { BOTTOM_TARGETS, MARKS, REAL_PHOTOS, SLEEVE_TARGETS, TARGETS, loadPhoto, measureBottom, measureForearms, measurePair, type BottomMetrics, type ForearmMetrics, type PairMetrics } from '../../../support/tryon-metrics.ts';
import type { RasterImage } from '../../../../core/images.ts';

const analyzer = new LearnedPersonAnalyzer();
const measured: { pair: string; m: PairMetrics; person: RasterImage; result: RasterImage }[] = [];
const bottoms: { pair: string; m: BottomMetrics }[] = [];
const sleeves: { pair: string; long: ForearmMetrics; short: ForearmMetrics }[] = [];
/** The real trousers packshot (light wash jeans on white). */
const JEANS = '051946_1.jpg';

beforeAll(async () => {
  const jeans = await loadPhoto(path.join(REAL_PHOTOS, 'garments', JEANS));
  for (const p of MARKS.pairs) {
    const person = await loadPhoto(path.join(REAL_PHOTOS, 'persons', p.person));
    const garment = await loadPhoto(path.join(REAL_PHOTOS, 'garments', p.topGarment));
    const a = await analyzer.analyze(person, new AbortController().signal);
    const result = renderTryOn({ body: a.body!, garments: { top: garment }, quality: 'standard', preserveBackground: true });
    measured.push({ pair: `${p.person} + ${p.topGarment}`, m: measurePair(person, garment, result, MARKS.persons[p.person]), person, result });
    const bottom = renderTryOn({ body: a.body!, garments: { bottom: jeans }, quality: 'standard', preserveBackground: true });
    bottoms.push({ pair: `${p.person} + ${JEANS}`, m: measureBottom(person, bottom, MARKS.persons[p.person]) });
  }
  for (const sp of MARKS.sleevePairs) {
    const person = await loadPhoto(path.join(REAL_PHOTOS, 'persons', sp.person));
    const a = await analyzer.analyze(person, new AbortController().signal);
    const forearms = MARKS.persons[sp.person].forearms!;
    const [long, short] = await Promise.all([sp.longSleeve, sp.shortSleeve].map(async (g) => {
      const garment = await loadPhoto(path.join(REAL_PHOTOS, 'garments', g));
      const result = renderTryOn({ body: a.body!, garments: { top: garment }, quality: 'standard', preserveBackground: true });
      return measureForearms(person, garment, result, forearms);
    }));
    sleeves.push({ pair: `${sp.person} + ${sp.longSleeve} / ${sp.shortSleeve}`, long, short });
  }
  // 13 analyses and 26 fits: minutes on a loaded 2-core machine
}, 900_000);

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

describe('sleeves on real person photos', () => {
  it('a long-sleeve top covers at least 80 % of each marked forearm with its colours', () => {
    expect(sleeves).toHaveLength(MARKS.sleevePairs.length);
    for (const { pair, long } of sleeves) for (const c of long.covered) expect(c, pair).toBeGreaterThanOrEqual(SLEEVE_TARGETS.longCovered);
  });

  it('a short-sleeve T-shirt changes at most 5 % of each marked forearm', () => {
    for (const { pair, short } of sleeves) for (const c of short.changed) expect(c, pair).toBeLessThanOrEqual(SLEEVE_TARGETS.shortChanged);
  });
});

describe('trousers on real person photos', () => {
  it('cover the legs: at most 12 % of the person in the legs box still shows as before (old trousers, skirt or bare legs)', () => {
    expect(bottoms).toHaveLength(MARKS.pairs.length);
    for (const { pair, m } of bottoms) expect(m.oldLeft, pair).toBeLessThanOrEqual(BOTTOM_TARGETS.oldLeft);
  });

  it('leave the face, the top above the waist and the background as they were', () => {
    for (const { pair, m } of bottoms) {
      expect(m.face, pair).toBeLessThanOrEqual(BOTTOM_TARGETS.face);
      expect(m.top, pair).toBeLessThanOrEqual(BOTTOM_TARGETS.top);
      expect(m.background, pair).toBeLessThanOrEqual(BOTTOM_TARGETS.background);
    }
  });
});
