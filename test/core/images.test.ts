import { describe, expect, it } from 'vitest';
import { createRaster } from '../../core/images.ts';

describe('createRaster', () => {
  it('fills every pixel with the given colour', () => {
    const img = createRaster(3, 2, [10, 20, 30, 255]);
    expect(img.data.length).toBe(24);
    expect(Array.from(img.data.slice(20, 24))).toEqual([10, 20, 30, 255]);
  });
});
