import { describe, expect, it } from 'vitest';
import { close, dilate, erode, maxFilter, open } from '../../../../adapters/builtin/raster/morphology.ts';
import { blobMask, fromRows, toRows } from './masks.ts';

type Inside = (dx: number, dy: number) => boolean;
const square = (r: number): Inside => (dx, dy) => Math.abs(dx) <= r && Math.abs(dy) <= r;
const disk = (r: number): Inside => (dx, dy) => dx * dx + dy * dy <= r * r;

/** Brute-force dilation (any set pixel in the element) and erosion (all set; beyond the edge counts as set). */
function bruteForce(mask: Uint8Array, w: number, h: number, r: number, inside: Inside, erosion: boolean): Uint8Array {
  const out = new Uint8Array(w * h);
  const R = Math.ceil(r);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let any = false, all = true;
      for (let dy = -R; dy <= R; dy++) {
        for (let dx = -R; dx <= R; dx++) {
          if (!inside(dx, dy)) continue;
          const xx = x + dx, yy = y + dy;
          const on = xx < 0 || yy < 0 || xx >= w || yy >= h ? erosion : mask[yy * w + xx] !== 0;
          any ||= on;
          all &&= on;
        }
      }
      out[y * w + x] = (erosion ? all && mask[y * w + x] : any) ? 255 : 0;
    }
  }
  return out;
}

describe('binary morphology', () => {
  for (const [w, h, seed] of [[29, 21, 1], [16, 40, 2], [35, 12, 3]] as const) {
    it(`square element matches brute force (${w}x${h})`, () => {
      const mask = blobMask(w, h, seed);
      for (const r of [1, 2, 4]) {
        expect(dilate(mask, w, h, r)).toEqual(bruteForce(mask, w, h, r, square(r), false));
        expect(erode(mask, w, h, r)).toEqual(bruteForce(mask, w, h, r, square(r), true));
      }
    });

    it(`disk element matches brute force, fractional radii too (${w}x${h})`, () => {
      const mask = blobMask(w, h, seed);
      for (const r of [1, 1.5, 2.3, 4]) {
        expect(dilate(mask, w, h, r, { shape: 'disk' })).toEqual(bruteForce(mask, w, h, r, disk(r), false));
        expect(erode(mask, w, h, r, { shape: 'disk' })).toEqual(bruteForce(mask, w, h, r, disk(r), true));
      }
    });
  }

  it('radius 0 leaves a square-element mask as it is', () => {
    const mask = blobMask(10, 10, 4, 1);
    expect(dilate(mask, 10, 10, 0)).toEqual(mask);
    expect(erode(mask, 10, 10, 0)).toEqual(mask);
  });

  it('opening removes specks smaller than the element and keeps larger shapes', () => {
    const { mask, width, height } = fromRows([
      '..........',
      '.#......#.',
      '.....####.',
      '.....####.',
      '.....####.',
      '.....####.',
      '..........',
    ]);
    expect(toRows(open(mask, width, height, 1), width)).toEqual([
      '..........',
      '..........',
      '.....####.',
      '.....####.',
      '.....####.',
      '.....####.',
      '..........',
    ]);
  });

  it('closing seals a gap narrower than the element', () => {
    const { mask, width, height } = fromRows([
      '.............',
      '.............',
      '..####.####..',
      '..####.####..',
      '..####.####..',
      '.............',
      '.............',
    ]);
    const expected = [
      '.............',
      '.............',
      '..#########..',
      '..#########..',
      '..#########..',
      '.............',
      '.............',
    ];
    expect(toRows(close(mask, width, height, 1), width)).toEqual(expected);
    // a disk of radius 1.5 is the 3x3 square
    expect(toRows(close(mask, width, height, 1.5, { shape: 'disk', border: 'pad' }), width)).toEqual(expected);
  });

  it('erosion keeps shapes that touch the frame; a padded closing does not join a shape to it', () => {
    const { mask, width, height } = fromRows([
      '.........',
      '..#####..',
      '..#####..',
      '..#####..',
      '..#####..',
    ]);
    // the bottom rows touch the frame: erosion does not eat them from below
    expect(toRows(erode(mask, width, height, 1), width)).toEqual([
      '.........',
      '.........',
      '...###...',
      '...###...',
      '...###...',
    ]);
    // a 2-pixel gap to the left and right edges: the clipped closing fills it, the padded one does not
    const clipped = toRows(close(mask, width, height, 2), width);
    const padded = toRows(close(mask, width, height, 2, { border: 'pad' }), width);
    expect(clipped[3]).toBe('#########');
    expect(padded).toEqual(toRows(mask, width));
    const paddedDisk = toRows(close(mask, width, height, 2, { shape: 'disk', border: 'pad' }), width);
    expect(paddedDisk).toEqual(toRows(mask, width));
  });

  it('opening and closing are idempotent away from the frame', () => {
    const w = 40, h = 40;
    const mask = blobMask(w, h, 11);
    // keep a 6-pixel empty margin so the frame plays no part
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (x < 6 || y < 6 || x >= w - 6 || y >= h - 6) mask[y * w + x] = 0;
    for (const opts of [{}, { shape: 'disk' as const }]) {
      const o = open(mask, w, h, 2, opts);
      expect(open(o, w, h, 2, opts)).toEqual(o);
      const c = close(mask, w, h, 2, { ...opts, border: 'pad' });
      expect(close(c, w, h, 2, { ...opts, border: 'pad' })).toEqual(c);
      // opening shrinks, closing grows
      for (let i = 0; i < mask.length; i++) {
        if (o[i]) expect(mask[i]).not.toBe(0);
        if (mask[i]) expect(c[i]).toBe(255);
      }
    }
  });
});

describe('max filter', () => {
  it('takes the maximum over the clipped square window', () => {
    const w = 13, h = 9;
    const src = new Float32Array(w * h).map((_, i) => Math.sin(i * 1.7) * 10 - (i % 5));
    for (const r of [0, 1, 3]) {
      const out = maxFilter(src, w, h, r);
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          let m = -Infinity;
          for (let yy = Math.max(0, y - r); yy <= Math.min(h - 1, y + r); yy++) for (let xx = Math.max(0, x - r); xx <= Math.min(w - 1, x + r); xx++) m = Math.max(m, src[yy * w + xx]);
          expect(out[y * w + x]).toBe(m);
        }
      }
    }
  });
});
