/**
 * Dresses and shoes on real full-length person photos (test/fixtures/real-photos, fullLength in
 * marks.json): every pair meets the targets on the hand-marked boxes. Dresses cover the
 * chest-to-thigh box, leave face and background as they were and hide the old clothes they do not
 * cover; shoes cover the feet boxes and leave the legs above the ankles and the background as they were.
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LearnedPersonAnalyzer } from '../../../../adapters/human/person-analyzer.ts';
import { renderTryOn } from '../../../../adapters/builtin/tryon/render-tryon.ts';
import { DRESS_TARGETS, MARKS, REAL_PHOTOS, SHOE_TARGETS, loadPhoto, measureDress, measureShoes, type DressMetrics, type ShoeMetrics } from '../../../support/tryon-metrics.ts';
import type { RasterImage } from '../../../../core/images.ts';

const analyzer = new LearnedPersonAnalyzer();
const dresses: { pair: string; m: DressMetrics; person: RasterImage; result: RasterImage }[] = [];
const shoes: { pair: string; m: ShoeMetrics; person: RasterImage; result: RasterImage }[] = [];
const photo = (dir: string, name: string) => loadPhoto(path.join(REAL_PHOTOS, dir, name));

beforeAll(async () => {
  const signal = new AbortController().signal;
  const bodies = new Map<string, Awaited<ReturnType<typeof analyzer.analyze>>['body']>();
  const bodyOf = async (name: string, person: RasterImage) => {
    if (!bodies.has(name)) bodies.set(name, (await analyzer.analyze(person, signal)).body);
    return bodies.get(name)!;
  };
  for (const p of MARKS.dressPairs) {
    const person = await photo('persons', p.person);
    const garment = await photo('garments', p.garment);
    const result = renderTryOn({ body: await bodyOf(p.person, person), garments: { fullBody: garment }, quality: 'standard', preserveBackground: true });
    dresses.push({ pair: `${p.person} + ${p.garment}`, m: measureDress(person, garment, result, MARKS.fullLength[p.person]), person, result });
  }
  for (const p of MARKS.shoePairs) {
    const person = await photo('persons', p.person);
    const packshot = await photo('garments', p.shoes);
    const result = renderTryOn({ body: await bodyOf(p.person, person), garments: { shoes: packshot }, quality: 'standard', preserveBackground: true });
    shoes.push({ pair: `${p.person} + ${p.shoes}`, m: measureShoes(person, packshot, result, MARKS.fullLength[p.person]), person, result });
  }
}, 240_000);

describe('dresses on real full-length person photos', () => {
  it('every pair is informative (the dress does not share the colours of the person own clothes)', () => {
    expect(dresses).toHaveLength(MARKS.dressPairs.length);
    for (const { pair, m } of dresses) expect(m.uninformative, pair).toBe(false);
  });

  it('cover at least 80 % of the chest-to-thigh box with the dress colours', () => {
    for (const { pair, m } of dresses) expect(m.coverage, pair).toBeGreaterThanOrEqual(DRESS_TARGETS.coverage);
  });

  it('change at most 2 % of face and background pixels', () => {
    for (const { pair, m } of dresses) {
      expect(m.face, pair).toBeLessThanOrEqual(DRESS_TARGETS.face);
      expect(m.background, pair).toBeLessThanOrEqual(DRESS_TARGETS.background);
    }
  });

  it('leave at most 20 % of the old clothes outside the dress as they were (trouser legs, sleeves, a longer old skirt)', () => {
    const marked = dresses.filter(({ m }) => m.oldLeft !== null);
    expect(marked.length).toBeGreaterThanOrEqual(4);
    for (const { pair, m } of marked) expect(m.oldLeft, pair).toBeLessThanOrEqual(DRESS_TARGETS.oldLeft);
  });

  it('keep the photo size and the corners untouched', () => {
    for (const { pair, person, result } of dresses) {
      expect([result.width, result.height], pair).toEqual([person.width, person.height]);
      for (let i = 0; i < 20; i++) expect(result.data[i * 4], pair).toBe(person.data[i * 4]);
    }
  });
});

describe('shoes on real full-length person photos', () => {
  it('every pair is informative (the person own shoes do not have the new shoe main colours)', () => {
    expect(shoes).toHaveLength(MARKS.shoePairs.length);
    for (const { pair, m } of shoes) expect(m.uninformative, pair).toBe(false);
  });

  it('cover at least 80 % of the feet boxes with the shoe colours', () => {
    for (const { pair, m } of shoes) expect(m.coverage, pair).toBeGreaterThanOrEqual(SHOE_TARGETS.coverage);
  });

  it('leave the legs above the ankles and the background as they were (at most 2 % changed)', () => {
    for (const { pair, m } of shoes) {
      expect(m.aboveAnkles, pair).toBeLessThanOrEqual(SHOE_TARGETS.aboveAnkles);
      expect(m.background, pair).toBeLessThanOrEqual(SHOE_TARGETS.background);
    }
  });

  it('change no pixel from 200 px above the shoes up (legs, body, background)', () => {
    for (const { pair, person, result } of shoes) {
      const above = Math.min(...MARKS.fullLength[pair.split(' + ')[0]].feet.map((b) => b[1])) - 200;
      let changed = 0;
      for (let i = 0; i < person.width * above * 4; i++) if (person.data[i] !== result.data[i]) changed++;
      expect(changed, pair).toBe(0);
    }
  });
});
