/**
 * Garment segmentation on packshots as shops publish them (test/support/garment-packshots.ts):
 * real garments on an off-white card with JPEG noise, a mid grey and a light-to-grey sweep, with
 * drop shadows and swing tags, and two shop photos on their own grey sweep and beige card.
 * Targets: IoU against the truth mask at least 0.95 on average and 0.92 on every photo; shadow
 * pixels kept at most 2 % of the garment's area; the inner back of the collar (and the neck label
 * on it) kept; the swing tag cut off.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { segmentGarment } from '../../../../adapters/builtin/tryon/segment-garment.ts';
import { SHOP_PACKSHOTS, packshotName, scoreGarmentMask, shopPackshot, type GarmentMaskScore } from '../../../support/garment-packshots.ts';

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
