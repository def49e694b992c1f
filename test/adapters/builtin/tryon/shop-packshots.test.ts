/**
 * Garment segmentation on packshots as shops publish them (test/support/garment-packshots.ts):
 * real garments on an off-white card with JPEG noise, a mid grey and a light-to-grey sweep, with
 * drop shadows and swing tags, and two shop photos on their own grey sweep and beige card.
 * Targets: IoU against the truth mask at least 0.95 on average and 0.92 on every photo; shadow
 * pixels kept at most 2 % of the garment's area; the inner back of the collar (and the neck label
 * on it) kept; the swing tag cut off. Then two of them on real person photos, end to end.
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LearnedPersonAnalyzer } from '../../../../adapters/human/person-analyzer.ts';
import { renderTryOn } from '../../../../adapters/builtin/tryon/render-tryon.ts';
import { segmentGarment } from '../../../../adapters/builtin/tryon/segment-garment.ts';
import { SHOP_PACKSHOTS, packshotName, scoreGarmentMask, shopPackshot, type GarmentMaskScore, type ShopPackshotSpec } from '../../../support/garment-packshots.ts';
import { MARKS, REAL_PHOTOS, TARGETS, loadPhoto, measurePair } from '../../../support/tryon-metrics.ts';

const scores: { name: string; score: GarmentMaskScore; tagged: boolean }[] = [];

beforeAll(async () => {
  for (const spec of SHOP_PACKSHOTS) {
    const photo = await shopPackshot(spec);
    const cut = segmentGarment(photo.image);
    scores.push({ name: packshotName(spec), score: scoreGarmentMask(cut.mask, photo), tagged: !!spec.tag });
  }
}, 120_000);

describe('garment segmentation on shop packshots', () => {
  it('covers off-white, grey and sweep backdrops, shadows, tags and the two shop photos', () => {
    const names = scores.map((s) => s.name).join(' ');
    for (const part of ['offwhite-warm', 'grey-cf', 'gradient', 'hanger-shadow', 'flat-shadow', 'tag', '048554_1+original', '050105_1+original']) expect(names).toContain(part);
  });

  it('matches the true garment mask: IoU at least 0.95 on average and 0.92 on every photo', () => {
    for (const { name, score } of scores) expect(score.iou, name).toBeGreaterThanOrEqual(0.92);
    const mean = scores.reduce((a, s) => a + s.score.iou, 0) / scores.length;
    expect(mean).toBeGreaterThanOrEqual(0.95);
  });

  it('leaves the drop shadow out: at most 2 % of the garment area in shadow pixels kept', () => {
    for (const { name, score } of scores) expect(score.shadowArea, name).toBeLessThanOrEqual(0.02);
  });

  it('keeps the inner back of the collar and its neck label as cloth', () => {
    for (const { name, score } of scores) expect(score.collarKept, name).toBeGreaterThanOrEqual(0.98);
  });

  it('cuts a swing tag off (the card and its string lie outside the garment)', () => {
    const tagged = scores.filter((s) => s.tagged);
    expect(tagged.length).toBeGreaterThanOrEqual(3);
    for (const { name, score } of tagged) expect(score.tagKept, name).toBeLessThanOrEqual(0.02);
  });
});

describe('a top from a shop packshot on a real person photo', () => {
  // the shop's own photo on its grey sweep, and a garment on an off-white card with a hanger shadow
  // and a swing tag; persons whose own top differs from the garment (informative pairs)
  const pairs: { person: string; packshot: ShopPackshotSpec }[] = [
    { person: '07966_00.jpg', packshot: { garment: '048554_1.jpg', backdrop: 'original' } },
    { person: '05997_00.jpg', packshot: { garment: '050191_1.jpg', backdrop: 'offwhite-warm', shadow: 'hanger', tag: true } },
  ];

  it('meets the real-photo targets: garment over the chest-to-waist box, face, legs, background and old hem', async () => {
    const analyzer = new LearnedPersonAnalyzer();
    for (const { person: file, packshot } of pairs) {
      const person = await loadPhoto(path.join(REAL_PHOTOS, 'persons', file));
      const garment = (await shopPackshot(packshot)).image;
      const a = await analyzer.analyze(person, new AbortController().signal);
      const result = renderTryOn({ body: a.body!, garments: { top: garment }, quality: 'standard', preserveBackground: true });
      const m = measurePair(person, garment, result, MARKS.persons[file]);
      const pair = `${file} + ${packshotName(packshot)}`;
      expect(m.uninformative, pair).toBe(false);
      expect(m.coverage, pair).toBeGreaterThanOrEqual(TARGETS.coverage);
      expect(m.face, pair).toBeLessThanOrEqual(TARGETS.face);
      expect(m.legs, pair).toBeLessThanOrEqual(TARGETS.legs);
      expect(m.background, pair).toBeLessThanOrEqual(TARGETS.background);
      expect(m.hemLeft, pair).toBeLessThanOrEqual(TARGETS.hemLeft);
    }
  }, 120_000);
});
