/**
 * The quality gate on constructed cases: a person photo (drawn here, with its parsing) in a red top,
 * a green packshot, and results that are right or broken in one way each: a warp forced to fold, a
 * warp stretched, the new top covering too little, the old top left below the new one, a fill
 * larger than the bound. Each broken case fails with its own reason; the right one passes.
 */
import { describe, expect, it } from 'vitest';
import type { RasterImage } from '../../../../core/images.ts';
import { PERSON_PART, type PersonBody } from '../../../../core/ports/person-analyzer.ts';
import type { BodyLandmarks } from '../../../../core/twins/body.ts';
import { fitTps } from '../../../../adapters/builtin/tryon/tps.ts';
import { GATE_BOUNDS, checkTryOnResult, measureWarp, type GateVerdict } from '../../../../adapters/builtin/tryon/quality-gate.ts';
import type { LayerDiagnostics } from '../../../../adapters/builtin/tryon/diagnostics.ts';

const W = 120;
const H = 160;
type Rgb = [number, number, number];
const GREY: Rgb = [205, 205, 205];
const RED: Rgb = [190, 35, 40];
const GREEN: Rgb = [40, 150, 70];
const SKIN: Rgb = [224, 172, 140];
const DENIM: Rgb = [50, 70, 130];
/** The torso of the parsing: x 40..80, y 40..110; legs below, arms beside, the face above. */
const TORSO = { x0: 40, y0: 40, x1: 80, y1: 110 };

function image(w: number, h: number, paint: (x: number, y: number) => Rgb): RasterImage {
  const data = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const c = paint(x, y);
      data.set([...c, 255], (y * w + x) * 4);
    }
  }
  return { width: w, height: h, data };
}

const inTorso = (x: number, y: number) => x >= TORSO.x0 && x < TORSO.x1 && y >= TORSO.y0 && y < TORSO.y1;
const inArm = (x: number, y: number) => ((x >= 30 && x < 40) || (x >= 80 && x < 90)) && y >= 42 && y < 100;
const inLegs = (x: number, y: number) => x >= 42 && x < 78 && y >= 110;
const inFace = (x: number, y: number) => x >= 50 && x < 70 && y >= 12 && y < 36;

const photo = (x: number, y: number): Rgb => (inTorso(x, y) ? RED : inArm(x, y) || inFace(x, y) ? SKIN : inLegs(x, y) ? DENIM : GREY);

/** The person in the red top (or as `paint` draws them: sleeves, textured skin), with the same parsing. */
function personBody(paint: (x: number, y: number) => Rgb = photo): PersonBody {
  const img = image(W, H, paint);
  const parts = new Uint8Array(W * H);
  const mask = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const part = inTorso(x, y) ? PERSON_PART.torso : inArm(x, y) ? PERSON_PART.arm : inLegs(x, y) ? PERSON_PART.legs : inFace(x, y) ? PERSON_PART.face : 0;
      parts[y * W + x] = part;
      mask[y * W + x] = part ? 255 : 0;
    }
  }
  const p = (x: number, y: number) => ({ x, y });
  const names = ['headTop', 'chin', 'faceCenter', 'neck', 'leftElbow', 'rightElbow', 'leftWrist', 'rightWrist', 'chestLeft', 'chestRight', 'waistLeft', 'waistRight', 'crotch', 'leftKnee', 'rightKnee', 'leftAnkle', 'rightAnkle', 'leftToe', 'rightToe'];
  // the gate reads the shoulders and hips; the rest only completes the record
  const landmarks = { ...Object.fromEntries(names.map((k) => [k, p(60, 80)])), faceSize: 20, leftShoulder: p(80, 40), rightShoulder: p(40, 40), hipLeft: p(78, 110), hipRight: p(42, 110) } as BodyLandmarks;
  return { image: img, mask, depth: new Float32Array(W * H), landmarks, pixelsPerCm: 2, pose: 'photo', parts };
}

const person = personBody();
const packshot = image(100, 120, (x, y) => (x >= 20 && x < 80 && y >= 15 && y < 105 ? GREEN : [250, 250, 250]));

/** The photo with the torso rows from y0 to y1 painted in `colour` (the rest as it was). */
function dressed(rows: { y0: number; y1: number; colour: Rgb }[]): RasterImage {
  return image(W, H, (x, y) => {
    if (inTorso(x, y)) for (const r of rows) if (y >= r.y0 && y < r.y1) return r.colour;
    const i = (y * W + x) * 4;
    return [person.image.data[i], person.image.data[i + 1], person.image.data[i + 2]];
  });
}

/** The renderer's coverage of a top drawn over the whole torso. */
function torsoAlpha(): Float32Array {
  const a = new Float32Array(W * H);
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) if (inTorso(x, y)) a[y * W + x] = 1;
  return a;
}

const gate = (result: RasterImage, layers?: LayerDiagnostics[]): GateVerdict => checkTryOnResult({ person, result, garments: { top: packshot }, diagnostics: layers ? { layers } : undefined });
const value = (v: GateVerdict, name: string) => v.checks.find((c) => c.check === name)?.value;

describe('checkTryOnResult', () => {
  it('passes a top that covers the torso and hides the old one, measuring from the images what the renderer did not report', () => {
    const v = gate(dressed([{ y0: 40, y1: 110, colour: GREEN }]));
    expect(v.passed, v.reason).toBe(true);
    expect(value(v, 'coverage')).toBe(1);
    expect(value(v, 'old-garment')).toBe(0);
    expect(value(v, 'fill-area')).toBe(0);
    // no warp reported: not measured, and not a failure
    expect(v.checks.find((c) => c.check === 'warp-folded')).toMatchObject({ value: null, passed: true, source: null });
    expect(v.checks.find((c) => c.check === 'coverage')).toMatchObject({ source: 'gate', kind: 'min', bound: GATE_BOUNDS.coverage });
  });

  it('refuses a warp forced to fold over', () => {
    // the middle control point pulled past the right edge: the spline folds the garment onto itself
    const from = [{ x: 0, y: 0 }, { x: 100, y: 0 }, { x: 0, y: 120 }, { x: 100, y: 120 }, { x: 50, y: 60 }, { x: 75, y: 60 }];
    const to = [{ x: 0, y: 0 }, { x: 100, y: 0 }, { x: 0, y: 120 }, { x: 100, y: 120 }, { x: 95, y: 60 }, { x: 60, y: 60 }];
    const warp = measureWarp((x, y, out) => fitTps(from, to).map(x, y, out), 100, 120, { step: 2 });
    expect(warp.folded).toBeGreaterThan(GATE_BOUNDS.folded);
    const v = gate(dressed([{ y0: 40, y1: 110, colour: GREEN }]), [{ category: 'top', width: W, height: H, warp }]);
    expect(v.passed).toBe(false);
    expect(v.reason).toMatch(/^the top's warp folds over on \d+\.\d % of the garment \(bound 2\.5 %\)$/);
    expect(v.checks.find((c) => c.check === 'warp-folded')).toMatchObject({ passed: false, source: 'renderer' });
  });

  it('measures no fold and no distortion for a smooth warp (a scale and a shift)', () => {
    const warp = measureWarp((x, y, out) => {
      out[0] = 1.7 * x + 12;
      out[1] = 1.7 * y - 5;
    }, 100, 120);
    expect(warp.folded).toBe(0);
    expect(warp.maxAreaRatio).toBeCloseTo(1, 6);
    expect(warp.minAreaRatio).toBeCloseTo(1, 6);
  });

  it('refuses a warp that stretches one region far beyond the rest', () => {
    // the right fifth of the garment is spread twelve times wider than the rest
    const warp = measureWarp((x, y, out) => {
      out[0] = x < 80 ? x : 80 + (x - 80) * 60;
      out[1] = y;
    }, 100, 120);
    expect(warp.folded).toBe(0);
    expect(warp.maxAreaRatio).toBeCloseTo(60, 6);
    const v = gate(dressed([{ y0: 40, y1: 110, colour: GREEN }]), [{ category: 'top', width: W, height: H, warp }]);
    expect(v.reason).toBe("the top's warp stretches a region to 60.0x its median area (bound 40.0x)");
  });

  it('refuses a top that covers too little of the torso', () => {
    // the new top over the upper 40 %, skin synthesised below it
    const v = gate(dressed([{ y0: 40, y1: 68, colour: GREEN }, { y0: 68, y1: 110, colour: SKIN }]));
    expect(v.passed).toBe(false);
    expect(value(v, 'coverage')).toBeCloseTo(0.4, 2);
    expect(v.reason).toBe('the new top covers only 40.0 % of the torso (bound 60 %)');
    // the fill is measured too, from the images: the skin where the red top was
    expect(value(v, 'fill-area')).toBeCloseTo(0.6, 2);
  });

  it('refuses a result with the old top still showing below the new one', () => {
    // the new top ends 10 rows above the old one's hem: a red band left
    const v = gate(dressed([{ y0: 40, y1: 100, colour: GREEN }]));
    expect(v.passed).toBe(false);
    expect(value(v, 'old-garment')).toBeGreaterThan(GATE_BOUNDS.oldGarment);
    expect(v.reason).toMatch(/^old top still showing on \d+\.\d % of where it was \(bound 3 %\)$/);
    expect(v.checks.find((c) => !c.passed)).toMatchObject({ check: 'old-garment', source: 'gate' });
  });

  it('counts the old top left over the hips, where the parsing says legs, when the trousers are another colour', () => {
    // the old top hangs 6 rows below the torso of the parsing over the denim
    const longTop = { ...person, image: image(W, H, (x, y) => (inTorso(x, y) || (inLegs(x, y) && y < 116) ? RED : inArm(x, y) || inFace(x, y) ? SKIN : inLegs(x, y) ? DENIM : GREY)) };
    const result = image(W, H, (x, y) => {
      if (inTorso(x, y)) return GREEN;
      const i = (y * W + x) * 4;
      return [longTop.image.data[i], longTop.image.data[i + 1], longTop.image.data[i + 2]];
    });
    const v = checkTryOnResult({ person: longTop, result, garments: { top: packshot } });
    expect(v.passed).toBe(false);
    expect(v.reason).toMatch(/^old top still showing/);
  });

  it('refuses a fill larger than the bound, as the renderer reports it', () => {
    // a tank top over a long-sleeved top: the garment covers the torso, but skin is synthesised
    // over arms as large as 70 % of it
    const n = W * H;
    const alpha = new Float32Array(n);
    const target = new Uint8Array(n);
    const oldGarment = new Uint8Array(n);
    const fill = new Uint8Array(n);
    let torso = 0;
    for (let i = 0; i < n; i++) {
      const x = i % W;
      const y = Math.floor(i / W);
      if (inTorso(x, y)) {
        alpha[i] = 1;
        target[i] = 1;
        oldGarment[i] = 1;
        torso++;
      }
    }
    let filled = 0;
    for (let i = 0; i < n && filled < 0.7 * torso; i++) {
      const x = i % W;
      const y = Math.floor(i / W);
      if (!inTorso(x, y) && y >= 40 && y < 110 && (x < 40 || x >= 80) && x >= 10 && x < 110) {
        fill[i] = 1;
        oldGarment[i] = 1;
        filled++;
      }
    }
    const base = dressed([{ y0: 40, y1: 110, colour: GREEN }]);
    for (let i = 0; i < n; i++) if (fill[i]) base.data.set(SKIN, i * 4);
    const v = gate(base, [{ category: 'top', width: W, height: H, alpha, target, oldGarment, fill }]);
    expect(v.passed).toBe(false);
    expect(v.checks.find((c) => c.check === 'fill-area')).toMatchObject({ passed: false, source: 'renderer' });
    expect(v.reason).toMatch(/^skin and background synthesised over 70\.\d % of the torso \(bound 60 %\)$/);
  });

  it('refuses a panel torn open (a wedge of skin with cloth left, right and below), not a hem above hanging sleeves', () => {
    const n = W * H;
    // the torso covered but for a wedge from the chest down to 10 rows above the hem
    const wedge = (x: number, y: number) => y >= 70 && y < 100 && Math.abs(x - 60) <= (y - 70) / 3 + 1;
    const alpha = new Float32Array(n);
    const result = dressed([{ y0: 40, y1: 110, colour: GREEN }]);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        if (!inTorso(x, y)) continue;
        if (wedge(x, y)) result.data.set(SKIN, (y * W + x) * 4);
        else alpha[y * W + x] = 1;
      }
    }
    const v = gate(result, [{ category: 'top', width: W, height: H, alpha }]);
    expect(v.passed).toBe(false);
    expect(value(v, 'garment-gap')).toBeGreaterThan(GATE_BOUNDS.gap);
    expect(v.reason).toMatch(/^the top is torn open over \d+\.\d % of the torso it spans \(bound 6 %\)$/);
    // a top ending 20 rows above the hips between long sleeves hanging lower: no cloth below the
    // bare waist, so nothing torn (whatever else the other checks say of it)
    const short = new Float32Array(n);
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) if ((inTorso(x, y) && y < 90) || inArm(x, y)) short[y * W + x] = 1;
    const hemAbove = gate(dressed([{ y0: 40, y1: 90, colour: GREEN }]), [{ category: 'top', width: W, height: H, alpha: short }]);
    expect(value(hemAbove, 'garment-gap')).toBe(0);
    expect(value(gate(dressed([{ y0: 40, y1: 110, colour: GREEN }]), [{ category: 'top', width: W, height: H, alpha: torsoAlpha() }]), 'garment-gap')).toBe(0);
  });

  it('refuses a print smeared down the body (a warp forced to smear), passes it laid as it is', () => {
    // a packshot with a check print; the result's torso holds the same print, or each column's top
    // row smeared down the torso
    const DARK: Rgb = [30, 90, 50];
    const check = (x: number, y: number): Rgb => ((Math.floor(x / 5) + Math.floor(y / 5)) % 2 ? DARK : GREEN);
    const printed = image(100, 120, (x, y) => (x >= 20 && x < 80 && y >= 15 && y < 105 ? check(x, y) : [250, 250, 250]));
    const laid = (smear: boolean) => image(W, H, (x, y) => {
      if (inTorso(x, y)) return check(x, smear ? TORSO.y0 : y);
      const i = (y * W + x) * 4;
      return [person.image.data[i], person.image.data[i + 1], person.image.data[i + 2]];
    });
    const diag = (): LayerDiagnostics[] => [{ category: 'top', width: W, height: H, alpha: torsoAlpha() }];
    const good = checkTryOnResult({ person, result: laid(false), garments: { top: printed }, diagnostics: { layers: diag() } });
    expect(good.passed, good.reason).toBe(true);
    expect(value(good, 'print-structure')).toBeGreaterThan(1 / GATE_BOUNDS.structure);
    expect(value(good, 'print-structure')).toBeLessThan(GATE_BOUNDS.structure);
    const smeared = checkTryOnResult({ person, result: laid(true), garments: { top: printed }, diagnostics: { layers: diag() } });
    expect(smeared.passed).toBe(false);
    expect(smeared.checks.find((c) => !c.passed)).toMatchObject({ check: 'print-structure', kind: 'ratio', source: 'gate' });
    expect(smeared.reason).toMatch(/^the top's print is smeared: its horizontal over vertical detail is \d+\.\d\dx above the packshot's \(bound 1\.50x\)$/);
    // plain cloth has no print to keep: against the plain green packshot the balance is not measured
    const plain = checkTryOnResult({ person, result: laid(true), garments: { top: packshot }, diagnostics: { layers: diag() } });
    expect(plain.checks.find((c) => c.check === 'print-structure')).toMatchObject({ value: null, passed: true, source: null });
  });

  it('judges a halftone print drawn smaller against the packshot at that size: a faithful copy passes, one lengthened 1.6x is refused', () => {
    // a packshot at 3x the torso's size whose print (a disc and a bar) is a halftone line screen:
    // horizontal lines 1 px dark, 2 px light, so nearly all its detail is vertical gradient
    const K = 3;
    const INK: Rgb = [20, 20, 30];
    const shape = (x: number, y: number) => Math.hypot(x - 60, y - 80) < 34 || (x >= 25 && x < 95 && y >= 140 && y < 175);
    const screened = (x: number, y: number): Rgb => (shape(x, y) && y % 3 === 0 ? INK : GREEN);
    const big = image(40 * K, 70 * K, screened);
    const halftone = image(40 * K + 40, 70 * K + 30, (x, y) => (x >= 20 && x < 20 + 40 * K && y >= 15 && y < 15 + 70 * K ? screened(x - 20, y - 15) : [250, 250, 250]));
    // the print as the renderer draws it at a third of its size: each pixel the mean of the 3x3 under it
    const small = (x: number, y: number, along = 1): Rgb => {
      const acc = [0, 0, 0];
      const sy = Math.floor(y / along);
      for (let j = 0; j < K; j++) for (let i = 0; i < K; i++) for (let c = 0; c < 3; c++) acc[c] += big.data[((sy * K + j) * big.width + x * K + i) * 4 + c];
      return acc.map((v) => Math.round(v / (K * K))) as Rgb;
    };
    const laid = (along: number) => image(W, H, (x, y) => {
      if (inTorso(x, y)) return small(x - TORSO.x0, y - TORSO.y0, along);
      const i = (y * W + x) * 4;
      return [person.image.data[i], person.image.data[i + 1], person.image.data[i + 2]];
    });
    const warp = { folded: 0, maxAreaRatio: 1, minAreaRatio: 1, scale: 1 / K };
    const diag = (): LayerDiagnostics[] => [{ category: 'top', width: W, height: H, alpha: torsoAlpha(), warp }];
    const faithful = checkTryOnResult({ person, result: laid(1), garments: { top: halftone }, diagnostics: { layers: diag() } });
    expect(faithful.passed, faithful.reason).toBe(true);
    expect(value(faithful, 'print-structure')).toBeGreaterThan(1 / 1.2);
    expect(value(faithful, 'print-structure')).toBeLessThan(1.2);
    // against the full-size packshot the same faithful copy reads as smeared: the screen's lines,
    // nearly all of the packshot's detail, are averaged away by drawing it smaller, not by a warp
    const fullSize = checkTryOnResult({ person, result: laid(1), garments: { top: halftone }, diagnostics: { layers: [{ category: 'top', width: W, height: H, alpha: torsoAlpha() }] } });
    expect(value(fullSize, 'print-structure')).toBeGreaterThan(GATE_BOUNDS.structure);
    // a warp that lengthens the print 1.6x down the body is still refused
    const lengthened = checkTryOnResult({ person, result: laid(1.6), garments: { top: halftone }, diagnostics: { layers: diag() } });
    expect(lengthened.passed).toBe(false);
    expect(lengthened.reason).toMatch(/^the top's print is smeared/);
  });

  it('refuses the old top\'s sleeves left showing in another colour than its chest, passes them repainted', () => {
    // a two-colour tee: red chest, dark purple sleeves over the upper arms (the parsing says arm)
    const PURPLE: Rgb = [60, 35, 80];
    const sleeve = (x: number, y: number) => inArm(x, y) && y < 62;
    const twoTone = personBody((x, y) => (sleeve(x, y) ? PURPLE : photo(x, y)));
    const result = (sleeves: Rgb | null) => image(W, H, (x, y) => (inTorso(x, y) ? GREEN : sleeve(x, y) ? (sleeves ?? PURPLE) : photo(x, y)));
    const left = checkTryOnResult({ person: twoTone, result: result(null), garments: { top: packshot } });
    expect(left.passed).toBe(false);
    // the chest's colours are all gone: only the sleeves tell
    expect(value(left, 'old-garment')).toBe(0);
    expect(left.checks.find((c) => !c.passed)).toMatchObject({ check: 'old-cloth', source: 'gate', kind: 'max', bound: GATE_BOUNDS.oldCloth });
    expect(left.reason).toMatch(/^the old top's cloth \(sleeves, straps, neckline\) still showing on \d+\.\d % of it outside the new top \(bound 0\.5 %\)$/);
    const repainted = checkTryOnResult({ person: twoTone, result: result(SKIN), garments: { top: packshot } });
    expect(repainted.passed, repainted.reason).toBe(true);
    expect(value(repainted, 'old-cloth')).toBe(0);
  });

  it('tells old sleeves from skin on a shop photo cropped at the chin (no face): the bare arms give the skin', () => {
    // the two-colour tee again, on a photo whose face is out of the frame (backdrop, no face label)
    const PURPLE: Rgb = [60, 35, 80];
    const sleeve = (x: number, y: number) => inArm(x, y) && y < 62;
    const headless = personBody((x, y) => (sleeve(x, y) ? PURPLE : inFace(x, y) ? GREY : photo(x, y)));
    headless.parts!.forEach((p, i) => {
      if (p === PERSON_PART.face) {
        headless.parts![i] = PERSON_PART.background;
        headless.mask[i] = 0;
      }
    });
    const result = (sleeves: Rgb | null) => image(W, H, (x, y) => (inTorso(x, y) ? GREEN : sleeve(x, y) ? (sleeves ?? PURPLE) : inFace(x, y) ? GREY : photo(x, y)));
    const left = checkTryOnResult({ person: headless, result: result(null), garments: { top: packshot } });
    expect(left.passed).toBe(false);
    expect(left.checks.find((c) => !c.passed)).toMatchObject({ check: 'old-cloth', source: 'gate' });
    const repainted = checkTryOnResult({ person: headless, result: result(SKIN), garments: { top: packshot } });
    expect(repainted.passed, repainted.reason).toBe(true);
    expect(value(repainted, 'old-cloth')).toBe(0);
    expect(value(repainted, 'limb-repainted')).toBe(0);
  });

  it('takes hair in shade the parsing labels torso beside the neck for hair, not old cloth; a strap down to the shoulders stays cloth', () => {
    // hair beside the face down to 6 px above the shoulders, with a pocket of it in deep shade
    // (darker than any colour of the hair label) that the parsing calls torso; in the second
    // photo the same dark run reaches down to the shoulders and the top: a strap left showing
    const HAIR: Rgb = [120, 80, 50];
    const SHADE: Rgb = [28, 20, 16];
    const inHair = (x: number, y: number) => x >= 40 && x < 50 && y >= 8 && y < 34;
    const pocket = (x: number, y: number) => x >= 41 && x < 49 && y >= 16 && y < 30;
    const strap = (x: number, y: number) => x >= 41 && x < 49 && y >= 16 && y < 40;
    const withHair = (dark: (x: number, y: number) => boolean): PersonBody => {
      const body = personBody((x, y) => (dark(x, y) ? SHADE : inHair(x, y) ? HAIR : photo(x, y)));
      for (let y = 0; y < H; y++) {
        for (let x = 0; x < W; x++) {
          const part = dark(x, y) ? PERSON_PART.torso : inHair(x, y) ? PERSON_PART.hair : null;
          if (part === null) continue;
          body.parts![y * W + x] = part;
          body.mask[y * W + x] = 255;
        }
      }
      return body;
    };
    for (const [dark, passes] of [[pocket, true], [strap, false]] as const) {
      const body = withHair(dark);
      // the new top over the torso, everything else as in the photo
      const result = image(W, H, (x, y) => {
        if (inTorso(x, y)) return GREEN;
        const i = (y * W + x) * 4;
        return [body.image.data[i], body.image.data[i + 1], body.image.data[i + 2]];
      });
      const v = checkTryOnResult({ person: body, result, garments: { top: packshot } });
      expect(v.passed, `${passes ? 'pocket' : 'strap'}: ${v.reason}`).toBe(passes);
      if (passes) expect(value(v, 'old-cloth')).toBe(0);
      else expect(v.checks.find((c) => !c.passed)?.check).toBe('old-cloth');
    }
  });

  it('refuses whole arms painted where long sleeves were, passes short sleeves repainted', () => {
    // a long-sleeved top: dark purple down the whole arm (the parsing says arm); the new top is
    // sleeveless, so the result paints skin over the arm's length, or only over its top third
    const PURPLE: Rgb = [60, 35, 80];
    const longSleeved = personBody((x, y) => (inArm(x, y) ? PURPLE : photo(x, y)));
    const result = (paintedDownTo: number) => image(W, H, (x, y) => (inTorso(x, y) ? GREEN : inArm(x, y) ? (y < paintedDownTo ? SKIN : PURPLE) : photo(x, y)));
    const painted = checkTryOnResult({ person: longSleeved, result: result(H), garments: { top: packshot } });
    expect(painted.passed).toBe(false);
    expect(painted.checks.find((c) => !c.passed)).toMatchObject({ check: 'limb-synthesised', source: 'gate', kind: 'max', bound: GATE_BOUNDS.limbSynthesised });
    expect(value(painted, 'limb-synthesised')).toBeGreaterThan(0.9);
    expect(painted.reason).toMatch(/^the arms outside the new top had to be painted over \d+\.\d % of their visible length \(old sleeves replaced by synthetic skin; bound 45 %\)$/);
    // a short-sleeved tee's sleeves (the arm's top part) repainted: a fill the engine can stand behind
    const shortSleeved = personBody((x, y) => (inArm(x, y) && y < 62 ? PURPLE : photo(x, y)));
    const short = checkTryOnResult({ person: shortSleeved, result: image(W, H, (x, y) => (inTorso(x, y) ? GREEN : inArm(x, y) && y < 62 ? SKIN : photo(x, y))), garments: { top: packshot } });
    expect(value(short, 'limb-synthesised')).toBeLessThan(GATE_BOUNDS.limbSynthesised);
  });

  it('refuses an arm widened by skin painted beside the bare forearm, passes the cloth beside it kept', () => {
    // a dress: below the elbows (y 80) the parsing's arm holds the bare forearm (skin) and, beside
    // it, a band of the skirt (black); the new top leaves both outside it
    const BLACK: Rgb = [25, 25, 28];
    const band = (x: number, y: number) => y >= 80 && y < 100 && ((x >= 35 && x < 40) || (x >= 80 && x < 85));
    const dress = personBody((x, y) => (band(x, y) ? BLACK : photo(x, y)));
    const result = (slab: boolean) => image(W, H, (x, y) => (inTorso(x, y) ? GREEN : band(x, y) ? (slab ? SKIN : BLACK) : photo(x, y)));
    const widened = (v: GateVerdict) => v.checks.find((c) => c.check === 'arm-widened')!;
    const slab = checkTryOnResult({ person: dress, result: result(true), garments: { top: packshot } });
    expect(widened(slab)).toMatchObject({ passed: false, source: 'gate', kind: 'max', bound: GATE_BOUNDS.armWidened });
    expect(widened(slab).value).toBeGreaterThan(0.3);
    expect(slab.passed).toBe(false);
    const kept = checkTryOnResult({ person: dress, result: result(false), garments: { top: packshot } });
    expect(widened(kept)).toMatchObject({ passed: true, value: 0 });
  });

  it('allows a larger share of painted arm only when every forearm was drawn from its own hand and joins it', () => {
    // long sleeves painted down to y 80 of the arm's 42..100, about two thirds of its length (the rest
    // of the sleeve left: the old-cloth check refuses that on its own, this one is about the arms)
    const PURPLE: Rgb = [60, 35, 80];
    const longSleeved = personBody((x, y) => (inArm(x, y) ? PURPLE : photo(x, y)));
    const result = image(W, H, (x, y) => (inTorso(x, y) ? GREEN : inArm(x, y) ? (y < 80 ? SKIN : PURPLE) : photo(x, y)));
    const verdict = (limbs?: LayerDiagnostics['limbs']) =>
      checkTryOnResult({ person: longSleeved, result, garments: { top: packshot }, diagnostics: { layers: [{ category: 'top', width: W, height: H, ...(limbs ? { limbs } : {}) }] } });
    const limb = (v: GateVerdict) => v.checks.find((c) => c.check === 'limb-synthesised')!;
    // both forearms drawn from their hands, each wrist joining its hand without a step
    const drawn = verdict({ forearms: [{ painted: 300, wristJoin: 0.9 }, { painted: 300, wristJoin: 1.2 }], otherArmSkin: 0 });
    expect(limb(drawn).value).toBeGreaterThan(GATE_BOUNDS.limbSynthesised);
    expect(limb(drawn)).toMatchObject({ passed: true, bound: GATE_BOUNDS.limbSynthesisedFromHands });
    // refused at 45 %: no record of how the arms were drawn; flat bands of the sleeve's shape not
    // drawn from a hand; one arm drawn from its hand, the other a band; a wrist that does not join
    // its hand (a colour step across it), or whose join could not be measured
    for (const limbs of [
      undefined,
      { forearms: [], otherArmSkin: 600 },
      { forearms: [{ painted: 300, wristJoin: 0.9 }], otherArmSkin: 300 },
      { forearms: [{ painted: 300, wristJoin: 0.9 }, { painted: 300, wristJoin: 7.5 }], otherArmSkin: 0 },
      { forearms: [{ painted: 300, wristJoin: 0.9 }, { painted: 300, wristJoin: null }], otherArmSkin: 0 },
    ]) {
      const v = verdict(limbs);
      expect(limb(v), JSON.stringify(limbs)).toMatchObject({ passed: false, bound: GATE_BOUNDS.limbSynthesised });
    }
    // beyond the larger bound, arms drawn from hands are refused too
    const whole = checkTryOnResult({ person: longSleeved, result: image(W, H, (x, y) => (inTorso(x, y) ? GREEN : inArm(x, y) ? SKIN : photo(x, y))), garments: { top: packshot }, diagnostics: { layers: [{ category: 'top', width: W, height: H, limbs: { forearms: [{ painted: 300, wristJoin: 0.9 }, { painted: 300, wristJoin: 1 }], otherArmSkin: 0 } }] } });
    expect(limb(whole)).toMatchObject({ passed: false, bound: GATE_BOUNDS.limbSynthesisedFromHands });
  });

  it('refuses bare forearms repainted as flat skin in their own colour, passes them kept', () => {
    // forearms with the skin's texture (a luminance noise of +-12); the result paints them flat
    const grain = (x: number, y: number) => (((x * 7 + y * 13) % 5) - 2) * 6;
    const textured = (x: number, y: number): Rgb => {
      const g = grain(x, y);
      return inArm(x, y) ? [SKIN[0] + g, SKIN[1] + g, SKIN[2] + g] : photo(x, y);
    };
    const bare = personBody(textured);
    const result = (flat: boolean) => image(W, H, (x, y) => (inTorso(x, y) ? GREEN : flat && inArm(x, y) && y >= 62 ? SKIN : textured(x, y)));
    const flat = checkTryOnResult({ person: bare, result: result(true), garments: { top: packshot } });
    expect(flat.passed).toBe(false);
    expect(flat.checks.find((c) => !c.passed)).toMatchObject({ check: 'limb-repainted', source: 'gate' });
    expect(value(flat, 'limb-repainted')).toBeGreaterThan(GATE_BOUNDS.limbRepainted);
    expect(flat.reason).toMatch(/^the person's own hands and arms repainted on \d+\.\d % of their bare skin outside the new top \(bound 10 %\)$/);
    const kept = checkTryOnResult({ person: bare, result: result(false), garments: { top: packshot } });
    expect(kept.passed, kept.reason).toBe(true);
    expect(value(kept, 'limb-repainted')).toBe(0);
  });

  it('refuses a garment its packshot lost to the backdrop (a light tee on a light card, only the print cut out)', () => {
    // a tee a few units darker than its photographed card (the card's grain of +-4 levels: not a
    // noiseless pasted backdrop, which the cut-out separates by a couple of levels), a red print on its chest
    const card = (x: number, y: number): Rgb => {
      const g = ((x * 7 + y * 13) % 9) - 4;
      return [246 + g, 246 + g, 246 + g];
    };
    const TEE: Rgb = [234, 234, 234];
    const tee = (x: number, y: number) => (x >= 25 && x < 75 && y >= 20 && y < 110) || (y >= 20 && y < 45 && x >= 8 && x < 92);
    const lost = image(100, 120, (x, y) => (x >= 38 && x < 62 && y >= 40 && y < 70 ? RED : tee(x, y) ? TEE : card(x, y)));
    const v = checkTryOnResult({ person, result: dressed([{ y0: 40, y1: 110, colour: TEE }]), garments: { top: lost } });
    expect(v.checks.find((c) => c.check === 'garment-lost')).toMatchObject({ passed: false, kind: 'min', source: 'gate' });
    expect(value(v, 'garment-lost')).toBeLessThan(GATE_BOUNDS.garmentKept);
    // the same tee on a contrasting card is cut out whole
    const whole = image(100, 120, (x, y) => (x >= 38 && x < 62 && y >= 40 && y < 70 ? RED : tee(x, y) ? TEE : [90, 90, 90]));
    const ok = checkTryOnResult({ person, result: dressed([{ y0: 40, y1: 110, colour: TEE }]), garments: { top: whole } });
    expect(ok.checks.find((c) => c.check === 'garment-lost')).toMatchObject({ passed: true });
    expect(value(ok, 'garment-lost')).toBeGreaterThan(0.95);
  });

  it('refuses foreign fragments: paint on the legs away from the old top, backdrop synthesised inside the person', () => {
    const n = W * H;
    const alpha = torsoAlpha();
    const fill = new Uint8Array(n);
    const layer = (): LayerDiagnostics[] => [{ category: 'top', width: W, height: H, alpha, fill }];
    const clean = dressed([{ y0: 40, y1: 110, colour: GREEN }]);
    const good = gate(clean, layer());
    expect(good.passed, good.reason).toBe(true);
    expect(value(good, 'foreign-fragments')).toBe(0);
    // a skin-coloured strip painted down the jeans, 6 px wide and 20 long: 4.3 % of the torso
    const painted = dressed([{ y0: 40, y1: 110, colour: GREEN }]);
    for (let y = 125; y < 145; y++) for (let x = 50; x < 56; x++) painted.data.set(SKIN, (y * W + x) * 4);
    const strip = gate(painted, layer());
    expect(strip.passed).toBe(false);
    expect(strip.checks.find((c) => !c.passed)).toMatchObject({ check: 'foreign-fragments', source: 'gate' });
    expect(strip.reason).toMatch(/^fragments of other clothes or of the backdrop pasted outside the new top, over \d+\.\d % of the torso's area \(bound 1 %\)$/);
    // the renderer's backdrop fill in the middle of the legs
    const patched = dressed([{ y0: 40, y1: 110, colour: GREEN }]);
    for (let y = 125; y < 140; y++) {
      for (let x = 55; x < 65; x++) {
        patched.data.set(GREY, (y * W + x) * 4);
        fill[y * W + x] = 2;
      }
    }
    expect(value(gate(patched, layer()), 'foreign-fragments')).toBeGreaterThan(GATE_BOUNDS.fragments);
  });

  it('refuses skin painted in a block at the neck where a lower old neckline was, passes a thin rim along the new one', () => {
    // the person's neck (its label x 52..68 under the chin, y 36..40) over a scoop-necked red top;
    // the new top's neckline sits higher, and what it leaves of the old scoop is painted with skin
    const neckParts = Uint8Array.from(person.parts!);
    const neckMask = Uint8Array.from(person.mask);
    const neckPhoto = { ...person.image, data: Uint8Array.from(person.image.data) };
    for (let y = 36; y < 40; y++) {
      for (let x = 52; x < 68; x++) {
        neckParts[y * W + x] = PERSON_PART.neck;
        neckMask[y * W + x] = 255;
        neckPhoto.data.set(SKIN, (y * W + x) * 4);
      }
    }
    const withNeck: PersonBody = { ...person, image: neckPhoto, mask: neckMask, parts: neckParts, landmarks: { ...person.landmarks, chin: { x: 60, y: 36 } } };
    const painted = (rows: number) => {
      const alpha = torsoAlpha();
      const fill = new Uint8Array(W * H);
      const result = dressed([{ y0: 40, y1: 110, colour: GREEN }]);
      for (let y = 36; y < 40; y++) for (let x = 52; x < 68; x++) result.data.set(SKIN, (y * W + x) * 4);
      for (let y = 40; y < 40 + rows; y++) {
        for (let x = 48; x < 72; x++) {
          alpha[y * W + x] = 0;
          fill[y * W + x] = 1;
          result.data.set(SKIN, (y * W + x) * 4);
        }
      }
      return checkTryOnResult({ person: withNeck, result, garments: { top: packshot }, diagnostics: { layers: [{ category: 'top', width: W, height: H, alpha, fill }] } });
    };
    // a block 24 x 12 px (the old scoop's depth): its inside is 2.6x the neck's area
    const block = painted(12);
    expect(block.passed).toBe(false);
    expect(block.checks.find((c) => !c.passed)).toMatchObject({ check: 'neck-fill', source: 'gate', kind: 'max', bound: GATE_BOUNDS.neckFill });
    expect(value(block, 'neck-fill')).toBeGreaterThan(1);
    expect(block.reason).toMatch(/^skin had to be painted in a block at the neck where the old neckline was, over \d+\.\d % of the neck's area \(too large to pass for the neck's own skin; bound 28\.5 %\)$/);
    // a rim 3 px deep along the new neckline blends into the skin beside it
    const rim = painted(3);
    expect(rim.passed, rim.reason).toBe(true);
    expect(value(rim, 'neck-fill')).toBe(0);
    // no neck in the parsing: not measured
    expect(block.checks.find((c) => c.check === 'neck-fill')?.value).not.toBeNull();
    expect(gate(dressed([{ y0: 40, y1: 110, colour: GREEN }]), [{ category: 'top', width: W, height: H, alpha: torsoAlpha(), fill: new Uint8Array(W * H) }]).checks.find((c) => c.check === 'neck-fill')).toMatchObject({ value: null, passed: true, source: null });
  });

  /**
   * A person whose neck (its label and skin over `neck`, x0..x1 by y0..y1) shows above the new
   * top, and a result where the fill box (`fill`) is painted `colour` and marked as skin fill.
   */
  function neckCase(neck: { x0: number; x1: number; y0: number; y1: number }, fill: { x0: number; x1: number; y0: number; y1: number }, colour: Rgb | ((x: number, y: number) => Rgb), drawn?: Partial<LayerDiagnostics>) {
    const parts = Uint8Array.from(person.parts!);
    const mask = Uint8Array.from(person.mask);
    const img = { ...person.image, data: Uint8Array.from(person.image.data) };
    const result = dressed([{ y0: 40, y1: 110, colour: GREEN }]);
    for (let y = neck.y0; y < neck.y1; y++) {
      for (let x = neck.x0; x < neck.x1; x++) {
        parts[y * W + x] = PERSON_PART.neck;
        mask[y * W + x] = 255;
        img.data.set(SKIN, (y * W + x) * 4);
        result.data.set(SKIN, (y * W + x) * 4);
      }
    }
    const alpha = torsoAlpha();
    const map = new Uint8Array(W * H);
    for (let y = fill.y0; y < fill.y1; y++) {
      for (let x = fill.x0; x < fill.x1; x++) {
        alpha[y * W + x] = 0;
        map[y * W + x] = 1;
        result.data.set(typeof colour === 'function' ? colour(x, y) : colour, (y * W + x) * 4);
      }
    }
    const body: PersonBody = { ...person, image: img, mask, parts, landmarks: { ...person.landmarks, chin: { x: 60, y: neck.y0 } } };
    return checkTryOnResult({ person: body, result, garments: { top: packshot }, diagnostics: { layers: [{ category: 'top', width: W, height: H, alpha, fill: map, ...drawn }] } });
  }

  it('lets a fill drawn as chest that joins the neck cleanly all along be larger than a smooth patch may, up to the neck\'s area', () => {
    // a neck 32 x 14 px over a band 24 x 16 px below it: the block inside it is 40 % of the neck
    const neck = { x0: 44, x1: 76, y0: 26, y1: 40 };
    const band = { x0: 48, x1: 72, y0: 40, y1: 56 };
    const neckFill = (v: GateVerdict) => v.checks.find((c) => c.check === 'neck-fill')!;
    // a membrane alone (no relief drawn): a smooth patch, held to the smaller bound
    const smooth = neckCase(neck, band, SKIN);
    expect(neckFill(smooth)).toMatchObject({ passed: false, bound: GATE_BOUNDS.neckFill });
    expect(neckFill(smooth).value).toBeGreaterThan(GATE_BOUNDS.neckFill);
    expect(neckFill(smooth).value).toBeLessThan(GATE_BOUNDS.neckFillDrawn);
    // drawn with the chest's relief and joining the neck without a step anywhere: shown
    const drawn = neckCase(neck, band, SKIN, { chestRelief: true });
    expect(drawn.passed, drawn.reason).toBe(true);
    expect(neckFill(drawn)).toMatchObject({ passed: true, bound: GATE_BOUNDS.neckFillDrawn });
    // drawn, but an eighth of its width in another tone where it meets the neck: the join steps
    // there (its 75th percentile still clean), so the smaller bound holds
    const darkSide = neckCase(neck, band, (x, y) => (x < 51 && y < 44 ? [150, 95, 70] : SKIN), { chestRelief: true });
    expect(neckFill(darkSide)).toMatchObject({ passed: false, bound: GATE_BOUNDS.neckFill });
    expect(value(darkSide, 'neck-seam')).toBeLessThan(GATE_BOUNDS.neckSeam);
  });

  it('refuses neck skin painted in another tone than the neck it joins (a seam), passes one that continues it', () => {
    // a wide neck over the new top's opening, and a band 24 x 10 px painted below it (14 % of its area)
    const neck = { x0: 44, x1: 76, y0: 26, y1: 40 };
    const band = { x0: 48, x1: 72, y0: 40, y1: 50 };
    const seam = neckCase(neck, band, [200, 120, 70]);
    expect(seam.passed).toBe(false);
    expect(seam.checks.find((c) => !c.passed)).toMatchObject({ check: 'neck-seam', source: 'gate', kind: 'max', bound: GATE_BOUNDS.neckSeam });
    expect(value(seam, 'neck-seam')).toBeGreaterThan(15);
    expect(seam.reason).toMatch(/^skin painted at the neck where the old neckline was does not join the neck's own: its colour steps by \d+\.\d ΔE across the join \(bound 6 ΔE\)$/);
    const joined = neckCase(neck, band, SKIN);
    expect(joined.passed, joined.reason).toBe(true);
    expect(value(joined, 'neck-seam')).toBeLessThan(1);
    expect(value(joined, 'neck-fill')).toBeLessThan(GATE_BOUNDS.neckFill);
  });

  it('refuses neck skin painted out to the backdrop in the shape of the old top, passes a fill under the neck', () => {
    // the neck beside the new top's opening (x 40..50), the fill's top edge against the backdrop
    const plate = neckCase({ x0: 40, x1: 50, y0: 10, y1: 40 }, { x0: 50, x1: 72, y0: 40, y1: 50 }, SKIN);
    expect(plate.passed).toBe(false);
    expect(plate.checks.find((c) => !c.passed)).toMatchObject({ check: 'neck-outline', source: 'gate', kind: 'max', bound: GATE_BOUNDS.neckOutline });
    expect(value(plate, 'neck-fill')).toBeLessThan(GATE_BOUNDS.neckFill);
    expect(value(plate, 'neck-outline')).toBeGreaterThan(0.9);
    expect(plate.reason).toMatch(/^skin painted at the neck where the old neckline was ends against hair or backdrop along \d+\.\d % of its outline \(a patch the old top's shape cut; bound 50 %\)$/);
    // the same fill right under the neck: its outline is the neck's skin
    const under = neckCase({ x0: 46, x1: 76, y0: 20, y1: 40 }, { x0: 50, x1: 72, y0: 40, y1: 50 }, SKIN);
    expect(under.passed, under.reason).toBe(true);
    expect(value(under, 'neck-outline')).toBe(0);
  });

  it('refuses upper arms painted as a flat band 30 % darker than the arm below, ending square; passes them painted in the arm\'s light', () => {
    // a larger scene: arms 30 px wide (x 20..50 and 150..180, y 45..210) lit across their width
    // (brighter on the ridge, darker at the edges), a short-sleeved purple tee over the arms down
    // to y 100; the new top is sleeveless, so the result paints the upper arms down to the hem
    const AW = 200;
    const AH = 240;
    const PURPLE: Rgb = [60, 35, 80];
    const arms = [{ x0: 20, x1: 50 }, { x0: 150, x1: 180 }];
    const armAt = (x: number, y: number) => (y >= 45 && y < 210 ? arms.find((a) => x >= a.x0 && x < a.x1) : undefined);
    const torsoAt = (x: number, y: number) => x >= 50 && x < 150 && y >= 40 && y < 170;
    const faceAt = (x: number, y: number) => x >= 85 && x < 115 && y >= 5 && y < 35;
    const lit = (x: number, a: { x0: number; x1: number }): Rgb => {
      const u = ((x + 0.5 - a.x0) / (a.x1 - a.x0)) * 2 - 1;
      const shade = 0.72 + 0.28 * Math.cos((u * Math.PI) / 2);
      return [SKIN[0] * shade, SKIN[1] * shade, SKIN[2] * shade].map(Math.round) as Rgb;
    };
    const grain = (x: number, y: number) => (((x * 7 + y * 13) % 5) - 2);
    const before = (x: number, y: number): Rgb => {
      const a = armAt(x, y);
      if (a) return y < 100 ? PURPLE : lit(x, a).map((v) => v + grain(x, y)) as Rgb;
      return torsoAt(x, y) ? RED : faceAt(x, y) ? SKIN : GREY;
    };
    const parts = new Uint8Array(AW * AH);
    const mask = new Uint8Array(AW * AH);
    for (let y = 0; y < AH; y++) {
      for (let x = 0; x < AW; x++) {
        const part = armAt(x, y) ? PERSON_PART.arm : torsoAt(x, y) ? PERSON_PART.torso : faceAt(x, y) ? PERSON_PART.face : 0;
        parts[y * AW + x] = part;
        mask[y * AW + x] = part ? 255 : 0;
      }
    }
    const p = (x: number, y: number) => ({ x, y });
    const landmarks = { ...person.landmarks, chin: p(100, 36), leftShoulder: p(165, 45), leftElbow: p(165, 140), leftWrist: p(165, 205), rightShoulder: p(35, 45), rightElbow: p(35, 140), rightWrist: p(35, 205), hipLeft: p(148, 170), hipRight: p(52, 170) } as BodyLandmarks;
    const tee: PersonBody = { image: image(AW, AH, before), mask, parts, depth: new Float32Array(AW * AH), landmarks, pixelsPerCm: 2, pose: 'photo' };
    const alpha = new Float32Array(AW * AH);
    const fill = new Uint8Array(AW * AH);
    for (let y = 0; y < AH; y++) {
      for (let x = 0; x < AW; x++) {
        if (torsoAt(x, y)) alpha[y * AW + x] = 1;
        else if (armAt(x, y) && y < 100) fill[y * AW + x] = 1;
      }
    }
    const result = (band: (x: number, y: number, a: { x0: number; x1: number }) => Rgb) =>
      image(AW, AH, (x, y) => {
        const a = armAt(x, y);
        if (torsoAt(x, y)) return GREEN;
        if (a && y < 100) return band(x, y, a);
        return before(x, y);
      });
    const verdict = (img: RasterImage) => checkTryOnResult({ person: tee, result: img, garments: { top: packshot }, diagnostics: { layers: [{ category: 'top', width: AW, height: AH, alpha, fill }] } });
    const join = (v: GateVerdict) => v.checks.find((c) => c.check === 'arm-join')!;
    // a flat band 30 % darker than the arm, ending square on the hem's line
    const flat = verdict(result(() => [SKIN[0] * 0.7, SKIN[1] * 0.7, SKIN[2] * 0.7].map(Math.round) as Rgb));
    expect(flat.passed).toBe(false);
    expect(join(flat)).toMatchObject({ passed: false, source: 'gate', kind: 'max', bound: GATE_BOUNDS.armJoin });
    expect(join(flat).value).toBeGreaterThan(15);
    expect(flat.reason).toMatch(/^skin painted on the arms where the old sleeves were does not continue the arm it ends on: across the arm, its colour steps by up to \d+\.\d ΔE where it meets the arm's own skin \(a flat band of another tone or shading; bound 6 ΔE\)$/);
    // a band in the arm's own tone but flat across it (none of its shading) steps at its edges
    const untoned = verdict(result(() => SKIN));
    expect(join(untoned).value).toBeGreaterThan(GATE_BOUNDS.armJoin);
    // painted in the arm's light across it (its ridge, its shaded edges), with its grain: passes
    const good = verdict(result((x, y, a) => lit(x, a).map((v) => v + grain(x + 3, y)) as Rgb));
    expect(join(good)).toMatchObject({ passed: true, source: 'gate' });
    expect(join(good).value).toBeLessThan(2);
    expect(good.passed, good.reason).toBe(true);
    // a rim of a few px painted above the arm (an old sleeve's hem under a new sleeve) is no band
    const rimFill = fill.map((v, i) => (v && ((i / AW) | 0) >= 96 ? 1 : 0));
    const rim = checkTryOnResult({ person: tee, result: result((_x, y) => (y >= 96 ? [SKIN[0] * 0.7, SKIN[1] * 0.7, SKIN[2] * 0.7].map(Math.round) as Rgb : PURPLE)), garments: { top: packshot }, diagnostics: { layers: [{ category: 'top', width: AW, height: AH, alpha, fill: rimFill }] } });
    expect(join(rim).value).toBeNull();
  });

  it('reports what it cannot measure as not measured: no parsing, no diagnostics', () => {
    const { parts: _parts, ...classical } = person;
    const v = checkTryOnResult({ person: classical, result: dressed([{ y0: 40, y1: 100, colour: GREEN }]), garments: { top: packshot } });
    expect(v.passed).toBe(true);
    // (the packshot's cut-out is measured from the packshot alone)
    for (const c of v.checks) if (c.check !== 'garment-lost') expect(c).toMatchObject({ value: null, passed: true });
  });

  it('checks a result of another size than the photo (draft quality) on the photo scaled to it', () => {
    const half = (img: RasterImage) => image(W / 2, H / 2, (x, y) => {
      const i = (y * 2 * W + x * 2) * 4;
      return [img.data[i], img.data[i + 1], img.data[i + 2]];
    });
    expect(gate(half(dressed([{ y0: 40, y1: 110, colour: GREEN }]))).passed).toBe(true);
    expect(gate(half(dressed([{ y0: 40, y1: 96, colour: GREEN }]))).reason).toMatch(/^old top still showing/);
  });
});
