/**
 * Realism of tops on real person photos (issue 26, point 7): per real top pair of marks.json
 * (`pairs` and `posePairs`), the repainted
 * skin's texture and colour, the garment's streaks, its outline and the old top left showing; and
 * per measure a constructed case it must fail (a flat fill, vertical smears, a stair-stepped mask).
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LearnedPersonAnalyzer } from '../../../../adapters/human/person-analyzer.ts';
import { renderTryOn } from '../../../../adapters/builtin/tryon/render-tryon.ts';
import { cutOut } from '../../../../adapters/builtin/tryon/garment-pieces.ts';
import type { TryOnDiagnostics } from '../../../../adapters/builtin/tryon/diagnostics.ts';
import type { RasterImage } from '../../../../core/images.ts';
import { PERSON_PART } from '../../../../core/ports/person-analyzer.ts';
import { dilate } from '../../../../adapters/builtin/raster/morphology.ts';
import { fillHoles } from '../../../../adapters/builtin/raster/components.ts';
import { MARKS, REAL_PHOTOS, loadPhoto } from '../../../support/tryon-metrics.ts';
import { checkTryOnResult, type GateCheckName } from '../../../../adapters/builtin/tryon/quality-gate.ts';
import { REALISM_TARGETS, edgeRatio, heldOutSkin, lightStrips, oldGarmentShowing, realismOfLayer, skinRealism, streakRatio, type HeldOutSkin, type RealismFigures, type SkinPainter } from '../../../support/realism-metrics.ts';
import { SRGB_TO_LINEAR } from '../../../../adapters/builtin/tryon/color.ts';

/**
 * Pairs and figures that miss their bound today, with the value measured when this was written
 * (the test holds them to no worse than that, so they can only improve) and why:
 * none today (every figure of every shown result is within its bound).
 *
 * A pair the quality gate refuses is not shown to anyone: its figures are not held to the bounds
 * (the gate's print-structure check holds the streak bound itself), and the refused pairs are named
 * in GATED.
 */
const SHORT: Record<string, Partial<Record<keyof RealismFigures, number>>> = {
  // none today. (The colour is measured region by region against the visible skin within
  // SKIN_RING of it, the skin it continues. Against the median of all face, neck and arm skin,
  // model_2 10.22, model_5 10.70, 14627_00 9.73 and model_7 9.84 miss, their fills continuing the
  // lit chest or neck beside them, and model_1 13.38 and 05997_00 34.39, the skin beside an arm
  // continuing the arm's shaded side.)
  // (model_7 meets it since the person's skin is told by the face's hue, in shade too: the absolute
  // skin test left out his neck's shaded side, L* 20, which the fill on his shoulder continues, and
  // measured it against the lit skin only, 17.0)
  // (model_4 meets both since the figures leave out skin within 2 px of the backdrop, the outline's
  // blend with it: 3.70 for the texture of her 80 px at the shoulder, where the crop top's strap
  // stood above the new top's seam, whose 5x5 windows spanned the backdrop's edge)
  // (05997_00 meets it since the fill's membrane takes an arm's skin in deep shade as a source:
  // the triangle between her forearm and the waistband, 144 px, was painted in the forearm's lit
  // tone beside its dark inner rim, 15.0, and 21.8 while drawn to the person's skin tone)
};

/**
 * Pairs the gate refuses, with the first check that refuses them (as real-photos-poses.test.ts names
 * them). Each result was opened and judged by eye not fit to show a shopper (the line says why).
 * The acceptance allows at most 1 in 10 refused; honest gating refuses 2 of these 22 today:
 * the test holds the gate to refusing exactly these, each one a result judged unfit, rather than to
 * a count that would let such results through.
 */
const GATED: Record<string, GateCheckName> = {
  // seated side pose, panel whole (straight-sided fit): skin painted from the neck into the
  // blouse's deep V and over the higher shoulder out to the backdrop, grainy, 2.4x the neck's area
  'fashn-model.jpg + 09263_00.jpg': 'neck-fill',
  // (model_8 + 049805_1 shown: the halftone portrait keeps its aspect (the panel 1.12x wider than
  // along, within ASPECT_SLACK) and measures 0.95 against the packshot seen at its drawn size
  // (0.39), 1.60 against the full-size packshot, whose screen any faithful smaller copy averages
  // away; the crew neck opens at the base of her neck with the skin drawn in it (its label, inside
  // the back, is cut away with the inside back; its join is measured against skin only, not the
  // grey backdrop the parsing calls neck at her shoulder), a notch of shoulder skin above the right
  // shoulder seam)
  // (01861_00 + 050181_1 shown since both forearms are drawn from their hands and join them, and
  // the red sleeve's smudges beside the new caps and its line at the hip are gone)
  // (01008_00 + 07764_00 shown since the scoop's skin is drawn as chest and joins the neck cleanly,
  // 58 % within the drawn bound, and the sheer sleeve's stretch over the skirt, its print darkened,
  // is taken away with the sleeve: no shreds of the skirt beside the drawn forearm)
  // (00035_00 + 09290_00 shown since the blouse's long sleeves reach the wrists over the old ones)
  // (model_4 + 00470_00 shown since the ruffle mock neck is laid as a standing collar around the
  // base of her neck rather than cut open as a slit: no skin is painted at the neck, neck-fill
  // 0.1 %; the print is waved on her left shoulder)
  // the cardigan's inside back and label in its V, a red-brown plate of skin painted on the
  // shoulder out to the backdrop (neck-outline 100 % too)
  '00121_00.jpg + 21514384_52353349.jpg': 'neck-fill',
  // (051918_0 + 049949_1 shown since the skin in the open shirt's V is drawn as chest and joins his
  // neck cleanly all along: 51 % of the neck's area, within the drawn bound)
  // (00034_00 + 00151_00 shown since the skin where the blouse's collar stood continues her lit
  // neck, its edge values read beyond the collar's contact shadow: the step against her neck is
  // gone, and no skin grows into the ends of her bob; the inside back's stripes show beside the
  // front binding)
  // (09597_00 + 049947_1 shown since the skin in the chiffon blouse's V is drawn as chest and joins
  // the neck cleanly, 57 %, and the satin's gloss no longer smudges the sheer front; the right
  // sleeve's cap no longer draws the inside back's label and deeper pink at the shoulder)
};

/**
 * Photos whose held-out skin (heldOutSkin: the visible skin just above the person's own top,
 * repainted by the fill and compared with the photo) misses a bound today, with the value measured
 * when this was written (held to no worse) and why. 14 of the 20 photos with such skin meet both.
 */
const HELD_SHORT: Record<string, Partial<Record<'fillVsTruth' | 'stdRatio', number>>> = {
  // the band is mostly the ends of her bob over the shoulder and the collar's rim (154 px), not skin
  '00055_00.jpg': { fillVsTruth: 15.8, stdRatio: 0.25 },
  // the sides of his neck above a crew neck (283 px): the right side is a highlight, the membrane
  // from the neck's middle fills it in mid tone
  '051918_0.jpg': { fillVsTruth: 12.5 },
  // 158 px at the neck's sides beside her bob, in shade, filled lighter from the neck's lit middle
  // (10.1 and 14.8 for 00055_00 before the chest's relief kept the fill's mean light; that brought
  // the fill nearer the skin it replaced on 25 of the 33 bands measured with the held-out photos,
  // further on 6)
  '05997_00.jpg': { fillVsTruth: 10.8 },
  // the lower neck above a crew neck is lit from the front, lighter than the neck under the chin
  // that the membrane grows from (a harmonic fill carries no gradient on towards the garment; a
  // plane of the light's gradient carried on brought 07966_00 to 6.4 and model_7 to 6.9, but
  // 01008_00 to 7.1, model_8 to 7.7 and worsened the real pairs' fills)
  '07966_00.jpg': { fillVsTruth: 8.1 },
  'model_6.jpg': { fillVsTruth: 9.7 },
  // his dark skin: the lit base of the neck above the V filled from the shaded neck beside it
  'model_7.jpg': { fillVsTruth: 8.4 },
};

const analyzer = new LearnedPersonAnalyzer();
/** heldOutSkin per person photo (null: too little visible skin above the top). */
const heldOut: Record<string, HeldOutSkin | null> = {};
/** One analysed photo with skin above its top, for the checks on constructed fills. */
let withSkin: Parameters<typeof heldOutSkin>[0] | null = null;
const measured: { pair: string; f: RealismFigures; refusedBy?: GateCheckName }[] = [];
/** White strips along the new top, per pair (lightStrips). */
const strips: Record<string, number> = {};
/** Light pixels (luma > 150) of the new top within 3 px of the bare arms, per pair. */
const lightBesideArms: Record<string, number> = {};
/** Hair-labelled pixels the new top leaves uncovered though it encloses them, per pair. */
const holesOfHair: Record<string, number> = {};

beforeAll(async () => {
  for (const p of [...MARKS.pairs, ...MARKS.posePairs]) {
    const person = await loadPhoto(path.join(REAL_PHOTOS, 'persons', p.person));
    const garment = await loadPhoto(path.join(REAL_PHOTOS, 'garments', p.topGarment));
    const body = (await analyzer.analyze(person, new AbortController().signal)).body!;
    if (!(p.person in heldOut)) {
      heldOut[p.person] = heldOutSkin({ ...body, parts: body.parts! });
      if (p.person === '14627_00.jpg') withSkin = { ...body, parts: body.parts! };
    }
    const diagnostics: TryOnDiagnostics = { layers: [] };
    const result = renderTryOn({ body, garments: { top: garment }, quality: 'standard', preserveBackground: true, diagnostics });
    const cut = cutOut(garment, 'top');
    const packshotMask = new Uint8Array(cut.labels.length);
    for (let i = 0; i < packshotMask.length; i++) packshotMask[i] = cut.labels[i] === 0 ? 1 : 0;
    const verdict = checkTryOnResult({ person: body, result, garments: { top: garment }, diagnostics });
    const refusedBy = verdict.checks.find((c) => !c.passed)?.check;
    strips[`${p.person} + ${p.topGarment}`] = lightStrips(result, body.parts!, body.mask);
    const alpha = diagnostics.layers[0].alpha!;
    const bare = new Uint8Array(alpha.length);
    for (let i = 0; i < bare.length; i++) bare[i] = body.parts![i] === PERSON_PART.arm && alpha[i] < 0.05 ? 1 : 0;
    const besideArms = dilate(bare, result.width, result.height, 3);
    let light = 0;
    for (let i = 0; i < bare.length; i++) if (besideArms[i] && alpha[i] >= 0.99 && 0.299 * result.data[i * 4] + 0.587 * result.data[i * 4 + 1] + 0.114 * result.data[i * 4 + 2] > 150) light++;
    lightBesideArms[`${p.person} + ${p.topGarment}`] = light;
    const covered = new Uint8Array(alpha.length);
    for (let i = 0; i < covered.length; i++) covered[i] = alpha[i] >= 0.5 ? 1 : 0;
    const outline = fillHoles(covered, result.width, result.height);
    let holes = 0;
    for (let i = 0; i < covered.length; i++) if (outline[i] && !covered[i] && body.parts![i] === PERSON_PART.hair) holes++;
    holesOfHair[`${p.person} + ${p.topGarment}`] = holes;
    measured.push({ pair: `${p.person} + ${p.topGarment}`, f: realismOfLayer(result, person, garment, packshotMask, diagnostics.layers[0], body.parts!), ...(refusedBy ? { refusedBy } : {}) });
  }
}, 900_000);

/** The results a shopper sees (the gate passed them). */
const shown = () => measured.filter((m) => !m.refusedBy);

/** The bound, or for a pair listed in SHORT no worse than its measured value. */
function check(pair: string, key: keyof RealismFigures, value: number, ok: (v: number) => boolean, worse: (v: number, was: number) => boolean) {
  const was = SHORT[pair]?.[key];
  if (was === undefined) expect(ok(value), `${pair}: ${key} ${value.toFixed(3)}`).toBe(true);
  else expect(worse(value, was), `${pair}: ${key} ${value.toFixed(3)} (was ${was})`).toBe(false);
}

describe('realism of tops on real person photos', () => {
  it('measures every pair', () => {
    expect(measured).toHaveLength(MARKS.pairs.length + MARKS.posePairs.length);
  });

  it('refuses only the pairs named in GATED, each judged unfit by eye', () => {
    const refused = Object.fromEntries(measured.filter((m) => m.refusedBy).map((m) => [m.pair, m.refusedBy]));
    expect(refused).toEqual(GATED);
  });

  it('repaints skin with the texture (5x5 std 0.5-2x) of the person own skin and the colour (ΔE76 <= 8) of the skin it continues', () => {
    const [lo, hi] = REALISM_TARGETS.stdRatio;
    for (const { pair, f } of shown()) {
      check(pair, 'stdRatio', f.stdRatio, (v) => v >= lo && v <= hi, (v, was) => Math.abs(Math.log(v)) > Math.abs(Math.log(was)) + 0.05);
      check(pair, 'deltaE', f.deltaE, (v) => v <= REALISM_TARGETS.deltaE, (v, was) => v > was + 0.5);
    }
  });

  it('keeps the garment structure: horizontal over vertical gradient energy within 1.5x of the packshot', () => {
    const [lo, hi] = REALISM_TARGETS.streak;
    for (const { pair, f } of shown()) check(pair, 'streak', f.streak, (v) => v >= lo && v <= hi, (v, was) => Math.abs(Math.log(v)) > Math.abs(Math.log(was)) + 0.05);
  });

  it('draws a clean outline: length over the smoothed outline <= 1.15', () => {
    for (const { pair, f } of shown()) check(pair, 'edge', f.edge, (v) => v <= REALISM_TARGETS.edgeRatio, (v, was) => v > was + 0.01);
  });

  it('leaves at most 3 % of the old top showing outside the new one', () => {
    for (const { pair, f } of shown()) check(pair, 'oldShowing', f.oldShowing, (v) => v <= REALISM_TARGETS.oldShowing, (v, was) => v > was + 0.005);
  });

  it('repaints real skin held out of the photo like the skin it replaced (ΔE76 <= 8 of it, 5x5 std 0.5-2x)', () => {
    const measurable = Object.entries(heldOut).filter(([, r]) => r);
    // every person photo but those with (almost) no skin above their top
    expect(measurable.length).toBeGreaterThanOrEqual(18);
    const [lo, hi] = REALISM_TARGETS.stdRatio;
    for (const [photo, r] of measurable) {
      const was = HELD_SHORT[photo] ?? {};
      if (was.fillVsTruth === undefined) expect(r!.fillVsTruth, `${photo}: fill vs the skin it replaced`).toBeLessThanOrEqual(REALISM_TARGETS.deltaE);
      else expect(r!.fillVsTruth, `${photo}: fill vs truth (was ${was.fillVsTruth})`).toBeLessThanOrEqual(was.fillVsTruth + 0.5);
      if (was.stdRatio === undefined) {
        expect(r!.stdRatio, `${photo}: std ratio`).toBeGreaterThanOrEqual(lo);
        expect(r!.stdRatio, `${photo}: std ratio`).toBeLessThanOrEqual(hi);
      } else expect(Math.abs(Math.log(r!.stdRatio))).toBeLessThanOrEqual(Math.abs(Math.log(was.stdRatio)) + 0.05);
    }
  });

  it('takes as the colour reference skin that real skin matches: the visible skin around it, not all of it', () => {
    // the colour figure's reference checked on real skin: the held-out band of each photo is real
    // skin next to the person's top, which a fill must match; measured against the visible skin
    // within SKIN_RING of it, most bands are within the bound (13 of 20 when written), against the
    // median of all face, neck and arm skin half (10 of 20: the lit face against a shaded neck)
    const bands = Object.values(heldOut).filter((r): r is HeldOutSkin => r !== null);
    const around = bands.filter((r) => r.truthVsOwn <= REALISM_TARGETS.deltaE).length;
    const all = bands.filter((r) => r.truthVsWide <= REALISM_TARGETS.deltaE).length;
    expect(around / bands.length).toBeGreaterThanOrEqual(0.6);
    expect(around).toBeGreaterThan(all);
  });

  it('fails the held-out check on a flat fill and on a fill of the wrong colour', () => {
    expect(withSkin).not.toBeNull();
    const body = withSkin!;
    const n = body.image.width * body.image.height;
    // the band's own median colour, flat
    const flat: SkinPainter = (canvas, band) => {
      const idx: number[] = [];
      for (let i = 0; i < n; i++) if (band[i]) idx.push(i);
      const mid = [0, 1, 2].map((c) => idx.map((i) => canvas[i * 3 + c]).sort((a, b) => a - b)[idx.length >> 1]);
      for (const i of idx) for (let c = 0; c < 3; c++) canvas[i * 3 + c] = mid[c];
      return band.slice();
    };
    const flatFig = heldOutSkin(body, flat)!;
    expect(flatFig.fillVsTruth).toBeLessThan(REALISM_TARGETS.deltaE);
    expect(flatFig.stdRatio).toBeLessThan(REALISM_TARGETS.stdRatio[0]);
    // the photo's own texture at half the light: right grain, wrong colour
    const dark: SkinPainter = (canvas, band) => {
      for (let i = 0; i < n; i++) if (band[i]) for (let c = 0; c < 3; c++) canvas[i * 3 + c] = SRGB_TO_LINEAR[body.image.data[i * 4 + c]] * 0.5;
      return band.slice();
    };
    const darkFig = heldOutSkin(body, dark)!;
    expect(darkFig.fillVsTruth).toBeGreaterThan(REALISM_TARGETS.deltaE);
    expect(darkFig.stdRatio).toBeGreaterThanOrEqual(REALISM_TARGETS.stdRatio[0]);
  });

  it('draws no white strips along a green tee on white-topped persons (the packshot\'s drop shadow left out)', () => {
    // light grey pixels on the torso and arms: the packshot's soft shadow drawn as cloth under the
    // sleeves and along the hem made 2847 and 8643 of them; left out, 1298 and 6241 (the rest is
    // the old white top at the sides by the arms and, in 02849, the skirt's white print)
    expect(strips['model_5.jpg + 050191_1.jpg']).toBeLessThan(1600);
    expect(strips['02849_00.jpg + 050191_1.jpg']).toBeLessThan(7000);
  });

  it('draws a black tee\'s sides beside the arms in its own black, not the packshot\'s white backdrop', () => {
    // the panel's sides reach out to the body's and were sampled beyond the cut-out, where the
    // packshot is its backdrop: 35 and 34 light pixels of a white seam between arm and tee then
    expect(lightBesideArms['model_3.jpg + 03032_00.jpg']).toBeLessThan(5);
    expect(lightBesideArms['model_6.jpg + 03032_00.jpg']).toBeLessThan(5);
  });

  it('leaves no holes in the new top where the parsing called skin in shade hair, away from any strand', () => {
    // a band of 05997_00's shoulder in shade beside her light-brown bob is labelled hair: kept in
    // front of the tee, it showed as skin-coloured holes in the tee's shoulder (137 px)
    expect(holesOfHair['05997_00.jpg + 00055_00.jpg']).toBeLessThan(10);
  });
});

/** A w x h sRGB image from a function of the pixel. */
function image(w: number, h: number, f: (x: number, y: number) => [number, number, number]): RasterImage {
  const data = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const [r, g, b] = f(x, y);
      data.set([r, g, b, 255], (y * w + x) * 4);
    }
  }
  return { width: w, height: h, data };
}

/** A deterministic hash noise in -0.5..0.5. */
const noise = (x: number, y: number) => {
  let t = Math.imul(x + 7, 0x27d4eb2d) ^ Math.imul(y + 13, 0x165667b1);
  t = Math.imul(t ^ (t >>> 15), t | 1);
  return (((t ^ (t >>> 13)) >>> 0) / 4294967296) - 0.5;
};

describe('realism measures on constructed cases', () => {
  const w = 80;
  const h = 80;
  // the person: textured skin on the left half
  const person = image(w, h, (x, y) => {
    const v = 16 * noise(x, y);
    return [200 + v, 160 + v, 140 + v];
  });
  const own = new Uint8Array(w * h);
  const fill = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) (x < 40 ? own : fill)[y * w + x] = 1;

  it('skinRealism: a flat fill fails, a textured one in the same colour passes', () => {
    const flat = image(w, h, (x, y) => (x < 40 ? [person.data[(y * w + x) * 4], person.data[(y * w + x) * 4 + 1], person.data[(y * w + x) * 4 + 2]] : [200, 160, 140]));
    const flatFig = skinRealism(flat, person, fill, own);
    expect(flatFig.stdRatio).toBeLessThan(REALISM_TARGETS.stdRatio[0]);
    const textured = image(w, h, (x, y) => {
      const v = 16 * noise(x + 101, y + 57);
      return [200 + v, 160 + v, 140 + v];
    });
    const good = skinRealism(textured, person, fill, own);
    expect(good.stdRatio).toBeGreaterThanOrEqual(REALISM_TARGETS.stdRatio[0]);
    expect(good.stdRatio).toBeLessThanOrEqual(REALISM_TARGETS.stdRatio[1]);
    expect(good.deltaE).toBeLessThan(REALISM_TARGETS.deltaE);
    // the right texture in the wrong colour fails on ΔE
    const tanned = image(w, h, (x, y) => {
      const v = 16 * noise(x + 101, y + 57);
      return [150 + v, 100 + v, 70 + v];
    });
    expect(skinRealism(tanned, person, fill, own).deltaE).toBeGreaterThan(REALISM_TARGETS.deltaE);
  });

  it('streakRatio: vertically smeared stripes fail, the stripes as they are pass', () => {
    // the packshot: a check of horizontal and vertical stripes
    const pattern = (x: number, y: number): [number, number, number] => {
      const v = (Math.floor(x / 6) + Math.floor(y / 6)) % 2 ? 60 : 200;
      return [v, v, v];
    };
    const packshot = image(w, h, pattern);
    const all = new Float32Array(w * h).fill(1);
    expect(streakRatio(packshot, all, packshot, all)).toBeCloseTo(1, 5);
    // smeared down the columns: each column repeats its top row's value with a little noise
    const smeared = image(w, h, (x, y) => {
      const v = pattern(x, 0)[0] + 4 * noise(x, y);
      return [v, v, v];
    });
    const ratio = streakRatio(smeared, all, packshot, all);
    expect(ratio).toBeGreaterThan(REALISM_TARGETS.streak[1]);
  });

  it('edgeRatio: a stair-stepped mask fails, a smooth anti-aliased disc and a rasterised line pass', () => {
    const W = 200;
    const H = 200;
    // a disc with anti-aliased coverage
    const disc = new Float32Array(W * H);
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) disc[y * W + x] = Math.max(0, Math.min(1, 60.5 - Math.hypot(x - 100, y - 100)));
    expect(edgeRatio(disc, W, H)).toBeLessThan(1.05);
    // a binary half-plane along a 30 degree line (pixel stairs of one or two pixels)
    const line = new Uint8Array(W * H);
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) line[y * W + x] = y > 20 && y < 180 && x > 20 && x < 180 && y > 0.577 * x + 20 ? 1 : 0;
    expect(edgeRatio(line, W, H)).toBeLessThanOrEqual(REALISM_TARGETS.edgeRatio);
    // the same disc made of 12 px blocks (an upscaled coarse mask)
    const blocky = new Uint8Array(W * H);
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) blocky[y * W + x] = Math.hypot(Math.floor(x / 12) * 12 + 6 - 100, Math.floor(y / 12) * 12 + 6 - 100) < 60 ? 1 : 0;
    expect(edgeRatio(blocky, W, H)).toBeGreaterThan(REALISM_TARGETS.edgeRatio);
  });

  it('oldGarmentShowing: counts the old top left unchanged outside the new one', () => {
    const old = new Uint8Array(w * h);
    const alpha = new Float32Array(w * h);
    for (let i = 0; i < w * h; i++) {
      old[i] = 1;
      alpha[i] = i < (w * h) / 2 ? 1 : 0;
    }
    // the lower half left as it was: half the old top shows
    expect(oldGarmentShowing(person, person, old, alpha)).toBeCloseTo(0.5, 5);
    const repainted = image(w, h, () => [30, 90, 200]);
    expect(oldGarmentShowing(repainted, person, old, alpha)).toBe(0);
  });
});
