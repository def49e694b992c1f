/**
 * The builtin try-on engine on parametric twins and generated packshots: where garments land,
 * whether they keep their colour, background handling, quality sizes and determinism; and a real
 * shop packshot on a twin, fitted to the twin's own parts as on a person photo.
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { BodyFrame } from '../../../../adapters/builtin/tryon/body-frame.ts';
import { SRGB_TO_LINEAR, deltaE76, linearToSrgb, srgbToLab } from '../../../../adapters/builtin/tryon/color.ts';
import { shadingMap } from '../../../../adapters/builtin/tryon/lighting.ts';
import { renderTryOn } from '../../../../adapters/builtin/tryon/render-tryon.ts';
import { fillHoles } from '../../../../adapters/builtin/raster/components.ts';
import type { RasterImage } from '../../../../core/images.ts';
import type { BodyRender } from '../../../../core/twins/body.ts';
import { drawBottom, drawDress, drawShoes, drawTop } from '../../../support/garments.ts';
import { twinBody } from './twin-bodies.ts';
import { REAL_PHOTOS, loadPhoto } from '../../../support/tryon-metrics.ts';
import path from 'node:path';

let male: BodyRender;
let female: BodyRender;
let shoePose: BodyRender;
let shirt: RasterImage;
let shirtOn: RasterImage;
let trousersOn: RasterImage;

/** Pixels the engine changed: colour distance to the body render above a small threshold. */
function changed(body: BodyRender, out: RasterImage): Uint8Array {
  const m = new Uint8Array(out.width * out.height);
  const a = [0, 0, 0];
  const b = [0, 0, 0];
  for (let i = 0; i < m.length; i++) {
    const o = i * 4;
    srgbToLab(body.image.data[o], body.image.data[o + 1], body.image.data[o + 2], a);
    srgbToLab(out.data[o], out.data[o + 1], out.data[o + 2], b);
    if (deltaE76(a, b) > 10) m[i] = 1;
  }
  return m;
}

/** Mean colour of a set of pixels in Lab, averaged in linear light (optionally dividing out a shading factor). */
function meanLab(img: RasterImage, select: (i: number) => boolean, shade?: Float32Array): number[] {
  const acc = [0, 0, 0];
  let n = 0;
  for (let i = 0; i < img.width * img.height; i++) {
    if (!select(i)) continue;
    const k = shade ? shade[i] : 1;
    for (let c = 0; c < 3; c++) acc[c] += SRGB_TO_LINEAR[img.data[i * 4 + c]] / k;
    n++;
  }
  expect(n).toBeGreaterThan(500);
  return srgbToLab(linearToSrgb(acc[0] / n), linearToSrgb(acc[1] / n), linearToSrgb(acc[2] / n), [0, 0, 0]) as number[];
}

beforeAll(async () => {
  [male, female, shoePose] = await Promise.all([twinBody('male', 'man_pose'), twinBody('female', 'girl_pose'), twinBody('female', 'shoe_girl_pose')]);
  shirt = drawTop();
  shirtOn = renderTryOn({ body: male, garments: { top: shirt }, quality: 'standard', preserveBackground: true });
  trousersOn = renderTryOn({ body: male, garments: { bottom: drawBottom() }, quality: 'standard', preserveBackground: true });
});

describe('renderTryOn', () => {
  it('covers the torso between the shoulders and the waist with a shirt', () => {
    expect([shirtOn.width, shirtOn.height]).toEqual([male.image.width, male.image.height]);
    const frame = new BodyFrame(male);
    const L = male.landmarks;
    const diff = changed(male, shirtOn);
    let torso = 0;
    let covered = 0;
    for (let y = Math.round(L.leftShoulder.y + 0.3 * (L.chestLeft.y - L.leftShoulder.y)); y <= L.waistLeft.y; y++) {
      for (let x = 0; x < male.image.width; x++) {
        const i = y * male.image.width + x;
        const side = x < frame.centreX(y) ? 'left' : 'right';
        if (!male.mask[i] || Math.abs(x - frame.centreX(y)) > frame.torsoHalf(side, y)) continue;
        torso++;
        covered += diff[i];
      }
    }
    expect(torso).toBeGreaterThan(20000);
    expect(covered / torso).toBeGreaterThanOrEqual(0.9);
    // nothing lands on the head or the lower legs
    const head = Math.round((L.headTop.y + L.chin.y) / 2) * male.image.width + Math.round(L.faceCenter.x);
    expect(diff[head]).toBe(0);
    const shin = Math.round((L.leftKnee.y + L.leftAnkle.y) / 2) * male.image.width + Math.round((L.leftKnee.x + L.leftAnkle.x) / 2);
    expect(diff[shin]).toBe(0);
  });

  it('leaves no slivers of body or backdrop between the shirt\'s pieces on a twin stored without parts (under the arms: 142 pixels before the gaps were closed, 0 now)', async () => {
    // pixels the shirt encloses (holes in the changed region) that show the body or the backdrop
    const old = await twinBody('male', 'man_pose', { parts: false });
    const diff = changed(old, renderTryOn({ body: old, garments: { top: shirt }, quality: 'standard', preserveBackground: true }));
    const W = male.image.width;
    const H = male.image.height;
    const holes = fillHoles(diff, W, H);
    let slivers = 0;
    for (let i = 0; i < holes.length; i++) if (holes[i] && !diff[i]) slivers++;
    expect(slivers).toBeLessThanOrEqual(5);
  });

  it('hangs an untucked shirt over the trousers: no waistband beside it (pixels of the trousers beside the shirt on its rows: 1,627 before, none now)', () => {
    const outfit = renderTryOn({ body: female, garments: { top: shirt, bottom: drawBottom() }, quality: 'standard', preserveBackground: true });
    const { width: W, height: H, data } = outfit;
    // the generated shirt is red, the trousers blue
    const red = (i: number) => data[i * 4] > data[i * 4 + 1] + 60 && data[i * 4] > data[i * 4 + 2] + 60;
    const blue = (i: number) => data[i * 4 + 2] > data[i * 4] + 40 && data[i * 4 + 2] > data[i * 4 + 1] + 20;
    let beside = 0;
    let trousers = 0;
    for (let y = 0; y < H; y++) {
      let x0 = -1;
      let x1 = -1;
      for (let x = 0; x < W; x++) if (red(y * W + x)) { if (x0 < 0) x0 = x; x1 = x; }
      for (let x = 0; x < W; x++) {
        if (!blue(y * W + x)) continue;
        trousers++;
        if (x0 >= 0 && (x < x0 || x > x1)) beside++;
      }
    }
    expect(trousers).toBeGreaterThan(20000);
    expect(beside).toBeLessThanOrEqual(20);
  });

  it("keeps the shirt's colour (mean CIE76 colour difference under 5 once shading is divided out)", () => {
    // The packshot's garment pixels (opaque in the transparent drawing of the same shirt) against
    // the worn shirt's pixels inside the torso, each averaged in linear light; the engine multiplies
    // garments by a lighting term from the body's depth, so the result is divided by that same term.
    const truth = drawTop({ transparent: true });
    const packshot = meanLab(shirt, (i) => truth.data[i * 4 + 3] === 255);
    const diff = changed(male, shirtOn);
    const frame = new BodyFrame(male);
    const L = male.landmarks;
    const w = male.image.width;
    const inTorso = (i: number) => {
      const x = i % w;
      const y = (i - x) / w;
      return diff[i] === 1 && y > L.chestLeft.y && y < L.waistLeft.y && Math.abs(x - frame.centreX(y)) < frame.torsoHalf('left', y) * 0.8;
    };
    const worn = meanLab(shirtOn, inTorso, shadingMap(male));
    expect(deltaE76(packshot, worn)).toBeLessThan(5);
  });

  it('covers the legs with trousers down to the ankles', () => {
    const frame = new BodyFrame(male);
    const L = male.landmarks;
    const diff = changed(male, trousersOn);
    let legs = 0;
    let covered = 0;
    for (const side of ['left', 'right'] as const) {
      const sd = frame.side(side);
      for (let y = Math.round(L.crotch.y + 10); y < sd.ankle.y - 10; y++) {
        const e = frame.legEdges(side, y);
        for (let x = Math.round(Math.min(e.outer, e.inner)) + 2; x <= Math.max(e.outer, e.inner) - 2; x++) {
          legs++;
          covered += diff[y * male.image.width + x];
        }
      }
    }
    expect(covered / legs).toBeGreaterThanOrEqual(0.9);
    // the chest stays bare
    const chest = Math.round(L.chestLeft.y) * male.image.width + Math.round(L.neck.x);
    expect(diff[chest]).toBe(0);
  });

  it('spans a dress from the chest to below the knees', () => {
    const out = renderTryOn({ body: female, garments: { fullBody: drawDress() }, quality: 'standard', preserveBackground: true });
    const diff = changed(female, out);
    const frame = new BodyFrame(female);
    const L = female.landmarks;
    const knee = (L.leftKnee.y + L.rightKnee.y) / 2;
    for (let y = Math.round(L.chestLeft.y); y <= knee; y += 4) {
      expect(diff[y * female.image.width + Math.round(frame.centreX(y))], `row ${y}`).toBe(1);
    }
    // the skirt flares wider than the hips at the knees
    let row = 0;
    for (let x = 0; x < female.image.width; x++) row += diff[Math.round(knee) * female.image.width + x];
    expect(row).toBeGreaterThan(Math.abs(L.hipLeft.x - L.hipRight.x));
  });

  it('puts shoes on the feet and nowhere else', () => {
    const out = renderTryOn({ body: shoePose, garments: { shoes: drawShoes({ colour: [200, 40, 60] }) }, quality: 'standard', preserveBackground: true });
    const diff = changed(shoePose, out);
    const L = shoePose.landmarks;
    const w = shoePose.image.width;
    const knees = Math.min(L.leftKnee.y, L.rightKnee.y);
    let above = 0;
    const feet = { left: 0, right: 0 };
    for (let i = 0; i < diff.length; i++) {
      if (!diff[i]) continue;
      const x = i % w;
      const y = (i - x) / w;
      if (y < knees) above++;
      for (const [side, ankle, toe] of [
        ['right', L.rightAnkle, L.rightToe],
        ['left', L.leftAnkle, L.leftToe],
      ] as const) {
        const cx = (ankle.x + toe.x) / 2;
        if (Math.abs(x - cx) < 60 && y > ankle.y - 40 && y < toe.y + 30) feet[side]++;
      }
    }
    expect(above).toBe(0);
    expect(feet.left).toBeGreaterThan(1500);
    expect(feet.right).toBeGreaterThan(1500);
  });

  it('keeps the background when asked and replaces it with a studio backdrop otherwise', () => {
    const kept = shirtOn;
    const replaced = renderTryOn({ body: male, garments: { top: shirt }, quality: 'standard', preserveBackground: false });
    const w = male.image.width;
    const corner = (img: RasterImage) => Array.from(img.data.slice((20 * w + 20) * 4, (20 * w + 20) * 4 + 3));
    expect(corner(kept)).toEqual(Array.from(male.image.data.slice((20 * w + 20) * 4, (20 * w + 20) * 4 + 3)));
    let bgDiff = 0;
    let bgCount = 0;
    for (let i = 0; i < male.mask.length; i += 7) {
      if (male.mask[i]) continue;
      bgCount++;
      if (Math.abs(replaced.data[i * 4] - male.image.data[i * 4]) > 2) bgDiff++;
      expect(replaced.data[i * 4]).toBeGreaterThan(150);
    }
    expect(bgDiff / bgCount).toBeGreaterThan(0.3);
    // the person and the shirt are the same in both
    const chest = (Math.round(male.landmarks.chestLeft.y) * w + Math.round(male.landmarks.neck.x)) * 4;
    expect(Array.from(replaced.data.slice(chest, chest + 3))).toEqual(Array.from(kept.data.slice(chest, chest + 3)));
  });

  it('renders each quality at its size and is deterministic', () => {
    const draft = renderTryOn({ body: male, garments: { top: shirt }, quality: 'draft', preserveBackground: true });
    expect(Math.max(draft.width, draft.height)).toBe(768);
    const again = renderTryOn({ body: male, garments: { top: shirt }, quality: 'standard', preserveBackground: true });
    const hash = (img: RasterImage) => createHash('sha256').update(img.data).digest('hex');
    expect(hash(again)).toBe(hash(shirtOn));
  });

  it('takes a product image directly and decides its category from the shape', () => {
    const dress = drawDress();
    const direct = renderTryOn({ body: female, garments: {}, product: { image: dress, category: 'auto' }, quality: 'draft', preserveBackground: true });
    const slot = renderTryOn({ body: female, garments: { fullBody: dress }, quality: 'draft', preserveBackground: true });
    expect(Buffer.from(direct.data).equals(Buffer.from(slot.data))).toBe(true);
  });
});

describe('a real packshot on a twin', () => {
  it('lays the two-tone tee 00055_00 with its dark sleeves on the upper arms (as pieces, without the twin\'s parts: 13 % and 35 % of the spot)', async () => {
    const top = await loadPhoto(path.join(REAL_PHOTOS, 'garments', '00055_00.jpg'));
    const out = renderTryOn({ body: female, garments: { top }, quality: 'standard', preserveBackground: true });
    const L = female.landmarks;
    const W = out.width;
    // the sleeves' dark aubergine
    const dark = (i: number) => {
      const [r, g, b] = [out.data[i * 4], out.data[i * 4 + 1], out.data[i * 4 + 2]];
      return r < 110 && g < 90 && b < 120 && b > g + 8 && r > g;
    };
    for (const [shoulder, elbow] of [[L.leftShoulder, L.leftElbow], [L.rightShoulder, L.rightElbow]]) {
      // a 21 px square a third of the way from the shoulder to the elbow
      const cx = Math.round(shoulder.x + (elbow.x - shoulder.x) * 0.3);
      const cy = Math.round(shoulder.y + (elbow.y - shoulder.y) * 0.3);
      let n = 0;
      for (let y = cy - 10; y <= cy + 10; y++) for (let x = cx - 10; x <= cx + 10; x++) if (dark(y * W + x)) n++;
      expect(n / 441).toBeGreaterThanOrEqual(0.7);
    }
  });
});
