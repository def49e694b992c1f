import type { TexturePainter, TexturePaintInput, TexturePaintResult } from '../../../core/ports/texture-painter.ts';
import { labelComponents } from '../raster/components.ts';

/** Pixels of surroundings matched around a painted region when choosing where its detail comes from. */
const RING = 6;
/** Width of the seam band where the result fades into the untouched texture. */
const FEATHER = 3;
/** Strokes closer than this share one detail source. */
const JOIN = 2;
/** Box radius of the detail split (three passes: a Gaussian of sigma about 2.4 px). */
const DETAIL_RADIUS = 2;
const RING_SAMPLES = 600;
const REGION_SAMPLES = 300;
/** Candidate offsets per axis on each side in the coarse search. */
const SEARCH_STEPS = 20;

/** Where a texture continues past its edges, and index arithmetic that honours it. */
class Lattice {
  readonly w: number;
  readonly h: number;
  readonly wx: boolean;
  readonly wy: boolean;
  constructor(w: number, h: number, wx: boolean, wy: boolean) {
    this.w = w;
    this.h = h;
    this.wx = wx;
    this.wy = wy;
  }
  /** Index of (x, y), wrapped where the texture tiles; -1 outside. */
  at(x: number, y: number): number {
    if (x < 0 || x >= this.w) {
      if (!this.wx) return -1;
      x = ((x % this.w) + this.w) % this.w;
    }
    if (y < 0 || y >= this.h) {
      if (!this.wy) return -1;
      y = ((y % this.h) + this.h) % this.h;
    }
    return y * this.w + x;
  }
}

/** One pass of a box sum along rows (zero or wrapped past the edges), over `chans` arrays at once. */
function boxRows(chans: Float32Array[], g: Lattice, r: number): void {
  const { w, h } = g;
  const padded = new Float32Array(w + 2 * r + 1);
  for (const src of chans) {
    for (let y = 0; y < h; y++) {
      const o = y * w;
      padded.fill(0);
      padded.set(src.subarray(o, o + w), r);
      if (g.wx) for (let k = 0; k < r; k++) {
        padded[k] = padded[w + k];
        padded[w + r + k] = padded[r + k];
      }
      let sum = 0;
      for (let k = 0; k <= 2 * r; k++) sum += padded[k];
      for (let k = 0; k < w; k++) {
        src[o + k] = sum;
        sum += padded[k + 2 * r + 1] - padded[k];
      }
    }
  }
}

/** The same along columns, a row at a time (running column sums keep memory access sequential). */
function boxColumns(chans: Float32Array[], g: Lattice, r: number): void {
  const { w, h } = g;
  const row = (src: Float32Array, y: number) => {
    if (y < 0 || y >= h) {
      if (!g.wy) return null;
      y = ((y % h) + h) % h;
    }
    return src.subarray(y * w, y * w + w);
  };
  const sums = new Float32Array(w);
  for (const src of chans) {
    const copy = Float32Array.from(src);
    sums.fill(0);
    for (let y = -r; y <= r; y++) {
      const rr = row(copy, y);
      if (rr) for (let x = 0; x < w; x++) sums[x] += rr[x];
    }
    for (let y = 0; y < h; y++) {
      src.set(sums, y * w);
      const add = row(copy, y + r + 1), sub = row(copy, y - r);
      if (add) for (let x = 0; x < w; x++) sums[x] += add[x];
      if (sub) for (let x = 0; x < w; x++) sums[x] -= sub[x];
    }
  }
}

/**
 * Weighted blur of RGB (three box passes per axis): pixels of weight 0 contribute nothing, so
 * transparent texels and painted strokes never bleed into what is measured from the rest.
 */
function weightedBlur(rgb: Float32Array[], weight: Float32Array, g: Lattice, r: number, passes = 3): Float32Array[] {
  const n = g.w * g.h;
  const chans = [...rgb.map((c) => {
    const out = new Float32Array(n);
    for (let i = 0; i < n; i++) out[i] = c[i] * weight[i];
    return out;
  }), Float32Array.from(weight)];
  for (let p = 0; p < passes; p++) {
    boxRows(chans, g, r);
    boxColumns(chans, g, r);
  }
  const wsum = chans[3];
  return chans.slice(0, 3).map((c) => {
    for (let i = 0; i < n; i++) c[i] = wsum[i] > 1e-6 ? c[i] / wsum[i] : 0;
    return c;
  });
}

const FORWARD: [number, number, number][] = [[-1, -1, Math.SQRT2], [0, -1, 1], [1, -1, Math.SQRT2], [-1, 0, 1]];
const BACKWARD: [number, number, number][] = [[1, 0, 1], [-1, 1, Math.SQRT2], [0, 1, 1], [1, 1, Math.SQRT2]];

/**
 * Chamfer distance (1, √2) to the nearest seed, carrying the seed's label. Wrapped textures take
 * a second round so distances also travel across the seams.
 */
function chamfer(seed: Uint8Array, g: Lattice, labelsIn?: Int32Array): { dist: Float32Array; label: Int32Array } {
  const { w, h } = g;
  const n = w * h;
  const dist = new Float32Array(n).fill(Infinity);
  const label = new Int32Array(n);
  for (let i = 0; i < n; i++) if (seed[i]) {
    dist[i] = 0;
    label[i] = labelsIn ? labelsIn[i] : 1;
  }
  const D = Math.SQRT2;
  const edge = (x: number, y: number, nb: [number, number, number][]) => {
    const i = y * w + x;
    for (const [dx, dy, c] of nb) {
      const j = g.at(x + dx, y + dy);
      if (j >= 0 && dist[j] + c < dist[i]) {
        dist[i] = dist[j] + c;
        label[i] = label[j];
      }
    }
  };
  const take = (i: number, j: number, c: number) => {
    const d = dist[j] + c;
    if (d < dist[i]) {
      dist[i] = d;
      label[i] = label[j];
    }
  };
  const rounds = g.wx || g.wy ? 2 : 1;
  for (let r = 0; r < rounds; r++) {
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        if (y === 0 || x === 0 || x === w - 1) {
          edge(x, y, FORWARD);
          continue;
        }
        const i = y * w + x;
        take(i, i - w - 1, D);
        take(i, i - w, 1);
        take(i, i - w + 1, D);
        take(i, i - 1, 1);
      }
    }
    for (let y = h - 1; y >= 0; y--) {
      for (let x = w - 1; x >= 0; x--) {
        if (y === h - 1 || x === 0 || x === w - 1) {
          edge(x, y, BACKWARD);
          continue;
        }
        const i = y * w + x;
        take(i, i + 1, 1);
        take(i, i + w - 1, D);
        take(i, i + w, 1);
        take(i, i + w + 1, D);
      }
    }
  }
  return { dist, label };
}

/**
 * Pull-push interpolation: fills the pixels where `known` is 0 with a smooth membrane of the known
 * values (a pyramid of weighted averages, then bilinear upsampling into the holes).
 */
function pullPush(rgb: Float32Array[], known: Uint8Array, g: Lattice): Float32Array[] {
  interface Level { w: number; h: number; v: Float32Array[]; a: Float32Array }
  const a0 = new Float32Array(known.length);
  for (let i = 0; i < known.length; i++) a0[i] = known[i] ? 1 : 0;
  const levels: Level[] = [{ w: g.w, h: g.h, v: rgb.map((c) => Float32Array.from(c)), a: a0 }];
  while (levels[levels.length - 1].w > 1 || levels[levels.length - 1].h > 1) {
    const f = levels[levels.length - 1];
    const w = Math.ceil(f.w / 2), h = Math.ceil(f.h / 2);
    const c: Level = { w, h, v: [new Float32Array(w * h), new Float32Array(w * h), new Float32Array(w * h)], a: new Float32Array(w * h) };
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        let sa = 0, s0 = 0, s1 = 0, s2 = 0;
        for (let dy = 0; dy < 2; dy++) for (let dx = 0; dx < 2; dx++) {
          const fx = 2 * x + dx, fy = 2 * y + dy;
          if (fx >= f.w || fy >= f.h) continue;
          const i = fy * f.w + fx, a = f.a[i];
          sa += a; s0 += a * f.v[0][i]; s1 += a * f.v[1][i]; s2 += a * f.v[2][i];
        }
        const o = y * w + x;
        c.a[o] = Math.min(1, sa);
        if (sa > 0) { c.v[0][o] = s0 / sa; c.v[1][o] = s1 / sa; c.v[2][o] = s2 / sa; }
      }
    }
    levels.push(c);
  }
  for (let l = levels.length - 2; l >= 0; l--) {
    const f = levels[l], c = levels[l + 1];
    const cg = new Lattice(c.w, c.h, g.wx, g.wy);
    const sample = (ch: number, x: number, y: number) => {
      const i = cg.at(x, y);
      return i >= 0 ? c.v[ch][i] : c.v[ch][Math.min(c.h - 1, Math.max(0, y)) * c.w + Math.min(c.w - 1, Math.max(0, x))];
    };
    for (let y = 0; y < f.h; y++) {
      for (let x = 0; x < f.w; x++) {
        const i = y * f.w + x, a = f.a[i];
        if (a >= 1) continue;
        const cx = (x + 0.5) / 2 - 0.5, cy = (y + 0.5) / 2 - 0.5;
        const x0 = Math.floor(cx), y0 = Math.floor(cy), tx = cx - x0, ty = cy - y0;
        for (let ch = 0; ch < 3; ch++) {
          const up = (sample(ch, x0, y0) * (1 - tx) + sample(ch, x0 + 1, y0) * tx) * (1 - ty) + (sample(ch, x0, y0 + 1) * (1 - tx) + sample(ch, x0 + 1, y0 + 1) * tx) * ty;
          f.v[ch][i] = a * f.v[ch][i] + (1 - a) * up;
        }
        f.a[i] = 1;
      }
    }
  }
  return levels[0].v;
}

/** Every k-th entry so that at most `max` remain (deterministic). */
function stride(list: Int32Array, max: number): Int32Array {
  if (list.length <= max) return list;
  const out = new Int32Array(max);
  for (let k = 0; k < max; k++) out[k] = list[Math.floor((k * list.length) / max)];
  return out;
}

interface Region {
  pixels: Int32Array;
  ring: Int32Array;
  extent: number;
}

/**
 * The offset from which a region copies its detail: the shift whose surroundings best match the
 * region's own surroundings (sum of squared detail differences), with the whole region landing on
 * usable texture. Coarse grid, then one-pixel refinement. Null when nothing usable is in reach.
 */
function findOffset(reg: Region, detail: Float32Array[], source: Uint8Array, g: Lattice): [number, number] | null {
  const ring = stride(reg.ring, RING_SAMPLES), inside = stride(reg.pixels, REGION_SAMPLES);
  if (!ring.length) return null;
  const range = Math.max(1, Math.min(Math.floor(Math.max(g.w, g.h) / 2), Math.max(32, 3 * reg.extent)));
  const step = Math.max(1, Math.ceil(range / SEARCH_STEPS));
  const shift = (p: number, dx: number, dy: number) => g.at((p % g.w) + dx, Math.floor(p / g.w) + dy);
  const score = (dx: number, dy: number): number => {
    let bad = 0;
    for (const p of inside) {
      const q = shift(p, dx, dy);
      if (q < 0 || !source[q]) bad++;
    }
    if (bad > inside.length * 0.05) return Infinity;
    let sum = 0, used = 0;
    for (const p of ring) {
      const q = shift(p, dx, dy);
      if (q < 0 || !source[q]) continue;
      used++;
      for (let c = 0; c < 3; c++) {
        const d = detail[c][p] - detail[c][q];
        sum += d * d;
      }
    }
    if (used < ring.length * 0.8) return Infinity;
    // nearer sources win ties: texture nearby is the most alike in what the ring cannot show
    return sum / used + (1e-3 * (dx * dx + dy * dy)) / (range * range);
  };
  let best: [number, number] | null = null;
  let bestScore = Infinity;
  const consider = (dx: number, dy: number) => {
    if (dx === 0 && dy === 0) return;
    const s = score(dx, dy);
    if (s < bestScore) { bestScore = s; best = [dx, dy]; }
  };
  for (let dy = -range; dy <= range; dy += step) for (let dx = -range; dx <= range; dx += step) consider(dx, dy);
  if (best && step > 1) {
    const [bx, by] = best as [number, number];
    for (let dy = by - step + 1; dy < by + step; dy++) for (let dx = bx - step + 1; dx < bx + step; dx++) consider(dx, dy);
  }
  return best;
}

const smoothstep = (t: number) => {
  const x = Math.min(1, Math.max(0, t));
  return x * x * (3 - 2 * x);
};

function throwIfAborted(signal?: AbortSignal) {
  if (signal?.aborted) throw signal.reason ?? new Error('aborted');
}

/**
 * Seam-aware texture inpainting and detail transfer, all classical and deterministic:
 * 1. the texture splits into a smooth base and its detail (weighted blur over usable texels only:
 *    opaque and not painted), honouring wrapped edges;
 * 2. painted strokes closer than 2 px form regions (joined across wrapped seams); each region takes
 *    its detail from the offset whose surroundings match its own surroundings best;
 * 3. `blend` keeps the painted colour (smoothed within the stroke) and adds the transferred detail;
 *    `inpaint` rebuilds the base from the surroundings (pull-push) and adds the transferred detail;
 * 4. a 3 px seam band fades the result into the texture (inside the stroke for `blend`, outside it
 *    for `inpaint`), so no edge shows where the region meets the texture or a wrapped seam.
 */
export class BuiltinTexturePainter implements TexturePainter {
  async enhance(input: TexturePaintInput): Promise<TexturePaintResult> {
    const { texture, mask, mode, signal } = input;
    const { width: w, height: h, data } = texture;
    const n = w * h;
    if (mask.length !== n) throw new RangeError('mask and texture differ in size');
    const g = new Lattice(w, h, input.wrap === 'x' || input.wrap === 'xy', input.wrap === 'y' || input.wrap === 'xy');
    const painted = new Uint8Array(n);
    const source = new Uint8Array(n);
    const rgb = [new Float32Array(n), new Float32Array(n), new Float32Array(n)];
    for (let i = 0; i < n; i++) {
      const opaque = data[i * 4 + 3] > 0;
      painted[i] = mask[i] && opaque ? 1 : 0;
      source[i] = opaque && !mask[i] ? 1 : 0;
      for (let c = 0; c < 3; c++) rgb[c][i] = data[i * 4 + c];
    }
    const asWeight = (m: Uint8Array) => {
      const f = new Float32Array(n);
      for (let i = 0; i < n; i++) f[i] = m[i];
      return f;
    };
    const base = weightedBlur(rgb, asWeight(source), g, DETAIL_RADIUS);
    const detail = rgb.map((c, k) => {
      const d = new Float32Array(n);
      for (let i = 0; i < n; i++) if (source[i]) d[i] = c[i] - base[k][i];
      return d;
    });
    throwIfAborted(signal);

    // regions: strokes joined within JOIN px, and across wrapped seams
    const near = chamfer(painted, g).dist;
    const joined = new Uint8Array(n);
    for (let i = 0; i < n; i++) joined[i] = near[i] <= JOIN ? 1 : 0;
    const { labels } = labelComponents(joined, w, h);
    const parent = new Int32Array(labels.reduce((m, l) => Math.max(m, l), 0) + 1).map((_, i) => i);
    const find = (a: number): number => (parent[a] === a ? a : (parent[a] = find(parent[a])));
    const union = (i: number, j: number) => {
      if (labels[i] && labels[j]) parent[find(labels[i])] = find(labels[j]);
    };
    if (g.wx) for (let y = 0; y < h; y++) union(y * w, y * w + w - 1);
    if (g.wy) for (let x = 0; x < w; x++) union(x, (h - 1) * w + x);
    const regionOf = new Int32Array(n);
    const ids = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      if (!painted[i]) continue;
      const root = find(labels[i]);
      if (!ids.has(root)) ids.set(root, ids.size + 1);
      regionOf[i] = ids.get(root)!;
    }
    const count = ids.size;
    const result = { width: w, height: h, data: Uint8Array.from(data) };
    if (!count) return { texture: result, regions: 0 };

    const outside = chamfer(painted, g, regionOf);
    const unpainted = new Uint8Array(n);
    for (let i = 0; i < n; i++) unpainted[i] = painted[i] ? 0 : 1;
    const inside = chamfer(unpainted, g).dist;
    throwIfAborted(signal);

    // pixels and surroundings of each region
    const sizes = new Int32Array(count + 1), ringSizes = new Int32Array(count + 1);
    for (let i = 0; i < n; i++) {
      if (painted[i]) sizes[regionOf[i]]++;
      else if (source[i] && outside.dist[i] <= RING) ringSizes[outside.label[i]]++;
    }
    const regions: Region[] = [];
    for (let r = 1; r <= count; r++) regions.push({ pixels: new Int32Array(sizes[r]), ring: new Int32Array(ringSizes[r]), extent: 0 });
    const fill = new Int32Array(count + 1), ringFill = new Int32Array(count + 1);
    const box = Array.from({ length: count + 1 }, () => [w, h, -1, -1]);
    for (let i = 0; i < n; i++) {
      if (painted[i]) {
        const r = regionOf[i];
        regions[r - 1].pixels[fill[r]++] = i;
        const b = box[r], x = i % w, y = Math.floor(i / w);
        if (x < b[0]) b[0] = x;
        if (y < b[1]) b[1] = y;
        if (x > b[2]) b[2] = x;
        if (y > b[3]) b[3] = y;
      } else if (source[i] && outside.dist[i] <= RING) {
        const r = outside.label[i];
        regions[r - 1].ring[ringFill[r]++] = i;
      }
    }
    regions.forEach((reg, k) => (reg.extent = Math.max(box[k + 1][2] - box[k + 1][0], box[k + 1][3] - box[k + 1][1]) + 1));
    const offsets = regions.map((reg) => {
      throwIfAborted(signal);
      return findOffset(reg, detail, source, g);
    });

    // the smooth layer under the result: the painted colour, or the surroundings pulled in
    const smooth = mode === 'blend' ? weightedBlur(rgb, asWeight(painted), g, 1, 2) : pullPush(base, source, g);
    throwIfAborted(signal);
    const gain = Math.min(2, Math.max(0, input.detail));
    const write = (i: number, region: number, weight: number) => {
      const off = offsets[region - 1];
      const q = off ? g.at((i % w) + off[0], Math.floor(i / w) + off[1]) : -1;
      for (let c = 0; c < 3; c++) {
        const d = q >= 0 && source[q] ? detail[c][q] : 0;
        const target = smooth[c][i] + gain * d;
        const v = data[i * 4 + c] + weight * (target - data[i * 4 + c]);
        result.data[i * 4 + c] = Math.min(255, Math.max(0, Math.round(v)));
      }
    };
    for (let i = 0; i < n; i++) {
      if (painted[i]) write(i, regionOf[i], mode === 'blend' ? smoothstep(inside[i] / FEATHER) : 1);
      else if (mode === 'inpaint' && source[i] && outside.dist[i] <= FEATHER) write(i, outside.label[i], 1 - smoothstep(outside.dist[i] / (FEATHER + 1)));
    }
    return { texture: result, regions: count };
  }
}
