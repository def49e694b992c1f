/**
 * Garment segmentation from a packshot: the backdrop (a flat colour, a vignette or a studio sweep,
 * fitted to the border with its noise; raster/backdrop.ts) flooded from the frame together with
 * the shadows on it, morphological clean-up, enclosed regions filled (the inner back of a collar,
 * prints of the backdrop's colour; on a digitally flat backdrop not those of its exact level, as the
 * gap between a sleeve and the body), the light ground of a busy print kept on a flat backdrop
 * (printGround), a pasted packshot's drop shadow left out however steep, bare backdrop no flood
 * reached left out (backdropGaps: a sleeve's gap closed off by JPEG ringing), the largest
 * component(s) kept (a swing tag beside the garment, cut from it when its string is opened away, is
 * not), then a soft matte along the outline.
 * Transparent packshots use their own alpha instead of the backdrop model.
 */
import type { RasterImage } from '../../../core/images.ts';
import { FitroomError } from '../../../core/errors.ts';
import { backgroundDifference, estimateBackground, type BackgroundModel } from '../raster/backdrop.ts';
import { fillHoles, labelComponents } from '../raster/components.ts';
import { close, dilate, erode, open } from '../raster/morphology.ts';
import { insideBackOfNeck } from './neck-opening.ts';

export interface GarmentCutout {
  /** Straight RGBA: colour with the background removed from edge pixels, alpha = matte. */
  image: RasterImage;
  /** 0/255: the kept components with holes filled. */
  mask: Uint8Array;
  /** Kept component index per pixel (largest first), -1 elsewhere. */
  labels: Int32Array;
  components: { area: number; box: [number, number, number, number] }[];
  /**
   * 1 = the inside back of a top's neck seen through the neck opening (and the back collar above
   * it): garment in `mask` and `labels`, but not part of the front a worn top shows
   * (neck-opening.ts). Null when not asked for or not found.
   */
  insideBack: Uint8Array | null;
}

export interface SegmentOptions {
  /** Components at least this fraction of the largest one's area are kept (pairs of shoes, loose parts). */
  keepRatio?: number;
  /** Label the inside back of the neck (tops). */
  insideBack?: boolean;
  /**
   * Tighter thresholds on a digitally flat backdrop (white garments on #f6f6f6); off by default
   * until the renderer's realism figures and gate lists are re-measured with it.
   */
  flatBackdrop?: boolean;
}

function hasTransparentBorder(img: RasterImage): boolean {
  const { width: w, height: h, data } = img;
  let clear = 0;
  let total = 0;
  for (let x = 0; x < w; x++) {
    for (const y of [0, h - 1]) {
      total++;
      if (data[(y * w + x) * 4 + 3] < 128) clear++;
    }
  }
  for (let y = 0; y < h; y++) {
    for (const x of [0, w - 1]) {
      total++;
      if (data[(y * w + x) * 4 + 3] < 128) clear++;
    }
  }
  return clear >= total * 0.5;
}

/** The mean of each pixel's 3x3 neighbourhood (clamped at the edges), alpha kept. */
function boxMean3(img: RasterImage): RasterImage {
  const { width: w, height: h, data } = img;
  const out = new Uint8Array(data.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const o = (y * w + x) * 4;
      for (let c = 0; c < 3; c++) {
        let sum = 0;
        for (let dy = -1; dy <= 1; dy++) {
          const yy = Math.min(h - 1, Math.max(0, y + dy));
          for (let dx = -1; dx <= 1; dx++) sum += data[(yy * w + Math.min(w - 1, Math.max(0, x + dx))) * 4 + c];
        }
        out[o + c] = Math.round(sum / 9);
      }
      out[o + 3] = data[o + 3];
    }
  }
  return { width: w, height: h, data: out };
}

/**
 * The garment as what a flood from the frame through the backdrop and its shadows does not reach
 * (255 = garment). The backdrop is a colour surface fitted to the border (a plane, a vignette's
 * quadratic or a studio sweep, with its noise level; raster/backdrop.ts). A pixel is backdrop when
 * its colour is within the noise of the surface there. A shadow (a drop shadow under a hanging or
 * flat-laid garment) only darkens the backdrop and keeps its hue: the flood takes such pixels while
 * the luminance changes in small steps, so it stops at the garment's outline, where a step is sharp.
 * Pixels lighter than the backdrop are never shadow: a white garment on a light grey or off-white
 * card stands out by being lighter, even where its colour is close.
 */
function backdropFlood(img: RasterImage, bg: BackgroundModel, allowFlat: boolean): { mask: Uint8Array; flat: boolean; shadow: Uint8Array; shadowLike: Uint8Array; lum: Float32Array; ratio: Float32Array } {
  const { width: w, height: h } = img;
  const n = w * h;
  const diff = backgroundDifference(img, bg);
  // A digitally flat backdrop: the border band of the smoothed photo has no noise at all (a
  // garment cut out and pasted on #f6f6f6 or #fff, as many shops and the try-on datasets publish
  // theirs). Nothing casts a shadow on it, and a white tee only 2-3 levels off it is cloth: there
  // any pixel more than about 2 levels off (one level in every channel, as the box a cut-out was
  // once pasted in, is still backdrop) stops the flood. A photographed backdrop has sensor noise
  // and shadows, and keeps a photo's thresholds.
  const band = Math.max(2, Math.round(Math.min(w, h) * 0.02));
  const deltas: number[] = [];
  for (let y = 0; y < h; y += 2) {
    for (let x = 0; x < w; x += 2) {
      if (x >= band && x < w - band && y >= band && y < h - band) continue;
      deltas.push(diff.delta[y * w + x]);
    }
  }
  deltas.sort((p, q) => p - q);
  const flat = allowFlat && deltas.length > 0 && deltas[Math.floor(deltas.length * 0.9)] < 0.5;
  const noise = bg.noise;
  const tLo = flat ? 2.2 : Math.max(6, 4 * noise);
  const tLight = flat ? 1.8 : Math.max(4, 2.5 * noise);
  const tGhost = Math.max(40, 10 * noise);
  const step = Math.max(6, 3 * noise);
  const epsilon = 0.5 * noise;
  // the backdrop's chromaticity noise, from the border band: a shadow keeps the backdrop's
  // chromaticity within it (scaled up as the shadow darkens), cloth of nearly the backdrop's
  // colour seldom does (a cool white on a warm off-white card)
  const border: number[] = [];
  for (let y = 0; y < h; y += 2) {
    for (let x = 0; x < w; x += 2) {
      if (x >= band && x < w - band && y >= band && y < h - band) continue;
      const i = y * w + x;
      if (diff.delta[i] <= tLo) border.push(diff.chroma[i]);
    }
  }
  border.sort((p, q) => p - q);
  const chromaNoise = border.length ? 1.4826 * border[border.length >> 1] : 0.002;
  const tChroma = Math.max(0.004, 4 * chromaNoise);
  const differs = new Uint8Array(n);
  const shadowLike = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    // (lum / ratio is the backdrop's luminance there)
    const lighter = diff.lum[i] - diff.lum[i] / Math.max(0.05, diff.ratio[i]) > tLight;
    const ratio = diff.ratio[i];
    differs[i] = diff.delta[i] > tLo || lighter || diff.chroma[i] > tChroma ? 1 : 0;
    // a shadow: darker than the backdrop but not below 45 % of it, of its chromaticity
    shadowLike[i] = !lighter && ratio >= 0.45 && diff.chroma[i] <= tChroma / Math.max(0.45, ratio) ? 1 : 0;
  }
  // the flood: backdrop pixels freely; shadow pixels by small luminance steps, and strong ones
  // (a shadow's core) only while the path keeps darkening towards the garment, so a flat grey
  // region (the grey inner back of a garment, grey cloth) beyond a shadow stops it. `run`: the
  // steps without darkening on the path that reached a pixel.
  const run = new Float32Array(n).fill(Infinity);
  const queue: number[] = [];
  const seed = (i: number) => {
    if (run[i] === 0 || (differs[i] && !shadowLike[i]) || diff.delta[i] >= tGhost) return;
    run[i] = 0;
    queue.push(i);
  };
  for (let x = 0; x < w; x++) { seed(x); seed((h - 1) * w + x); }
  for (let y = 0; y < h; y++) { seed(y * w); seed(y * w + w - 1); }
  for (let head = 0; head < queue.length; head++) {
    const p = queue[head];
    const x = p % w;
    const y = (p - x) / w;
    for (let k = 0; k < 4; k++) {
      const xx = x + (k === 0 ? -1 : k === 1 ? 1 : 0);
      const yy = y + (k === 2 ? -1 : k === 3 ? 1 : 0);
      if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
      const q = yy * w + xx;
      let r = 0;
      if (differs[q]) {
        const dl = diff.lum[q] - diff.lum[p];
        if (!shadowLike[q] || Math.abs(dl) > step || flat) continue;
        if (diff.delta[q] >= tGhost) {
          r = dl < -epsilon ? 0 : run[p] + 1;
          if (r > 3) continue;
        }
      }
      if (r >= run[q]) continue;
      run[q] = r;
      queue.push(q);
    }
  }
  // the 3x3 mean spread the garment's edge one pixel outwards: the outer pixel of what the flood
  // left is given back to the backdrop (4-neighbours), which keeps narrow gaps (between trouser
  // legs, under an arm) as wide as they are
  const out = new Uint8Array(n);
  // what the flood took though it differs from the backdrop: its shadows
  const shadow = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (run[i] !== Infinity) {
      if (differs[i]) shadow[i] = 1;
      continue;
    }
    const x = i % w;
    const edge = (x > 0 && run[i - 1] !== Infinity) || (x < w - 1 && run[i + 1] !== Infinity) || (i >= w && run[i - w] !== Infinity) || (i + w < n && run[i + w] !== Infinity);
    out[i] = edge ? 0 : 255;
  }
  return { mask: out, flat, shadow, shadowLike, lum: diff.lum, ratio: diff.ratio };
}

/**
 * The light ground of a print on a flat backdrop (a leopard top's white between its dark spots):
 * what the strict flood kept but the photo's flood took, taking it for a shadow and running into it
 * from the outline. Such ground lies between parts the photo's flood kept, in three of four
 * directions (across, down and both diagonals: a white stripe runs along one of them) within
 * about 1 % of the diagonal; a JPEG halo or a drop shadow lies outside the outline, with no cloth
 * beyond it. Only networks of such pixels of some size count (a notch in a ragged outline is not
 * one), with what lies near them between the kept parts (the ground's run out to the outline); and
 * where they are a good part of the disagreement, all of it (the print's pale hem band too).
 * `extra`: the strict flood's garment minus the photo's; `thick`: its thick parts (cloth already).
 */
function printGround(extra: Uint8Array, thick: Uint8Array, photo: Uint8Array, w: number, h: number): Uint8Array {
  const n = w * h;
  const R = Math.max(4, Math.round(Math.hypot(w, h) * 0.012));
  const between = close(photo, w, h, R, { shape: 'disk', border: 'pad' });
  const hits = (p: number, dx: number, dy: number) => {
    let x = p % w;
    let y = (p - x) / w;
    for (let k = 0; k < R; k++) {
      x += dx;
      y += dy;
      if (x < 0 || y < 0 || x >= w || y >= h) return false;
      if (photo[y * w + x]) return true;
    }
    return false;
  };
  const ground = new Uint8Array(n);
  for (let p = 0; p < n; p++) {
    if (!extra[p] || thick[p] || !between[p]) continue;
    let lines = 0;
    for (const [dx, dy] of [[1, 0], [0, 1], [1, 1], [1, -1]]) if (hits(p, dx, dy) && hits(p, -dx, -dy)) lines++;
    if (lines >= 3) ground[p] = 255;
  }
  const seeds = labelComponents(ground, w, h);
  for (let p = 0; p < n; p++) if (ground[p] && seeds.components[seeds.labels[p] - 1].area < 4 * R * R) ground[p] = 0;
  // a print whose ground is most of what the two floods disagree on (a fifth of it and more; other
  // garments' ground is under 1 % of it): the photo's flood went astray in the print, and the
  // strict flood's outline is the garment's, hem band and all
  let all = 0;
  let found = 0;
  for (let p = 0; p < n; p++) {
    if (extra[p]) all++;
    if (ground[p]) found++;
  }
  if (found >= 0.2 * all) return extra;
  const near = dilate(ground, w, h, R, { shape: 'disk' });
  for (let p = 0; p < n; p++) if (extra[p] && between[p] && near[p]) ground[p] = 255;
  return ground;
}

/**
 * Bare backdrop the floods could not reach on a digitally flat backdrop: the gap between a sleeve
 * and the body, cut off from the frame where JPEG ringing along the cloth's dark edges makes a
 * band lighter than the backdrop across its narrow end (00470_00's left arm). Its core is the
 * backdrop level for level (within 1.5, over a disk of 7 px) across an area no cloth matches
 * (0.15 % of the image and more: the light ground of a print, a white tee's flat patches and labels
 * come to a fifth of that at most); from it a flood at the photo's thresholds takes the rest of the
 * gap, and a few steps through near pixels the ringing along its edges. 255 = backdrop to remove.
 */
function backdropGaps(mask: Uint8Array, delta: Float32Array, w: number, h: number, tLo: number): Uint8Array {
  const n = w * h;
  const level = new Uint8Array(n);
  for (let i = 0; i < n; i++) level[i] = mask[i] && delta[i] <= 1.5 ? 255 : 0;
  const core = open(level, w, h, 3, { shape: 'disk' });
  const { labels, components } = labelComponents(core, w, h, { connectivity: 4 });
  const out = new Uint8Array(n);
  const seen = new Uint8Array(n);
  for (const c of components) {
    // the flood at the photo's thresholds (the gap's less level parts, its narrow end)
    const region: number[] = [];
    for (let y = c.y0; y <= c.y1; y++) {
      for (let x = c.x0; x <= c.x1; x++) {
        const p = y * w + x;
        if (labels[p] === c.label && !seen[p]) { seen[p] = 1; region.push(p); }
      }
    }
    for (let head = 0; head < region.length; head++) {
      const p = region[head];
      const x = p % w;
      for (const q of [x > 0 ? p - 1 : -1, x < w - 1 ? p + 1 : -1, p - w, p + w]) {
        if (q < 0 || q >= n || seen[q] || !mask[q] || delta[q] > tLo) continue;
        seen[q] = 1;
        region.push(q);
      }
    }
    let level = 0;
    const inside = new Uint8Array(n);
    for (const p of region) {
      inside[p] = 255;
      if (core[p]) level++;
    }
    if (level < 0.0015 * n) continue;
    // bounded by cloth that stands out (dark or coloured edges, most of the ring 3 px around it), not
    // by the slightly grey folds of a white garment of the backdrop's white
    const ring = dilate(inside, w, h, 3, { shape: 'disk' });
    let all = 0;
    let strong = 0;
    for (let p = 0; p < n; p++) {
      if (!ring[p] || inside[p] || !mask[p]) continue;
      all++;
      if (delta[p] > 40) strong++;
    }
    if (strong < 0.4 * all) continue;
    // and the ringing along its edges: up to 4 steps through pixels within 12 levels
    let front = region;
    for (let step = 0; step < 4; step++) {
      const next: number[] = [];
      for (const p of front) {
        const x = p % w;
        for (const q of [x > 0 ? p - 1 : -1, x < w - 1 ? p + 1 : -1, p - w, p + w]) {
          if (q < 0 || q >= n || inside[q] || !mask[q] || delta[q] > 12) continue;
          inside[q] = 255;
          next.push(q);
        }
      }
      front = next;
    }
    for (let p = 0; p < n; p++) if (inside[p]) out[p] = 255;
  }
  return out;
}

/**
 * The band along the outline (px) whose colours are the cloth's estimated from further in and whose
 * alpha comes from the backdrop's model. A packshot's soft shoulder mixes the backdrop in 3 px deep
 * (the Fila tee `00126_00`): with 2, its palest pixels stayed cloth and drew a pale line where the
 * top's outline lies over skin.
 */
const EDGE_BAND = 3;

export function segmentGarment(img: RasterImage, opts: SegmentOptions = {}): GarmentCutout {
  const { width: w, height: h, data } = img;
  const n = w * h;
  const keepRatio = opts.keepRatio ?? 0.2;
  const transparent = hasTransparentBorder(img);
  // the backdrop is modelled on a 3x3 mean of the photo: sensor noise and JPEG blocks average out,
  // so a white garment a few levels off a light backdrop still stands out
  const smooth = transparent ? null : boxMean3(img);
  const bg = smooth ? estimateBackground(smooth) : null;

  // 1. the backdrop and its shadows, flooded from the frame (see backdropFlood); the rest is garment
  let raw: Uint8Array = new Uint8Array(n);
  let flat = false;
  if (smooth && bg) {
    const strict = backdropFlood(smooth, bg, opts.flatBackdrop ?? false);
    raw = strict.mask;
    flat = strict.flat;
    if (strict.flat) {
      // on a flat backdrop the strict flood also keeps the JPEG halo around a strongly coloured
      // garment (a ragged fringe some pixels wide, which fills the gap under a sleeve): of what it
      // adds to a photo's flood, only thick parts are cloth (the white body and sleeves of a tee),
      // and never a shadow the photo's flood took (a pasted packshot's soft drop shadow
      // under the hem and sleeves, drawn as a white strip on the person otherwise)
      // (a shadow reached from the backdrop through shadow alone: the grey folds and inside back of
      // a white tee, which the photo's flood reaches through the tee's own backdrop-like cloth, stay)
      const { mask: photo, shadow, shadowLike, lum, ratio } = backdropFlood(smooth, bg, false);
      const cast = new Uint8Array(n);
      const queue: number[] = [];
      for (let p = 0; p < n; p++) {
        if (!raw[p] || !shadow[p]) continue;
        const x = p % w;
        if ((x > 0 && !raw[p - 1]) || (x < w - 1 && !raw[p + 1]) || (p >= w && !raw[p - w]) || (p + w < n && !raw[p + w])) {
          cast[p] = 1;
          queue.push(p);
        }
      }
      for (let head = 0; head < queue.length; head++) {
        const p = queue[head];
        const x = p % w;
        for (const q of [x > 0 ? p - 1 : -1, x < w - 1 ? p + 1 : -1, p - w, p + w]) {
          if (q < 0 || q >= n || cast[q] || !raw[q] || !shadow[q]) continue;
          cast[q] = 1;
          queue.push(q);
        }
      }
      // a drop shadow steeper than the photo's flood steps through, which it keeps as garment
      // (049805_1's hem: a neutral grey ramp from the backdrop down to half its luminance over 19 px,
      // up to 12 levels a pixel): from the strict outline where it is faint, through pixels of the
      // backdrop's chromaticity that keep darkening towards the garment with a slope within 13 levels
      // a pixel (a cloth's own edge is steeper, a light grey yoke's too); over flat grey the path
      // stops after 3 steps without darkening, as the photo's flood over a shadow's core. Such
      // shadow leaves the photo's garment too (coloured garments only, as below)
      const run = new Uint8Array(n).fill(255);
      // the darkest luminance on the path so far: a step may not rise more than a level above it
      // (JPEG noise would let a path wander up and down a flat region otherwise)
      const low = new Float32Array(n);
      const slope = (q: number) => {
        const x = q % w;
        const gx = x > 0 && x < w - 1 ? (lum[q + 1] - lum[q - 1]) / 2 : 0;
        const gy = q >= w && q + w < n ? (lum[q + w] - lum[q - w]) / 2 : 0;
        return Math.hypot(gx, gy);
      };
      queue.length = 0;
      for (let p = 0; p < n; p++) {
        if (!raw[p] || !shadowLike[p] || lum[p] < lum[p] / Math.max(0.05, ratio[p]) - 6) continue;
        const x = p % w;
        if ((x > 0 && !raw[p - 1]) || (x < w - 1 && !raw[p + 1]) || (p >= w && !raw[p - w]) || (p + w < n && !raw[p + w])) {
          run[p] = 0;
          low[p] = lum[p];
          queue.push(p);
        }
      }
      for (let head = 0; head < queue.length; head++) {
        const p = queue[head];
        if (!cast[p]) cast[p] = 1;
        const x = p % w;
        for (const q of [x > 0 ? p - 1 : -1, x < w - 1 ? p + 1 : -1, p - w, p + w]) {
          if (q < 0 || q >= n || !raw[q] || !shadowLike[q]) continue;
          if (lum[q] > low[p] + 1 || slope(q) > 13) continue;
          const r = lum[q] < low[p] - 0.5 ? 0 : run[p] + 1;
          if (r > 3 || r >= run[q]) continue;
          run[q] = r;
          low[q] = Math.min(low[p], lum[q]);
          queue.push(q);
        }
      }
      // and only where the photo's flood kept nearly all of the garment (coloured cloth): a white
      // tee is one shadow-like region as a whole and stays
      let kept = 0;
      let all = 0;
      for (let p = 0; p < n; p++) {
        if (raw[p]) all++;
        if (photo[p]) kept++;
      }
      const coloured = kept >= 0.9 * all;
      const extra = new Uint8Array(n);
      for (let p = 0; p < n; p++) extra[p] = raw[p] && !photo[p] && !(coloured && cast[p]) ? 255 : 0;
      const r = Math.max(3, Math.round(Math.hypot(w, h) * 0.005));
      const thick = dilate(open(extra, w, h, r, { shape: 'disk' }), w, h, r + 1, { shape: 'disk' });
      const ground = printGround(extra, thick, photo, w, h);
      // (beside coloured cloth the thick parts are the JPEG fringe, blocks of ringing along a dark
      // diagonal edge a few levels off the backdrop: a white band along a navy tee's sleeve)
      for (let p = 0; p < n; p++) photo[p] = (photo[p] && !(coloured && cast[p])) || (extra[p] && ((thick[p] && !coloured) || ground[p])) ? 255 : 0;
      raw = photo;
    }
  }
  if (!bg) for (let p = 0; p < n; p++) raw[p] = data[p * 4 + 3] >= 128 ? 255 : 0;

  // 2. clean-up: remove specks, seal seams, fill enclosed holes (prints matching the background)
  const diag = Math.hypot(w, h);
  // disks, and closings that do not join the garment to the frame
  const disk = { shape: 'disk' } as const;
  const padded = { shape: 'disk', border: 'pad' } as const;
  let mask = open(raw, w, h, Math.max(1, Math.round(diag * 0.002)), disk);
  // a 1 px closing only: a larger one fills the narrow top of the gap between trouser legs
  mask = close(mask, w, h, 1, padded);
  // garment parts as light as the background (white laces, a white stripe) open onto the
  // outline through narrow gaps: regions enclosed once those gaps are sealed belong to the garment
  const sealed = close(mask, w, h, Math.max(2, Math.round(diag * 0.016)), padded);
  const enclosed = fillHoles(sealed, w, h);
  const unfilled = mask.slice();
  for (let i = 0; i < n; i++) if (enclosed[i] && !sealed[i]) mask[i] = 255;
  mask = fillHoles(mask, w, h);
  if (flat && smooth && bg) {
    // on a digitally flat backdrop, a region the clean-up enclosed that is the backdrop itself, level
    // for level (the gap between a sleeve and the body, closed where the cuff touches the hem), stays
    // out: cloth, however light, is not that flat over a few pixels
    const delta = backgroundDifference(smooth, bg).delta;
    const level = new Uint8Array(n);
    for (let i = 0; i < n; i++) level[i] = mask[i] && !unfilled[i] && delta[i] <= 1 ? 255 : 0;
    const bare = open(level, w, h, 3, disk);
    for (let i = 0; i < n; i++) if (bare[i]) mask[i] = 0;
    const gap = backdropGaps(mask, delta, w, h, Math.max(6, 4 * bg.noise));
    for (let i = 0; i < n; i++) if (gap[i]) mask[i] = 0;
  }

  // 3. keep the largest component and those comparable to it (8-connected)
  const { labels: compLabels, components } = labelComponents(mask, w, h, { order: 'area' });
  const largest = components.length ? components[0].area : 0;
  if (largest < n * 0.005) throw new FitroomError('IMAGE_INVALID', 'No garment could be separated from the image background', { retryable: false });
  const kept = components.filter((c) => c.area >= largest * keepRatio && c.area >= n * 0.002);
  const remap = new Int32Array(components.length + 1).fill(-1);
  kept.forEach((c, k) => (remap[c.label] = k));
  const labels = new Int32Array(n).fill(-1);
  const finalMask = new Uint8Array(n);
  for (let p = 0; p < n; p++) {
    const k = remap[compLabels[p]];
    if (k >= 0) {
      labels[p] = k;
      finalMask[p] = 255;
    }
  }

  // 4. soft matte and colour decontamination in a thin band along the outline
  const interior = erode(finalMask, w, h, EDGE_BAND, disk);
  const out = new Uint8Array(n * 4);
  const model = new Float64Array(3);
  const R = EDGE_BAND + 1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = y * w + x;
      const i = p * 4;
      if (interior[p]) {
        out[i] = data[i];
        out[i + 1] = data[i + 1];
        out[i + 2] = data[i + 2];
        out[i + 3] = transparent ? data[i + 3] : 255;
        continue;
      }
      // near the outline of a kept component (inside, or just outside where edge pixels blend)
      let near = finalMask[p] !== 0;
      if (!near && raw[p]) {
        for (let dy = -1; dy <= 1 && !near; dy++) {
          for (let dx = -1; dx <= 1 && !near; dx++) {
            const nx = x + dx;
            const ny = y + dy;
            if (nx >= 0 && ny >= 0 && nx < w && ny < h && finalMask[ny * w + nx]) near = true;
          }
        }
      }
      if (!near) continue;
      // foreground estimate: mean of interior pixels nearby
      let fr = 0;
      let fg = 0;
      let fb = 0;
      let cnt = 0;
      for (let dy = -R; dy <= R; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= h) continue;
        for (let dx = -R; dx <= R; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= w) continue;
          const q = ny * w + nx;
          if (!interior[q]) continue;
          fr += data[q * 4];
          fg += data[q * 4 + 1];
          fb += data[q * 4 + 2];
          cnt++;
        }
      }
      if (transparent || !bg) {
        out[i] = data[i];
        out[i + 1] = data[i + 1];
        out[i + 2] = data[i + 2];
        out[i + 3] = data[i + 3];
        continue;
      }
      if (cnt === 0) {
        fr = data[i];
        fg = data[i + 1];
        fb = data[i + 2];
      } else {
        fr /= cnt;
        fg /= cnt;
        fb /= cnt;
      }
      bg.surface.at(x, y, model);
      // alpha: projection of (C - B) onto (F - B), the colour-line assumption
      const ex = fr - model[0];
      const ey = fg - model[1];
      const ez = fb - model[2];
      const len2 = ex * ex + ey * ey + ez * ez;
      const projected = len2 > 25 ? ((data[i] - model[0]) * ex + (data[i + 1] - model[1]) * ey + (data[i + 2] - model[2]) * ez) / len2 : finalMask[p] ? 1 : 0;
      const a = Math.max(0, Math.min(1, projected));
      if (a <= 0.02) continue;
      out[i] = Math.round(Math.max(0, Math.min(255, cnt ? fr : data[i])));
      out[i + 1] = Math.round(Math.max(0, Math.min(255, cnt ? fg : data[i + 1])));
      out[i + 2] = Math.round(Math.max(0, Math.min(255, cnt ? fb : data[i + 2])));
      out[i + 3] = Math.round(a * 255);
    }
  }
  const boxes = kept.map((c) => ({ area: c.area, box: [c.x0, c.y0, c.x1, c.y1] as [number, number, number, number] }));
  let insideBack: Uint8Array | null = null;
  if (opts.insideBack && boxes.length) {
    const main = new Uint8Array(n);
    for (let p = 0; p < n; p++) main[p] = labels[p] === 0 ? 1 : 0;
    insideBack = insideBackOfNeck(smooth ?? img, main, boxes[0].box);
  }
  return { image: { width: w, height: h, data: out }, mask: finalMask, labels, components: boxes, insideBack };
}
