import type { RasterImage } from '../../../core/images.ts';
import { createRaster } from '../../../core/images.ts';
import { backgroundDifference, estimateBackground } from './background.ts';
import { fillHoles, labelComponents } from '../raster/components.ts';
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
 * (low-contrast, reachable from the background through soft transitions, shadows neutral in hue)
 * and halos (a thin pale layer hugging the outline, left by an earlier cutout). Shadows and
 * reflections are removed by a flood from the background that may only take small luminance
 * steps into low-contrast pixels, so the hard edges of the product stop it; halos by an opening of
 * the "pale outer layer" set, which keeps the one-pixel anti-aliased edge but removes wider
 * fringes that run along a good part of the outline (short pale pieces are product detail).
 * A shadow darker than a white sole it touches cannot be told apart by these cues; its
 * core then stays with the product.
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

  const raw = new Uint8Array(n);
  for (let i = 0; i < n; i++) raw[i] = diff.delta[i] > tLo ? 1 : 0;

  // 1. shadows and reflections: flood from the background through soft, low-contrast pixels
  const ghost = new Uint8Array(n);
  // `run`: consecutive steps without darkening on the path that reached a pixel (Infinity = unreached)
  const run = new Float32Array(n).fill(Infinity);
  const queue: number[] = [];
  for (let i = 0; i < n; i++) if (!raw[i]) { run[i] = 0; queue.push(i); }
  for (let qh = 0; qh < queue.length; qh++) {
    const p = queue[qh];
    const x = p % width, y = (p - x) / width;
    for (let k = 0; k < 4; k++) {
      const xx = x + (k === 0 ? -1 : k === 1 ? 1 : 0), yy = y + (k === 2 ? -1 : k === 3 ? 1 : 0);
      if (xx < 0 || yy < 0 || xx >= width || yy >= height) continue;
      const q = yy * width + xx;
      if (!raw[q]) continue;
      const d = diff.delta[q];
      if (d >= tShadow) continue;
      const dl = diff.lum[q] - diff.lum[p];
      if (Math.abs(dl) > step) continue;
      if (d >= tFaint && diff.chroma[q] > 0.04) continue; // stronger ghosts must be neutral (shadows)
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
      ghost[q] = 1;
      queue.push(q);
    }
  }
  let mask: Uint8Array = new Uint8Array(n);
  let shadowCount = 0;
  for (let i = 0; i < n; i++) {
    mask[i] = raw[i] && !ghost[i] ? 1 : 0;
    if (raw[i] && ghost[i]) shadowCount++;
  }
  mask = fillHoles(mask, width, height);

  // 2. halo: a pale layer (much closer to the background than the interior next to it) at least
  // two pixels wide along the outline
  const halo = haloPixels(mask, diff.delta, width, height, tGhost);
  let haloCount = 0;
  for (let i = 0; i < n; i++) if (halo[i]) { mask[i] = 0; haloCount++; }

  // 3. connected components: drop specks, keep every significant part
  const { labels, components } = labelComponents(mask, width, height, { order: 'area' });
  const largest = components[0]?.area ?? 0;
  const minArea = Math.max(16, largest * 0.002);
  const keep = new Set(components.filter((c) => c.area >= minArea).map((c) => c.label));
  let speckCount = 0;
  for (let i = 0; i < n; i++) {
    if (mask[i] && !keep.has(labels[i])) { mask[i] = 0; speckCount++; }
  }
  const significant = components.filter((c) => c.area >= Math.max(minArea, largest * 0.03)).length;

  // 4. alpha matte: interior opaque; the outer two pixels get coverage from their contrast against
  // the nearby interior, and their colour is un-mixed from the background
  const image = createRaster(width, height, [255, 255, 255, 0]);
  const inside = distanceTransform(mask, width, height, 'unset');
  const interior = new Float32Array(n);
  for (let i = 0; i < n; i++) interior[i] = mask[i] && inside[i] > 2.5 ? diff.delta[i] : 0;
  const near = maxFilter(interior, width, height, 4);
  const bgc = [0, 0, 0];
  let alphaSum = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (!mask[i]) continue;
      let a = 1;
      if (inside[i] <= 2.5 && near[i] > tLo) a = Math.min(1, Math.max(0.15, diff.delta[i] / near[i]));
      const o = i * 4;
      bg.surface.at(x, y, bgc);
      for (let c = 0; c < 3; c++) {
        const v = img.data[o + c];
        image.data[o + c] = a < 1 ? clamp255(bgc[c] + (v - bgc[c]) / a) : v;
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

function haloPixels(mask: Uint8Array, delta: Float32Array, width: number, height: number, tGhost: number): Uint8Array {
  const n = width * height;
  const depth = distanceTransform(mask, width, height, 'unset');
  const layer = 7;
  const interior = new Float32Array(n);
  for (let i = 0; i < n; i++) interior[i] = mask[i] && depth[i] > layer ? delta[i] : 0;
  const near = maxFilter(interior, width, height, layer + 3);
  const pale = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    pale[i] = mask[i] && depth[i] <= layer && delta[i] < tGhost && near[i] > 0 && delta[i] < 0.5 * near[i] ? 1 : 0;
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
