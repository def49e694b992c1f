import { describe, expect, it } from 'vitest';
import { componentMask, fillHoles, labelComponents, largestComponent } from '../../../../adapters/builtin/raster/components.ts';
import { blobMask, fromRows, toRows } from './masks.ts';

describe('connected components', () => {
  const staircase = fromRows([
    '#....',
    '.#...',
    '..#..',
    '...##',
  ]);

  it('joins diagonal neighbours only with 8-connectivity', () => {
    const { mask, width, height } = staircase;
    expect(labelComponents(mask, width, height).components).toHaveLength(1);
    const four = labelComponents(mask, width, height, { connectivity: 4 });
    expect(four.components.map((c) => c.area)).toEqual([1, 1, 1, 2]);
    expect(Array.from(four.labels)).toEqual([1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 4, 4]);
  });

  it('measures area, bounding box and centroid of every component', () => {
    const w = 37, h = 29;
    const mask = blobMask(w, h, 3);
    for (const connectivity of [4, 8] as const) {
      const { labels, components } = labelComponents(mask, w, h, { connectivity });
      let total = 0;
      components.forEach((c, k) => {
        expect(c.label).toBe(k + 1);
        let area = 0, sx = 0, sy = 0, x0 = w, y0 = h, x1 = -1, y1 = -1;
        for (let i = 0; i < w * h; i++) {
          if (labels[i] !== c.label) continue;
          const x = i % w, y = (i - x) / w;
          area++; sx += x; sy += y;
          x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
        }
        expect(c).toEqual({ label: c.label, area, x0, y0, x1, y1, cx: sx / area, cy: sy / area });
        total += area;
      });
      // every set pixel is labelled, no unset one is
      let set = 0;
      for (let i = 0; i < w * h; i++) {
        if (mask[i]) set++;
        expect(labels[i] !== 0).toBe(mask[i] !== 0);
      }
      expect(total).toBe(set);
    }
  });

  it('labels touching neighbours alike: no two adjacent set pixels differ', () => {
    const w = 30, h = 30;
    const mask = blobMask(w, h, 8);
    const { labels } = labelComponents(mask, w, h, { connectivity: 8 });
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const i = y * w + x;
        if (!mask[i]) continue;
        for (const [dx, dy] of [[1, 0], [0, 1], [1, 1], [-1, 1]]) {
          const xx = x + dx, yy = y + dy;
          if (xx >= 0 && xx < w && yy < h && mask[yy * w + xx]) expect(labels[yy * w + xx]).toBe(labels[i]);
        }
      }
    }
  });

  it('orders by area on request, equal areas in label order', () => {
    const { mask, width, height } = fromRows([
      '##..#.###',
      '##.......',
      '.....#...',
    ]);
    const { components } = labelComponents(mask, width, height, { order: 'area' });
    expect(components.map((c) => [c.label, c.area])).toEqual([[1, 4], [3, 3], [2, 1], [4, 1]]);
  });

  it('keeps the largest component, the first met among equals', () => {
    const { mask, width, height } = fromRows([
      '##..##',
      '##..##',
      '......',
      '#.....',
    ]);
    expect(toRows(largestComponent(mask, width, height), width)).toEqual(['##....', '##....', '......', '......']);
    expect(largestComponent(new Uint8Array(12), 4, 3)).toEqual(new Uint8Array(12));
  });

  it('cuts one labelled component out', () => {
    const labels = Int32Array.from([0, 1, 2, 2, -1, 1]);
    expect(Array.from(componentMask(labels, 2))).toEqual([0, 0, 255, 255, 0, 0]);
    expect(Array.from(componentMask(labels, -1))).toEqual([0, 0, 0, 0, 255, 0]);
  });
});

describe('hole filling', () => {
  it('fills unset regions that do not reach the frame (4-connected), not those that do', () => {
    const { mask, width, height } = fromRows([
      '.........',
      '.#####...',
      '.#..##.#.',
      '.#####.#.',
      '......#.#',
      '.......#.',
    ]);
    expect(toRows(fillHoles(mask, width, height), width)).toEqual([
      '.........',
      '.#####...',
      '.#####.#.',
      '.#####.#.',
      '......###',
      '.......#.',
    ]);
  });

  it('leaves a mask without holes as it is, and an empty one empty', () => {
    const { mask, width, height } = fromRows(['.##.', '####', '.#..']);
    expect(fillHoles(mask, width, height)).toEqual(mask);
    expect(fillHoles(new Uint8Array(6), 3, 2)).toEqual(new Uint8Array(6));
  });
});
