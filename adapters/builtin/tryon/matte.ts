/**
 * Clean, anti-aliased garment outlines on a person photo. The drawn coverage is a union of
 * per-pixel decisions (parsing labels, sleeve extents), so its outline is jagged; here it is
 * smoothed (blurred, and the 0.5 level kept, which rounds off jags and stair-steps smaller than
 * the radius) and turned into a soft alpha of about 2 px across that follows the smoothed contour
 * with sub-pixel accuracy. Pixels the smoothing adds take the colour of the cloth nearby.
 */
import { boxBlur } from './box-blur.ts';
import type { Layer } from './warp-piece.ts';

export function matteLayer(layer: Layer, radius: number): void {
  const { width: w, height: h, data } = layer;
  const r = Math.max(1, Math.round(radius));
  let x0 = w;
  let y0 = h;
  let x1 = -1;
  let y1 = -1;
  const alphaAt = (i: number) => data[i * 4 + 3];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (alphaAt(y * w + x) <= 0.5) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  if (x1 < 0) return;
  const pad = 2 * r + 2;
  const box: [number, number, number, number] = [Math.max(0, x0 - pad), Math.max(0, y0 - pad), Math.min(w, x1 + 1 + pad), Math.min(h, y1 + 1 + pad)];
  const cw = box[2] - box[0];
  const ch = box[3] - box[1];
  const m = new Float32Array(cw * ch);
  for (let y = 0; y < ch; y++) for (let x = 0; x < cw; x++) m[y * cw + x] = alphaAt((y + box[1]) * w + x + box[0]) > 0.5 ? 1 : 0;
  const smooth = boxBlur(m, cw, ch, r, 2);
  // a two-pass box blur turns a step into a ramp of slope 1/(2r+1) at its middle: rescaled, the
  // 0.5 level crossing becomes a ramp of about 2 px
  const steep = (2 * r + 1) / 2;
  // colours (unpremultiplied) of the cloth drawn, spread ring by ring into what the smoothing adds
  const cn = cw * ch;
  const colour = new Float32Array(cn * 3);
  const has = new Uint8Array(cn);
  const want = new Uint8Array(cn);
  for (let y = 0; y < ch; y++) {
    for (let x = 0; x < cw; x++) {
      const k = y * cw + x;
      const i = (y + box[1]) * w + x + box[0];
      const a = data[i * 4 + 3];
      if (a > 0.05) {
        for (let c = 0; c < 3; c++) colour[k * 3 + c] = data[i * 4 + c] / a;
        has[k] = 1;
      } else if (smooth[k] > 0.5 - 1 / steep) want[k] = 1;
    }
  }
  let pending: number[] = [];
  for (let y = 1; y < ch - 1; y++) for (let x = 1; x < cw - 1; x++) if (want[y * cw + x]) pending.push(y * cw + x);
  for (let ring = 0; ring < 2 * r + 2 && pending.length; ring++) {
    const now: number[] = [];
    const later: number[] = [];
    for (const k of pending) (has[k - 1] || has[k + 1] || has[k - cw] || has[k + cw] ? now : later).push(k);
    for (const k of now) {
      let cnt = 0;
      let c0 = 0;
      let c1 = 0;
      let c2 = 0;
      for (const q of [k - 1, k + 1, k - cw, k + cw]) {
        if (!has[q]) continue;
        cnt++;
        c0 += colour[q * 3];
        c1 += colour[q * 3 + 1];
        c2 += colour[q * 3 + 2];
      }
      colour[k * 3] = c0 / cnt;
      colour[k * 3 + 1] = c1 / cnt;
      colour[k * 3 + 2] = c2 / cnt;
    }
    for (const k of now) has[k] = 1;
    pending = later;
  }
  for (let y = 0; y < ch; y++) {
    for (let x = 0; x < cw; x++) {
      const k = y * cw + x;
      const i = (y + box[1]) * w + x + box[0];
      const a = has[k] ? Math.max(0, Math.min(1, 0.5 + (smooth[k] - 0.5) * steep)) : 0;
      for (let c = 0; c < 3; c++) data[i * 4 + c] = colour[k * 3 + c] * a;
      data[i * 4 + 3] = a;
    }
  }
}
