import { describe, expect, it } from 'vitest';
import { alphaMask, countOn, maskBounds } from '../../../../adapters/builtin/raster/mask.ts';
import { fromRows } from './masks.ts';

describe('masks', () => {
  it('thresholds alpha into a 0/255 mask', () => {
    const data = new Uint8Array(4 * 4);
    [0, 127, 128, 255].forEach((a, i) => (data[i * 4 + 3] = a));
    expect(Array.from(alphaMask({ width: 4, height: 1, data }))).toEqual([0, 0, 255, 255]);
    expect(Array.from(alphaMask({ width: 4, height: 1, data }, 1))).toEqual([0, 255, 255, 255]);
  });

  it('counts set pixels and finds their bounding box', () => {
    const { mask, width, height } = fromRows([
      '......',
      '..#...',
      '....#.',
      '...#..',
      '......',
    ]);
    expect(countOn(mask)).toBe(3);
    expect(maskBounds(mask, width, height)).toEqual({ x0: 2, y0: 1, x1: 4, y1: 3, area: 3 });
    expect(maskBounds(new Uint8Array(width * height), width, height)).toBeNull();
  });
});
