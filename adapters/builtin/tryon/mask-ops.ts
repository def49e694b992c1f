/**
 * Binary mask operations on one-byte-per-pixel masks (0 or 255): disk morphology through the
 * distance transform, connected components and hole filling.
 */
import { distanceTransform } from './distance-transform.ts';

export function dilate(mask: Uint8Array, width: number, height: number, radius: number): Uint8Array {
  const dist = distanceTransform(mask, width, height);
  const out = new Uint8Array(mask.length);
  for (let i = 0; i < out.length; i++) out[i] = dist[i] <= radius ? 255 : 0;
  return out;
}

export function erode(mask: Uint8Array, width: number, height: number, radius: number): Uint8Array {
  const inv = new Uint8Array(mask.length);
  for (let i = 0; i < inv.length; i++) inv[i] = mask[i] ? 0 : 255;
  const dist = distanceTransform(inv, width, height);
  const out = new Uint8Array(mask.length);
  for (let i = 0; i < out.length; i++) out[i] = mask[i] && dist[i] > radius ? 255 : 0;
  return out;
}

/** Opening removes specks smaller than the disk; closing seals gaps narrower than it. */
export function open(mask: Uint8Array, width: number, height: number, radius: number): Uint8Array {
  return dilate(erode(mask, width, height, radius), width, height, radius);
}

export function close(mask: Uint8Array, width: number, height: number, radius: number): Uint8Array {
  // pad by the radius so shapes touching the border are not eaten by the erosion
  const pad = Math.ceil(radius) + 1;
  const pw = width + 2 * pad;
  const ph = height + 2 * pad;
  const padded = new Uint8Array(pw * ph);
  for (let y = 0; y < height; y++) padded.set(mask.subarray(y * width, (y + 1) * width), (y + pad) * pw + pad);
  const closed = erode(dilate(padded, pw, ph, radius), pw, ph, radius);
  const out = new Uint8Array(mask.length);
  for (let y = 0; y < height; y++) out.set(closed.subarray((y + pad) * pw + pad, (y + pad) * pw + pad + width), y * width);
  return out;
}

export interface Components {
  /** Component index per pixel, -1 for background. */
  labels: Int32Array;
  areas: number[];
  /** Bounding boxes [x0, y0, x1, y1] inclusive. */
  boxes: [number, number, number, number][];
}

/** Connected components of the non-zero pixels (8-connected). */
export function components(mask: Uint8Array, width: number, height: number): Components {
  const labels = new Int32Array(mask.length).fill(-1);
  const areas: number[] = [];
  const boxes: [number, number, number, number][] = [];
  const stack = new Int32Array(mask.length);
  for (let start = 0; start < mask.length; start++) {
    if (!mask[start] || labels[start] >= 0) continue;
    const id = areas.length;
    let top = 0;
    stack[top++] = start;
    labels[start] = id;
    let area = 0;
    const box: [number, number, number, number] = [width, height, -1, -1];
    while (top > 0) {
      const p = stack[--top];
      area++;
      const x = p % width;
      const y = (p - x) / width;
      if (x < box[0]) box[0] = x;
      if (y < box[1]) box[1] = y;
      if (x > box[2]) box[2] = x;
      if (y > box[3]) box[3] = y;
      for (let dy = -1; dy <= 1; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= width || (dx === 0 && dy === 0)) continue;
          const q = ny * width + nx;
          if (mask[q] && labels[q] < 0) {
            labels[q] = id;
            stack[top++] = q;
          }
        }
      }
    }
    areas.push(area);
    boxes.push(box);
  }
  return { labels, areas, boxes };
}

/** Fills background regions that do not reach the image border (4-connected background). */
export function fillHoles(mask: Uint8Array, width: number, height: number): Uint8Array {
  const outside = new Uint8Array(mask.length);
  const stack = new Int32Array(mask.length);
  let top = 0;
  const seed = (p: number) => {
    if (!mask[p] && !outside[p]) {
      outside[p] = 1;
      stack[top++] = p;
    }
  };
  for (let x = 0; x < width; x++) {
    seed(x);
    seed((height - 1) * width + x);
  }
  for (let y = 0; y < height; y++) {
    seed(y * width);
    seed(y * width + width - 1);
  }
  while (top > 0) {
    const p = stack[--top];
    const x = p % width;
    if (x > 0) seed(p - 1);
    if (x < width - 1) seed(p + 1);
    if (p >= width) seed(p - width);
    if (p < mask.length - width) seed(p + width);
  }
  const out = new Uint8Array(mask.length);
  for (let i = 0; i < out.length; i++) out[i] = outside[i] ? 0 : 255;
  return out;
}
