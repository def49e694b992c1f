/**
 * The top's geometry on real person photos (issue 26, points 1 and 3): the shoulders are covered
 * up to their top (no bare notch at the shoulder's round), a sleeve joins the body panel along a
 * slanted armhole seam rather than as a box laid over it (a long straight horizontal edge), and
 * only real hair strands stay in front (the parsing's hair label over a shoulder is coarse); long
 * sleeves reach the wrists, the panel's shoulders meet the person's, and no packshot backdrop is
 * drawn as sleeve cloth.
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LearnedPersonAnalyzer } from '../../../../adapters/human/person-analyzer.ts';
import { cutOut } from '../../../../adapters/builtin/tryon/garment-pieces.ts';
import { hipsMiddle } from '../../../../adapters/builtin/tryon/body-frame.ts';
import { drawPhotoTop, hairStrands, transferShading, withCleanOpening } from '../../../../adapters/builtin/tryon/photo-top.ts';
import { scaleBody } from '../../../../adapters/builtin/tryon/scale-body.ts';
import { createLayer } from '../../../../adapters/builtin/tryon/warp-piece.ts';
import { PERSON_PART, type PersonBody } from '../../../../core/ports/person-analyzer.ts';
import { REAL_PHOTOS, loadPhoto } from '../../../support/tryon-metrics.ts';
import { boxEdge, shoulderGap } from '../../../support/top-geometry.ts';
import { LANDMARKS } from './fixture-body.ts';

/**
 * Pairs the old fit notched at a shoulder's round (skin between the panel's side and a sleeve
 * starting below the shoulder's top; shoulder gap 29, 13 and 18 px before) and whose sleeves it
 * laid over the panel as boxes (box edge 97, 23 and 13 px before), with the measured figures.
 */
const GAP_PAIRS: [string, string][] = [
  ['01861_00.jpg', '050181_1.jpg'],
  ['model_2.jpg', '049949_1.jpg'],
  ['model_5.jpg', '050191_1.jpg'],
];
const BOX_PAIRS: [string, string][] = [
  ['02849_00.jpg', '050191_1.jpg'],
  ['model_1.jpg', '050181_1.jpg'],
  ['05997_00.jpg', '00055_00.jpg'],
];
/**
 * A boxy sheer blouse whose long sleeves hang against its body on the packshot (its panel was taken
 * to run into them, the sleeves measured three-quarter: the forearms left bare, painted over the
 * old navy sleeves, and the blouse's sloping shoulders left wedges of the old top showing).
 */
const BLOUSE: [string, string] = ['00035_00.jpg', '09290_00.jpg'];
const PAIRS = [...GAP_PAIRS, ...BOX_PAIRS, BLOUSE];

const analyzer = new LearnedPersonAnalyzer();
const fits: { pair: string; gap: number; box: number; sw: number; forearms: number[]; shoulderBare: number; lightSleeve: number }[] = [];
const bodies: Record<string, PersonBody & { parts: Uint8Array }> = {};

beforeAll(async () => {
  for (const [personFile, garmentFile] of PAIRS) {
    const person = await loadPhoto(path.join(REAL_PHOTOS, 'persons', personFile));
    const garment = await loadPhoto(path.join(REAL_PHOTOS, 'garments', garmentFile));
    const analysed = (await analyzer.analyze(person, new AbortController().signal)).body!;
    // the renderer's standard size (1024 on the long side)
    const k = 1024 / Math.max(person.width, person.height);
    const body = scaleBody(analysed, Math.round(person.width * k), Math.round(person.height * k));
    const withParts = { ...body, parts: body.parts! };
    bodies[personFile] = withParts;
    const layer = createLayer(body.image.width, body.image.height);
    const fit = drawPhotoTop(layer, cutOut(garment, 'top'), garment, withParts);
    const L = body.landmarks;
    const w = layer.width;
    const sw = Math.hypot(L.leftShoulder.x - L.rightShoulder.x, L.leftShoulder.y - L.rightShoulder.y);
    // the cloth's cover at 85 % of the way from each elbow to its wrist
    const forearms = [
      [L.leftElbow, L.leftWrist],
      [L.rightElbow, L.rightWrist],
    ].map(([e, wr]) => layer.data[(Math.round(e.y + 0.85 * (wr.y - e.y)) * w + Math.round(e.x + 0.85 * (wr.x - e.x))) * 4 + 3]);
    // the old top left uncovered over the shoulders (the neck aside): from 0.3 shoulder widths
    // above the higher shoulder keypoint to just below it, between the keypoints and a little beyond
    let shoulderBare = 0;
    const ys = Math.min(L.leftShoulder.y, L.rightShoulder.y);
    const xa = Math.min(L.leftShoulder.x, L.rightShoulder.x) - 0.1 * sw;
    const xb = Math.max(L.leftShoulder.x, L.rightShoulder.x) + 0.1 * sw;
    for (let y = Math.round(ys - 0.3 * sw); y <= ys + 0.05 * sw; y++) {
      for (let x = Math.round(xa); x <= xb; x++) {
        const i = y * w + x;
        if (fit.repaint[i] && withParts.parts[i] !== PERSON_PART.neck && layer.data[i * 4 + 3] < 0.5) shoulderBare++;
      }
    }
    // light cloth the sleeves drew (linear luminance over 0.3)
    let lightSleeve = 0;
    for (let i = 0; i < w * layer.height; i++) {
      const a = layer.data[i * 4 + 3];
      if ((fit.maps.piece[i] !== 2 && fit.maps.piece[i] !== 3) || a <= 0.5) continue;
      if ((0.2126 * layer.data[i * 4] + 0.7152 * layer.data[i * 4 + 1] + 0.0722 * layer.data[i * 4 + 2]) / a > 0.3) lightSleeve++;
    }
    fits.push({
      pair: `${personFile} + ${garmentFile}`,
      gap: shoulderGap(layer, { ...body, parts: body.parts! }),
      box: boxEdge(fit.maps.piece, layer.width, layer.height),
      sw,
      forearms,
      shoulderBare,
      lightSleeve,
    });
  }
}, 600_000);

describe('the top on a person photo: shoulders and sleeves', () => {
  it('covers the shoulders up to their top: no bare notch deeper than 3.5 % of the shoulders width', () => {
    for (const f of fits.filter((f) => GAP_PAIRS.some(([p, g]) => f.pair === `${p} + ${g}`))) expect(f.gap, `${f.pair}: gap ${f.gap} px`).toBeLessThanOrEqual(0.035 * f.sw);
  });

  it('joins each sleeve to the panel along a slanted seam: no horizontal panel-to-sleeve edge longer than 4 % of the shoulders width', () => {
    for (const f of fits.filter((f) => BOX_PAIRS.some(([p, g]) => f.pair === `${p} + ${g}`))) expect(f.box, `${f.pair}: box edge ${f.box} px`).toBeLessThanOrEqual(0.04 * f.sw);
  });

  it('lays the long sleeves of a boxy blouse, hanging against its body on the packshot, down to the wrists', () => {
    const f = fits.find((f) => f.pair === BLOUSE.join(' + '))!;
    // (was 0 and 0: three-quarter sleeves over bare, painted forearms)
    for (const a of f.forearms) expect(a, f.pair).toBeGreaterThanOrEqual(0.9);
  });

  it('fits the panel to square shoulders: the old top left bare over the shoulders within 1 % of the shoulders width squared', () => {
    const f = fits.find((f) => f.pair === BLOUSE.join(' + '))!;
    // (was 1601 px, 1.9 %: wedges of the old navy top between the blouse's sloping seams and the shoulders)
    expect(f.shoulderBare, f.pair).toBeLessThan(0.01 * f.sw * f.sw);
  });

  it('draws neither the packshot backdrop nor its drop shadow as sleeve cloth on a navy tee', () => {
    const f = fits.find((f) => f.pair === 'model_1.jpg + 050181_1.jpg')!;
    // (was 1709 px: a white band along a sleeve's top edge, grey wedges at the openings)
    expect(f.lightSleeve, f.pair).toBeLessThan(100);
  });

  it('lays a bell sleeve on the arm without narrowing its pleats: across at most 1.6x narrower than along', async () => {
    // the chiffon blouse 049947_1's flared sleeves are 2-3 times the arm's width at the cuff; laid
    // across the arm whole they were squeezed to a third (local scale across over along: median
    // 2.57 on one sleeve, 90th percentile 2.89 and 3.79), their pleats crowded into streaks
    const garment = await loadPhoto(path.join(REAL_PHOTOS, 'garments', '049947_1.jpg'));
    const body = bodies[BLOUSE[0]];
    const layer = createLayer(body.image.width, body.image.height);
    const { maps } = drawPhotoTop(layer, cutOut(garment, 'top'), garment, body);
    const w = layer.width;
    for (const piece of [2, 3]) {
      // the output-to-packshot map's Jacobian by neighbouring pixels; its singular values' ratio
      const ratios: number[] = [];
      for (let i = 0; i + w + 1 < maps.piece.length; i++) {
        if (maps.piece[i] !== piece || maps.piece[i + 1] !== piece || maps.piece[i + w] !== piece) continue;
        const a = maps.gx[i + 1] - maps.gx[i];
        const b = maps.gx[i + w] - maps.gx[i];
        const c = maps.gy[i + 1] - maps.gy[i];
        const d = maps.gy[i + w] - maps.gy[i];
        const half = (a * a + b * b + c * c + d * d) / 2;
        const root = Math.sqrt(Math.max(0, half * half - (a * d - b * c) ** 2));
        ratios.push(Math.sqrt((half + root) / Math.max(1e-9, half - root)));
      }
      ratios.sort((p, q) => p - q);
      expect(ratios.length, `sleeve ${piece}`).toBeGreaterThan(5000);
      expect(ratios[ratios.length >> 1], `sleeve ${piece}: median`).toBeLessThan(1.7);
      expect(ratios[Math.floor(0.9 * ratios.length)], `sleeve ${piece}: 90th percentile`).toBeLessThan(2);
    }
  });

  it('keeps the hair of the head and the face in front, and drops hair-labelled skin and backdrop below the face', () => {
    const body = bodies['02849_00.jpg'];
    const { width: w, height: h } = body.image;
    const front = hairStrands(body.image, body.parts, []);
    let face = 0;
    let faceKept = 0;
    let hair = 0;
    let dropped = 0;
    for (let i = 0; i < w * h; i++) {
      if (body.parts[i] === PERSON_PART.face) {
        face++;
        faceKept += front[i];
      } else if (body.parts[i] === PERSON_PART.hair) {
        hair++;
        dropped += 1 - front[i];
      }
    }
    expect(faceKept).toBe(face);
    // most of the label is hair; some of it below the face is not
    expect(dropped).toBeGreaterThan(0);
    expect(dropped).toBeLessThan(0.5 * hair);
  });

  it('hairStrands: a hair-labelled band of skin colour over a shoulder is dropped, brown strands in it stay', () => {
    const w = 60;
    const h = 60;
    const data = new Uint8Array(w * h * 4);
    const parts = new Uint8Array(w * h);
    const put = (x: number, y: number, rgb: number[], part: number) => {
      const i = y * w + x;
      data.set([...rgb, 255], i * 4);
      parts[i] = part;
    };
    const SKIN = [225, 185, 160];
    const HAIR = [90, 60, 40];
    const BACK = [235, 235, 235];
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) put(x, y, BACK, PERSON_PART.background);
    // head: hair on top, the face below it
    for (let y = 0; y < 12; y++) for (let x = 15; x < 45; x++) put(x, y, HAIR, PERSON_PART.hair);
    for (let y = 12; y < 30; y++) for (let x = 20; x < 40; x++) put(x, y, SKIN, PERSON_PART.face);
    // below the face a hair label over the shoulder: skin, with one strand two pixels wide
    for (let y = 32; y < 50; y++) for (let x = 5; x < 55; x++) put(x, y, x === 30 || x === 31 ? HAIR : SKIN, PERSON_PART.hair);
    const front = hairStrands({ width: w, height: h, data }, parts, [[50, 0, 0]]);
    expect(front[5 * w + 30]).toBe(1);
    expect(front[20 * w + 30]).toBe(1);
    expect(front[40 * w + 30]).toBe(1);
    expect(front[40 * w + 31]).toBe(1);
    expect(front[40 * w + 10]).toBe(0);
    expect(front[40 * w + 50]).toBe(0);
    // a hair label over the backdrop beside the shoulder stays (no garment is drawn there)
    for (let x = 0; x < 5; x++) for (let y = 32; y < 50; y++) put(x, y, BACK, PERSON_PART.hair);
    expect(hairStrands({ width: w, height: h, data }, parts, [[50, 0, 0]])[40 * w + 2]).toBe(1);
  });
});

describe('the collar on a person photo', () => {
  /** Where the garment starts down the neck's middle (chin's column): its share of the way from the chin to the shoulder line. */
  const collarDown = async (body: PersonBody & { parts: Uint8Array }, garmentFile: string) => {
    const garment = await loadPhoto(path.join(REAL_PHOTOS, 'garments', garmentFile));
    const layer = createLayer(body.image.width, body.image.height);
    drawPhotoTop(layer, cutOut(garment, 'top'), garment, body);
    const L = body.landmarks;
    const x = Math.round(L.chin.x);
    let y = Math.round(L.chin.y);
    while (y < layer.height && layer.data[(y * layer.width + x) * 4 + 3] < 0.5) y++;
    return (y - L.chin.y) / ((L.leftShoulder.y + L.rightShoulder.y) / 2 - L.chin.y);
  };

  it('lays a ruffled mock neck as a standing collar up the neck, a crew neck at its base', async () => {
    // the floral top's ruffle stand was taken for an inside back and cut open as a slit, with
    // skin painted in it and beside it (model_4 + 00470_00, refused by neck-fill 34 %)
    const person = await loadPhoto(path.join(REAL_PHOTOS, 'persons', 'model_4.jpg'));
    const analysed = (await analyzer.analyze(person, new AbortController().signal)).body!;
    const k = 1024 / Math.max(person.width, person.height);
    const body = scaleBody(analysed, Math.round(person.width * k), Math.round(person.height * k));
    expect(await collarDown({ ...body, parts: body.parts! }, '00470_00.jpg')).toBeLessThan(0.5);
    expect(await collarDown(bodies['05997_00.jpg'], '00055_00.jpg')).toBeGreaterThan(0.7);
  }, 120_000);

  it('cuts away the inside back of a tee green inside and out, told only by its black neck label: no label on the chest', async () => {
    // the label's columns and the collar's anti-aliased top edge passed for an inside back found by
    // colour, so no opening was cut: the label was drawn at the front of the crew neck
    const garment = await loadPhoto(path.join(REAL_PHOTOS, 'garments', '050191_1.jpg'));
    const body = bodies['model_5.jpg'];
    const layer = createLayer(body.image.width, body.image.height);
    drawPhotoTop(layer, cutOut(garment, 'top'), garment, body);
    const L = body.landmarks;
    const sw = Math.hypot(L.leftShoulder.x - L.rightShoulder.x, L.leftShoulder.y - L.rightShoulder.y);
    const w = layer.width;
    // near-black cloth drawn around the neck, down to a fifth of the shoulders below them (the
    // print starts lower)
    let dark = 0;
    let drawn = 0;
    const shoulderY = (L.leftShoulder.y + L.rightShoulder.y) / 2;
    for (let y = Math.round(L.chin.y); y <= shoulderY + 0.2 * sw; y++) {
      for (let x = Math.round(L.neck.x - 0.25 * sw); x <= L.neck.x + 0.25 * sw; x++) {
        const o = (y * w + x) * 4;
        const a = layer.data[o + 3];
        if (a < 0.5) continue;
        drawn++;
        if ((0.2126 * layer.data[o] + 0.7152 * layer.data[o + 1] + 0.0722 * layer.data[o + 2]) / a < 0.02) dark++;
      }
    }
    expect(drawn).toBeGreaterThan(0.05 * sw * sw);
    expect(dark).toBe(0);
  }, 120_000);

  it('draws a sleeve cap reaching in over the neck opening with the cloth beside it, not the inside back\'s deeper shade', async () => {
    // the chiffon blouse's inside back, seen through its V, is a deeper pink (about 10 ΔE from the
    // front) with a label: the right sleeve's cap drew a flap of it at her shoulder
    const person = await loadPhoto(path.join(REAL_PHOTOS, 'persons', '09597_00.jpg'));
    const garment = await loadPhoto(path.join(REAL_PHOTOS, 'garments', '049947_1.jpg'));
    const analysed = (await analyzer.analyze(person, new AbortController().signal)).body!;
    const k = 1024 / Math.max(person.width, person.height);
    const scaled = scaleBody(analysed, Math.round(person.width * k), Math.round(person.height * k));
    const body = { ...scaled, parts: scaled.parts! };
    const cut = cutOut(garment, 'top');
    expect(cut.insideBack).toBeTruthy();
    // the inside back's and the front's median linear colours in the packshot
    const lin = (v: number) => ((v / 255) <= 0.04045 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
    const medianOf = (pick: (i: number) => boolean) => {
      const c: number[][] = [[], [], []];
      for (let i = 0; i < cut.labels.length; i++) if (pick(i)) for (let k2 = 0; k2 < 3; k2++) c[k2].push(lin(garment.data[i * 4 + k2]));
      return c.map((v) => v.sort((a, b) => a - b)[v.length >> 1]);
    };
    const inside = medianOf((i) => cut.insideBack![i] === 1);
    const front = medianOf((i) => cut.labels[i] === 0 && !cut.insideBack![i]);
    const layer = createLayer(body.image.width, body.image.height);
    const fit = drawPhotoTop(layer, cut, garment, body);
    // the sleeve's pixels laid over the inside back (by the sleeve's mesh): drawn in the inside
    // back's colour (830 of 916 before) or the front's
    let over = 0;
    let insideLike = 0;
    for (let i = 0; i < layer.width * layer.height; i++) {
      const a = layer.data[i * 4 + 3];
      if ((fit.maps.piece[i] !== 2 && fit.maps.piece[i] !== 3) || a < 0.5) continue;
      if (!cut.insideBack![Math.round(fit.maps.gy[i]) * cut.image.width + Math.round(fit.maps.gx[i])]) continue;
      over++;
      const d = (c: number[]) => Math.hypot(...c.map((v, k2) => layer.data[i * 4 + k2] / a - v));
      if (d(inside) < d(front)) insideLike++;
    }
    expect(over).toBeGreaterThan(100);
    expect(insideLike / over).toBeLessThan(0.05);
  }, 120_000);

  it('withCleanOpening: the front\'s edge along the inside back takes the front\'s colour, not the lining\'s', () => {
    // red front cloth below row 20, a white lining above it (the inside back), and along the
    // neckline a row mixed half and half, as a packshot's edge is
    const w = 40;
    const h = 40;
    const data = new Uint8Array(w * h * 4);
    const dropped = new Uint8Array(w * h);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const i = y * w + x;
        const px = y < 20 ? [245, 245, 240] : y === 20 ? [220, 140, 140] : [200, 30, 40];
        data.set([...px, 255], i * 4);
        if (y < 20) dropped[i] = 1;
      }
    }
    const out = withCleanOpening({ width: w, height: h, data }, dropped).data;
    const at = (x: number, y: number) => Array.from(out.slice((y * w + x) * 4, (y * w + x) * 4 + 3));
    // the mixed edge row and the lining next to it sample as the front's red
    expect(at(20, 20)).toEqual([200, 30, 40]);
    expect(at(20, 19)).toEqual([200, 30, 40]);
    expect(at(20, 18)).toEqual([200, 30, 40]);
    // the cloth further in and the lining further out are as they were; the input is not changed
    expect(at(20, 30)).toEqual([200, 30, 40]);
    expect(at(20, 5)).toEqual([245, 245, 240]);
    expect(Array.from(data.slice((20 * w + 20) * 4, (20 * w + 20) * 4 + 3))).toEqual([220, 140, 140]);
  });
});

describe('the top on a seated pose', () => {
  // fashn-model.jpg: seated, a thigh reaching sideways at the hips' row, so the hips' outline has
  // its middle far off the hip joints'. Taken as the trunk's middle it drew the panel's sides
  // inward below the chest and tore the panel open at the belly (79 % of the old tee there covered).
  let fit: ReturnType<typeof drawPhotoTop>;
  let seated: PersonBody;
  let belly = 0;
  beforeAll(async () => {
    const person = await loadPhoto(path.join(REAL_PHOTOS, 'persons', 'fashn-model.jpg'));
    const garment = await loadPhoto(path.join(REAL_PHOTOS, 'garments', '09263_00.jpg'));
    const body = (await analyzer.analyze(person, new AbortController().signal)).body!;
    seated = body;
    const withParts = { ...body, parts: body.parts! };
    const layer = createLayer(body.image.width, body.image.height);
    fit = drawPhotoTop(layer, cutOut(garment, 'top'), garment, withParts);
    // the old tee's torso pixels from the chest line down to its hem (the belt): the cloth's share over them
    const { width: w } = body.image;
    const y0 = Math.round(body.landmarks.chestLeft.y);
    let area = 0;
    let covered = 0;
    for (let i = y0 * w; i < fit.oldTop.length; i++) {
      if (!fit.oldTop[i] || body.parts![i] !== PERSON_PART.torso) continue;
      area++;
      if (layer.data[i * 4 + 3] >= 0.5) covered++;
    }
    belly = covered / area;
  }, 300_000);

  it('takes the hip joints for the trunk and falls back to the straight-sided fit', () => {
    expect(hipsMiddle(seated.landmarks).unsure).toBe(true);
    expect(hipsMiddle(seated.landmarks).x).toBe(seated.landmarks.crotch.x);
    // standing: the outline's middle, as before
    const standing = hipsMiddle(LANDMARKS);
    expect(standing.unsure).toBe(false);
    expect(standing.x).toBe((LANDMARKS.hipLeft.x + LANDMARKS.hipRight.x) / 2);
    expect(fit.fallback).toMatch(/hips uncertain/);
  });

  it('covers the old top at the belly: no panel torn open', () => {
    expect(belly).toBeGreaterThanOrEqual(0.97);
  });
});

describe('transferShading: the old top\'s folds on the new cloth', () => {
  // a uniform pink cloth laid over an old top 120 px wide; shoulders 100 px apart (blur radius 6 px)
  const W = 160;
  const H = 160;
  const run = (oldLuminance: (x: number, y: number) => number, sw = 100) => {
    const data = new Uint8Array(W * H * 4);
    const oldTop = new Uint8Array(W * H);
    const layer = createLayer(W, H);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const i = y * W + x;
        const v = Math.round(255 * Math.min(1, oldLuminance(x, y)) ** (1 / 2.2));
        data.set([v, v, v, 255], i * 4);
        if (x >= 20 && x < 140 && y >= 20 && y < 140) {
          oldTop[i] = 1;
          layer.data.set([0.8, 0.4, 0.4, 1], i * 4);
        }
      }
    }
    const body = { image: { width: W, height: H, data }, landmarks: { ...LANDMARKS, leftShoulder: { x: 130, y: 30 }, rightShoulder: { x: 30, y: 30 } } } as unknown as PersonBody;
    transferShading(layer, oldTop, body, sw);
    // the new cloth's spread of light inside the old top (away from its outline)
    const ys: number[] = [];
    for (let y = 40; y < 120; y++) for (let x = 40; x < 120; x++) ys.push(layer.data[(y * W + x) * 4] / 0.8);
    const mean = ys.reduce((a, b) => a + b, 0) / ys.length;
    return Math.sqrt(ys.reduce((a, b) => a + (b - mean) ** 2, 0) / ys.length);
  };
  // matte folds: soft diagonal ridges, ±12 % of the cloth's light
  const matte = (x: number, y: number) => 0.3 * (1 + 0.12 * Math.sin((x + y) / 5));
  // dark satin: the same folds under gloss, half the pixels lit far above or sunk far below them
  const satin = (x: number, y: number) => {
    const gloss = Math.sin(x / 2.3) * Math.sin(y / 3.1);
    return 0.02 * (1 + 0.12 * Math.sin((x + y) / 5)) * (gloss > 0.3 ? 2.2 : gloss < -0.3 ? 0.35 : 1);
  };

  it('carries a matte top\'s folds onto the new cloth', () => {
    // (0.053: the folds at the full strength)
    expect(run(matte)).toBeGreaterThan(0.04);
  });

  it('carries next to nothing of a glossy satin top, whose light steps far beyond folds (grey smudges on a pale blouse)', () => {
    // 0.02 before the folds were weighed by how much of the old top they explain (0.005 now)
    expect(run(satin)).toBeLessThan(0.01);
  });

  it('averages out a rib knit\'s fine ripple rather than carrying it as wavy lines, and keeps broad folds', () => {
    // a black ribbed bodysuit under a lavender tee: ribs 10 px apart, ±12 % of its light, on a
    // person 250 px across the shoulders (0.0225 while only 5 px were averaged: a crumpled tee)
    const ribs = (x: number, y: number) => 0.03 * (1 + 0.12 * Math.sin((2 * Math.PI * y) / 10));
    expect(run(ribs, 250)).toBeLessThan(0.005);
    // folds about 45 px apart are carried (0.052; 0.060 at 5 px)
    const broad = (x: number, y: number) => 0.3 * (1 + 0.12 * Math.sin((x + y) / 10));
    expect(run(broad, 250)).toBeGreaterThan(0.04);
  });
});
