import { describe, expect, it } from 'vitest';
import type { RasterImage } from '../../../../core/images.ts';
import { ColourSurface, bandArea, fitBackground, fitColourSurface, median, quantile, sampleBorder, selected } from '../../../../adapters/builtin/raster/background-model.ts';
import { lcg } from './masks.ts';

/** An opaque image whose colour at (x, y) is `colour(x, y)`, rounded, plus optional noise. */
function image(w: number, h: number, colour: (x: number, y: number) => [number, number, number], noise = 0, seed = 1): RasterImage {
  const r = lcg(seed);
  const data = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const c = colour(x, y);
      const o = (y * w + x) * 4;
      for (let k = 0; k < 3; k++) data[o + k] = Math.max(0, Math.min(255, Math.round(c[k] + (r() * 2 - 1) * noise)));
      data[o + 3] = 255;
    }
  }
  return { width: w, height: h, data };
}

/** A light studio sweep: darker towards the bottom and the sides (a quadratic vignette). */
const sweep = (w: number, h: number) => (x: number, y: number): [number, number, number] => {
  const u = x / w - 0.5, v = y / h;
  const base = 240 - 30 * v - 40 * u * u;
  return [base, base - 4, base - 10];
};

describe('border sampling', () => {
  it('takes the band pixels on the step grid, row by row', () => {
    const w = 50, h = 40, band = 4, step = 3;
    const s = sampleBorder(image(w, h, () => [10, 20, 30]), { band, step });
    const expected: [number, number][] = [];
    for (let y = 0; y < h; y += step) for (let x = 0; x < w; x += step) if (x < band || y < band || x >= w - band || y >= h - band) expected.push([x, y]);
    expect(Array.from({ length: s.count }, (_, i) => [s.x[i], s.y[i]])).toEqual(expected);
    expect(Array.from(s.rgb.subarray(0, 3))).toEqual([10, 20, 30]);
    expect(bandArea(w, h, band)).toBe(w * h - (w - 2 * band) * (h - 2 * band));
  });

  it('leaves out transparent pixels on request', () => {
    const img = image(20, 20, () => [200, 200, 200]);
    for (let x = 0; x < 20; x++) img.data[x * 4 + 3] = 0; // top row transparent
    const all = sampleBorder(img, { band: 2, step: 1 });
    const opaque = sampleBorder(img, { band: 2, step: 1, opaqueOnly: true });
    expect(all.count - opaque.count).toBe(20);
    for (let i = 0; i < opaque.count; i++) expect(opaque.y[i]).toBeGreaterThan(0);
  });
});

describe('colour surfaces', () => {
  it('a quadratic fit reproduces a quadratic backdrop everywhere, a plane only its trend', () => {
    const w = 120, h = 90;
    const truth = sweep(w, h);
    const img = image(w, h, truth);
    const samples = sampleBorder(img, { band: 5, step: 1 });
    const quad = fitColourSurface(samples, w, h, 'quadratic')!;
    const plane = fitColourSurface(samples, w, h, 'plane')!;
    const out = [0, 0, 0];
    let quadErr = 0, planeErr = 0;
    for (const [x, y] of [[60, 45], [10, 80], [110, 5], [30, 30]]) {
      quad.at(x, y, out);
      quadErr = Math.max(quadErr, Math.abs(out[0] - truth(x, y)[0]), Math.abs(out[2] - truth(x, y)[2]));
      plane.at(x, y, out);
      planeErr = Math.max(planeErr, Math.abs(out[0] - truth(x, y)[0]));
    }
    expect(quadErr).toBeLessThan(0.6); // pixel values are rounded to integers
    expect(planeErr).toBeGreaterThan(3); // the vignette's curvature is beyond a plane
  });

  it('a sweep fit follows an S-shaped fall-off under a vignette, also with one side hidden', () => {
    const w = 120, h = 120;
    // light at the top, grey towards the floor (smoothstep), darker corners
    const truth = (x: number, y: number): [number, number, number] => {
      const u = (2 * x) / (w - 1) - 1, v = (2 * y) / (h - 1) - 1, t = (v + 1) / 2;
      const base = (242 - 50 * t * t * (3 - 2 * t)) * (1 - 0.1 * (u * u + v * v));
      return [base, base, base];
    };
    const img = image(w, h, truth);
    const all = sampleBorder(img, { band: 4, step: 1 });
    // the left edge's middle hidden (an object cut by the frame): leave those samples out
    const hidden = new Uint8Array(all.count);
    for (let i = 0; i < all.count; i++) hidden[i] = all.x[i] < 4 && all.y[i] > 20 && all.y[i] < 100 ? 0 : 1;
    const out = [0, 0, 0];
    const worst = (s: ColourSurface) => {
      let e = 0;
      for (let y = 0; y < h; y += 7) for (let x = 0; x < w; x += 7) { s.at(x, y, out); e = Math.max(e, Math.abs(out[0] - truth(x, y)[0])); }
      return e;
    };
    expect(worst(fitColourSurface(all, w, h, 'sweep')!)).toBeLessThan(2);
    expect(worst(fitColourSurface(all, w, h, 'sweep', hidden)!)).toBeLessThan(2.5);
    expect(worst(fitColourSurface(all, w, h, 'quadratic')!)).toBeGreaterThan(3);
  });

  it('returns null below the minimum sample count and a flat colour from constant()', () => {
    const img = image(30, 30, () => [50, 60, 70]);
    const samples = sampleBorder(img, { band: 2, step: 1 });
    const few = new Uint8Array(samples.count);
    few.fill(1, 0, 5);
    expect(fitColourSurface(samples, 30, 30, 'plane', few, 8)).toBeNull();
    const flat = ColourSurface.constant('quadratic', 30, 30, [1, 2, 3]);
    const out = [0, 0, 0];
    flat.at(29, 0, out);
    expect(out).toEqual([1, 2, 3]);
    expect(flat.centre()).toEqual([1, 2, 3]);
  });
});

describe('robust background fit', () => {
  // a dark object standing on the bottom edge of the frame
  const w = 160, h = 120;
  const truth = sweep(w, h);
  const onObject = (x: number, y: number) => x >= 60 && x < 100 && y > 80;
  const withObject = (x: number, y: number): [number, number, number] => (onObject(x, y) ? [40, 30, 90] : truth(x, y));
  const img = image(w, h, withObject, 2, 7);
  const samples = sampleBorder(img, { band: 4, step: 1 });
  const limit = (res: Float64Array) => Math.max(6, 3 * 1.4826 * median(res));

  it('trims samples on the object and recovers the backdrop', () => {
    const out = [0, 0, 0];
    const single = fitBackground(samples, w, h, { kind: 'quadratic', rounds: 1, limit });
    const robust = fitBackground(samples, w, h, { kind: 'quadratic', rounds: 3, limit });
    const err = (m: ColourSurface) => {
      let e = 0;
      for (const [x, y] of [[80, 60], [150, 10], [100, 110], [5, 5]]) {
        m.at(x, y, out);
        e = Math.max(e, Math.abs(out[0] - truth(x, y)[0]));
      }
      return e;
    };
    expect(err(single.model)).toBeGreaterThan(10); // one fit is dragged towards the object
    expect(err(robust.model)).toBeLessThan(0.5);
    for (let s = 0; s < samples.count; s++) {
      if (onObject(samples.x[s], samples.y[s])) expect(robust.inliers[s]).toBe(0);
    }
    // most of the backdrop samples are inliers
    const backdrop = Uint8Array.from({ length: samples.count }, (_, s) => (onObject(samples.x[s], samples.y[s]) ? 0 : 1));
    expect(selected(Float64Array.from(robust.inliers), backdrop).reduce((a, b) => a + b, 0)).toBeGreaterThan(0.95 * backdrop.reduce((a, b) => a + b, 0));
  });

  it('can start from the median colour and measures residuals with the given distance', () => {
    let rounds = 0;
    const fit = fitBackground(samples, w, h, {
      kind: 'plane',
      start: 'median',
      rounds: 2,
      // a distance on the green channel only
      residual: (_r, g, _b, m) => Math.abs(g - m[1]),
      limit: (res, inliers) => {
        rounds++;
        expect(res).toHaveLength(samples.count);
        expect(inliers).toHaveLength(samples.count);
        return 8;
      },
    });
    expect(rounds).toBe(2);
    const out = [0, 0, 0];
    for (let s = 0; s < samples.count; s += 17) {
      fit.model.at(samples.x[s], samples.y[s], out);
      expect(fit.residuals[s]).toBeCloseTo(Math.abs(samples.rgb[s * 3 + 1] - out[1]), 9);
    }
  });

  it('keeps the previous model when too few inliers remain', () => {
    const fit = fitBackground(samples, w, h, { kind: 'plane', start: 'median', rounds: 2, minInliers: 1e9, limit: () => 1e9 });
    // the refit is refused, so the model is still the per-channel median colour
    const med = [0, 1, 2].map((c) => median(Array.from({ length: samples.count }, (_, s) => samples.rgb[s * 3 + c])));
    expect(fit.model.centre()).toEqual(med);
  });
});

describe('robust statistics', () => {
  it('quantile takes rank floor(q n) of the sorted values; median averages an even middle', () => {
    expect(quantile([5, 1, 4, 2, 3], 0.5)).toBe(3);
    expect(quantile([4, 1, 3, 2], 0.5)).toBe(3);
    expect(quantile([10, 20, 30, 40, 50, 60, 70, 80, 90, 100], 0.8)).toBe(90);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([])).toBe(0);
    expect(quantile([], 0.3)).toBe(0);
    expect(Array.from(selected(Float64Array.from([1, 2, 3, 4]), Uint8Array.from([1, 0, 0, 1])))).toEqual([1, 4]);
  });
});
