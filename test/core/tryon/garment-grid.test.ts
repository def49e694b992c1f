import { describe, expect, it } from 'vitest';
import { composeGarmentGrid } from '../../../core/tryon/garment-grid.ts';
import type { RasterImage } from '../../../core/images.ts';
import { drawBottom, drawShoes, drawTop } from '../../support/garments.ts';

function mean(img: RasterImage, x: number, y: number, w: number, h: number): number[] {
  const acc = [0, 0, 0];
  for (let j = y; j < y + h; j++) for (let i = x; i < x + w; i++) for (let c = 0; c < 3; c++) acc[c] += img.data[(j * img.width + i) * 4 + c];
  return acc.map((v) => v / (w * h));
}

describe('composeGarmentGrid', () => {
  it('lays slots out in spec order, packshot then on-model reference, numbered in reading order', () => {
    const top = drawTop();
    const onModel = drawTop({ colour: [30, 120, 60] });
    const grid = composeGarmentGrid({ shoes: { packshot: drawShoes() }, topGarment: { packshot: top, onModel }, bottomGarment: { packshot: drawBottom() } }, 256);
    expect(grid.cells.map((c) => c.label)).toEqual(['1 TOP - PACKSHOT', '2 TOP - ON MODEL', '3 BOTTOM - PACKSHOT', '4 SHOES - PACKSHOT']);
    expect(grid.image.width).toBeGreaterThan(2 * 256);
    expect(grid.image.height).toBeGreaterThan(3 * 256);
    // each cell holds its own image: the red packshot left, the green reference right
    const [a, b] = grid.cells;
    const red = mean(grid.image, a.x + a.width / 2 - 10, a.y + a.height / 2 - 10, 20, 20);
    const green = mean(grid.image, b.x + b.width / 2 - 10, b.y + b.height / 2 - 10, 20, 20);
    expect(red[0]).toBeGreaterThan(red[1] + 80);
    expect(green[1]).toBeGreaterThan(green[0] + 50);
    // aspect ratios are kept
    expect(a.width / a.height).toBeCloseTo(top.width / top.height, 1);
  });

  it('prints the labels and is deterministic', () => {
    const g1 = composeGarmentGrid({ topGarment: { packshot: drawTop() } }, 200);
    const g2 = composeGarmentGrid({ topGarment: { packshot: drawTop() } }, 200);
    expect(Buffer.from(g1.image.data).equals(Buffer.from(g2.image.data))).toBe(true);
    // dark label pixels in the band above the image
    const cell = g1.cells[0];
    let dark = 0;
    for (let y = 0; y < cell.y; y++) for (let x = 0; x < g1.image.width; x++) if (g1.image.data[(y * g1.image.width + x) * 4] < 100) dark++;
    expect(dark).toBeGreaterThan(50);
  });

  it('needs at least one garment', () => {
    expect(() => composeGarmentGrid({})).toThrow();
  });
});
