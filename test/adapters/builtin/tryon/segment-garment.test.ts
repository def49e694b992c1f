import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { type GarmentCutout, segmentGarment } from '../../../../adapters/builtin/tryon/segment-garment.ts';
import type { RasterImage } from '../../../../core/images.ts';
import { drawBottom, drawShoes, drawTop } from '../../../support/garments.ts';
import { addNoise, ellipse, paint, polygon, rect, solidImage } from '../../../support/images.ts';
import { REAL_PHOTOS, loadPhoto } from '../../../support/tryon-metrics.ts';
import { erode } from '../../../../adapters/builtin/raster/morphology.ts';

/** Ground truth: the same garment drawn on a transparent background. */
function truth(img: RasterImage): Uint8Array {
  const m = new Uint8Array(img.width * img.height);
  for (let i = 0; i < m.length; i++) m[i] = img.data[i * 4 + 3] >= 128 ? 255 : 0;
  return m;
}

function iou(a: Uint8Array, b: Uint8Array): number {
  let inter = 0;
  let union = 0;
  for (let i = 0; i < a.length; i++) {
    if (a[i] && b[i]) inter++;
    if (a[i] || b[i]) union++;
  }
  return inter / union;
}

describe('segmentGarment', () => {
  it('separates a shirt from a light, uneven background with its sleeves', () => {
    const cut = segmentGarment(drawTop());
    expect(iou(cut.mask, truth(drawTop({ transparent: true })))).toBeGreaterThan(0.98);
    expect(cut.components).toHaveLength(1);
  });

  it('keeps the gap between trouser legs open up to near the crotch', () => {
    const cut = segmentGarment(drawBottom());
    expect(iou(cut.mask, truth(drawBottom({ transparent: true })))).toBeGreaterThan(0.98);
    // 40 px below the drawn crotch (y 240), on the centre line: background
    expect(cut.mask[280 * 520 + 260]).toBe(0);
  });

  it('returns a pair of shoes as two components and fills white details inside the shoe', () => {
    const img = drawShoes({ layout: 'pair' });
    const cut = segmentGarment(img, { keepRatio: 0.3 });
    expect(cut.components).toHaveLength(2);
    expect(iou(cut.mask, truth(drawShoes({ layout: 'pair', transparent: true })))).toBeGreaterThan(0.97);
  });

  it('uses the alpha channel of a transparent packshot', () => {
    const img = drawTop({ transparent: true });
    const cut = segmentGarment(img);
    expect(iou(cut.mask, truth(img))).toBeGreaterThan(0.99);
  });

  it('gives edge pixels a soft alpha and the garment colour instead of the background', () => {
    const cut = segmentGarment(drawTop());
    const { width: w, data } = cut.image;
    // walk right from the centre of the torso at mid height to the side edge
    const y = 400;
    let soft = 0;
    for (let x = 320; x < w; x++) {
      const a = data[(y * w + x) * 4 + 3];
      if (a > 0 && a < 255) {
        soft++;
        // decontaminated: the red of the shirt, not a pink mix with the white background
        expect(data[(y * w + x) * 4 + 1]).toBeLessThan(90);
      }
    }
    expect(soft).toBeGreaterThan(0);
  });

  it('rejects an image with nothing on it', () => {
    const blank: RasterImage = { width: 64, height: 64, data: new Uint8Array(64 * 64 * 4).fill(250) };
    expect(() => segmentGarment(blank)).toThrow(/No garment/);
  });
});

type Pt = [number, number];
interface GarmentMarks { box: [number, number, number, number]; inside: Pt[]; outside: Pt[]; insideBack?: Pt; front?: Pt }
const MARKS = JSON.parse(readFileSync(path.join(REAL_PHOTOS, 'garment-marks.json'), 'utf8')) as { garments: Record<string, GarmentMarks> };
const PACKSHOTS = readdirSync(path.join(REAL_PHOTOS, 'garments')).filter((f) => f.endsWith('.jpg'));
const TRUTH = readdirSync(path.join(REAL_PHOTOS, 'garment-masks')).map((f) => f.replace(/\.png$/, '.jpg'));

describe('segmentGarment on the real packshots', () => {
  const cuts = new Map<string, GarmentCutout>();
  beforeAll(async () => {
    for (const file of PACKSHOTS) {
      const img = await loadPhoto(path.join(REAL_PHOTOS, 'garments', file));
      cuts.set(file, segmentGarment(img, { keepRatio: file.startsWith('sneaker') ? 0.3 : 0.2, insideBack: !file.startsWith('sneaker'), flatBackdrop: true }));
    }
  }, 300_000);

  it('cuts every packshot out as one garment of a plausible size', () => {
    expect(cuts.size).toBeGreaterThanOrEqual(25);
    for (const [file, cut] of cuts) {
      let area = 0;
      for (const v of cut.mask) if (v) area++;
      expect(area / cut.mask.length, file).toBeGreaterThan(0.15);
      expect(area / cut.mask.length, file).toBeLessThan(0.75);
    }
  });

  it('gives a soft shoulder\'s outline the cloth\'s colour: no pale opaque fringe along the red Fila tee', () => {
    // the tee's red shoulders and sleeves (above its white band, row 330) mix the backdrop in about
    // 3 px deep: 362 pale (green > 150) opaque pixels within 4 px of the outline with a 2 px band
    const cut = cuts.get('00126_00.jpg')!;
    const { width: w, height: h, data } = cut.image;
    const inner = erode(cut.mask, w, h, 4);
    let edge = 0;
    let pale = 0;
    for (let i = 0; i < 330 * w; i++) {
      if (!cut.mask[i] || inner[i] || data[i * 4 + 3] < 255) continue;
      edge++;
      if (data[i * 4 + 1] > 150) pale++;
    }
    expect(edge).toBeGreaterThan(500);
    expect(pale).toBeLessThan(120);
  });

  it('matches the truth masks: IoU at least 0.96 on each (white tops on white included)', async () => {
    expect(TRUTH.length).toBeGreaterThanOrEqual(7);
    for (const file of TRUTH) {
      const { data } = await sharp(path.join(REAL_PHOTOS, 'garment-masks', file.replace(/\.jpg$/, '.png'))).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
      const truthMask = new Uint8Array(data.length);
      for (let i = 0; i < data.length; i++) truthMask[i] = data[i] >= 128 ? 255 : 0;
      // the hand masks of 049805_1 and 050191_1 take in the pasted packshot's soft drop shadow along
      // the sleeves and hem (a fringe of up to 16 px, seen by eye), and 050191_1's the near-white
      // JPEG ringing along its sleeves' diagonal top edges, which the cut leaves out: there the cut
      // stays inside the hand mask and what it leaves out of it is neutral (the purple and green
      // cloth is not)
      const cut = cuts.get(file)!;
      const shadowed = file === '049805_1.jpg' || file === '050191_1.jpg';
      expect(iou(cut.mask, truthMask), file).toBeGreaterThanOrEqual(shadowed ? 0.945 : 0.96);
      if (!shadowed) continue;
      const img = await loadPhoto(path.join(REAL_PHOTOS, 'garments', file));
      let truthArea = 0;
      let beyond = 0;
      let colouredLeftOut = 0;
      for (let p = 0; p < truthMask.length; p++) {
        if (truthMask[p]) truthArea++;
        if (cut.mask[p] && !truthMask[p]) beyond++;
        if (truthMask[p] && !cut.mask[p]) {
          const [r, g, b] = img.data.subarray(p * 4, p * 4 + 3);
          if (Math.max(r, g, b) - Math.min(r, g, b) > 16) colouredLeftOut++;
        }
      }
      expect(beyond / truthArea, file).toBeLessThan(0.001);
      expect(colouredLeftOut / truthArea, file).toBeLessThan(0.0001);
    }
  });

  it('leaves the drop shadows of 049805_1 and 050191_1 and the gap beside 00470_00 left sleeve out', () => {
    const w = 768;
    // under 049805_1's hem and cuff: a grey ramp from 134 to the white backdrop over 16 px
    for (const [x, y] of [[480, 884], [480, 890], [55, 848]]) expect(cuts.get('049805_1.jpg')!.mask[y * w + x], `049805_1 ${x},${y}`).toBe(0);
    // under 050191_1's right sleeve (left in the photo)
    for (const [x, y] of [[103, 491], [70, 470]]) expect(cuts.get('050191_1.jpg')!.mask[y * w + x], `050191_1 ${x},${y}`).toBe(0);
    // the backdrop between 00470_00's right sleeve and its body, closed off below by JPEG ringing
    for (const [x, y] of [[200, 560], [202, 600], [196, 650], [190, 710]]) expect(cuts.get('00470_00.jpg')!.mask[y * w + x], `00470_00 ${x},${y}`).toBe(0);
    // the sleeve and the body beside it are cloth
    for (const [x, y] of [[175, 600], [225, 600]]) expect(cuts.get('00470_00.jpg')!.mask[y * w + x], `00470_00 ${x},${y}`).toBe(255);
  });

  it('agrees with the hand marks: the box to 15 px, cloth inside, backdrop outside', () => {
    const marked = Object.entries(MARKS.garments);
    expect(marked.map(([f]) => f)).toContain('07764_00.jpg');
    for (const [file, m] of marked) {
      const cut = cuts.get(file)!;
      const w = cut.image.width;
      const box = cut.components[0].box;
      for (let k = 0; k < 4; k++) expect(Math.abs(box[k] - m.box[k]), `${file} box[${k}]`).toBeLessThanOrEqual(15);
      for (const [x, y] of m.inside) expect(cut.mask[y * w + x], `${file} inside ${x},${y}`).toBe(255);
      for (const [x, y] of m.outside) expect(cut.mask[y * w + x], `${file} outside ${x},${y}`).toBe(0);
    }
  });

  it('labels the inside back of the neck apart from the front, keeping it in the mask', () => {
    const marked = Object.entries(MARKS.garments).filter(([, m]) => m.insideBack);
    expect(marked.length).toBeGreaterThanOrEqual(2);
    for (const [file, m] of marked) {
      const cut = cuts.get(file)!;
      const w = cut.image.width;
      const [bx, by] = m.insideBack!;
      const [fx, fy] = m.front!;
      expect(cut.insideBack, file).not.toBeNull();
      expect(cut.insideBack![by * w + bx], `${file} inside back`).toBe(1);
      expect(cut.mask[by * w + bx], `${file} inside back is cloth`).toBe(255);
      expect(cut.insideBack![fy * w + fx], `${file} front`).toBe(0);
    }
  });

  it('labels no inside back on a print up to the collar, nor when not asked', () => {
    // a floral blouse with a ruffled stand-up collar: no one front colour, nothing labelled
    expect(cuts.get('00470_00.jpg')!.insideBack).toBeNull();
    const cut = segmentGarment(drawTop());
    expect(cut.insideBack).toBeNull();
  });
});

/**
 * A white tee on a digitally flat #f6f6f6 backdrop, as shops and the try-on datasets publish cut-out
 * packshots: cloth 1-4 levels off the backdrop (some pixels on it), a grey inside back seen through
 * the neck opening, a print on the chest.
 */
function whiteOnWhite(): { img: RasterImage; truth: Uint8Array; back: Uint8Array } {
  const W = 480;
  const H = 640;
  const img = solidImage(W, H, [246, 246, 246, 255]);
  const truthMask = new Uint8Array(W * H);
  const cx = W / 2;
  const right: Pt[] = [[cx + 50, 90], [cx + 120, 110], [cx + 200, 210], [cx + 160, 250], [cx + 115, 200], [cx + 118, 560]];
  const left = right.map(([x, y]) => [2 * cx - x, y] as Pt).reverse();
  const outline = polygon([...right, [cx, 565], ...left, [cx, 95]]);
  paint(img, outline, [243, 243, 242], truthMask);
  // the cloth: a few levels of weave and folds around 243, some pixels on the backdrop's own value
  addNoise(img, 3, 7, truthMask);
  // the inside back, grey, above the front neckline (a half ellipse below the collar's top)
  const back = new Uint8Array(W * H);
  const inner = (x: number, y: number) => outline(x, y) && ellipse(cx, 95, 48, 45)(x, y);
  paint(img, inner, [206, 205, 204], back);
  paint(img, rect(cx - 70, 220, cx + 70, 380), [200, 40, 60]);
  return { img, truth: truthMask, back };
}

describe('segmentGarment: white on white', () => {
  it('cuts a white tee off a flat backdrop of nearly its colour, whole (not just its print)', () => {
    const { img, truth: t } = whiteOnWhite();
    const cut = segmentGarment(img, { insideBack: true, flatBackdrop: true });
    expect(iou(cut.mask, t)).toBeGreaterThan(0.97);
  });

  it('labels its grey inside back of the neck', () => {
    const { img, back } = whiteOnWhite();
    const cut = segmentGarment(img, { insideBack: true, flatBackdrop: true });
    expect(cut.insideBack).not.toBeNull();
    let hit = 0;
    let total = 0;
    let extra = 0;
    for (let i = 0; i < back.length; i++) {
      if (back[i]) { total++; if (cut.insideBack![i]) hit++; } else if (cut.insideBack![i]) extra++;
    }
    expect(hit / total).toBeGreaterThan(0.95);
    // only the collar's rim above it besides
    expect(extra / total).toBeLessThan(0.25);
  });
});

describe('segmentGarment: the JPEG fringe along coloured cloth', () => {
  it('keeps the near-white blocks of ringing along dark diagonal edges out of the cloth', async () => {
    // packshot pixels of the cut at least 240 in every channel: the fringe along the sleeves' top
    // edges of a navy and a green tee, between the floral top's sleeve and body (none is white cloth)
    const was: Record<string, number> = { '050181_1.jpg': 2233, '050191_1.jpg': 2067, '00470_00.jpg': 7011 };
    const bound: Record<string, number> = { '050181_1.jpg': 300, '050191_1.jpg': 1000, '00470_00.jpg': 2500 };
    for (const file of Object.keys(was)) {
      const img = await loadPhoto(path.join(REAL_PHOTOS, 'garments', file));
      const cut = segmentGarment(img, { keepRatio: 0.2, insideBack: true, flatBackdrop: true });
      let white = 0;
      for (let i = 0; i < cut.mask.length; i++) if (cut.mask[i] && Math.min(img.data[i * 4], img.data[i * 4 + 1], img.data[i * 4 + 2]) >= 240) white++;
      expect(white, `${file} (was ${was[file]})`).toBeLessThan(bound[file]);
    }
  });
});

/** A drawn tee's outline around column cx, as the pasted packshots' tees lie (sleeves out, hem at 520). */
function teeOutline(cx: number) {
  const right: Pt[] = [[cx + 50, 90], [cx + 120, 110], [cx + 200, 210], [cx + 160, 250], [cx + 115, 200], [cx + 118, 520]];
  const left = right.map(([x, y]) => [2 * cx - x, y] as Pt).reverse();
  return polygon([...right, [cx, 525], ...left, [cx, 95]]);
}

/**
 * A drawn tee of `colour` on a white 480x640 backdrop, pasted over its drop shadow: the outline
 * moved d px down painted grey level `shadow[d - 1]` (the farthest first), then noise.
 */
function teeOverShadow(colour: [number, number, number], shadow: number[], seed: number) {
  const W = 480;
  const H = 640;
  const img = solidImage(W, H, [255, 255, 255, 255]);
  const cx = W / 2;
  const outline = teeOutline(cx);
  for (let d = shadow.length; d >= 1; d--) paint(img, (x, y) => outline(x, y - d), [shadow[d - 1], shadow[d - 1], shadow[d - 1]]);
  const t = new Uint8Array(W * H);
  paint(img, outline, colour, t);
  addNoise(img, 3, seed, t);
  return { img, t, W, cx };
}

describe('segmentGarment: a pasted packshot with a drop shadow', () => {
  it('leaves the soft shadow under a green tee on a flat white backdrop out of the cloth', () => {
    // as 050191_1: the tee pasted on #fff with a grey shadow fading over 16 px below its hem and
    // sleeves (drawn on the person, such a band shows as a white strip along the new top's outline)
    // the shadow: the outline moved 16 px down, fading from 200 at the cloth to 255
    const fade = Array.from({ length: 16 }, (_, k) => Math.round(200 + (55 * (k + 1)) / 16));
    const { img, t, W, cx } = teeOverShadow([0, 137, 120], fade, 11);
    const cut = segmentGarment(img, { keepRatio: 0.2, insideBack: true, flatBackdrop: true });
    let beyond = 0;
    for (let i = 0; i < t.length; i++) if (cut.mask[i] && !t[i]) beyond++;
    let hem = 0;
    for (let x = cx - 100; x <= cx + 100; x++) for (let y = 524; y < 545; y++) if (cut.mask[y * W + x]) hem = Math.max(hem, y);
    // (was: the whole 16 px shadow band kept as cloth below the hem)
    expect(hem).toBeLessThanOrEqual(528);
    expect(iou(cut.mask, t)).toBeGreaterThan(0.97);
    expect(beyond).toBeLessThan(0.01 * t.reduce((a, v) => a + (v ? 1 : 0), 0));
  });
});

describe('segmentGarment: backdrop the floods cannot reach', () => {
  it('opens the gap between a long sleeve and the body that JPEG ringing closes off below', () => {
    // as 00470_00: a dark top on a flat #f6f6f6 backdrop, the sleeve hanging 14 px beside the body;
    // a band a few levels lighter than the backdrop (the ringing of the dark edges) runs across the
    // gap's lower end and stops both floods there, so the gap was kept as cloth
    const W = 480;
    const H = 640;
    const img = solidImage(W, H, [246, 246, 246, 255]);
    const t = new Uint8Array(W * H);
    const cloth = (x: number, y: number) => rect(140, 100, 340, 520)(x, y) || rect(100, 100, 126, 600)(x, y) || rect(100, 100, 366, 140)(x, y) || rect(354, 100, 380, 600)(x, y);
    paint(img, rect(120, 505, 146, 509), [254, 254, 254]);
    paint(img, cloth, [40, 45, 44], t);
    addNoise(img, 12, 5, t);
    const cut = segmentGarment(img, { keepRatio: 0.2, insideBack: true, flatBackdrop: true });
    for (const y of [160, 300, 450, 500]) expect(cut.mask[y * W + 133], `gap at ${y}`).toBe(0);
    expect(iou(cut.mask, t)).toBeGreaterThan(0.97);
  });

  it('keeps a white tee whose chest is the backdrop level for level', () => {
    // the white tee of whiteOnWhite() with its chest pasted at exactly the backdrop's #f6f6f6 (as
    // 07764_00's): that flat patch is bounded by the tee's own light cloth, not by cloth that stands
    // out, and stays
    const { img, truth: t } = whiteOnWhite();
    paint(img, rect(170, 120, 310, 210), [246, 246, 246]);
    const cut = segmentGarment(img, { insideBack: true, flatBackdrop: true });
    expect(cut.mask[165 * 480 + 240]).toBe(255);
    expect(iou(cut.mask, t)).toBeGreaterThan(0.97);
  });
});

describe('segmentGarment: a steep drop shadow', () => {
  it('leaves a neutral grey ramp of up to 12 levels a pixel under a purple hem out of the cloth', () => {
    // as 049805_1: below the hem a grey ramp from 134 to the white backdrop over 19 px (its profile
    // there, column 480), up to 12 levels a pixel: steeper than the photo's flood steps through (it
    // was kept as cloth, a grey strip under the new top)
    const ramp = [134, 140, 148, 157, 166, 178, 189, 200, 212, 219, 227, 235, 240, 245, 248, 250, 252, 254, 254];
    const { img, t, W, cx } = teeOverShadow([92, 38, 130], ramp, 13);
    const cut = segmentGarment(img, { keepRatio: 0.2, insideBack: true, flatBackdrop: true });
    let hem = 0;
    for (let x = cx - 100; x <= cx + 100; x++) for (let y = 520; y < 550; y++) if (cut.mask[y * W + x]) hem = Math.max(hem, y);
    expect(hem).toBeLessThanOrEqual(528);
    expect(iou(cut.mask, t)).toBeGreaterThan(0.97);
  });
});
