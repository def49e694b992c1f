import type { Point } from '../../../core/twins/body.ts';

/** Even-odd scanline fill of a polygon into a 0/255 mask (pixel centres). */
export function polygonMask(poly: Point[], width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height);
  if (poly.length < 3) return out;
  let minY = Infinity;
  let maxY = -Infinity;
  for (const p of poly) {
    minY = Math.min(minY, p.y);
    maxY = Math.max(maxY, p.y);
  }
  const xs: number[] = [];
  for (let y = Math.max(0, Math.floor(minY)); y <= Math.min(height - 1, Math.ceil(maxY)); y++) {
    const sy = y + 0.5;
    xs.length = 0;
    for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
      const a = poly[i];
      const b = poly[j];
      if (a.y + 0.5 > sy !== b.y + 0.5 > sy) xs.push(a.x + ((sy - a.y - 0.5) / (b.y - a.y)) * (b.x - a.x));
    }
    xs.sort((p, q) => p - q);
    for (let k = 0; k + 1 < xs.length; k += 2) {
      const x0 = Math.max(0, Math.ceil(xs[k] - 0.5));
      const x1 = Math.min(width - 1, Math.floor(xs[k + 1] + 0.5));
      for (let x = x0; x <= x1; x++) out[y * width + x] = 255;
    }
  }
  return out;
}
