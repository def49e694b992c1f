/**
 * Forearms under an old long sleeve, on a constructed photo: a dark sleeve 60 px wide from the
 * shoulder to the wrist and a bare hand 30 px wide below it, on a grey backdrop. The forearm must
 * be drawn as an arm (as wide as the hand at the wrist, wider towards the elbow, never the
 * sleeve's width), the sleeve outside it must become backdrop, and its skin must take the hand's
 * tone at the wrist and the light across the hand (its lit side, its shaded side), darker at its
 * edges than along its middle.
 */
import { describe, expect, it } from 'vitest';
import { finishForearms, forearmLight, planForearms, planUpperArms, wristJoin } from '../../../../adapters/builtin/tryon/limb-fill.ts';
import { synthesiseFill } from '../../../../adapters/builtin/tryon/photo-fill.ts';
import { deltaE76, linearToSrgb, SRGB_TO_LINEAR, srgbToLab } from '../../../../adapters/builtin/tryon/color.ts';
import { dilate } from '../../../../adapters/builtin/raster/morphology.ts';
import { PERSON_PART, type PersonBody } from '../../../../core/ports/person-analyzer.ts';

const W = 200;
const H = 300;
const SLEEVE = { x0: 70, x1: 130, y0: 40, y1: 222 };
const HAND = { x0: 85, x1: 115, y0: 222, y1: 285 };
const HAND_RGB = [196, 150, 124];

/** A deterministic hash noise in -0.5..0.5. */
const noise = (x: number, y: number) => {
  let t = Math.imul(x + 5, 0x27d4eb2d) ^ Math.imul(y + 7, 0x165667b1);
  t = Math.imul(t ^ (t >>> 15), t | 1);
  return ((t ^ (t >>> 13)) >>> 0) / 4294967296 - 0.5;
};

/**
 * The photo's pixels on a grey, slightly noisy backdrop: `person(x, y)` gives a person's pixel (its
 * colour, parsing label and whether it is the old sleeve) or null for backdrop.
 */
function paintScene(person: (x: number, y: number) => { rgb: number[]; part: number; sleeve?: boolean } | null) {
  const n = W * H;
  const data = new Uint8Array(n * 4);
  const mask = new Uint8Array(n);
  const parts = new Uint8Array(n);
  const sleeve = new Uint8Array(n);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      const p = person(x, y);
      const rgb = p?.rgb ?? [210, 210, 212].map((v) => v + 3 * noise(x, y));
      if (p) {
        mask[i] = 255;
        parts[i] = p.part;
        if (p.sleeve) sleeve[i] = 1;
      }
      for (let c = 0; c < 3; c++) data[i * 4 + c] = Math.max(0, Math.min(255, Math.round(rgb[c])));
      data[i * 4 + 3] = 255;
    }
  }
  return { n, data, mask, parts, sleeve };
}

function scene(handShade = (t: number) => 0.8 + 0.2 * Math.sin(Math.PI * t)) {
  const { data, mask, parts, sleeve } = paintScene((x, y) => {
    if (x >= SLEEVE.x0 && x < SLEEVE.x1 && y >= SLEEVE.y0 && y < SLEEVE.y1) return { rgb: [28, 28, 34], part: PERSON_PART.arm, sleeve: true };
    if (x < HAND.x0 || x >= HAND.x1 || y < HAND.y0 || y >= HAND.y1) return null;
    const shade = handShade((x + 0.5 - HAND.x0) / (HAND.x1 - HAND.x0));
    return { rgb: HAND_RGB.map((v) => v * shade + 6 * noise(x, y)), part: PERSON_PART.arm };
  });
  // the person's left arm hangs in the sleeve; the right one is off the picture
  const at = (x: number, y: number) => ({ x, y });
  const landmarks = {
    leftShoulder: at(100, 45),
    leftElbow: at(100, 130),
    leftWrist: at(100, 240),
    rightShoulder: at(-100, 45),
    rightElbow: at(-100, 130),
    rightWrist: at(-100, 240),
  };
  const body = { image: { width: W, height: H, data }, mask, parts, landmarks } as unknown as PersonBody & { parts: Uint8Array };
  return { body, sleeve };
}

function plan(handShade?: (t: number) => number) {
  const { body, sleeve } = scene(handShade);
  const fill = Uint8Array.from(sleeve);
  const grown = dilate(sleeve, W, H, 3);
  const lab = Array.from(srgbToLab(HAND_RGB[0], HAND_RGB[1], HAND_RGB[2], [0, 0, 0]));
  const forearms = planForearms(fill, grown, sleeve, () => false, body, lab);
  return { body, sleeve, fill, forearms };
}

/** The forearm's skin pixels in row y: their count and the first and last column. */
function row(skin: Uint8Array, y: number) {
  let count = 0;
  let first = -1;
  let last = -1;
  for (let x = 0; x < W; x++) {
    if (!skin[y * W + x]) continue;
    count++;
    if (first < 0) first = x;
    last = x;
  }
  return { count, first, last };
}

/** The scene's fills synthesised as uncoverOldTop does them: backdrop, then each forearm in its light. */
function paint(body: PersonBody & { parts: Uint8Array }, fill: Uint8Array, forearms: ReturnType<typeof planForearms>) {
  const n = W * H;
  const canvas = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) canvas[i * 3 + c] = SRGB_TO_LINEAR[body.image.data[i * 4 + c]];
  const flat = new Float32Array(n).fill(1);
  const backdrop = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (!body.mask[i]) backdrop[i] = 1;
  const others = fill.map((v, i) => (forearms[0].skin[i] ? 0 : v));
  synthesiseFill(canvas, others, body, new Uint8Array(n), flat, () => 1, undefined, 2, backdrop);
  for (const f of forearms) synthesiseFill(canvas, f.skin, body, f.source, flat, () => 1, (i) => forearmLight(f.profile, f.across[i]), 2);
  finishForearms(canvas, forearms, W, H);
  const srgb = (i: number) => [0, 1, 2].map((c) => linearToSrgb(canvas[i * 3 + c]));
  const mean = (xs: number[], y0: number, y1: number) => {
    const s = [0, 0, 0];
    let k = 0;
    for (let y = y0; y < y1; y++) for (const x of xs) { const v = srgb(y * W + x); for (let c = 0; c < 3; c++) s[c] += v[c]; k++; }
    return s.map((v) => v / k);
  };
  const lum = (v: number[]) => 0.299 * v[0] + 0.587 * v[1] + 0.114 * v[2];
  return { mean, lum, canvas };
}

describe('planForearms', () => {
  it('draws the forearm as wide as the hand at the wrist, wider towards the elbow, and turns the rest of the sleeve into backdrop', () => {
    const { fill, sleeve, forearms } = plan();
    expect(forearms).toHaveLength(1);
    const f = forearms[0];
    expect(f.wristWidth).toBeGreaterThan(24);
    expect(f.wristWidth).toBeLessThan(36);
    const wrist = row(f.skin, SLEEVE.y1 - 6);
    const elbow = row(f.skin, 140);
    // the hand's 30 px at the wrist, not the sleeve's 60
    expect(Math.abs(wrist.count - (HAND.x1 - HAND.x0))).toBeLessThanOrEqual(6);
    expect(elbow.count).toBeGreaterThan(wrist.count + 4);
    expect(elbow.count).toBeLessThan(SLEEVE.x1 - SLEEVE.x0 - 8);
    // centred on the hand
    expect(Math.abs((wrist.first + wrist.last) / 2 - (HAND.x0 + HAND.x1 - 1) / 2)).toBeLessThanOrEqual(2);
    // the sleeve outside the arm is backdrop now, inside it skin
    let backdrop = 0;
    let other = 0;
    for (let i = 0; i < W * H; i++) {
      if (!sleeve[i] || i < 150 * W) continue;
      if (f.skin[i]) expect(fill[i]).toBe(1);
      else if (fill[i] === 2) backdrop++;
      else other++;
    }
    expect(backdrop).toBeGreaterThan(1500);
    expect(other).toBe(0);
  });

  it('gives the forearm the hand tone at the wrist, shaded darker at its edges than along its middle', () => {
    const { body, fill, forearms } = plan();
    const { mean, lum } = paint(body, fill, forearms);
    const lab = (rgb: number[]) => Array.from(srgbToLab(rgb[0], rgb[1], rgb[2], [0, 0, 0]));
    // the wrist's middle against the hand's just below the seam
    const r = row(forearms[0].skin, 212);
    const mid = Math.round((r.first + r.last) / 2);
    const wristMid = mean([mid - 2, mid - 1, mid, mid + 1, mid + 2], 208, 216);
    const handMid = mean([98, 99, 100, 101, 102], 232, 240);
    expect(deltaE76(lab(wristMid), lab(handMid))).toBeLessThan(6);
    // across the forearm half way up: edges darker than the middle
    const h = row(forearms[0].skin, 170);
    const c = Math.round((h.first + h.last) / 2);
    const middle = lum(mean([c - 2, c - 1, c, c + 1, c + 2], 165, 175));
    const edges = (lum(mean([h.first + 1, h.first + 2], 165, 175)) + lum(mean([h.last - 2, h.last - 1], 165, 175))) / 2;
    expect(middle - edges).toBeGreaterThan(12);
    // and the backdrop beside it is the backdrop's grey, not the sleeve's black
    const beside = mean([SLEEVE.x0 + 2, SLEEVE.x1 - 3], 165, 175);
    expect(lum(beside)).toBeGreaterThan(195);
  });

  it('carries the light across the hand up the forearm: a hand lit from its left side gives a forearm lit on that side', () => {
    const { body, fill, forearms } = plan((t) => 1 - 0.35 * t);
    const { mean, lum } = paint(body, fill, forearms);
    const h = row(forearms[0].skin, 170);
    const q = Math.round((h.last - h.first) / 4);
    const left = lum(mean([h.first + q - 1, h.first + q, h.first + q + 1], 165, 175));
    const right = lum(mean([h.last - q - 1, h.last - q, h.last - q + 1], 165, 175));
    expect(left - right).toBeGreaterThan(10);
  });
});

describe('wristJoin', () => {
  it('reads no step across the wrist of a forearm drawn in its hand\'s light, a step for a band of a flat other tone', () => {
    const { body, fill, forearms } = plan();
    const { canvas } = paint(body, fill, forearms);
    const f = forearms[0];
    const joined = wristJoin(canvas, f, W, H);
    expect(joined).not.toBeNull();
    expect(joined!).toBeLessThan(2);
    // the same forearm repainted as a flat band 30 % darker than the hand in linear light (a fill in another skin tone)
    const band = canvas.slice();
    for (let i = 0; i < W * H; i++) if (f.skin[i]) for (let c = 0; c < 3; c++) band[i * 3 + c] = 0.7 * SRGB_TO_LINEAR[HAND_RGB[c]];
    expect(wristJoin(band, f, W, H)!).toBeGreaterThan(4);
  });
});

/** The sleeve with its last 12 px towards the hip replaced by `strip(x, y)` (labelled arm, not old top): the share of that strip the sleeve takes. */
function stripTaken(sleeveRgb: number[], strip: (x: number, y: number) => number[]) {
  const { body, sleeve } = scene();
  const d = body.image.data;
  const from = SLEEVE.x1 - 12;
  for (let i = 0; i < W * H; i++) {
    if (!sleeve[i]) continue;
    const x = i % W;
    if (x >= from) {
      d.set(strip(x, (i / W) | 0), i * 4);
      sleeve[i] = 0;
    } else d.set(sleeveRgb, i * 4);
  }
  const fill = Uint8Array.from(sleeve);
  const lab = Array.from(srgbToLab(HAND_RGB[0], HAND_RGB[1], HAND_RGB[2], [0, 0, 0]));
  planForearms(fill, dilate(sleeve, W, H, 3), sleeve, () => false, body, lab);
  let area = 0;
  let taken = 0;
  for (let y = 150; y < SLEEVE.y1 - 8; y++) {
    for (let x = from + 1; x < SLEEVE.x1; x++) {
      area++;
      if (fill[y * W + x]) taken++;
    }
  }
  return taken / area;
}

describe('planForearms: a coloured sleeve in shade', () => {
  it('takes the sleeve\'s dark side of its own hue (left out of the old top by its colour) away with it', () => {
    // a red sleeve whose last 12 px towards the hip are in shade, a maroon the old top's colours
    // (and ΔE76 22 of the sleeve's median) miss: left as it was, it showed as dark red shreds
    // between the painted forearm and the trousers
    expect(stripTaken([196, 40, 52], () => [92, 22, 30])).toBeGreaterThan(0.95);
  });
});

describe('planForearms: a sheer sleeve over a print', () => {
  it('takes a black sheer sleeve\'s stretch over a spotted skirt (the print darkened, in neither the sleeve\'s nor the skin\'s colours) away with it', () => {
    // left as it was, it stood in shreds of the print between the painted forearm and the skirt
    const spots = (x: number, y: number) => ((Math.floor(x / 3) + Math.floor(y / 3)) % 2 ? [40, 30, 25] : [150, 110, 70]);
    expect(stripTaken([28, 28, 34], spots)).toBeGreaterThan(0.9);
  });

  it('leaves plain trousers of another colour than the sleeve, which the parsing calls arm beside it, as they are', () => {
    expect(stripTaken([196, 40, 52], () => [20, 20, 22])).toBeLessThan(0.1);
  });
});

describe('planUpperArms', () => {
  // a short dark sleeve 70 px wide from the shoulder down to y 110 over an arm 30 px wide, bare
  // below it down to the wrist (lit from its left side: brighter on the left than on the right)
  const ARM = { x0: 85, x1: 115, y0: 110, y1: 285 };
  const TEE = { x0: 65, x1: 135, y0: 40, y1: 110 };
  // (outerTorso: the parsing calls the columns from that x on torso, the arm's outer rim with the
  // sleeve beside it, as it can on a photo)
  function teeScene(outerTorso = W) {
    const { n, data, mask, parts, sleeve } = paintScene((x, y) => {
      const part = x >= outerTorso ? PERSON_PART.torso : PERSON_PART.arm;
      if (x >= TEE.x0 && x < TEE.x1 && y >= TEE.y0 && y < TEE.y1) return { rgb: [34, 28, 52], part, sleeve: true };
      if (x < ARM.x0 || x >= ARM.x1 || y < ARM.y0 || y >= ARM.y1) return null;
      const t = (x + 0.5 - ARM.x0) / (ARM.x1 - ARM.x0);
      return { rgb: HAND_RGB.map((v) => v * (1 - 0.3 * t) + 6 * noise(x, y)), part };
    });
    const at = (x: number, y: number) => ({ x, y });
    const landmarks = { leftShoulder: at(100, 45), leftElbow: at(100, 170), leftWrist: at(100, 270), rightShoulder: at(-100, 45), rightElbow: at(-100, 170), rightWrist: at(-100, 270) };
    const body = { image: { width: W, height: H, data }, mask, parts, landmarks } as unknown as PersonBody & { parts: Uint8Array };
    const fill = Uint8Array.from(sleeve);
    const lab = Array.from(srgbToLab(HAND_RGB[0], HAND_RGB[1], HAND_RGB[2], [0, 0, 0]));
    const upper = planUpperArms(fill, dilate(sleeve, W, H, 3), new Uint8Array(n), () => false, body, lab);
    return { body, fill, upper };
  }

  it('draws the upper arm as wide as the bare arm below the hem, on its line, and turns the rest of the sleeve into backdrop', () => {
    const { fill, upper } = teeScene();
    expect(upper).toHaveLength(1);
    const f = upper[0];
    for (const y of [60, 80, 100]) {
      const r = row(f.skin, y);
      // as wide as the arm (30 px), a little wider towards the shoulder, never the sleeve's 70
      expect(r.count, `row ${y}`).toBeGreaterThanOrEqual(28);
      expect(r.count, `row ${y}`).toBeLessThanOrEqual(40);
      expect(Math.abs((r.first + r.last) / 2 - 100), `row ${y}`).toBeLessThan(3);
      expect(fill[y * W + TEE.x0 + 3]).toBe(2);
      expect(fill[y * W + TEE.x1 - 4]).toBe(2);
    }
    // the hem's rim and the first px of the bare arm below it are drawn over (one arm across the hem)
    expect(row(f.skin, 112).count).toBeGreaterThanOrEqual(26);
  });

  it('draws the upper arm as wide as the bare arm though the parsing calls the arm\'s outer rim torso (no step at the hem)', () => {
    // the arm's outer 4 columns and the sleeve beyond them are torso to the parsing
    const { fill, upper } = teeScene(ARM.x1 - 4);
    expect(upper).toHaveLength(1);
    const f = upper[0];
    for (const y of [60, 80, 100, 108]) {
      const r = row(f.skin, y);
      expect(r.count, `row ${y}`).toBeGreaterThanOrEqual(28);
      expect(Math.abs((r.first + r.last) / 2 - 100), `row ${y}`).toBeLessThan(3);
      // its outer edge where the bare arm's is (no corner of the bare arm standing out below the hem)
      expect(Math.abs(r.last - (ARM.x1 - 1)), `row ${y}`).toBeLessThanOrEqual(3);
      expect(fill[y * W + TEE.x1 - 4]).toBe(2);
    }
  });

  it('carries the light across the arm below the hem up to the shoulder, joining the arm without a step', () => {
    const { body, fill, upper } = teeScene();
    const { mean, lum, canvas } = paint(body, fill, upper);
    const lab = (rgb: number[]) => Array.from(srgbToLab(rgb[0], rgb[1], rgb[2], [0, 0, 0]));
    // lit on the left as the arm below is, half way up the sleeve
    const left = lum(mean([89, 90, 91], 70, 80));
    const right = lum(mean([109, 110, 111], 70, 80));
    expect(left - right).toBeGreaterThan(12);
    // its middle just above the hem in the tone of the arm's middle below it
    expect(deltaE76(lab(mean([98, 99, 100, 101], 98, 106)), lab(mean([98, 99, 100, 101], 128, 136)))).toBeLessThan(4);
    expect(wristJoin(canvas, upper[0], W, H)!).toBeLessThan(2);
  });

  it('leaves an arm with no stretch of sleeve over it (a sleeveless top\'s rim) to the fill', () => {
    const { body } = teeScene();
    const n = W * H;
    // only the sleeve's last 6 rows are fill: a rim under a new sleeve, not an upper arm to draw
    const rim = new Uint8Array(n);
    for (let y = TEE.y1 - 6; y < TEE.y1; y++) for (let x = TEE.x0; x < TEE.x1; x++) rim[y * W + x] = 1;
    const lab = Array.from(srgbToLab(HAND_RGB[0], HAND_RGB[1], HAND_RGB[2], [0, 0, 0]));
    const fill = rim.slice();
    expect(planUpperArms(fill, dilate(rim, W, H, 3), new Uint8Array(n), () => false, body, lab)).toHaveLength(0);
    expect(fill).toEqual(rim);
  });
});
