import type { RasterImage } from '../../../core/images.ts';
import { createRaster } from '../../../core/images.ts';
import { backgroundDifference, estimateBackground, type BackgroundDifference } from '../raster/backdrop.ts';
import { labelComponents } from '../raster/components.ts';
import { distanceTransform } from '../raster/distance-transform.ts';
import { maxFilter } from '../raster/morphology.ts';
import type { PackshotCleanup } from './diagnostics.ts';
import { clamp255, flatten } from './raster.ts';

export interface CleanupResult {
  /** RGBA: the object with a soft alpha matte, background transparent (colour repainted white). */
  image: RasterImage;
  cleanup: PackshotCleanup;
  /** Pixel counts of what was removed, for the job trace. */
  removed: { shadowAndReflection: number; halo: number; specks: number };
}

export interface CleanupOptions {
  /** Ghost pixels below this share of the object area count as nothing removed (`noop`). */
  minRemovedShare?: number;
}

/**
 * Packshot cleanup: background model, alpha matte, ghost-pixel removal and connected components.
 *
 * Ghosts are what a studio shot adds around the product: contact shadows and floor reflections
 * and halos (a thin pale layer hugging the outline, left by an earlier cutout).
 *
 * 1. A flood from the frame through the backdrop takes small luminance steps into low-contrast
 *    pixels: the soft parts of shadows and reflections (a shadow only darkens and keeps the
 *    backdrop's hue, so pixels lighter than the backdrop stay product). Backdrop-coloured pixels
 *    it cannot reach are enclosed by the product.
 * 2. The contact line: under the product the shadow is darkest where the sole meets the floor.
 *    Per column, candidates are pixels where a run that a shadow or a reflection explains begins
 *    with a sharp step under the product; the line is the smoothest path through them across the
 *    columns. Under it everything is shadow or reflection (also the dark core of a contact
 *    shadow, and a reflection of the product's dark parts); above it, up to the product's
 *    confident pixels, everything is product, however close to the backdrop (a white sole on
 *    light grey, which the flood may have entered from the side).
 * 3. Backdrop seen through the product (a bag's handles, a heel loop) stays transparent.
 * 4. Halos: an opening of the "pale outer layer" reached from outside, which keeps the one-pixel
 *    anti-aliased edge but removes wider fringes that run along a good part of the outline.
 * 5. Components: specks dropped, every significant part kept; then the alpha matte.
 *
 * Limits: with no visible contact (a faint shadow under a sole of the backdrop's colour) the
 * sole's lower edge depends on the flood; a second shoe standing right behind the first joins
 * it (the single-shoe guard sees one outline).
 */
export function cleanupPackshot(input: RasterImage, opts: CleanupOptions = {}): CleanupResult {
  try {
    return clean(input, opts);
  } catch (err) {
    return {
      image: input,
      cleanup: { status: 'failed', errorCode: errorCode(err) },
      removed: { shadowAndReflection: 0, halo: 0, specks: 0 },
    };
  }
}

function errorCode(err: unknown): string {
  if (err && typeof err === 'object' && 'code' in err && typeof (err as { code: unknown }).code === 'string') return (err as { code: string }).code;
  return 'cleanup_error';
}

function clean(input: RasterImage, opts: CleanupOptions): CleanupResult {
  const { width, height } = input;
  if (width < 4 || height < 4 || input.data.length !== width * height * 4) {
    throw Object.assign(new Error('image too small or malformed'), { code: 'image_invalid' });
  }
  const img = flatten(input);
  const n = width * height;
  const bg = estimateBackground(img);
  const diff = backgroundDifference(img, bg);
  const tLo = Math.max(10, 4 * bg.noise);
  const tGhost = Math.max(60, 10 * bg.noise);
  const tFaint = Math.max(25, 2.5 * tLo);
  const tShadow = Math.max(120, 16 * bg.noise);
  const step = Math.max(8, 3 * bg.noise);
  const epsilon = 0.5 * bg.noise;
  const brighter = Math.max(3, 1.5 * bg.noise);

  const raw = new Uint8Array(n);
  for (let i = 0; i < n; i++) raw[i] = diff.delta[i] > tLo ? 1 : 0;

  // 1. the backdrop and its ghosts: a flood from the frame through the backdrop (pixels within tLo
  // of the model) that may also take small luminance steps into low-contrast pixels (shadows,
  // reflections). Backdrop-coloured pixels it does not reach are enclosed by the product.
  const reached = new Uint8Array(n);
  // `run`: consecutive steps without darkening on the path that reached a pixel (Infinity = unreached)
  const run = new Float32Array(n).fill(Infinity);
  const queue: number[] = [];
  const seed = (i: number) => { if (!raw[i] && !reached[i]) { reached[i] = BACKDROP; run[i] = 0; queue.push(i); } };
  for (let x = 0; x < width; x++) { seed(x); seed((height - 1) * width + x); }
  for (let y = 0; y < height; y++) { seed(y * width); seed(y * width + width - 1); }
  for (let qh = 0; qh < queue.length; qh++) {
    const p = queue[qh];
    const x = p % width, y = (p - x) / width;
    for (let k = 0; k < 4; k++) {
      const xx = x + (k === 0 ? -1 : k === 1 ? 1 : 0), yy = y + (k === 2 ? -1 : k === 3 ? 1 : 0);
      if (xx < 0 || yy < 0 || xx >= width || yy >= height) continue;
      const q = yy * width + xx;
      const dl = diff.lum[q] - diff.lum[p];
      if (!raw[q]) {
        if (reached[q] === BACKDROP) continue;
        // back onto the backdrop from a ghost only by a small step (not across a contact line)
        if (reached[p] === GHOST && Math.abs(dl) > step) continue;
        reached[q] = BACKDROP;
        run[q] = 0;
        queue.push(q);
        continue;
      }
      const d = diff.delta[q];
      if (d >= tShadow) continue;
      if (Math.abs(dl) > step) continue;
      if (d >= tFaint && (diff.chroma[q] > 0.04 || diff.ratio[q] > 1)) continue; // stronger ghosts are darker and neutral (shadows)
      // a shadow never lightens the backdrop (a reflection of a white sole may, faintly: the contact
      // line takes those below the sole), so a pixel lighter than the backdrop is product
      if (diff.lum[q] > diff.lum[q] / Math.max(0.05, diff.ratio[q]) + brighter) continue;
      let r = 0;
      if (d >= tGhost) {
        // dark shadow cores: only while the path keeps darkening towards the contact line, so a
        // plateau (a white sole) beyond the shadow's darkest point stops the flood
        if (diff.chroma[q] > 0.03 || dl > epsilon) continue;
        r = dl < -epsilon ? 0 : run[p] + 1;
        if (r > 2) continue;
      }
      if (r >= run[q]) continue;
      run[q] = r;
      reached[q] = GHOST;
      queue.push(q);
    }
  }

  // 2. backdrop seen through the product (a bag's handles, a heel loop): regions of backdrop
  // colour the flood did not reach, whose pixels match the backdrop as closely as its noise does
  // (a white sole's pixels near the backdrop colour are further off on average)
  {
    const enclosed = new Uint8Array(n);
    for (let i = 0; i < n; i++) enclosed[i] = !raw[i] && !reached[i] ? 1 : 0;
    const { labels, components } = labelComponents(enclosed, width, height, { connectivity: 4 });
    const sumDelta = new Float64Array(components.length + 1);
    for (let i = 0; i < n; i++) if (labels[i]) sumDelta[labels[i]] += diff.delta[i];
    const open = new Uint8Array(components.length + 1);
    for (const c of components) if (c.area >= 12 && sumDelta[c.label] / c.area <= 0.45 * tLo) open[c.label] = 1;
    for (let i = 0; i < n; i++) if (open[labels[i]]) reached[i] = HOLE;
  }

  // 3. the contact line (see contactLine); the holes are backdrop after it
  contactLine(diff, raw, reached, width, height, { tLo, tFaint, tShadow, noise: bg.noise, step });
  for (let i = 0; i < n; i++) if (reached[i] === HOLE) reached[i] = BACKDROP;

  const mask = new Uint8Array(n);
  let shadowCount = 0;
  for (let i = 0; i < n; i++) {
    mask[i] = reached[i] === BACKDROP || reached[i] === GHOST ? 0 : 1;
    if (reached[i] === GHOST && raw[i]) shadowCount++;
  }

  // 4. halo: a pale layer (much closer to the background than the interior next to it) at least
  // two pixels wide along the outline
  const halo = haloPixels(mask, diff.delta, width, height, tGhost);
  let haloCount = 0;
  for (let i = 0; i < n; i++) if (halo[i]) { mask[i] = 0; haloCount++; }

  // 5. connected components: drop specks, keep every significant part
  const { labels, components } = labelComponents(mask, width, height, { order: 'area' });
  const largest = components[0]?.area ?? 0;
  const minArea = Math.max(16, largest * 0.002);
  const keep = new Set(components.filter((c) => c.area >= minArea).map((c) => c.label));
  let speckCount = 0;
  for (let i = 0; i < n; i++) {
    if (mask[i] && !keep.has(labels[i])) { mask[i] = 0; speckCount++; }
  }
  const significant = components.filter((c) => c.area >= Math.max(minArea, largest * 0.03)).length;

  // 6. alpha matte: interior opaque; the outer two pixels are a mix of the product's colour nearby
  // (the interior pixels around them) and the colour outside nearby (the backdrop, or a shadow
  // under the sole), and their colour is un-mixed from the outside. Where the two colours are too
  // close to tell apart (a white sole on a light backdrop) the pixel stays opaque.
  const image = createRaster(width, height, [255, 255, 255, 0]);
  const inside = distanceTransform(mask, width, height, 'unset');
  const interiorSums = new LocalSums(img, width, height, (i) => mask[i] !== 0 && inside[i] > 2.5);
  const exteriorSums = new LocalSums(img, width, height, (i) => !mask[i]);
  const fc = [0, 0, 0], oc = [0, 0, 0];
  let alphaSum = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (!mask[i]) continue;
      const o = i * 4;
      let a = 1;
      // (a thin part with no interior nearby, a lace or a loop, stays opaque)
      if (inside[i] <= 2.5 && interiorSums.mean(x, y, 3, fc)) {
        if (!exteriorSums.mean(x, y, 2, oc)) bg.surface.at(x, y, oc);
        const fx = fc[0] - oc[0], fy = fc[1] - oc[1], fz = fc[2] - oc[2];
        const len2 = fx * fx + fy * fy + fz * fz;
        if (len2 > 16 * tLo * tLo) {
          const dot = (img.data[o] - oc[0]) * fx + (img.data[o + 1] - oc[1]) * fy + (img.data[o + 2] - oc[2]) * fz;
          a = Math.min(1, Math.max(0.15, dot / len2));
        }
      }
      if (a < 1) {
        for (let c = 0; c < 3; c++) image.data[o + c] = clamp255(oc[c] + (img.data[o + c] - oc[c]) / a);
      } else {
        for (let c = 0; c < 3; c++) image.data[o + c] = img.data[o + c];
      }
      image.data[o + 3] = clamp255(a * 255);
      alphaSum += a;
    }
  }
  const removedTotal = shadowCount + haloCount + speckCount;
  const objectArea = Math.max(1, alphaSum);
  const applied = removedTotal > Math.max(20, (opts.minRemovedShare ?? 0.002) * objectArea);
  return {
    image,
    cleanup: { status: applied ? 'applied' : 'noop', numComponents: keep.size > 0 ? significant : 0, areaRatio: round4(alphaSum / n) },
    removed: { shadowAndReflection: shadowCount, halo: haloCount, specks: speckCount },
  };
}

/** Box sums of the colours of a pixel subset (integral images), for local mean colours. */
class LocalSums {
  readonly #w: number;
  readonly #h: number;
  readonly #sum: Float64Array[];
  readonly #count: Float64Array;

  constructor(img: RasterImage, width: number, height: number, member: (i: number) => boolean) {
    this.#w = width;
    this.#h = height;
    const W = width + 1;
    this.#sum = [new Float64Array(W * (height + 1)), new Float64Array(W * (height + 1)), new Float64Array(W * (height + 1))];
    this.#count = new Float64Array(W * (height + 1));
    for (let y = 0; y < height; y++) {
      const rs = [0, 0, 0];
      let rc = 0;
      for (let x = 0; x < width; x++) {
        const i = y * width + x;
        if (member(i)) {
          rc++;
          for (let c = 0; c < 3; c++) rs[c] += img.data[i * 4 + c];
        }
        const k = (y + 1) * W + x + 1;
        this.#count[k] = this.#count[k - W] + rc;
        for (let c = 0; c < 3; c++) this.#sum[c][k] = this.#sum[c][k - W] + rs[c];
      }
    }
  }

  /** Mean colour of the members within r pixels (a square) into `out`; false when there are none. */
  mean(x: number, y: number, r: number, out: number[]): boolean {
    const W = this.#w + 1;
    const x0 = Math.max(0, x - r), y0 = Math.max(0, y - r), x1 = Math.min(this.#w, x + r + 1), y1 = Math.min(this.#h, y + r + 1);
    const box = (a: Float64Array) => a[y1 * W + x1] - a[y0 * W + x1] - a[y1 * W + x0] + a[y0 * W + x0];
    const count = box(this.#count);
    if (count <= 0) return false;
    for (let c = 0; c < 3; c++) out[c] = box(this.#sum[c]) / count;
    return true;
  }
}

interface ContactParams { tLo: number; tFaint: number; tShadow: number; noise: number; step: number }

/** Flood labels: 0 = not reached (product), backdrop, ghost, product restored, backdrop seen through the product. */
const BACKDROP = 1, GHOST = 2, PRODUCT = 3, HOLE = 4;
const isOpen = (v: number) => v === BACKDROP || v === GHOST || v === HOLE;

/**
 * Finds where the product stands on the floor and relabels the pixels around that line.
 *
 * Candidates, per column: the top pixel of a run of raw pixels that reaches the backdrop through a
 * fade, that a shadow or a reflection explains throughout (not darker than 30 % of the backdrop,
 * near neutral unless faint), that is shadow-dark (85 % of the backdrop or less), within a few
 * levels of the run's darkest pixel (a contact shadow is darkest at the contact) and lightening
 * gradually below, with a sharp step to the pixel above (the sole's edge; a soft shadow under a
 * raised arch has none) or, weaker evidence, where a flat product colour as dark as the shadow
 * ends. A flat stretch in the run that is no faded mirror image of the product above (a floor
 * reflection keeps half of the contrast at most) rules the candidate out: it is product.
 * Columns with confident product pixels (too dark or too coloured for a ghost, and strong) look
 * below the lowest of them.
 *
 * The line is the cheapest path through the candidates across the columns (Viterbi: jumps cost,
 * long flat dark stretches under a candidate cost, a line may be carried along its slope through
 * columns without a candidate); stretches with little evidence are dropped. Then, per column:
 * raw pixels under the line, as far down as a mirror image of the product can reach, are ghosts;
 * pixels between the product's lowest confident pixel and the line are product. Columns between
 * contacts (a raised arch) take the reflection under the floor line between them; flooded runs
 * with product above and below them, above the floor, are product; faint pixels the flood took
 * well above the line are product.
 */
function contactLine(diff: BackgroundDifference, raw: Uint8Array, reached: Uint8Array, width: number, height: number, p: ContactParams): void {
  const n = width * height;
  const explainable = new Uint8Array(n);
  const shadowLike = new Uint8Array(n);
  // strong: half of the 90th percentile of the raw pixels' contrast (a reflection has a third at most)
  const ds: number[] = [];
  for (let i = 0; i < n; i += 3) if (raw[i]) ds.push(diff.delta[i]);
  ds.sort((a, b) => a - b);
  const strongCut = Math.max(p.tShadow, 0.5 * (ds[Math.floor(ds.length * 0.9)] ?? 0));
  const confident = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (!raw[i]) continue;
    const r = diff.ratio[i], c = diff.chroma[i], d = diff.delta[i];
    explainable[i] = r >= 0.3 && r <= 1.06 && (c <= 0.09 || d < p.tFaint) ? 1 : 0;
    shadowLike[i] = explainable[i] && r <= 0.85 && c <= 0.08 ? 1 : 0;
    confident[i] = !explainable[i] && d >= strongCut ? 1 : 0;
  }
  const edgeMin = Math.max(12, 4 * p.noise);
  const flatTol = Math.max(4, 1.5 * p.noise);
  const clearRows = Math.max(10, Math.round(0.03 * height));
  const tau = (i: number) => Math.max(6, 0.15 * (diff.lum[i] / Math.max(0.05, diff.ratio[i]) - diff.lum[i]));
  const contact = new Int32Array(width).fill(-1);
  // A flat stretch in the run below a candidate, clearly off the backdrop, is product (the lower
  // half of a sole under a groove, a sole's underside) unless it is a faded mirror image of what
  // lies as far above the candidate (a floor reflection keeps half of the contrast at most).
  const plateauRows = Math.max(5, Math.round(0.012 * height));
  const productBelow = (x: number, y: number, runLength: number): boolean => {
    const end = Math.min(height, y + runLength);
    for (let a = y; a + plateauRows <= end; a++) {
      let lo = Infinity, hi = -Infinity, contrast = 0;
      for (let k = 0; k < plateauRows; k++) {
        const i = (a + k) * width + x;
        const v = diff.lum[i];
        if (v < lo) lo = v;
        if (v > hi) hi = v;
        contrast += v / Math.max(0.05, diff.ratio[i]) - v;
      }
      if (hi - lo > 1.5 * flatTol) continue;
      contrast /= plateauRows;
      if (contrast < 0.1 * (lo + contrast)) continue; // near the backdrop's level (a shadow's tail)
      let mirrored = 0, count = 0;
      for (let k = 0; k < plateauRows; k++) {
        const my = 2 * y - 1 - (a + k);
        if (my < 0) break;
        const i = my * width + x;
        mirrored += diff.lum[i] / Math.max(0.05, diff.ratio[i]) - diff.lum[i];
        count++;
      }
      mirrored = count ? mirrored / count : 0;
      if (mirrored <= 0 || contrast > 0.5 * mirrored) return true;
      a += plateauRows - 1;
    }
    return false;
  };
  const lowestConfident = new Int32Array(width).fill(-1);
  // candidates per column, bottom-up: the run below each raw pixel and its darkest luminance
  const candidates: number[][] = [];
  // candidates found by the end of a flat stretch rather than by a sharp step: weaker evidence
  const weakCandidates: Set<number>[] = [];
  for (let x = 0; x < width; x++) {
    let yc = -1;
    for (let y = height - 1; y >= 0; y--) if (confident[y * width + x]) { yc = y; break; }
    lowestConfident[x] = yc;
    const list: number[] = [];
    const weak = new Set<number>();
    // the run: from the pixel down to the backdrop; it must fade out (its last pixel is faint) and
    // be a few pixels long (an anti-aliased rim between a black upper and a white sole is neither)
    // (a fade: its last two pixels are faint; a sole's bottom edge against the backdrop is a
    // one-pixel step)
    let runMin = Infinity, valid = true, runLength = 0;
    for (let y = height - 1; y > yc; y--) {
      const i = y * width + x;
      if (!raw[i]) { runMin = Infinity; valid = true; runLength = 0; continue; }
      if (runLength < 2 && diff.delta[i] >= (runLength === 0 ? p.tFaint : 2 * p.tFaint) && y < height - 1 - runLength) valid = false;
      runLength++;
      if (!explainable[i]) valid = false;
      if (diff.lum[i] < runMin) runMin = diff.lum[i];
      if (!valid || runLength < 4 || !shadowLike[i] || diff.lum[i] > runMin + tau(i)) continue;
      // a contact shadow lightens gradually below the contact (a white sole under a dark rim does not)
      const rise = Math.max(p.step, 0.35 * (diff.lum[i] / Math.max(0.05, diff.ratio[i]) - diff.lum[i]));
      if (diff.lum[i + width] > diff.lum[i] + rise || (y + 2 < height && diff.lum[i + 2 * width] > diff.lum[i] + 1.5 * rise)) continue;
      // a sharp step to the product above (anti-aliasing may spread it over two pixels), much
      // steeper than the shadow's slope below it
      if (y < 2) continue;
      const c0 = diff.lum[i];
      const above = Math.max(Math.abs(diff.lum[i - width] - c0), 0.75 * Math.abs(diff.lum[i - 2 * width] - c0));
      const below = y + 2 < height ? Math.max(Math.abs(diff.lum[i + width] - c0), 0.5 * Math.abs(diff.lum[i + 2 * width] - c0)) : 0;
      // (a darker shadow-like pixel above means the shadow goes on: this is its lower flank)
      const upDarker = diff.lum[i - width] < c0 - flatTol && shadowLike[i - width];
      if (above >= edgeMin && above >= 1.5 * below && !upDarker) {
        if (!productBelow(x, y, runLength)) list.push(y);
        continue;
      }
      // or where a flat product colour (a grey sole's underside as dark as the shadow) ends and
      // the shadow starts to lighten
      if (y >= 4) {
        const a1 = diff.lum[i - width], a2 = diff.lum[i - 2 * width], a3 = diff.lum[i - 3 * width];
        const flat = Math.max(a1, a2, a3) - Math.min(a1, a2, a3) <= 2 * flatTol;
        if (flat && c0 - a1 >= flatTol && c0 - a1 >= 1.5 * Math.abs(a1 - a3) && !productBelow(x, y, runLength)) { list.push(y); weak.add(y); }
      }
    }
    candidates.push(list);
    weakCandidates.push(weak);
  }
  // how many rows below a candidate stay as dark as it: a contact shadow lightens right away, a
  // long flat stretch is more likely the product's own colour
  const flatBelow = (x: number, y: number) => {
    let lo = diff.lum[y * width + x];
    let k = 0;
    while (y + k + 1 < height) {
      const v = diff.lum[(y + k + 1) * width + x];
      if (v > lo + 2 * flatTol) break;
      lo = Math.min(lo, v);
      k++;
    }
    return k;
  };
  // the contact line across the columns: the smoothest path through the candidates (Viterbi), so a
  // grey sole's underside darker than the shadow next to it does not pass for the contact where a
  // smooth line continues below it. The line may run on through a few columns without a candidate
  // (a faint stretch of the sole's edge); those take the row interpolated between its ends.
  const NONE_COST = 1.5, SWITCH_COST = 2.5, JUMP_CAP = 10, CARRY_COST = 0.2, MAX_CARRY = Math.max(12, Math.round(0.06 * width));
  const jump = (a: number, b: number) => Math.min(JUMP_CAP, 0.7 * Math.max(0, Math.abs(a - b) - 2));
  // (a state's slope is the line's recent rise per column: a carried line follows it, and a
  // candidate is scored by its distance from where the line was heading)
  interface State { row: number; slope: number; carry: number; cost: number; from: number }
  const clampSlope = (v: number) => Math.max(-3, Math.min(3, v));
  let prev: State[] = [{ row: -1, slope: 0, carry: 0, cost: 0, from: -1 }];
  const trellis: State[][] = [];
  for (let x = 0; x < width; x++) {
    const next: State[] = [];
    // the line ends (or stays off)
    {
      let best = Infinity, arg = 0;
      prev.forEach((s, j) => { const c = s.cost + (s.row < 0 ? 0 : SWITCH_COST); if (c < best) { best = c; arg = j; } });
      next.push({ row: -1, slope: 0, carry: 0, cost: best + (candidates[x].length ? NONE_COST : 0), from: arg });
    }
    // a candidate of this column
    for (const y of candidates[x]) {
      let best = Infinity, arg = 0;
      prev.forEach((s, j) => { const c = s.cost + (s.row < 0 ? SWITCH_COST : jump(s.row + s.slope, y)); if (c < best) { best = c; arg = j; } });
      const from = prev[arg];
      const slope = from.row < 0 ? 0 : clampSlope(0.6 * from.slope + 0.4 * (y - from.row));
      next.push({ row: y, slope, carry: 0, cost: best + 0.15 * flatBelow(x, y) + (weakCandidates[x].has(y) ? 1 : 0), from: arg });
    }
    // the line carried on along its slope
    const carried = new Map<number, State>();
    prev.forEach((s, j) => {
      if (s.row < 0 || s.carry >= MAX_CARRY) return;
      const row = s.row + s.slope;
      if (row < 0 || row >= height) return;
      if (candidates[x].some((y) => Math.abs(y - row) <= 2)) return; // evidence here: take it
      const c = s.cost + CARRY_COST;
      const key = Math.round(row);
      const old = carried.get(key);
      if (!old || c < old.cost) carried.set(key, { row, slope: s.slope, carry: s.carry + 1, cost: c, from: j });
    });
    next.push(...carried.values());
    trellis.push(next);
    prev = next;
  }
  const path = new Array<State>(width);
  {
    let k = 0;
    for (let j = 1; j < prev.length; j++) if (prev[j].cost < prev[k].cost || (prev[j].cost === prev[k].cost && prev[k].carry > 0)) k = j;
    for (let x = width - 1; x >= 0; x--) {
      path[x] = trellis[x][k];
      k = path[x].from;
    }
  }
  for (let x = 0; x < width; x++) {
    const st = path[x];
    if (st.row < 0) continue;
    if (st.carry === 0) { contact[x] = st.row; continue; }
    // a carried stretch: between the candidates at its ends, or dropped when the line ends in it
    let e = x;
    while (e < width && path[e].row >= 0 && path[e].carry > 0) e++;
    if (e < width && path[e].row >= 0) {
      // along the carried rows, with the miss at the far end spread over the stretch
      const miss = path[e].row - (path[e - 1].row + path[e - 1].slope);
      for (let k = x; k < e; k++) contact[k] = Math.round(path[k].row + (miss * (k - x + 1)) / (e - x + 1));
    }
    x = e - 1;
  }
  // a stretch of line with little evidence (a few scattered candidates carried across) is dropped
  for (let x = 0; x < width; x++) {
    if (contact[x] < 0) continue;
    let e = x, real = 0;
    // (a candidate within a few rows of a carried column counts as evidence too)
    while (e < width && contact[e] >= 0) {
      if (path[e].carry === 0 || candidates[e].some((y) => Math.abs(y - contact[e]) <= 4)) real++;
      e++;
    }
    if (real < Math.max(4, 0.4 * (e - x))) for (let k = x; k < e; k++) contact[k] = -1;
    x = e - 1;
  }
  // columns without a contact of their own (under a raised arch, past a lifted toe): the floor
  // runs between the contacts on either side (or on from a near end), and a reflection below it
  // is a ghost too
  {
    const left = new Int32Array(width).fill(-1), right = new Int32Array(width).fill(-1);
    for (let x = 0, last = -1; x < width; x++) { if (contact[x] >= 0) last = x; left[x] = last; }
    for (let x = width - 1, last = -1; x >= 0; x--) { if (contact[x] >= 0) last = x; right[x] = last; }
    const span = width / 4, end = 0.08 * width;
    for (let x = 0; x < width; x++) {
      if (contact[x] >= 0) continue;
      const a = left[x], b = right[x];
      let floor = -1, steady = false;
      if (a >= 0 && b >= 0 && b - a <= span) {
        floor = contact[a] + ((contact[b] - contact[a]) * (x - a)) / (b - a);
        steady = Math.abs(contact[b] - contact[a]) <= 0.5 * (b - a) + 4;
      } else if (a >= 0 && x - a <= end) floor = contact[a];
      else if (b >= 0 && b - x <= end) floor = contact[b];
      if (floor < 0) continue;
      let colTop = 0;
      while (colTop < floor && isOpen(reached[colTop * width + x])) colTop++;
      if (colTop >= floor) continue;
      let from = Math.round(floor) + 2;
      const to = Math.min(height, Math.round(2 * floor - colTop) + 4);
      // (a floor less certain, between ends far apart in height or past an end, gives way to
      // product reaching a little lower; product reaching far lower means the floor is wrong here)
      if (!steady) {
        const limit = from + Math.max(6, 0.05 * (floor - colTop));
        while (from < to && !isOpen(reached[from * width + x])) from++;
        if (from > limit) continue;
      }
      for (let y = from; y < to; y++) if (raw[y * width + x]) reached[y * width + x] = GHOST;
    }
  }
  for (let x = 0; x < width; x++) {
    let yc = contact[x];
    if (yc < 0) continue;
    // a dark band at the line that ends in a sharp step to a much lighter shadow is the sole's
    // dark bottom edge standing on a faint shadow: the contact is under it
    for (let k = 1; k <= 4 && yc + k + 1 < height; k++) {
      const i = (yc + k) * width + x;
      const band = diff.lum[i - width], up = diff.lum[i] - band, next = diff.lum[i + width] - diff.lum[i];
      if (Math.abs(band - diff.lum[yc * width + x]) > 2 * flatTol) break;
      if (up >= edgeMin && up >= 2.5 * Math.abs(next)) { yc += k; break; }
    }
    // below: ghosts, as far down as a mirror image of the product above can reach (a floor
    // reflection of a white sole may leave backdrop-level gaps in it); nothing of the product
    // stands under its own contact line
    let colTop = 0;
    while (colTop < yc && isOpen(reached[colTop * width + x])) colTop++;
    const reachDown = Math.min(height, 2 * yc - colTop + 4);
    for (let y = yc; y < reachDown; y++) {
      const i = y * width + x;
      if (raw[i]) reached[i] = GHOST;
    }
    // above: product up to the confident pixels, or (a sole's tip) the raw pixels just above
    const top = lowestConfident[x];
    if (top >= 0) {
      // (up to a clear stretch of backdrop: between a bag's handle and its body the backdrop shows,
      // a white sole's pixels near the backdrop colour do not run that long)
      let clear = 0;
      for (let y = yc - 1; y > top; y--) {
        const i = y * width + x;
        clear = !raw[i] && diff.delta[i] <= 0.45 * p.tLo ? clear + 1 : 0;
        if (clear >= clearRows) {
          for (let k = y; k < y + clear; k++) if (reached[k * width + x] === PRODUCT) reached[k * width + x] = BACKDROP;
          break;
        }
        if (reached[i] !== HOLE) reached[i] = PRODUCT;
      }
    } else {
      let gap = 0;
      for (let y = yc - 1; y >= 0; y--) {
        const i = y * width + x;
        if (!raw[i]) { if (++gap > 2) break; continue; }
        gap = 0;
        reached[i] = PRODUCT;
      }
    }
  }
  // a shadow lies under the product, never between two of its parts in one column: a short
  // stretch the flood took with product above and below it (a pale sole face between the upper
  // and the sole's darker bottom edge, entered from the side) is product
  {
    let pTop = height, pBottom = -1;
    for (let i = 0; i < n; i++) if (!isOpen(reached[i])) { const y = (i / width) | 0; if (y < pTop) pTop = y; if (y > pBottom) pBottom = y; }
    const maxRun = 0.25 * Math.max(1, pBottom - pTop + 1);
    const isProduct = (i: number) => !isOpen(reached[i]);
    // only above the floor: the contact line of the column or of the nearest column that has one
    // (under the line a reflection's kept parts would enclose the rest of it)
    const floor = new Float64Array(width).fill(-1);
    const reach = Math.round(width / 4);
    for (let x = 0; x < width; x++) {
      for (let d = 0; d <= reach; d++) {
        const c = x - d >= 0 && contact[x - d] >= 0 ? contact[x - d] : x + d < width && contact[x + d] >= 0 ? contact[x + d] : -1;
        if (c >= 0) { floor[x] = c; break; }
      }
    }
    for (let x = 0; x < width; x++) {
      if (floor[x] < 0) continue;
      let y = 0;
      while (y < height) {
        if (!(y > 0 && isProduct((y - 1) * width + x) && !isProduct(y * width + x))) { y++; continue; }
        let e = y, ghosts = 0;
        while (e < height && !isProduct(e * width + x)) { if (reached[e * width + x] === GHOST) ghosts++; e++; }
        if (e < height && e <= floor[x] && e - y <= maxRun && ghosts >= 0.6 * (e - y)) for (let k = y; k < e; k++) reached[k * width + x] = PRODUCT;
        y = e;
      }
    }
  }
  // shadows and reflections lie on the floor: with a contact line found, faint pixels the flood
  // took well above it (a pale heel loop against a grey backdrop) are product
  let topContact = height, y0 = height, y1 = -1;
  for (let x = 0; x < width; x++) if (contact[x] >= 0) topContact = Math.min(topContact, contact[x]);
  if (topContact === height) return;
  for (let i = 0; i < n; i++) {
    if (isOpen(reached[i])) continue;
    const y = Math.floor(i / width);
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  const floorTop = topContact - 0.12 * Math.max(1, y1 - y0 + 1);
  for (let i = 0; i < floorTop * width && i < n; i++) if (reached[i] === GHOST && raw[i]) reached[i] = PRODUCT;
}

function haloPixels(mask: Uint8Array, delta: Float32Array, width: number, height: number, tGhost: number): Uint8Array {
  const n = width * height;
  const depth = distanceTransform(mask, width, height, 'unset');
  const layer = 7;
  const interior = new Float32Array(n);
  for (let i = 0; i < n; i++) interior[i] = mask[i] && depth[i] > layer ? delta[i] : 0;
  const near = maxFilter(interior, width, height, layer + 3);
  const candidate = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    candidate[i] = mask[i] && depth[i] <= layer && delta[i] < tGhost && near[i] > 0 && delta[i] < 0.5 * near[i] ? 1 : 0;
  }
  // the layer lies outside the product: pale pixels reached from the background through pale pixels
  // within `layer` steps (a white sole's band behind its darker lower edge is not reached)
  const pale = new Uint8Array(n);
  const steps = new Uint8Array(n);
  let front: number[] = [];
  for (let i = 0; i < n; i++) {
    if (!candidate[i]) continue;
    const x = i % width, y = (i - x) / width;
    if ((x > 0 && !mask[i - 1]) || (x < width - 1 && !mask[i + 1]) || (y > 0 && !mask[i - width]) || (y < height - 1 && !mask[i + width])) {
      pale[i] = 1;
      steps[i] = 1;
      front.push(i);
    }
  }
  for (let s = 1; s < layer && front.length; s++) {
    const next: number[] = [];
    for (const p of front) {
      const x = p % width;
      for (const q of [x > 0 ? p - 1 : -1, x < width - 1 ? p + 1 : -1, p - width, p + width]) {
        if (q < 0 || q >= n || !candidate[q] || pale[q]) continue;
        pale[q] = 1;
        steps[q] = s + 1;
        next.push(q);
      }
    }
    front = next;
  }
  // opening with a 2x2 square: the one-pixel anti-aliased rim does not survive, wider fringes do
  const eroded = new Uint8Array(n);
  for (let y = 0; y < height - 1; y++) {
    for (let x = 0; x < width - 1; x++) {
      const i = y * width + x;
      eroded[i] = pale[i] & pale[i + 1] & pale[i + width] & pale[i + width + 1];
    }
  }
  const opened = new Uint8Array(n);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (!pale[i]) continue;
      opened[i] = eroded[i] | (x > 0 ? eroded[i - 1] : 0) | (y > 0 ? eroded[i - width] : 0) | (x > 0 && y > 0 ? eroded[i - width - 1] : 0);
    }
  }
  // a halo runs along a good part of the outline; short pale pieces (white laces or piping at the
  // edge) are product detail
  let perimeter = 0;
  for (let i = 0; i < n; i++) if (mask[i] && depth[i] <= 1) perimeter++;
  const { labels, components } = labelComponents(opened, width, height, { order: 'area' });
  const keep = new Uint8Array(components.length + 1);
  for (const c of components) if (c.area >= Math.max(30, 0.15 * perimeter)) keep[c.label] = 1;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = opened[i] && keep[labels[i]] ? 1 : 0;
  return out;
}

function round4(v: number): number {
  return Math.round(v * 10000) / 10000;
}
