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
  const pending: number[] = [];
  for (let y = 1; y < ch - 1; y++) for (let x = 1; x < cw - 1; x++) if (want[y * cw + x]) pending.push(y * cw + x);
  spreadColour(colour, has, pending, cw, 2 * r + 2);
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

/** How far from the new top (px) the person's own outline can carry the old top's colour mixed in. */
const REBLEND_REACH = 1;
/** Below this linear-light difference between the person and the old top beside it, no mix is told. */
const REBLEND_CONTRAST = 0.04;
/** A pixel further than this share of that difference off the line between the two is no mix of them. */
const REBLEND_OFF_LINE = 0.25;

/**
 * The person's own outline beside a replaced top, re-mixed with it. A pixel of an arm's or the
 * neck's edge against the old top is partly the old top (the camera's and the JPEG's blur: a lit
 * line along an arm beside a white tank); once a new top lies there it is re-mixed with the new
 * top's colour in the same proportion: C' = aF + (1 - a)G, with F the person's colour a few pixels
 * further in, G the new top now drawn beside it and a the person's share of C, read against B, the
 * old top beside it in the photo (C = aF + (1 - a)B; a pixel well off that line, a shadow or another
 * colour, is no such mix and is left). `canvas` (linear RGB, 3 per pixel) is the composite
 * and `photo` the photo; `replaced` marks the old top's pixels now new top or fill, `kept` the
 * person's pixels left as photographed (not repainted, not covered).
 */
export function reblendOutline(canvas: Float32Array, photo: Float32Array, replaced: Uint8Array, kept: Uint8Array, w: number, h: number): void {
  const r = REBLEND_REACH;
  const out = new Float32Array(canvas);
  const C = [0, 0, 0];
  for (let y = r; y < h - r; y++) {
    for (let x = r; x < w - r; x++) {
      const i = y * w + x;
      if (!kept[i]) continue;
      // the nearest pixel where the old top was replaced (by the new top or the fill)
      let best = -1;
      let bd = Infinity;
      for (let dy = -r; dy <= r; dy++) {
        for (let dx = -r; dx <= r; dx++) {
          const j = i + dy * w + dx;
          const d = dx * dx + dy * dy;
          if (d < bd && replaced[j]) {
            bd = d;
            best = j;
          }
        }
      }
      if (best < 0) continue;
      // the person further in, away from it (2 px beyond the reach)
      const bx = best % w;
      const by = (best - bx) / w;
      const len = Math.sqrt(bd);
      const fx = Math.round(x + ((x - bx) / len) * (r + 1));
      const fy = Math.round(y + ((y - by) / len) * (r + 1));
      if (fx < 0 || fy < 0 || fx >= w || fy >= h) continue;
      const f = fy * w + fx;
      if (!kept[f]) continue;
      let num = 0;
      let den = 0;
      for (let c = 0; c < 3; c++) {
        C[c] = photo[i * 3 + c];
        const fb = photo[f * 3 + c] - photo[best * 3 + c];
        num += (C[c] - photo[best * 3 + c]) * fb;
        den += fb * fb;
      }
      if (den < REBLEND_CONTRAST * REBLEND_CONTRAST) continue;
      const t = num / den;
      if (t >= 1) continue;
      // off the line between person and old top (a shadow, another colour), it is no such mix
      let off = 0;
      for (let c = 0; c < 3; c++) off += (C[c] - photo[best * 3 + c] - t * (photo[f * 3 + c] - photo[best * 3 + c])) ** 2;
      if (off > REBLEND_OFF_LINE * REBLEND_OFF_LINE * den) continue;
      // a convex mix of the person further in and the new top: never a colour outside both
      const a = Math.max(0, t);
      for (let c = 0; c < 3; c++) out[i * 3 + c] = a * canvas[f * 3 + c] + (1 - a) * canvas[best * 3 + c];
    }
  }
  canvas.set(out);
}

/**
 * Colours (3 per pixel) spread ring by ring into the `pending` pixels from those that `has` one:
 * each pending pixel beside a coloured one (4-neighbours) takes their mean, then counts as coloured
 * for the next ring; at most `rings` rings, or until no pending pixel is reached. In place.
 */
function spreadColour(colour: Float32Array, has: Uint8Array, pending: number[], width: number, rings: number): void {
  const n = has.length;
  const around = (k: number) => {
    const x = k % width;
    return [x > 0 ? k - 1 : -1, x < width - 1 ? k + 1 : -1, k - width, k + width].filter((q) => q >= 0 && q < n && has[q]);
  };
  for (let ring = 0; ring < rings && pending.length; ring++) {
    const now: number[] = [];
    const later: number[] = [];
    for (const k of pending) (around(k).length ? now : later).push(k);
    if (!now.length) break;
    for (const k of now) {
      const qs = around(k);
      for (let c = 0; c < 3; c++) {
        let sum = 0;
        for (const q of qs) sum += colour[q * 3 + c];
        colour[k * 3 + c] = sum / qs.length;
      }
    }
    for (const k of now) has[k] = 1;
    pending = later;
  }
}

/**
 * Fills `holes` (1) in the layer with the colour of the cloth around them, ring by ring from
 * their edge inwards (spreadColour from the cloth drawn at over half coverage), at full coverage.
 */
export function patchHoles(layer: Layer, holes: Uint8Array): void {
  const { width: w, data } = layer;
  const n = holes.length;
  const colour = new Float32Array(n * 3);
  const has = new Uint8Array(n);
  const pending: number[] = [];
  for (let i = 0; i < n; i++) {
    const a = data[i * 4 + 3];
    if (holes[i]) pending.push(i);
    else if (a > 0.5) {
      for (let c = 0; c < 3; c++) colour[i * 3 + c] = data[i * 4 + c] / a;
      has[i] = 1;
    }
  }
  spreadColour(colour, has, pending, w, Infinity);
  for (const i of pending) {
    if (!has[i]) continue;
    for (let c = 0; c < 3; c++) data[i * 4 + c] = colour[i * 3 + c];
    data[i * 4 + 3] = 1;
  }
}
