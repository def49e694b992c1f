/**
 * Resamples a BodyRender (image, mask, depth, landmarks, scale) to another size, so the engine
 * can work at the resolution a quality asks for. Downscaling averages the covered source pixels.
 */
import type { RasterImage } from '../../../core/images.ts';
import type { BodyLandmarks, BodyRender, Point } from '../../../core/twins/body.ts';

function resamplePlane(src: ArrayLike<number>, sw: number, sh: number, channels: number, dw: number, dh: number): Float32Array {
  const out = new Float32Array(dw * dh * channels);
  const fx = sw / dw;
  const fy = sh / dh;
  if (fx > 1 || fy > 1) {
    // area average over the source footprint of each output pixel
    for (let y = 0; y < dh; y++) {
      const sy0 = y * fy;
      const sy1 = Math.min(sh, (y + 1) * fy);
      for (let x = 0; x < dw; x++) {
        const sx0 = x * fx;
        const sx1 = Math.min(sw, (x + 1) * fx);
        const acc = new Float64Array(channels);
        let wsum = 0;
        for (let yy = Math.floor(sy0); yy < Math.ceil(sy1); yy++) {
          const wy = Math.min(yy + 1, sy1) - Math.max(yy, sy0);
          for (let xx = Math.floor(sx0); xx < Math.ceil(sx1); xx++) {
            const w = wy * (Math.min(xx + 1, sx1) - Math.max(xx, sx0));
            const o = (yy * sw + xx) * channels;
            for (let c = 0; c < channels; c++) acc[c] += src[o + c] * w;
            wsum += w;
          }
        }
        for (let c = 0; c < channels; c++) out[(y * dw + x) * channels + c] = acc[c] / wsum;
      }
    }
    return out;
  }
  for (let y = 0; y < dh; y++) {
    const sy = Math.max(0, Math.min(sh - 1, (y + 0.5) * fy - 0.5));
    const y0 = Math.floor(sy);
    const y1 = Math.min(sh - 1, y0 + 1);
    const ty = sy - y0;
    for (let x = 0; x < dw; x++) {
      const sx = Math.max(0, Math.min(sw - 1, (x + 0.5) * fx - 0.5));
      const x0 = Math.floor(sx);
      const x1 = Math.min(sw - 1, x0 + 1);
      const tx = sx - x0;
      for (let c = 0; c < channels; c++) {
        const a = src[(y0 * sw + x0) * channels + c] * (1 - tx) + src[(y0 * sw + x1) * channels + c] * tx;
        const b = src[(y1 * sw + x0) * channels + c] * (1 - tx) + src[(y1 * sw + x1) * channels + c] * tx;
        out[(y * dw + x) * channels + c] = a * (1 - ty) + b * ty;
      }
    }
  }
  return out;
}

export function scaleBody(body: BodyRender & { parts?: Uint8Array }, width: number, height: number): BodyRender & { parts?: Uint8Array } {
  const { width: sw, height: sh } = body.image;
  if (sw === width && sh === height) return body;
  const img = resamplePlane(body.image.data, sw, sh, 4, width, height);
  const image: RasterImage = { width, height, data: new Uint8Array(img.length) };
  for (let i = 0; i < img.length; i++) image.data[i] = Math.round(Math.max(0, Math.min(255, img[i])));
  const m = resamplePlane(body.mask, sw, sh, 1, width, height);
  const mask = new Uint8Array(width * height);
  for (let i = 0; i < mask.length; i++) mask[i] = m[i] >= 128 ? 255 : 0;
  const sx = width / sw;
  const sy = height / sh;
  const k = (sx + sy) / 2;
  const d = resamplePlane(body.depth, sw, sh, 1, width, height);
  for (let i = 0; i < d.length; i++) d[i] = mask[i] ? d[i] * k : 0;
  const p = (q: Point): Point => ({ x: (q.x + 0.5) * sx - 0.5, y: (q.y + 0.5) * sy - 0.5 });
  const landmarks = Object.fromEntries(
    Object.entries(body.landmarks).map(([name, v]) => [name, typeof v === 'number' ? v * k : p(v as Point)]),
  ) as unknown as BodyLandmarks;
  // part labels (person photos) by nearest neighbour
  let parts: Uint8Array | undefined;
  if (body.parts) {
    parts = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) {
      const yy = Math.min(sh - 1, Math.floor((y + 0.5) / sy));
      for (let x = 0; x < width; x++) parts[y * width + x] = body.parts[yy * sw + Math.min(sw - 1, Math.floor((x + 0.5) / sx))];
    }
  }
  return { image, mask, depth: d, landmarks, pixelsPerCm: body.pixelsPerCm * k, pose: body.pose, ...(parts ? { parts } : {}) };
}
