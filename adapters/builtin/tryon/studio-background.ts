/**
 * A clean studio backdrop in linear light: a soft vertical gradient from a light wall to a slightly
 * darker floor, with a soft contact shadow ellipse under the feet.
 */
import { SRGB_TO_LINEAR } from './color.ts';

export function studioBackdrop(width: number, height: number, feetY: number, centreX: number, shadowWidth: number): Float32Array {
  const out = new Float32Array(width * height * 3);
  const top = [246, 246, 247].map((v) => SRGB_TO_LINEAR[v]);
  const bottom = [226, 226, 229].map((v) => SRGB_TO_LINEAR[v]);
  for (let y = 0; y < height; y++) {
    const t = y / Math.max(1, height - 1);
    const e = t * t * (3 - 2 * t);
    for (let x = 0; x < width; x++) {
      const dx = (x - centreX) / Math.max(1, shadowWidth);
      const dy = (y - feetY) / Math.max(1, shadowWidth * 0.12);
      const shadow = 1 - 0.28 * Math.exp(-(dx * dx + dy * dy));
      const o = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) out[o + c] = (top[c] * (1 - e) + bottom[c] * e) * shadow;
    }
  }
  return out;
}
