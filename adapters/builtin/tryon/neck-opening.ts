/**
 * The inside back of a top's neck in its packshot. A front packshot shows, through the neck
 * opening, the inside of the back (usually in shadow, often with a neck label) and the back collar
 * above it; a top worn in a front photo shows the neck there instead. The region is garment in the
 * cut-out's mask (it is cloth, and it closes the outline), so it is labelled apart for the renderer
 * to leave out: the pixels from the garment's top edge down to the front neckline, between the two
 * points where the neckline meets the shoulders.
 *
 * Told by colour: near the middle, below the collar's top, the run of pixels unlike the front's
 * cloth (sampled on the shoulders beside the opening) gives the inside back's colour; the region
 * grows from there through pixels nearer that colour than the front's, within a window at the top
 * middle of the garment, its holes (a neck label) filled. When the inside is not told from the front
 * by colour (a black tee's inside is black too) or the region runs off down the chest, nothing is
 * labelled and the renderer falls back on its own estimate. A V edged by a trim of another colour
 * (a cardigan's placket) whose inside is the front's own colour is followed down between the
 * trims' inner edges to where they meet (trimmedV).
 */
import type { RasterImage } from '../../../core/images.ts';
import { fillHoles } from '../raster/components.ts';
import { srgbToLab } from './color.ts';

function median(v: number[]): number {
  const s = v.slice().sort((a, b) => a - b);
  return s.length ? s[s.length >> 1] : 0;
}

/**
 * 1 = the inside back of the neck (and the back collar above it), or null when none is found.
 * `img`: the packshot (a 3x3 mean of it is best: noise and JPEG blocks averaged out); `mask`: the
 * garment (non-zero), one component.
 */
export function insideBackOfNeck(img: RasterImage, mask: Uint8Array, box: [number, number, number, number]): Uint8Array | null {
  const { width: w, height: h, data } = img;
  const [bx0, by0, bx1, by1] = box;
  const W = bx1 - bx0 + 1;
  const H = by1 - by0 + 1;
  if (W < 40 || H < 40) return null;
  const on = (x: number, y: number) => x >= 0 && y >= 0 && x < w && y < h && mask[y * w + x] !== 0;
  // the middle: the centre of the garment's span two thirds down (below the sleeves)
  const yMid = Math.round(by0 + 0.66 * H);
  let l = bx0;
  let r = bx1;
  while (l < bx1 && !on(l, yMid)) l++;
  while (r > l && !on(r, yMid)) r--;
  const cx = Math.round((l + r) / 2);
  const half = Math.max(10, (r - l) / 2);
  const topOf = (x: number) => {
    let y = by0;
    while (y < by1 && !on(x, y)) y++;
    return y;
  };
  const top = topOf(cx);
  const lab = new Float32Array(w * h * 3).fill(NaN);
  const tmp = [0, 0, 0];
  const labAt = (i: number) => {
    if (Number.isNaN(lab[i * 3])) {
      srgbToLab(data[i * 4], data[i * 4 + 1], data[i * 4 + 2], tmp);
      lab[i * 3] = tmp[0];
      lab[i * 3 + 1] = tmp[1];
      lab[i * 3 + 2] = tmp[2];
    }
    return i * 3;
  };
  const dist = (i: number, c: number[]) => {
    const k = labAt(i);
    return Math.hypot(lab[k] - c[0], lab[k + 1] - c[1], lab[k + 2] - c[2]);
  };
  // the window: the top middle of the garment (a crew, scoop or V neckline ends well above the chest)
  const wx0 = Math.max(0, Math.round(cx - 0.7 * half));
  const wx1 = Math.min(w - 1, Math.round(cx + 0.7 * half));
  const wy1 = Math.min(h - 1, Math.round(top + 0.3 * H));
  // the front's cloth beside the opening: the shoulders' inner parts, a little below their top
  const front: number[][] = [];
  for (const f of [-0.85, -0.78, -0.7, 0.7, 0.78, 0.85]) {
    const x = Math.round(cx + f * half);
    const t = topOf(x);
    if (t >= by1) continue;
    for (let y = t + Math.round(0.03 * H); y < t + 0.08 * H; y += 2) {
      if (!on(x, y)) continue;
      const k = labAt(y * w + x);
      front.push([lab[k], lab[k + 1], lab[k + 2]]);
    }
  }
  if (front.length < 8) return null;
  const frontC = [0, 1, 2].map((c) => median(front.map((p) => p[c])));
  // a printed front (flowers up to the collar) gives no one colour to tell the inside from
  const spread = median(front.map((p) => Math.hypot(p[0] - frontC[0], p[1] - frontC[1], p[2] - frontC[2])));
  if (spread > 8) return null;
  // the inside back's colour: down the middle columns from the top edge, the pixels unlike the front
  const inside: number[][] = [];
  for (let x = cx - Math.round(0.15 * half); x <= cx + 0.15 * half; x += 2) {
    for (let y = topOf(x); y < top + 0.12 * H && y <= wy1; y++) {
      const i = y * w + x;
      if (!mask[i] || dist(i, frontC) < 8) continue;
      const k = labAt(i);
      inside.push([lab[k], lab[k + 1], lab[k + 2]]);
    }
  }
  if (inside.length < 20) return null;
  // the samples mix the inside with the front's rim and a label: their median, then (twice) the
  // median of those nearer it than the front's colour, the inside's own shade
  let insideC = [0, 1, 2].map((c) => median(inside.map((p) => p[c])));
  for (let k = 0; k < 2; k++) {
    const own = inside.filter((p) => Math.hypot(p[0] - insideC[0], p[1] - insideC[1], p[2] - insideC[2]) < Math.hypot(p[0] - frontC[0], p[1] - frontC[1], p[2] - frontC[2]));
    if (own.length < 20) break;
    insideC = [0, 1, 2].map((c) => median(own.map((p) => p[c])));
  }
  const separation = Math.hypot(insideC[0] - frontC[0], insideC[1] - frontC[1], insideC[2] - frontC[2]);
  if (separation < 10) return null;
  // grow from the middle columns' top through pixels clearly nearer the inside's colour than the front's (a
  // darker fold of the front is not),
  // and near it (a front rib of a third colour, a blue trim on a white tee, stays front)
  const near = Math.max(14, 0.6 * separation);
  const region = new Uint8Array(w * h);
  const like = (i: number) => {
    if (!mask[i]) return false;
    const di = dist(i, insideC);
    return di < near && di < 0.6 * dist(i, frontC);
  };
  const queue: number[] = [];
  for (let x = cx - Math.round(0.15 * half); x <= cx + 0.15 * half; x++) {
    for (let y = topOf(x); y < top + 0.12 * H; y++) {
      const i = y * w + x;
      if (!region[i] && like(i)) {
        region[i] = 1;
        queue.push(i);
      }
    }
  }
  let reachedBottom = 0;
  for (let head = 0; head < queue.length; head++) {
    const p = queue[head];
    const x = p % w;
    const y = (p - x) / w;
    if (y === wy1) reachedBottom++;
    for (const [dx, dy] of [[-1, 0], [1, 0], [0, -1], [0, 1]]) {
      const xx = x + dx;
      const yy = y + dy;
      if (xx < wx0 || xx > wx1 || yy < 0 || yy > wy1) continue;
      const q = yy * w + xx;
      if (region[q] || !like(q)) continue;
      region[q] = 1;
      queue.push(q);
    }
  }
  // run off down the chest (the front is of the inside's colour further down): not an opening
  if (reachedBottom > 0.1 * (wx1 - wx0)) return null;
  // the neck label and print specks inside it belong to it; its lower edge (the front neckline) is
  // a smooth curve: per column the region's lowest row, a running median across the columns (a
  // crease or a seam the growth ran down is cut off), and everything of the garment above it (the
  // back collar's rim) goes with it
  const filled = fillHoles(region, w, h);
  const lowest = new Int32Array(wx1 - wx0 + 1).fill(-1);
  for (let x = wx0; x <= wx1; x++) {
    for (let y = wy1; y >= 0; y--) if (filled[y * w + x]) { lowest[x - wx0] = y; break; }
  }
  trimRib(lowest, wx0, cx, half, H, (x, y) => (y >= 0 && mask[y * w + x] ? labAt(y * w + x) : -1), lab, topOf);
  const reach = Math.max(2, Math.round(0.08 * half));
  // a neckline is deepest at the middle: no column ends much below the middle columns' median
  const middle: number[] = [];
  for (let x = Math.round(cx - 0.2 * half); x <= cx + 0.2 * half; x++) if (lowest[x - wx0] >= 0) middle.push(lowest[x - wx0]);
  if (middle.length < 0.2 * half) return null;
  const deepest = median(middle) + 0.02 * H;
  const out = new Uint8Array(w * h);
  let area = 0;
  let span = 0;
  for (let x = wx0; x <= wx1; x++) {
    const win: number[] = [];
    for (let k = x - reach; k <= x + reach; k++) if (k >= wx0 && k <= wx1) win.push(lowest[k - wx0]);
    const end = Math.min(deepest, median(win));
    if (end < 0 || lowest[x - wx0] < 0) continue;
    span++;
    for (let y = 0; y <= end; y++) {
      const i = y * w + x;
      if (mask[i]) { out[i] = 1; area++; }
    }
  }
  // an opening spans a fair part of the middle (not a neck label alone) and not most of the chest
  if (span < 0.6 * half || area > 0.08 * W * H) return null;
  trimmedV(out, mask, w, cx, half, H, Math.round(deepest), (i) => {
    const k = labAt(i);
    return [lab[k], lab[k + 1], lab[k + 2]];
  }, frontC);
  return out;
}

/**
 * A trim's colour: this far from the front's cloth (ΔE76 with lightness at half weight: a knit's
 * shading and its inside's shade stay near), and each side's trim within TRIM_MATCH of the other's.
 */
const TRIM_FAR = 12;
const TRIM_MATCH = 12;

/**
 * A V neck edged by a trim of another colour (a cardigan's placket, a knitted V band): its inside
 * back is often the front's own colour, and the colour test above finds only the back collar. Below
 * it, per row, the trim is met from each side (scanning in from the front's cloth beside the
 * neck): what lies between the two trims' inner edges is the opening, down to where they meet.
 * Taken (added to `out`) only when both sides show a trim of one colour on at least 80 % of the
 * rows, over at least a tenth of the garment's height, and the opening narrows downwards (a V).
 */
function trimmedV(out: Uint8Array, mask: Uint8Array, w: number, cx: number, half: number, H: number, from: number, labOf: (i: number) => number[], frontC: number[]): void {
  const d = (a: number[], b: number[]) => Math.hypot(0.5 * (a[0] - b[0]), a[1] - b[1], a[2] - b[2]);
  const far = (i: number) => !!mask[i] && d(labOf(i), frontC) > TRIM_FAR;
  // the trim on one side: in from `start` (the front's cloth), the first run of 3 trim pixels (its
  // outer edge), then its end (the inner edge); null when none before the middle
  const trimAt = (y: number, side: -1 | 1, start: number): { outer: number; x: number; c: number[] } | null => {
    let x = start;
    // from the cloth's outline in the row (the shoulder's slope), a few pixels in
    while (Math.abs(x - cx) > 1 && !mask[y * w + x]) x -= side;
    x -= 3 * side;
    if (Math.abs(x - cx) <= 1 || far(y * w + x)) return null;
    while (Math.abs(x - cx) > 1 && !(far(y * w + x) && far(y * w + x - side) && far(y * w + x - 2 * side))) x -= side;
    if (Math.abs(x - cx) <= 1) return null;
    const c = labOf(y * w + x - side);
    let e = x;
    while (Math.abs(e - cx) > 0 && far(y * w + e - side) && d(labOf(y * w + e - side), c) < TRIM_MATCH) e -= side;
    return { outer: x, x: e, c };
  };
  const rows: { y: number; l: number; r: number }[] = [];
  // each row's scan starts a little outside the trim the row above found (the V's edges run in
  // towards the middle), the first row's at the cloth's outline
  const start = { l: Math.round(cx - 0.7 * half), r: Math.round(cx + 0.7 * half) };
  let misses = 0;
  for (let y = from + 1; y < from + 0.6 * H && misses <= 3; y++) {
    const l = trimAt(y, -1, start.l);
    const r = trimAt(y, 1, start.r);
    if (!l || !r || d(l.c, r.c) > TRIM_MATCH) { misses++; continue; }
    if (r.x - l.x < 2) break;
    rows.push({ y, l: l.x, r: r.x });
    start.l = l.outer - 8;
    start.r = r.outer + 8;
    misses = 0;
  }
  if (rows.length < 0.1 * H || rows.length < 0.8 * (rows[rows.length - 1].y - from)) return;
  const top = rows.slice(0, 5);
  const bottom = rows.slice(-5);
  const width = (v: typeof rows) => v.reduce((a, q) => a + q.r - q.l, 0) / v.length;
  if (width(bottom) > 0.6 * width(top)) return;
  for (let k = 0; k < rows.length; k++) {
    const { y, l, r } = rows[k];
    for (let x = l; x <= r; x++) if (mask[y * w + x]) out[y * w + x] = 1;
    // a row the trims' test missed (a label, a button) between two it found: bridged
    const next = rows[k + 1];
    for (let yy = y + 1; next && yy < next.y; yy++) for (let x = Math.max(l, next.l); x <= Math.min(r, next.r); x++) if (mask[yy * w + x]) out[yy * w + x] = 1;
  }
}

/**
 * A rib (binding) along the front neckline in the inside's colour family (a dark purple rib on a
 * lilac tee with a dark inside) grows into the region with the inside back, and a worn top would
 * lose it. It shows as a step in colour a little above the region's lower edge, at about the same
 * height in most of the middle columns: then a band of that width is given back to the front (the
 * region's lowest row per column raised by it, in place). Only a thin band (at most 2.5 % of the
 * garment's height and under a third of the opening's depth in the middle) counts as a rib.
 */
function trimRib(lowest: Int32Array, wx0: number, cx: number, half: number, H: number, labIndex: (x: number, y: number) => number, lab: Float32Array, topOf: (x: number) => number): void {
  const band = Math.max(4, Math.round(0.04 * H));
  const meanLab = (x: number, ya: number, yb: number) => {
    const m = [0, 0, 0];
    let c = 0;
    for (let y = ya; y <= yb; y++) {
      const k = labIndex(x, y);
      if (k < 0) continue;
      m[0] += lab[k];
      m[1] += lab[k + 1];
      m[2] += lab[k + 2];
      c++;
    }
    return c ? m.map((v) => v / c) : null;
  };
  const ribs: number[] = [];
  const depths: number[] = [];
  let middleCols = 0;
  for (let x = Math.round(cx - 0.4 * half); x <= cx + 0.4 * half; x++) {
    const lo = lowest[x - wx0];
    if (lo === undefined || lo < 0) continue;
    middleCols++;
    depths.push(lo - topOf(x));
    let best = 0;
    let at = -1;
    for (let y = lo - 2; y >= lo - band; y--) {
      const below = meanLab(x, y, y + 2);
      const above = meanLab(x, y - 3, y - 1);
      if (!below || !above) continue;
      const d = Math.hypot(below[0] - above[0], below[1] - above[1], below[2] - above[2]);
      if (d > best) {
        best = d;
        at = y;
      }
    }
    if (best > 4 && at >= 0) ribs.push(lo - at + 1);
  }
  if (!middleCols || ribs.length < 0.5 * middleCols) return;
  const sorted = (v: number[]) => v.slice().sort((a, b) => a - b);
  const rib = sorted(ribs)[ribs.length >> 1];
  const depth = sorted(depths)[depths.length >> 1];
  const agree = ribs.filter((r) => Math.abs(r - rib) <= 2).length;
  if (agree < 0.6 * ribs.length || rib < 3 || rib > 0.025 * H || rib > 0.3 * depth) return;
  for (let k = 0; k < lowest.length; k++) if (lowest[k] >= 0) lowest[k] -= rib;
}
