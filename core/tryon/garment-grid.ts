/**
 * The garment grid: the slot images composed into one labelled reference image for vendor models
 * (whose reference slots are few). Deterministic layout: one row per slot in the spec's order (top,
 * bottom, full body, shoes), the packshot in the first column and the on-model reference, when
 * given, in the second; every cell is numbered in reading order and labelled with its slot and kind,
 * so a prompt can refer to "image 2" unambiguously. Images keep their aspect ratio on white.
 */
import type { RasterImage } from '../images.ts';
import { drawText, GLYPH_HEIGHT, textWidth } from './bitmap-font.ts';
import { GARMENT_SLOTS, type GarmentSlot, type SlotImages } from './tryon-input.ts';

export const SLOT_LABELS: Record<GarmentSlot, string> = {
  topGarment: 'TOP',
  bottomGarment: 'BOTTOM',
  fullBodyGarment: 'FULL BODY',
  shoes: 'SHOES',
};

export interface GridCell {
  /** 1-based number printed on the cell. */
  index: number;
  slot: GarmentSlot;
  kind: 'packshot' | 'on-model';
  label: string;
  /** Image area of the cell in the grid, in pixels. */
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface GarmentGrid {
  image: RasterImage;
  cells: GridCell[];
}

/** Area-average (shrinking) or bilinear (enlarging) resampling of straight RGBA, flattened on white. */
function fitOnWhite(src: RasterImage, w: number, h: number): Uint8Array {
  const out = new Uint8Array(w * h * 4);
  const fx = src.width / w;
  const fy = src.height / h;
  const d = src.data;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let wsum = 0;
      if (fx > 1 || fy > 1) {
        const x0 = x * fx;
        const x1 = Math.min(src.width, (x + 1) * fx);
        const y0 = y * fy;
        const y1 = Math.min(src.height, (y + 1) * fy);
        for (let yy = Math.floor(y0); yy < Math.ceil(y1); yy++) {
          const wy = Math.min(yy + 1, y1) - Math.max(yy, y0);
          for (let xx = Math.floor(x0); xx < Math.ceil(x1); xx++) {
            const wt = wy * (Math.min(xx + 1, x1) - Math.max(xx, x0));
            const o = (yy * src.width + xx) * 4;
            const a = d[o + 3] / 255;
            r += (d[o] * a + 255 * (1 - a)) * wt;
            g += (d[o + 1] * a + 255 * (1 - a)) * wt;
            b += (d[o + 2] * a + 255 * (1 - a)) * wt;
            wsum += wt;
          }
        }
      } else {
        const sx = Math.max(0, Math.min(src.width - 1, (x + 0.5) * fx - 0.5));
        const sy = Math.max(0, Math.min(src.height - 1, (y + 0.5) * fy - 0.5));
        const xa = Math.floor(sx);
        const ya = Math.floor(sy);
        const xb = Math.min(src.width - 1, xa + 1);
        const yb = Math.min(src.height - 1, ya + 1);
        for (const [xx, yy, wt] of [
          [xa, ya, (1 - (sx - xa)) * (1 - (sy - ya))],
          [xb, ya, (sx - xa) * (1 - (sy - ya))],
          [xa, yb, (1 - (sx - xa)) * (sy - ya)],
          [xb, yb, (sx - xa) * (sy - ya)],
        ]) {
          const o = (yy * src.width + xx) * 4;
          const a = d[o + 3] / 255;
          r += (d[o] * a + 255 * (1 - a)) * wt;
          g += (d[o + 1] * a + 255 * (1 - a)) * wt;
          b += (d[o + 2] * a + 255 * (1 - a)) * wt;
          wsum += wt;
        }
      }
      const o = (y * w + x) * 4;
      out[o] = Math.round(r / wsum);
      out[o + 1] = Math.round(g / wsum);
      out[o + 2] = Math.round(b / wsum);
      out[o + 3] = 255;
    }
  }
  return out;
}

export function composeGarmentGrid(garments: Partial<Record<GarmentSlot, SlotImages>>, cellSize = 512): GarmentGrid {
  const slots = GARMENT_SLOTS.filter((s) => garments[s]);
  if (!slots.length) throw new TypeError('a garment grid needs at least one garment');
  const columns = slots.some((s) => garments[s]!.onModel) ? 2 : 1;
  const scale = Math.max(1, Math.round(cellSize / 160));
  const band = GLYPH_HEIGHT * scale + 4 * scale;
  const gap = 4 * scale;
  const width = columns * cellSize + (columns + 1) * gap;
  const height = slots.length * (cellSize + band) + (slots.length + 1) * gap;
  const data = new Uint8Array(width * height * 4).fill(255);
  const image: RasterImage = { width, height, data };
  const cells: GridCell[] = [];
  let index = 0;
  slots.forEach((slot, row) => {
    const entry = garments[slot]!;
    const items: [SlotImages['packshot'], GridCell['kind']][] = [[entry.packshot, 'packshot']];
    if (entry.onModel) items.push([entry.onModel, 'on-model']);
    items.forEach(([img, kind], col) => {
      index++;
      const cx = gap + col * (cellSize + gap);
      const cy = gap + row * (cellSize + band + gap);
      const label = `${index} ${SLOT_LABELS[slot]} - ${kind === 'packshot' ? 'PACKSHOT' : 'ON MODEL'}`;
      drawText(image, label, cx + Math.max(0, Math.floor((cellSize - textWidth(label, scale)) / 2)), cy + 2 * scale, scale, [40, 40, 40]);
      const k = Math.min(cellSize / img.width, cellSize / img.height);
      const w = Math.max(1, Math.round(img.width * k));
      const h = Math.max(1, Math.round(img.height * k));
      const px = fitOnWhite(img, w, h);
      const ox = cx + Math.floor((cellSize - w) / 2);
      const oy = cy + band + Math.floor((cellSize - h) / 2);
      for (let y = 0; y < h; y++) data.set(px.subarray(y * w * 4, (y + 1) * w * 4), ((oy + y) * width + ox) * 4);
      cells.push({ index, slot, kind, label, x: ox, y: oy, width: w, height: h });
    });
  });
  return { image, cells };
}
