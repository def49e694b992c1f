/**
 * A smooth lighting term from the body's depth: the depth is smoothed (normalised convolution, so
 * the silhouette does not read as a cliff), its gradient gives a surface normal and a soft key
 * light from the upper left gives Lambert shading, normalised so a surface facing the camera keeps
 * its colour (factor 1). Garments multiply their colour by it, so the body's roundness shows.
 */
import type { BodyRender } from '../../../core/twins/body.ts';
import { boxBlur } from './box-blur.ts';

const LIGHT = (() => {
  const v = [-0.35, -0.5, 0.8];
  const n = Math.hypot(v[0], v[1], v[2]);
  return v.map((c) => c / n);
})();
const AMBIENT = 0.55;
const DIFFUSE = 0.45;
/** Factor for garment parts hanging outside the body (a flared skirt). */
const OUTSIDE = 0.97;

export function shadingMap(body: BodyRender): Float32Array {
  const { width: w, height: h } = body.image;
  const n = w * h;
  const m = new Float32Array(n);
  const dm = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    if (body.mask[i] >= 128) {
      m[i] = 1;
      dm[i] = body.depth[i];
    }
  }
  const r = Math.max(2, Math.round(h * 0.008));
  const num = boxBlur(dm, w, h, r);
  const den = boxBlur(m, w, h, r);
  const depth = new Float32Array(n);
  for (let i = 0; i < n; i++) depth[i] = den[i] > 0.02 ? num[i] / den[i] : 0;

  // depth units are the renderer's own: scale so the chest's depth relief matches ~0.6 of its half width
  const L = body.landmarks;
  const cy = Math.round(Math.max(0, Math.min(h - 1, L.chestLeft.y)));
  const cx = Math.round(Math.max(0, Math.min(w - 1, (L.chestLeft.x + L.chestRight.x) / 2)));
  const halfW = Math.abs(L.chestLeft.x - L.chestRight.x) / 2;
  const edgeX = Math.round(Math.max(0, Math.min(w - 1, cx + (L.chestLeft.x > cx ? 1 : -1) * halfW * 0.9)));
  const relief = depth[cy * w + cx] - depth[cy * w + edgeX];
  const zs = relief > 1e-6 ? (0.45 * halfW) / relief : 1;

  const flat = AMBIENT + DIFFUSE * LIGHT[2];
  const out = new Float32Array(n).fill(OUTSIDE);
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      if (den[i] <= 0.02) continue;
      const gx = ((depth[i + 1] - depth[i - 1]) / 2) * zs;
      const gy = ((depth[i + w] - depth[i - w]) / 2) * zs;
      const norm = Math.sqrt(gx * gx + gy * gy + 1);
      const lam = Math.max(0, (-gx * LIGHT[0] - gy * LIGHT[1] + LIGHT[2]) / norm);
      const s = (AMBIENT + DIFFUSE * lam) / flat;
      // fade towards the outside value where the body support thins out
      const t = Math.min(1, den[i] * 2);
      out[i] = Math.max(0.55, Math.min(1.12, s)) * t + OUTSIDE * (1 - t);
    }
  }
  return out;
}
