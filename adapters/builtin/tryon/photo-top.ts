/**
 * A top on a person photo (learned parsing available): the packshot's body panel is laid by a quad
 * mesh onto the person's torso between the shoulder line and the hem, at one scale along and across
 * so its print keeps its proportions (the person's own top is covered: a new top shorter than it is
 * lengthened to its hem), each sleeve is laid along its arm
 * (shoulder, elbow, wrist), and nothing is drawn over the face, the hair, arms in front of the
 * torso or the background beyond a thin margin around the person. What stays visible of the old
 * top (straps, armholes, a higher neckline) is repainted with skin or background afterwards.
 */
import type { RasterImage } from '../../../core/images.ts';
import { PERSON_PART, type PersonBody } from '../../../core/ports/person-analyzer.ts';
import type { Point } from '../../../core/twins/body.ts';
import { labelComponents, largestComponent } from '../raster/components.ts';
import { distanceTransform } from '../raster/distance-transform.ts';
import { dilate, open } from '../raster/morphology.ts';
import { grownBounds, maskBounds } from '../raster/mask.ts';
import { boxBlur } from './box-blur.ts';
import { hipsMiddle } from './body-frame.ts';
import { deltaE76, SRGB_TO_LINEAR, srgbToLab } from './color.ts';
import { matteLayer, patchHoles } from './matte.ts';
import { createWarpMaps, type WarpMaps } from './warp-quality.ts';
import { createQuadMesh, rasteriseMesh } from './mesh-warp.ts';
import { prepareSource, sampleBilinear, type GarmentSource } from './garment-source.ts';
import type { GarmentCutout } from './segment-garment.ts';
import { putSample, type Layer } from './warp-piece.ts';
import { findOldTop, palette as labPalette } from './photo-fill.ts';

const mid = (a: Point, b: Point): Point => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });
const median = (v: number[]) => {
  const s = v.slice().sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : 0;
};

/**
 * One sleeve of the packshot: its axis from the shoulder seam (`start`, unit direction `dir`) to
 * the cuff, its reach and length along that axis and, in `bins` equal steps of its reach, the
 * offset of its middle across the axis and its half width (packshot pixels).
 */
interface SleeveShape {
  side: -1 | 1;
  start: Point;
  dir: Point;
  /** How far the sleeve's pixels reach along the axis (the bins span this). */
  reach: number;
  /** Seam to the middle of the opening. */
  length: number;
  bins: { centre: number; half: number }[];
}

/** The packshot's body panel and sleeves, from the garment's mask. */
interface TopShape {
  centre: number;
  halfWidth: number;
  shoulderY: number;
  hemY: number;
  sleeves: SleeveShape[];
}

/** Output rows between the panel mesh's rows, and its nodes across. */
const PANEL_STEP = 6;
const PANEL_COLS = 11;
/** How far the panel's scale across may differ from its scale along (the print's aspect kept within it). */
const ASPECT_SLACK = 1.12;
/** The same at the collar, where the cloth spans the shoulders (wider than the chest below them). */
const SHOULDER_SLACK = 1.5;

/**
 * How much narrower across than along a sleeve's packshot may be laid on the arm (a flat sleeve
 * seen round an arm shows about 2/pi of its width, and a loose one drapes: up to this is a
 * sleeve's; beyond it a bell sleeve's pleats and a sleeve's print would be narrowed).
 */
const SLEEVE_SQUEEZE = 1.6;

/** Bins along a packshot sleeve. */
const SLEEVE_BINS = 24;
/**
 * The arm from the shoulder to the wrist is about this many times the garment's flat body width
 * (a long sleeve, shoulder seam to cuff, about 65 cm on a 50 cm wide top): a sleeve's share of
 * the arm is its length over this (a T-shirt's sleeve about a third).
 */
const ARM_PER_BODY_WIDTH = 1.3;

/**
 * Median over the rows of the first and last pixel unlike the packshot's backdrop (its border's
 * median colour, ΔE76 over 14) within the columns given, ignoring single specks.
 */
function printSpan(img: RasterImage, x0: number, x1: number, y0: number, y1: number): { left: number; right: number } | null {
  const { width: w, height: h, data } = img;
  const lab = [0, 0, 0];
  const border: number[][] = [];
  const step = Math.max(1, Math.round(Math.max(w, h) / 200));
  const labAt = (i: number) => Array.from(srgbToLab(data[i * 4], data[i * 4 + 1], data[i * 4 + 2], lab));
  for (let x = 0; x < w; x += step) border.push(labAt(x), labAt((h - 1) * w + x));
  for (let y = 0; y < h; y += step) border.push(labAt(y * w), labAt(y * w + w - 1));
  const bg = [0, 1, 2].map((c) => median(border.map((p) => p[c])));
  const unlike = (x: number, y: number) => deltaE76(srgbToLab(data[(y * w + x) * 4], data[(y * w + x) * 4 + 1], data[(y * w + x) * 4 + 2], lab), bg) > 14;
  const lefts: number[] = [];
  const rights: number[] = [];
  for (let y = y0; y <= y1; y += 2) {
    let l = x0;
    while (l + 2 <= x1 && !(unlike(l, y) && unlike(l + 1, y) && unlike(l + 2, y))) l++;
    let r = x1;
    while (r - 2 > l && !(unlike(r, y) && unlike(r - 1, y) && unlike(r - 2, y))) r--;
    if (r - l > 8) {
      lefts.push(l);
      rights.push(r);
    }
  }
  return lefts.length ? { left: median(lefts), right: median(rights) } : null;
}

/**
 * Where a top's outline, walking out along its upper edge from halfway between the middle and the
 * panel's side (past the collar), turns down steeper than 45 degrees (a shoulder's slope is gentler;
 * the outer edge of a sleeve hanging from the shoulder seam is steeper): that column, or null when
 * it never does within the garment's box.
 */
function shoulderPoint(on: (x: number, y: number) => boolean, bx0: number, bx1: number, by0: number, by1: number, centre: number, halfWidth: number, side: -1 | 1): number | null {
  const k = Math.max(3, Math.round(0.015 * (bx1 - bx0)));
  const topAt = (x: number) => {
    let y = by0;
    while (y < by1 && !on(x, y)) y++;
    return y;
  };
  for (let x = Math.round(centre + side * 0.5 * halfWidth); side < 0 ? x - k >= bx0 : x + k <= bx1; x += side) {
    // over two steps of k columns, so a single notch in the outline does not decide it
    const a = topAt(x);
    const b = topAt(x + side * k);
    const c = topAt(x + 2 * side * k);
    if (b - a > k && c - b > k) return x;
  }
  return null;
}

function topShape(cut: GarmentCutout, packshot?: RasterImage): TopShape | null {
  const w = cut.image.width;
  const on = (x: number, y: number) => cut.labels[y * w + x] === 0;
  const [bx0, by0, bx1, by1] = cut.components[0]?.box ?? [0, 0, 0, 0];
  const H = by1 - by0;
  if (H < 8 || bx1 - bx0 < 8) return null;
  // the body panel: the run through the garment's middle in its lower rows (below the sleeves)
  const centreGuess = (bx0 + bx1) / 2;
  const widths: number[] = [];
  const centres: number[] = [];
  const spans: number[] = [];
  const spanCentres: number[] = [];
  const firsts: number[] = [];
  const lasts: number[] = [];
  const rowsFrom = Math.round(by0 + 0.6 * H);
  const rowsTo = Math.round(by0 + 0.88 * H);
  for (let y = rowsFrom; y <= rowsTo; y++) {
    let first = bx0;
    let last = bx1;
    while (first < bx1 && !on(first, y)) first++;
    while (last > first && !on(last, y)) last--;
    if (last > first) {
      spans.push(last - first + 1);
      spanCentres.push((first + last) / 2);
      firsts.push(first);
      lasts.push(last);
    }
    let x0 = Math.round(centreGuess);
    let x1 = x0;
    if (!on(x0, y)) continue;
    while (x0 > 0 && on(x0 - 1, y)) x0--;
    while (x1 < w - 1 && on(x1 + 1, y)) x1++;
    widths.push(x1 - x0 + 1);
    centres.push((x0 + x1) / 2);
  }
  if (!widths.length && !spans.length) return null;
  let halfWidth = median(widths) / 2;
  let centre = median(centres);
  // a busy print (a leopard's spots) breaks the matte's run through the middle into a narrow
  // strip: then the garment's span across those rows is the panel (with any sleeves beside it)
  if (spans.length && (!widths.length || median(widths) < 0.4 * median(spans))) {
    halfWidth = median(spans) / 2;
    centre = median(spanCentres);
  }
  // a matte that lost part of the panel (a light print on a light backdrop eaten in from one side)
  // leaves a ragged outline in those rows, its side jumping by a good part of the garment's length;
  // then the panel's sides are where the packshot's pixels stop being backdrop (the print's spots
  // reach the seams)
  const spread = (v: number[]) => {
    const s = v.slice().sort((a, b) => a - b);
    return s.length ? s[Math.floor(0.9 * (s.length - 1))] - s[Math.floor(0.1 * (s.length - 1))] : 0;
  };
  const ragged = !!packshot && firsts.length > 0 && Math.max(spread(firsts), spread(lasts)) > 0.08 * H;
  if (ragged) {
    const span = printSpan(packshot!, bx0, bx1, rowsFrom, rowsTo);
    if (span && span.right - span.left > 2 * halfWidth) {
      centre = (span.left + span.right) / 2;
      halfWidth = (span.right - span.left) / 2;
    }
  }
  // sleeves hanging beside the body and touching it (a blouse's wide sleeves, a cardigan's) join
  // the panel's run out to the garment's sides; then the panel ends where the garment's lower
  // outline notches up between the hem and each cuff
  if (halfWidth > 0.75 * ((bx1 - bx0) / 2)) {
    const cols = bx1 - bx0 + 1;
    const bottom = new Float32Array(cols);
    for (let x = bx0; x <= bx1; x++) {
      let y = by1;
      while (y > by0 && !on(x, y)) y--;
      bottom[x - bx0] = y;
    }
    const r = Math.max(1, Math.round(0.01 * cols));
    const smooth = (k: number) => {
      let s = 0;
      let c = 0;
      for (let d = -r; d <= r; d++) if (k + d >= 0 && k + d < cols) { s += bottom[k + d]; c++; }
      return s / c;
    };
    const mid = Math.round(centre - bx0);
    const hemGuess = median(Array.from({ length: 2 * r + 1 }, (_, d) => smooth(mid - r + d)));
    // walking out from the middle, the first column where the outline leaves the hem's level for
    // good (up into the notch, or down along a sleeve hanging lower than the hem)
    const edge = (side: -1 | 1): number | null => {
      const off = 0.03 * H;
      const run = Math.max(2, Math.round(0.01 * cols));
      let away = 0;
      for (let k = mid; k > 0 && k < cols - 1; k += side) {
        away = Math.abs(smooth(k) - hemGuess) > off ? away + 1 : 0;
        if (away >= run) return k - side * run + bx0;
      }
      return null;
    };
    const l = edge(-1);
    const rt = edge(1);
    if (l !== null && rt !== null && rt - l > 0.4 * cols) {
      centre = (l + rt) / 2;
      halfWidth = (rt - l) / 2;
    }
    // and no farther out than the shoulder points: a sleeve hanging against the body from a
    // shoulder seam inside that notch (a boxy blouse's) would lend the panel its inner part, and
    // the sleeve would be measured a good part shorter than it is
    const sides = ([-1, 1] as const).map((side) => shoulderPoint(on, bx0, bx1, by0, by1, centre, halfWidth, side));
    const [sl, sr] = sides;
    if (sl !== null && sr !== null && sl > centre - halfWidth && sr < centre + halfWidth && sr - sl > 0.4 * cols) {
      centre = (sl + sr) / 2;
      halfWidth = (sr - sl) / 2;
    }
  }
  // shoulder line: the first garment row above the panel's edges; hem: the last rows of the middle
  const tops: number[] = [];
  for (const f of [-0.85, -0.7, 0.7, 0.85]) {
    const x = Math.round(centre + f * halfWidth);
    for (let y = by0; y < by1; y++) if (on(x, y)) { tops.push(y); break; }
  }
  const bottoms: number[] = [];
  for (let x = Math.round(centre - 0.5 * halfWidth); x <= Math.round(centre + 0.5 * halfWidth); x += 2) {
    for (let y = by1; y > by0; y--) if (on(x, y)) { bottoms.push(y); break; }
  }
  const shoulderY = median(tops);
  const hemY = median(bottoms);
  // sleeves: garment pixels beyond the body's side, down to the hem (a long sleeve hangs beside
  // the body). The body's side in a row is the end of the garment's run from the middle, unless
  // that run reaches well beyond the panel (a sleeve attached to it): there the side below holds.
  const sleeves: SleeveShape[] = [];
  const cx = Math.round(centre);
  for (const side of [-1, 1] as const) {
    const start = { x: centre + side * halfWidth, y: shoulderY + 0.06 * H };
    const bodyEdge = new Float32Array(by1 + 1);
    let below = centre + side * halfWidth;
    for (let y = by1; y >= by0; y--) {
      let x = cx;
      if (on(x, y)) while (x + side >= 0 && x + side < w && on(x + side, y)) x += side;
      const reach = Math.abs(x - centre);
      if (reach <= 1.15 * halfWidth && on(cx, y)) below = x;
      bodyEdge[y] = reach <= 1.15 * halfWidth ? x : below;
      // a run cut short inside the panel (the matte lost part of a light print) is not the side
      if (ragged && Math.abs(bodyEdge[y] - centre) < halfWidth) bodyEdge[y] = centre + side * halfWidth;
    }
    const beside = new Uint8Array(w * cut.image.height);
    for (let y = Math.round(shoulderY); y <= by1; y++) {
      const edge = bodyEdge[y] + side * 2;
      for (let x = side < 0 ? bx0 : Math.ceil(edge); side < 0 ? x < edge : x <= bx1; x++) {
        if (on(x, y)) beside[y * w + x] = 1;
      }
    }
    // the sleeve is the largest piece (corners of the hem beside the panel drop out)
    const sleeveMask = largestComponent(beside, w, cut.image.height);
    const pts: Point[] = [];
    for (let y = Math.round(shoulderY); y <= by1; y++) for (let x = bx0; x <= bx1; x++) if (sleeveMask[y * w + x]) pts.push({ x, y });
    // (nor a piece of the hem's lowest rows, beyond a notch of its outline that cut the run short)
    if (pts.length < 80 || pts.every((p) => p.y >= hemY - 0.03 * H)) continue;
    // the axis: from the shoulder seam through the sleeve's centroid (outwards and down for a
    // short sleeve, down for a long one hanging beside the body)
    const mean = { x: pts.reduce((a, p) => a + p.x, 0) / pts.length, y: pts.reduce((a, p) => a + p.y, 0) / pts.length };
    const meanLen = Math.hypot(mean.x - start.x, mean.y - start.y);
    if (meanLen < 1) continue;
    const dir = { x: (mean.x - start.x) / meanLen, y: (mean.y - start.y) / meanLen };
    // along the axis (t) and across it (s), the normal turning the axis by a quarter as on the person
    const ts = pts.map((p) => (p.x - start.x) * dir.x + (p.y - start.y) * dir.y);
    const reach = ts.slice().sort((a, b) => a - b)[Math.floor(0.98 * (ts.length - 1))];
    if (reach < 0.08 * H) continue;
    const across: number[][] = Array.from({ length: SLEEVE_BINS }, () => []);
    pts.forEach((p, k) => {
      const b = Math.floor((ts[k] / reach) * SLEEVE_BINS);
      if (b >= 0 && b < SLEEVE_BINS) across[b].push((p.x - start.x) * -dir.y + (p.y - start.y) * dir.x);
    });
    const bins: SleeveShape['bins'] = [];
    for (const a of across) {
      if (a.length < 3) { bins.push({ centre: NaN, half: NaN }); continue; }
      a.sort((p, q) => p - q);
      const lo = a[Math.floor(0.03 * (a.length - 1))];
      const hi = a[Math.ceil(0.97 * (a.length - 1))];
      bins.push({ centre: (lo + hi) / 2, half: Math.max(1, (hi - lo) / 2) });
    }
    // empty bins (near the seam where the sleeve starts beside the panel) take the nearest filled one
    for (let b = 0; b < SLEEVE_BINS; b++) {
      if (!Number.isNaN(bins[b].centre)) continue;
      for (let d = 1; d < SLEEVE_BINS; d++) {
        const k = [b + d, b - d].find((j) => j >= 0 && j < SLEEVE_BINS && !Number.isNaN(bins[j].centre));
        if (k !== undefined) { bins[b] = { ...bins[k] }; break; }
      }
    }
    if (bins.some((b) => Number.isNaN(b.centre))) continue;
    // a thin strip beside the panel (a print's edge where a white garment is lost on a white
    // backdrop) is no sleeve
    if (median(bins.map((b) => b.half)) < 0.02 * H) continue;
    // the sleeve's length from the seam to the middle of its opening: the farthest reach along
    // the axis less the opening's half width (a short sleeve's opening is slanted to the axis)
    const length = Math.max(0.5 * reach, reach - bins[SLEEVE_BINS - 1].half);
    sleeves.push({ side, start, dir, reach, length, bins });
  }
  return { centre, halfWidth, shoulderY, hemY, sleeves };
}

/** The front's cloth this far (px) from the inside back is mixed with it in the packshot (the neckline's edge). */
const OPENING_EDGE = 1;

/**
 * The packshot with its neckline's edge in the front's own colours: the front's pixels along the
 * inside back (the opening the renderer leaves out), and the inside back's pixels beside them, take
 * the mean of the front's cloth 2-3 px further in. Sampled between pixels, the neckline's edge
 * mixed in the inside back's light lining or label: a pale, broken line along the new neckline.
 */
export function withCleanOpening(img: RasterImage, dropped: Uint8Array): RasterImage {
  const { width: w, height: h, data } = img;
  const bounds = maskBounds(dropped, w, h);
  if (!bounds) return img;
  const out = new Uint8Array(data);
  const { x0, y0, w: bw, h: bh } = grownBounds(bounds, OPENING_EDGE + 3, w, h);
  const inBack = new Uint8Array(bw * bh);
  const cloth = new Uint8Array(bw * bh);
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      const i = (y + y0) * w + x + x0;
      inBack[y * bw + x] = dropped[i];
      cloth[y * bw + x] = !dropped[i] && data[i * 4 + 3] > 127 ? 1 : 0;
    }
  }
  const toBack = distanceTransform(inBack, bw, bh, 'set');
  const toCloth = distanceTransform(cloth, bw, bh, 'set');
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      const k = y * bw + x;
      // the front's edge, and the inside back next to the front
      const edge = cloth[k] ? toBack[k] <= OPENING_EDGE + 0.5 : inBack[k] && toCloth[k] <= 2.5;
      if (!edge) continue;
      const sum = [0, 0, 0];
      let count = 0;
      for (let dy = -3; dy <= 3; dy++) {
        for (let dx = -3; dx <= 3; dx++) {
          const xx = x + dx;
          const yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= bw || yy >= bh) continue;
          const q = yy * bw + xx;
          if (!cloth[q] || toBack[q] <= OPENING_EDGE + 0.5 || toBack[q] > OPENING_EDGE + 2.5) continue;
          const j = ((yy + y0) * w + xx + x0) * 4;
          for (let c = 0; c < 3; c++) sum[c] += data[j + c];
          count++;
        }
      }
      if (!count) continue;
      const o = ((y + y0) * w + x + x0) * 4;
      for (let c = 0; c < 3; c++) out[o + c] = Math.round(sum[c] / count);
    }
  }
  return { width: w, height: h, data: out };
}

function opaque(img: RasterImage): Uint8Array {
  const out = new Uint8Array(img.data);
  for (let i = 3; i < out.length; i += 4) out[i] = 255;
  return out;
}

/** A small palette of the photo's colours at `idx` (Lab). */
function palette(img: RasterImage, idx: number[], k: number): number[][] {
  const lab = [0, 0, 0];
  return labPalette(idx.map((i) => Array.from(srgbToLab(img.data[i * 4], img.data[i * 4 + 1], img.data[i * 4 + 2], lab))), k);
}

export interface PhotoTopResult {
  /** Pixels of the person's own top (1) as told by the chest's cloth colours within the torso, arms and neck. */
  oldTop: Uint8Array;
  /** `oldTop` with its sleeves and straps of other colours: what is repainted where it shows. */
  repaint: Uint8Array;
  /** The torso region the top must cover (1): the person between the shoulder line and the hem, arms in front left out. */
  target: Uint8Array;
  /** Packshot coordinates drawn per output pixel, for the warp's quality. */
  maps: WarpMaps;
  /** Why the simpler straight-sided fit was used, when it was. */
  fallback?: string;
  /** What stays in front of the top (1): the face and the hair strands (hairStrands). */
  front: Uint8Array;
  /** Hair hanging below the face that the parsing gave the body: no skin is painted into it. */
  hair: Uint8Array;
}

/**
 * The hair that is really in front of the shoulders: the parsing's hair label is coarse below the
 * face (a band of skin, backdrop or old top around a few strands), and a top cut away along it
 * gets a notch in its shoulder. A hair-labelled pixel below the face's middle stays hair only
 * unless its colour is nearer the face's skin or the old top than both the hair of the head (above
 * the face's middle) and the backdrop, in a patch (scattered light tips stay hair); face pixels
 * always stay in front, and so do hair-coloured pixels the parsing gave the body among strands.
 */
export function hairStrands(img: RasterImage, parts: Uint8Array, own: number[][]): Uint8Array {
  const { width: w, height: h, data } = img;
  const n = w * h;
  const front = new Uint8Array(n);
  let faceTop = h;
  let faceBottom = -1;
  for (let i = 0; i < n; i++) {
    if (parts[i] !== PERSON_PART.face) continue;
    const y = (i / w) | 0;
    if (y < faceTop) faceTop = y;
    faceBottom = y;
  }
  const faceMid = faceBottom < 0 ? 0 : (faceTop + faceBottom) >> 1;
  let hairHead: number[] = [];
  let skin: number[] = [];
  let backdrop: number[] = [];
  for (let i = 0; i < n; i++) {
    const p = parts[i];
    if (p === PERSON_PART.face || p === PERSON_PART.hair) front[i] = 1;
    if (i % 3) continue;
    if (p === PERSON_PART.hair && i < faceMid * w) hairHead.push(i);
    else if (p === PERSON_PART.face) skin.push(i);
    else if (p === PERSON_PART.background && i % 4 === 0) backdrop.push(i);
  }
  // too little head hair to know its colour (a cap, a crop): the parsing as it is
  if (hairHead.length < 60 || skin.length < 60) return front;
  // a thousand samples each tell the colours well enough
  const thin = (v: number[]) => (v.length > 1000 ? v.filter((_, k) => k % Math.ceil(v.length / 1000) === 0) : v);
  hairHead = thin(hairHead);
  skin = thin(skin);
  backdrop = thin(backdrop);
  const hair = palette(img, hairHead, 3);
  const back = backdrop.length >= 60 ? palette(img, backdrop, 2) : [];
  // the body under the label: skin, and the old top's colours unless the backdrop shares them
  // (backdrop seen between strands lies above the shoulder: the top is not drawn there)
  const body = [...palette(img, skin, 2), ...own.filter((c) => back.every((b) => deltaE76(c, b) > 12))];
  const lab = [0, 0, 0];
  const nearest = (set: number[][]) => {
    let best = Infinity;
    for (const c of set) best = Math.min(best, deltaE76(lab, c));
    return best;
  };
  // the work stays in the box of the hair label below the face's middle (plus the reach below)
  let x0 = w;
  let x1 = -1;
  let y1 = -1;
  for (let i = faceMid * w; i < n; i++) {
    if (parts[i] !== PERSON_PART.hair) continue;
    const x = i % w;
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    y1 = (i / w) | 0;
  }
  if (y1 < 0) return front;
  const pad = 4;
  x0 = Math.max(0, x0 - pad);
  x1 = Math.min(w - 1, x1 + pad);
  const y0 = faceMid;
  y1 = Math.min(h - 1, y1 + pad);
  const cw = x1 - x0 + 1;
  const ch = y1 - y0 + 1;
  const labelled = new Uint8Array(cw * ch);
  const released = new Uint8Array(cw * ch);
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const i = y * w + x;
      if (parts[i] !== PERSON_PART.hair) continue;
      const k = (y - y0) * cw + x - x0;
      labelled[k] = 1;
      srgbToLab(data[i * 4], data[i * 4 + 1], data[i * 4 + 2], lab);
      const d = nearest(body);
      if (d < nearest(hair) && d < nearest(back)) released[k] = 1;
    }
  }
  // only patches of body (a band of skin, the old top's shoulder), not the light tips and
  // highlights scattered through the hair
  const patches = open(released, cw, ch, 2);
  // and the reverse: hair-coloured pixels the parsing gave the torso among the strands
  const beside = dilate(labelled, cw, ch, 3);
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const i = y * w + x;
      const k = (y - y0) * cw + x - x0;
      if (patches[k]) front[i] = 0;
      else if (beside[k] && !labelled[k] && parts[i] !== PERSON_PART.background && parts[i] !== PERSON_PART.face) {
        srgbToLab(data[i * 4], data[i * 4 + 1], data[i * 4 + 2], lab);
        if (nearest(hair) + 6 < nearest(body)) front[i] = 1;
      }
    }
  }
  return front;
}

/** A collar whose middle rises this share of the panel's length above its shoulder line stands (a mock or turtle neck). */
const STANDING_COLLAR = 0.075;

/**
 * A standing collar (a mock neck, a turtleneck, a ruffled stand): across the middle third of the
 * panel the cloth's top rises more than STANDING_COLLAR of the panel's length above its shoulder
 * line, as a column narrower than the shoulders (at half its height, under 0.8 of the panel's half
 * width each side of the middle). It closes around the neck: there is no opening to leave out, and
 * it climbs the neck. Returns the collar's top row in the packshot, or null.
 */
function standingCollar(cut: GarmentCutout, shape: TopShape): number | null {
  const w = cut.image.width;
  const H = shape.hemY - shape.shoulderY;
  const rise = shape.shoulderY - STANDING_COLLAR * H;
  const tops: number[] = [];
  for (let x = Math.round(shape.centre - 0.3 * shape.halfWidth); x <= shape.centre + 0.3 * shape.halfWidth; x++) {
    let y = 0;
    while (y < shape.shoulderY && cut.labels[y * w + x] !== 0) y++;
    tops.push(y);
  }
  if (!tops.length || tops.filter((t) => t < rise).length < 0.8 * tops.length) return null;
  const top = median(tops);
  const row = Math.round((top + shape.shoulderY) / 2);
  let a = Math.round(shape.centre);
  let b = a;
  while (a > 0 && cut.labels[row * w + a - 1] === 0) a--;
  while (b < w - 1 && cut.labels[row * w + b + 1] === 0) b++;
  return Math.max(shape.centre - a, b - shape.centre) < 0.8 * shape.halfWidth ? top : null;
}

/** Rows of a collar's top edge mixed with the backdrop (see innerBack). */
const COLLAR_EDGE = 3;

/**
 * The front view of a top shows the neck opening, not the inside of the back: in the packshot the
 * inside of the back (and the back collar above it) shows through the neck opening as a patch of
 * another colour or shade above the front neckline. Per column near the middle, from the
 * garment's top down: a few rows of the outer collar, then a run unlike the front's cloth (the
 * inside back), ended by the front neckline; that run and the collar above it are dropped.
 */
function innerBack(cut: GarmentCutout, packshot: RasterImage, shape: TopShape): Uint8Array {
  const w = cut.image.width;
  const h = cut.image.height;
  const drop = new Uint8Array(w * h);
  const H = shape.hemY - shape.shoulderY;
  const lab = [0, 0, 0];
  const labAt = (i: number) => srgbToLab(packshot.data[i * 4], packshot.data[i * 4 + 1], packshot.data[i * 4 + 2], lab);
  // the front's cloth beside the neck opening: the shoulders' inner parts, just below their top
  const front: number[][] = [];
  for (let y = Math.round(shape.shoulderY + 0.02 * H); y < shape.shoulderY + 0.1 * H; y += 2) {
    for (const f of [-0.62, -0.55, 0.55, 0.62]) {
      const i = y * w + Math.round(shape.centre + f * shape.halfWidth);
      if (cut.labels[i] === 0) front.push(Array.from(labAt(i)));
    }
  }
  if (front.length < 8) return drop;
  const centres = [0, 1, 2].map((c) => median(front.map((p) => p[c])));
  // a crew or scoop neckline ends well above the chest
  const limit = shape.shoulderY + 0.2 * H;
  const depth: number[] = [];
  const xs: number[] = [];
  for (let x = Math.round(shape.centre - 0.4 * shape.halfWidth); x <= shape.centre + 0.4 * shape.halfWidth; x++) {
    let y = 0;
    while (y < limit && cut.labels[y * w + x] !== 0) y++;
    const top = y;
    let rim = 0;
    while (y < limit && deltaE76(labAt(y * w + x), centres) < 18) { y++; rim++; }
    let end = -1;
    if (rim <= 0.06 * H) {
      let like = 0;
      for (; y < limit && like < 3; y++) {
        if (cut.labels[y * w + x] === 0 && deltaE76(labAt(y * w + x), centres) < 18) like++;
        else { like = 0; end = y; }
      }
    }
    xs.push(x);
    // a run of a row or two is the collar's top edge mixed with the backdrop, not an inside back:
    // counted as found, such columns kept a same-colour tee's label-only inside back from the
    // cut below (the label was drawn on the chest)
    depth.push(end > top + COLLAR_EDGE ? end : -1);
  }
  // a neck opening spans a good part of the middle; when none is told by colour (the inside of a
  // dark top is as dark as its front), a crew neckline's opening is cut: half an ellipse below the
  // collar's top, a third of the panel wide and a tenth of its length deep
  // a collar ring of its own colour (a yellow rib on a striped tee): down the middle columns the
  // back collar's rib at the top, the inside back (stripes, a label, read as front by colour), then
  // the same rib again at the front neckline; the inside back ends where the rib comes back. Used
  // when most middle columns show it and it ends lower than the colour's estimate
  const ring = xs.map((x) => {
    let y = 0;
    while (y < limit && cut.labels[y * w + x] !== 0) y++;
    // the rib's colour a few rows in (its top edge is mixed with the backdrop); lit at the front and
    // shaded at the back, it is told by hue and chroma, lightness at a third of the weight
    const rib = Array.from(labAt(Math.min(h - 1, y + 3) * w + x));
    if (deltaE76(rib, centres) <= 25) return -1;
    const ribLike = (yy: number) => {
      if (cut.labels[yy * w + x] !== 0) return false;
      const c = labAt(yy * w + x);
      return Math.hypot(0.3 * (c[0] - rib[0]), c[1] - rib[1], c[2] - rib[2]) < 20;
    };
    const rimTo = y + 4;
    while (y < rimTo && !ribLike(y)) y++;
    while (y < limit && ribLike(y)) y++;
    const insideFrom = y;
    while (y + 1 < limit && !(ribLike(y) && ribLike(y + 1))) y++;
    return y + 1 < limit && y - insideFrom >= 3 ? y - 1 : -1;
  });
  const ringFound = ring.filter((d) => d >= 0);
  const colourFound = depth.filter((d) => d >= 0);
  if (ringFound.length >= 0.5 * ring.length && (colourFound.length < 0.3 * depth.length || median(ringFound) > median(colourFound) + 3)) depth.splice(0, depth.length, ...ring);
  const found = depth.filter((d) => d >= 0).length;
  if (found < 0.3 * depth.length) {
    const half = 0.3 * shape.halfWidth;
    for (let x = Math.ceil(shape.centre - half); x <= shape.centre + half; x++) {
      let top = 0;
      while (top < limit && cut.labels[top * w + x] !== 0) top++;
      if (top > shape.shoulderY + 0.08 * H) continue; // already open there
      const dx = (x - shape.centre) / half;
      const yEnd = Math.max(top, shape.shoulderY) + 0.1 * H * Math.sqrt(Math.max(0, 1 - dx * dx));
      for (let y = 0; y <= yEnd; y++) drop[y * w + x] = 1;
    }
    return drop;
  }
  for (let k = 0; k < xs.length; k++) {
    const win = depth.slice(Math.max(0, k - 5), k + 6).filter((d) => d >= 0);
    if (win.length < 6) continue;
    const yEnd = median(win);
    for (let y = 0; y <= yEnd; y++) drop[y * w + xs[k]] = 1;
  }
  return drop;
}

/**
 * The trousers' waistband across the columns x0..x1: per column the first row of the legs label
 * between `from` and `to`, fitted by a straight line (least squares, refitted without the rows
 * farther than twice the median residual). Null when fewer than half the columns meet the legs
 * there (the new top ends above them, or hangs over them).
 */
function waistLine(parts: Uint8Array, w: number, x0: number, x1: number, from: number, to: number): { at: (x: number) => number } | null {
  const xs: number[] = [];
  const ys: number[] = [];
  const a = Math.max(0, Math.ceil(x0));
  const b = Math.min(w - 1, Math.floor(x1));
  if (b - a < 8) return null;
  for (let x = a; x <= b; x += 2) {
    for (let y = Math.floor(from); y <= to; y++) {
      if (parts[y * w + x] !== PERSON_PART.legs) continue;
      xs.push(x);
      ys.push(y);
      break;
    }
  }
  if (xs.length < 0.5 * ((b - a) / 2 + 1)) return null;
  const fit = (keep: boolean[]) => {
    let n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    xs.forEach((x, k) => {
      if (!keep[k]) return;
      n++; sx += x; sy += ys[k]; sxx += x * x; sxy += x * ys[k];
    });
    const d = n * sxx - sx * sx;
    const slope = Math.abs(d) > 1e-9 ? (n * sxy - sx * sy) / d : 0;
    return { slope, c: (sy - slope * sx) / Math.max(1, n) };
  };
  let line = fit(xs.map(() => true));
  const res = xs.map((x, k) => Math.abs(ys[k] - (line.c + line.slope * x)));
  const lim = 2 * Math.max(1, median(res));
  const keep = res.map((r) => r <= lim);
  line = fit(keep);
  // a waistband tilts with the hips, never steeply
  const slope = Math.max(-0.25, Math.min(0.25, line.slope));
  const kept = xs.filter((_, k) => keep[k]);
  const c = kept.length ? xs.reduce((acc, x, k) => acc + (keep[k] ? ys[k] - slope * x : 0), 0) / kept.length : line.c;
  return { at: (x: number) => c + slope * x };
}

/**
 * The person's neck at its base: its middle and half width (the run of neck and torso pixels
 * through the neck's middle, median over the rows between a fifth and a half of the way from
 * the chin to the shoulder line) and the row where the body widens into the shoulders (the run
 * half as wide again as the neck): where a crew neck's collar meets the shoulders. Null when the
 * parsing shows too little neck (hair over it, a high collar).
 */
export function neckBase(body: PersonBody & { parts: Uint8Array }, topY: number): { x: number; half: number; base: number } | null {
  const { width: w, height: h } = body.image;
  const { parts, mask } = body;
  const chin = body.landmarks.chin;
  const d = topY - chin.y;
  if (!(d > 4)) return null;
  const ok = (x: number, y: number) => {
    const i = y * w + x;
    return !!mask[i] && (parts[i] === PERSON_PART.neck || parts[i] === PERSON_PART.torso);
  };
  let cx = Math.round(chin.x);
  const runAt = (y: number): [number, number] | null => {
    if (y < 0 || y >= h) return null;
    let x = cx;
    for (let k = 0; k <= 6 && !ok(x, y); k++) x = cx + (k % 2 ? k : -k);
    if (x < 0 || x >= w || !ok(x, y)) return null;
    let a = x;
    let b = x;
    while (a > 0 && ok(a - 1, y)) a--;
    while (b < w - 1 && ok(b + 1, y)) b++;
    return [a, b];
  };
  const widths: number[] = [];
  const mids: number[] = [];
  for (let y = Math.round(chin.y + 0.2 * d); y <= chin.y + 0.5 * d; y++) {
    const r = runAt(y);
    if (!r) continue;
    widths.push(r[1] - r[0] + 1);
    mids.push((r[0] + r[1]) / 2);
  }
  if (widths.length < Math.max(3, 0.15 * d)) return null;
  const nw = median(widths);
  cx = Math.round(median(mids));
  let base = Math.round(topY);
  for (let y = Math.round(chin.y + 0.3 * d); y < topY; y++) {
    const r = runAt(y);
    if (r && r[1] - r[0] + 1 > 1.5 * nw) { base = y; break; }
  }
  return { x: cx, half: nw / 2, base };
}

/**
 * The packshot's neck opening as the renderer leaves it out (`dropped`): its middle's lowest row
 * (the front neckline), the collar's top beside it and its half width a third of the way down.
 */
function openingOf(dropped: Uint8Array, labels: ArrayLike<number>, pw: number, ph: number, shape: TopShape): { depth: number; top: number; half: number } | null {
  const c = Math.round(shape.centre);
  const x0 = Math.max(0, Math.round(shape.centre - shape.halfWidth));
  const x1 = Math.min(pw - 1, Math.round(shape.centre + shape.halfWidth));
  const low = new Int32Array(x1 - x0 + 1).fill(-1);
  const top = new Int32Array(x1 - x0 + 1).fill(-1);
  for (let x = x0; x <= x1; x++) {
    for (let y = 0; y < ph; y++) if (labels[y * pw + x] === 0) { top[x - x0] = y; break; }
    for (let y = ph - 1; y >= 0; y--) if (dropped[y * pw + x]) { low[x - x0] = y; break; }
  }
  const at = (x: number) => x - x0;
  const depth = median([-2, -1, 0, 1, 2].map((d) => low[at(c + d)]));
  if (depth < 0) return null;
  // the collar's top: the highest garment row within the shoulders' inner half
  const tops: number[] = [];
  for (let x = Math.round(c - 0.6 * shape.halfWidth); x <= c + 0.6 * shape.halfWidth; x++) if (top[at(x)] >= 0) tops.push(top[at(x)]);
  if (!tops.length) return null;
  const collar = Math.min(...tops);
  if (depth <= collar) return null;
  const level = collar + 0.33 * (depth - collar);
  let a = c;
  let b = c;
  while (a > x0 && low[at(a - 1)] >= level) a--;
  while (b < x1 && low[at(b + 1)] >= level) b++;
  return { depth, top: collar, half: (b - a + 1) / 2 };
}

const smoothstep = (t: number) => (t <= 0 ? 0 : t >= 1 ? 1 : t * t * (3 - 2 * t));

/** A crew neck's opening across the neck's base, in neck half widths (the neck plus a little). */
const COLLAR_OVER_NECK = 1.4;

/**
 * The collar fitted to the neck. A packshot lies flat with its shoulder line straight; on a body
 * the shoulders slope up to the neck, and the neck opening of a flat tee spans more than a neck.
 * Laid at the torso's scale, a crew neck then sits low on the chest and too wide. The fit moves
 * the packshot's collar, in the rows above the armpits, so that the collar's top beside the
 * opening meets the neck's base (a lift that fades out towards the shoulder tips and down to the
 * armpits) and the opening's half width is at most COLLAR_OVER_NECK neck half widths (a narrowing
 * about the middle that fades out across a Gaussian window, monotonic for every strength used:
 * no fold), its middle on the neck's. `map` turns the mesh's packshot coordinates (at output x, y)
 * into the fitted ones, in place. Null when the neck or the opening is not found.
 */
function fitNeck(body: PersonBody & { parts: Uint8Array }, topY: number, dropped: Uint8Array, labels: ArrayLike<number>, pw: number, ph: number, shape: TopShape, s: number, scaleAcross: (y: number) => number, at: { sw: number; armpitY: number; tipL: number; tipR: number; centre: number }): { lift: number; base: number; x: number; reach: number; map: (x: number, y: number, g: Float32Array) => void } | null {
  const { sw } = at;
  // a neck hidden in part (hair over one side) measures too narrow or off the chin: no fit
  const neck = neckBase(body, topY);
  const chin = body.landmarks.chin;
  if (!neck || neck.half < 0.07 * sw || neck.half > 0.3 * sw || Math.abs(neck.x - chin.x) > 0.12 * sw) return null;
  const opening = openingOf(dropped, labels, pw, ph, shape);
  if (!opening) return null;
  const collarY = topY + (opening.top - shape.shoulderY) * s;
  const lift = Math.max(-0.06 * sw, Math.min(0.1 * sw, collarY - neck.base));
  const sx = scaleAcross(neck.base);
  // what was left out is no neck opening a neck passes through (a keyhole, a label): no fit
  if (opening.half * sx < 0.8 * neck.half) return null;
  // the opening's half width wanted, in packshot pixels at the collar's scale
  const want = (COLLAR_OVER_NECK * neck.half) / sx;
  const sigma = 1.6 * want;
  const narrow = opening.half > want ? Math.min(1.6, (opening.half / want - 1) / Math.exp(-1 / (2 * 1.6 * 1.6))) : 0;
  // the front neckline once lifted; the fit fades out below it, over at least twice the lift
  const bottom = collarY - lift + (opening.depth - opening.top) * s;
  const fade = Math.max(at.armpitY - bottom, 2.5 * Math.abs(lift), 0.1 * sw);
  const inner = COLLAR_OVER_NECK * neck.half * 1.3;
  const outer = Math.max(inner + 0.1 * sw, 0.95 * Math.min(neck.x - at.tipL, at.tipR - neck.x));
  const shift = (neck.x - at.centre) / sx;
  if (Math.abs(lift) < 1 && narrow === 0 && Math.abs(shift * sx) < 1) return null;
  return {
    lift,
    base: neck.base,
    x: neck.x,
    reach: outer,
    map: (x, y, g) => {
      const wy = 1 - smoothstep((y - bottom) / fade);
      if (wy <= 0) return;
      const wx = 1 - smoothstep((Math.abs(x - neck.x) - inner) / (outer - inner));
      const gx = g[0] - shift * wx * wy;
      const dx = gx - shape.centre;
      g[0] = gx + narrow * dx * Math.exp(-(dx * dx) / (2 * sigma * sigma)) * wy;
      g[1] += (lift / s) * wx * wy;
    },
  };
}

/**
 * The panel's shoulders fitted to the person's. A flat packshot's shoulder seams slope down from
 * the collar (a blouse's with a stand collar steeply); on a body with square shoulders the cloth
 * laid at the torso's scale then ends below the shoulders' top, and the old top shows above it
 * (repainted as a wedge of skin between the neck and the shoulder tip). Per column between the
 * neck and the shoulder tips, where the packshot's top outline (after the collar's fit) lands
 * below the shoulder's top on the mask, the cloth is lifted to it: a lift (at most a tenth of the
 * shoulders' width, smoothed along the shoulder and tapered in beside the neck) that fades out down
 * to the armpits. `map` turns the mesh's packshot coordinates (at output x, y) into the lifted ones,
 * in place; null when no column needs it.
 */
function shoulderFit(body: PersonBody & { parts: Uint8Array }, labels: ArrayLike<number>, dropped: Uint8Array, pw: number, ph: number, shape: TopShape, s: number, at: { sw: number; topY: number; armpitY: number; tipL: number; tipR: number; neckSpan: number[]; centre: number; scaleAcross: (y: number) => number; shoulderTop: (x: number, y: number) => number; neckFit: { map: (x: number, y: number, g: Float32Array) => void } | null }): ((x: number, y: number, g: Float32Array) => void) | null {
  const { sw, topY, armpitY, neckSpan } = at;
  const w = body.image.width;
  if (!(neckSpan[0] < neckSpan[1])) return null;
  const x0 = Math.max(0, Math.floor(at.tipL));
  const x1 = Math.min(w - 1, Math.ceil(at.tipR));
  if (x1 - x0 < 4) return null;
  const hw = shape.halfWidth * 0.97;
  // 1: the front's cloth, 2: the inside back seen through the neck opening, 0: neither
  const cloth = (gx: number, gy: number) => {
    const xi = Math.round(gx);
    const yi = Math.round(gy);
    if (xi < 0 || yi < 0 || xi >= pw || yi >= ph || labels[yi * pw + xi] !== 0) return 0;
    return dropped[yi * pw + xi] ? 2 : 1;
  };
  const cap = 0.1 * sw;
  const raw = new Float32Array(x1 - x0 + 1);
  const g = new Float32Array(2);
  let any = false;
  for (let x = x0; x <= x1; x++) {
    // beside the neck only (its fit is the collar's), on the panel (the sleeves' caps cover the rest)
    if (x >= neckSpan[0] && x <= neckSpan[1]) continue;
    const yS = at.shoulderTop(x, topY + 0.25 * sw);
    if (yS < topY - 0.2 * sw || yS > topY + 0.2 * sw) continue;
    const gx = shape.centre + (x - at.centre) / at.scaleAcross(yS);
    if (Math.abs(gx - shape.centre) > hw) continue;
    // where the cloth lands in this column: the first row below the shoulder's top it covers (a
    // column through the neck opening, or without cloth that near, is no shoulder: left as it is)
    let yP = -1;
    for (let y = Math.floor(yS); y <= yS + cap; y++) {
      g[0] = shape.centre + (x - at.centre) / at.scaleAcross(y);
      g[1] = shape.shoulderY + (y - topY) / s;
      at.neckFit?.map(x, y, g);
      const c = cloth(g[0], g[1]);
      if (c) {
        if (c === 1) yP = y;
        break;
      }
    }
    raw[x - x0] = yP < 0 ? 0 : yP - yS;
    if (raw[x - x0] > 0) any = true;
  }
  if (!any) return null;
  // smoothed along the shoulder, tapered in over a few percent of the shoulders beside the neck
  const r = Math.max(2, Math.round(0.04 * sw));
  const taper = Math.max(2, 0.06 * sw);
  const lift = new Float32Array(raw.length);
  for (let k = 0; k < raw.length; k++) {
    let sum = 0;
    let c = 0;
    for (let d = -r; d <= r; d++) {
      const j = k + d;
      if (j < 0 || j >= raw.length) continue;
      sum += raw[j];
      c++;
    }
    const x = x0 + k;
    const fromNeck = x < neckSpan[0] ? neckSpan[0] - x : x > neckSpan[1] ? x - neckSpan[1] : 0;
    lift[k] = (sum / c) * smoothstep(fromNeck / taper);
  }
  const fade = Math.max(1, armpitY - topY);
  return (x, y, gg) => {
    const k = Math.round(x) - x0;
    if (k < 0 || k >= lift.length || !lift[k]) return;
    const wy = 1 - smoothstep((y - topY) / fade);
    if (wy > 0) gg[1] += (lift[k] / s) * wy;
  };
}

/**
 * Draws the top into `layer` (premultiplied linear RGBA) for a person photo with parts. Throws when
 * the packshot holds no recognisable top.
 */
export function drawPhotoTop(layer: Layer, cut: GarmentCutout, packshot: RasterImage, body: PersonBody & { parts: Uint8Array }): PhotoTopResult {
  const { width: w, height: h } = layer;
  const parts = body.parts;
  const L = body.landmarks;
  const shape = topShape(cut, packshot);
  if (!shape) throw new Error('the top packshot holds no garment shape to fit');

  const shoulderMid = mid(L.leftShoulder, L.rightShoulder);
  const hipMid = hipsMiddle(L);
  const sw = Math.hypot(L.leftShoulder.x - L.rightShoulder.x, L.leftShoulder.y - L.rightShoulder.y);
  const trunk = Math.max(1, hipMid.y - shoulderMid.y);
  const n = w * h;

  // the person's own top (told from skin by the face's colour), and its hem
  const { oldTop, hem: oldHem, repaint, own, hair } = findOldTop(body);
  // hair in front of the top: strands, told from patches of skin or old top the parsing calls hair
  const front = hairStrands(body.image, parts, own);

  // an arm pixel counts as in front of the torso unless it has the old top's colour (a tank top's side)
  const arm = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (parts[i] === PERSON_PART.arm && !oldTop[i]) arm[i] = 1;
  const mask = body.mask;
  const near = dilate(mask, w, h, Math.max(1, Math.round(0.02 * sw)));
  // the margin around the body is no place for cloth between hair strands (backdrop seen through
  // the hair over a shoulder): there the top ends at the body
  const hairOnly = new Uint8Array(n);
  for (let i = 0; i < n; i++) hairOnly[i] = front[i] && parts[i] === PERSON_PART.hair ? 1 : 0;
  const nearHair = dilate(hairOnly, w, h, Math.max(1, Math.round(0.03 * sw)));
  for (let i = 0; i < n; i++) if (near[i] && !mask[i] && nearHair[i]) near[i] = 0;

  // target rows: the shoulder line (top of the shoulders on the mask) down to the hem
  const shoulderTop = (x: number, y: number) => {
    const xi = Math.round(Math.max(0, Math.min(w - 1, x)));
    for (let yy = Math.max(0, Math.round(y - 0.4 * sw)); yy <= y; yy++) if (mask[yy * w + xi] && !front[yy * w + xi]) return yy;
    return y;
  };
  const topY = (shoulderTop(L.leftShoulder.x, L.leftShoulder.y) + shoulderTop(L.rightShoulder.x, L.rightShoulder.y)) / 2;
  const naturalHem = topY + ((shape.hemY - shape.shoulderY) / (2 * shape.halfWidth)) * sw * 1.05;
  // the new hem at the garment's own length, no lower than just above the hip joints, and low
  // enough to cover the old top's hem
  const hemY = Math.min(h - 1, Math.max(Math.min(naturalHem, hipMid.y - 0.08 * trunk), oldHem + 0.03 * trunk));
  const sy = (hemY - topY) / Math.max(1, shape.hemY - shape.shoulderY);

  // torso edges per row (arms left out); above the armpits the shoulders' outer edges
  const armpitY = topY + 0.3 * (hemY - topY);
  const centreAt = (y: number) => shoulderMid.x + ((hipMid.x - shoulderMid.x) * (y - shoulderMid.y)) / trunk;
  const rowEdges = (y: number): [number, number] => {
    const c = Math.round(Math.max(0, Math.min(w - 1, centreAt(y))));
    let x0 = c;
    let x1 = c;
    const row = y * w;
    while (x0 > 0 && mask[row + x0 - 1] && !arm[row + x0 - 1] && c - x0 < sw) x0--;
    while (x1 < w - 1 && mask[row + x1 + 1] && !arm[row + x1 + 1] && x1 - c < sw) x1++;
    return [x0, x1];
  };

  // when the landmarks are unsure or the pose hides the torso's sides, the fit is the torso box's
  // straight sides (an affine map) rather than the row-by-row outline
  const scoreOf = (p: Point) => ('score' in p && typeof p.score === 'number' ? p.score : 1);
  let fallback: string | undefined;
  if (Math.min(scoreOf(L.leftShoulder), scoreOf(L.rightShoulder)) < 0.3) fallback = 'shoulders uncertain';
  else if (sw < 0.5 * trunk) fallback = 'side view (shoulders foreshortened)';
  else if (hipMid.unsure) fallback = 'hips uncertain (a thigh reaching sideways: seated or side pose)';
  else {
    const inset = 0.15 * sw;
    const xa = Math.min(L.leftShoulder.x, L.rightShoulder.x) + inset;
    const xb = Math.max(L.leftShoulder.x, L.rightShoulder.x) - inset;
    for (const p of [L.leftWrist, L.rightWrist]) {
      if (scoreOf(p) >= 0.3 && p.x > xa && p.x < xb && p.y > shoulderMid.y + 0.2 * trunk && p.y < hipMid.y) fallback = 'arm across the torso';
    }
  }

  const y0 = Math.max(0, Math.floor(topY + (cut.components[0].box[1] - shape.shoulderY) * sy));
  const y1 = Math.min(h - 1, Math.ceil(hemY));
  const rows = Math.max(1, y1 - y0 + 1);
  const xl = new Float32Array(rows);
  const xr = new Float32Array(rows);
  const raw = Array.from({ length: rows }, (_, k) => rowEdges(y0 + k));
  const ap = Math.max(0, Math.min(rows - 1, Math.round(armpitY) - y0));
  const medEdge = (k: number, e: 0 | 1) => median(raw.slice(Math.max(0, k - 6), Math.min(rows, k + 7)).map((r) => r[e]));
  const tipL = Math.min(L.rightShoulder.x, L.leftShoulder.x) - 0.12 * sw;
  const tipR = Math.max(L.rightShoulder.x, L.leftShoulder.x) + 0.12 * sw;
  if (fallback) {
    // straight sides: a line through the armpit's and the hem's edges; through the old top's hem
    // when the new one lies lower (below it the parsing's torso takes in a seated pose's lap and
    // thighs), and on along that line
    const hem = Math.max(ap, Math.min(rows - 1, Math.round(oldHem) - y0) - 6);
    for (const [arr, e] of [[xl, 0], [xr, 1]] as const) {
      const a = medEdge(ap, e);
      const b = medEdge(hem, e);
      for (let k = 0; k < rows; k++) arr[k] = k < ap ? (e ? tipR : tipL) + (a - (e ? tipR : tipL)) * (k / Math.max(1, ap)) : a + ((b - a) * (k - ap)) / Math.max(1, hem - ap);
    }
  } else {
    for (let k = 0; k < rows; k++) {
      if (k < ap) {
        const t = k / Math.max(1, ap);
        xl[k] = tipL + (medEdge(ap, 0) - tipL) * t;
        xr[k] = tipR + (medEdge(ap, 1) - tipR) * t;
      } else {
        xl[k] = medEdge(k, 0);
        xr[k] = medEdge(k, 1);
      }
    }
  }
  // regularised sides: a moving average over a band of rows (a smoothing spline's effect), so
  // the panel's mapping bends gently and prints stay straight
  const band = Math.max(2, Math.round(0.05 * trunk));
  for (const arr of [xl, xr]) {
    const copy = Float32Array.from(arr);
    for (let pass = 0; pass < 2; pass++) {
      for (let k = 0; k < rows; k++) {
        let s = 0;
        let c = 0;
        for (let d = -band; d <= band; d++) {
          const j = Math.max(0, Math.min(rows - 1, k + d));
          s += copy[j];
          c++;
        }
        arr[k] = s / c;
      }
      copy.set(arr);
    }
  }
  const ease = 0.015 * sw;
  // the panel's middle line: the torso's, smoothed over a fifth of the trunk (or, for the stable
  // fit, the straight line through it), so the print's verticals bend gently if at all
  const midLine = new Float32Array(rows);
  for (let k = 0; k < rows; k++) midLine[k] = (xl[k] + xr[k]) / 2;
  if (fallback) {
    const ks = Array.from({ length: rows }, (_, k) => k);
    const mk = (rows - 1) / 2;
    const mc = midLine.reduce((a, v) => a + v, 0) / rows;
    const slope = ks.reduce((a, k) => a + (k - mk) * (midLine[k] - mc), 0) / Math.max(1, ks.reduce((a, k) => a + (k - mk) ** 2, 0));
    for (let k = 0; k < rows; k++) midLine[k] = mc + slope * (k - mk);
  } else {
    midLine.set(smoothRun(smoothRun(midLine, Math.max(2, Math.round(0.1 * trunk))), Math.max(2, Math.round(0.1 * trunk))));
  }
  // one scale for the print: at least what the length needs (a longer packshot's hem is cut off
  // rather than squeezed) and within ASPECT_SLACK of what the torso's width below the armpits asks
  const across: number[] = [];
  for (let k = ap; k < rows; k++) across.push((xr[k] - xl[k] + 2 * ease) / (2 * shape.halfWidth * 0.97));
  const s = Math.max(sy, (across.length ? median(across) : sy) / ASPECT_SLACK);

  // the cut-out's own label of the inside back when it found one (neck-opening.ts), else the estimate here
  // (a standing collar has none: it closes around the neck)
  const collarTop = cut.insideBack ? null : standingCollar(cut, shape);
  const dropped = cut.insideBack ?? (collarTop === null ? innerBack(cut, packshot, shape) : new Uint8Array(packshot.width * packshot.height));
  const src: GarmentSource = prepareSource(withCleanOpening(cut.image, dropped), s);
  // the panel below the collar is cloth throughout: sampled from the packshot itself, so white
  // parts of a garment on a white backdrop (lost by the matte) are not holes
  const solid: GarmentSource = prepareSource({ ...packshot, data: opaque(packshot) }, s);
  const solidFrom = shape.shoulderY + 0.12 * (shape.hemY - shape.shoulderY);
  const solidTo = shape.hemY - 0.03 * (shape.hemY - shape.shoulderY);
  const pw = cut.image.width;
  const ph = cut.image.height;
  // but only across the cloth's own width in each row: the panel's sides reach out to the body's
  // and, sampled beyond the cut-out, drew the packshot's backdrop as a white seam along a black
  // tee's side
  const spanLo = new Float32Array(ph).fill(-1);
  const spanHi = new Float32Array(ph).fill(-1);
  for (let y = 0; y < ph; y++) {
    for (let x = 0; x < pw; x++) {
      if (!cut.mask[y * pw + x]) continue;
      if (spanLo[y] < 0) spanLo[y] = x + 1;
      spanHi[y] = x - 1;
    }
  }
  const maps = createWarpMaps(n);
  const px = new Float32Array(4);
  // the neck's columns just above the shoulder line (widened by a little)
  const neckSpan = [Infinity, -Infinity];
  for (let y = Math.max(0, Math.round(topY - 0.15 * sw)); y < Math.min(h, topY); y++) {
    for (let x = 0; x < w; x++) {
      if (parts[y * w + x] !== PERSON_PART.neck) continue;
      neckSpan[0] = Math.min(neckSpan[0], x - 0.05 * sw);
      neckSpan[1] = Math.max(neckSpan[1], x + 0.05 * sw);
    }
  }
  const blocked = (i: number) => {
    if (front[i] || !near[i]) return true;
    // hair-labelled skin the strands' colour released is neck above the shoulder line, beside
    // the neck's columns: the panel's collar does not climb onto it (above the fitted collar's top, neckTop)
    const y = (i / w) | 0;
    const x = i - y * w;
    return parts[i] === PERSON_PART.hair && y < neckTop && x >= neckSpan[0] && x <= neckSpan[1];
  };
  // the jeans' waistband stays in front below the old top's hem
  const waist = oldHem + 0.02 * trunk;
  // where the trousers' waistband crosses the new top's lower rows (a top tucked in, a belt) the
  // hem follows one straight, possibly tilted line along it rather than the parsing's ragged
  // edge of the legs label (a cut into the hem at one side)
  const waistband = waistLine(parts, w, xl[rows - 1] - ease, xr[rows - 1] + ease, waist, hemY);
  const target = new Uint8Array(n);

  // the body panel: a quad mesh from the collar's top down to the hem, its rows PANEL_STEP output
  // pixels apart. Every row maps the packshot at the one scale `s` across and along (the print
  // keeps its proportions: no narrowed bands, no smear), within ASPECT_SLACK across where the body
  // is wider or narrower; the middle of the row follows the torso's (smoothed) middle line, and
  // only the outer fifth of each side stretches to reach a torso wider than that. Cloth beyond the
  // torso's outline is not drawn (a loose top's sides go behind the body's edge).
  const hw = shape.halfWidth * 0.97;
  const gy0 = cut.components[0].box[1];
  const edgeAt = (y: number, e: 0 | 1) => {
    const k = Math.max(0, Math.min(rows - 1, Math.round(y) - y0));
    return e ? xr[k] + ease : xl[k] - ease;
  };
  // the row's scale across: the torso's half width over the panel's, within the print's slack
  // (above the armpits the cloth spans the shoulders, wider than the chest below them: there the
  // slack grows to SHOULDER_SLACK at the collar)
  const scaleAcross = (y: number) => {
    const half = Math.max(1, (edgeAt(y, 1) - edgeAt(y, 0)) / 2);
    const up = Math.max(0, Math.min(1, (armpitY - y) / Math.max(1, armpitY - topY)));
    const slack = ASPECT_SLACK + (SHOULDER_SLACK - ASPECT_SLACK) * up;
    return Math.max(s / slack, Math.min(s * slack, half / hw));
  };
  const neckFit = fitNeck(body, topY, dropped, cut.labels, pw, ph, shape, s, scaleAcross, { sw, armpitY, tipL, tipR, centre: midLine[0] });
  const meshTop = Math.max(0, Math.floor(topY + (gy0 - shape.shoulderY) * s - Math.max(0, neckFit?.lift ?? 0)));
  if (neckFit) {
    // where the collar now lies on the shoulders' slope, only the parsing's own hair (and the face)
    // stays in front, in patches: skin beside a light-brown strand, and the rim of the hair label
    // left where skin under it was released (hairStrands), are not taken for hair there (a dotted
    // line of skin across the collar)
    const zx0 = Math.max(0, Math.ceil(neckFit.x - neckFit.reach));
    const zx1 = Math.min(w - 1, Math.floor(neckFit.x + neckFit.reach));
    const zy0 = Math.max(0, Math.floor(neckFit.base - 0.02 * sw));
    const zy1 = Math.min(h - 1, Math.ceil(topY + 0.03 * sw));
    const zw = zx1 - zx0 + 1;
    const zh = zy1 - zy0 + 1;
    if (zw > 0 && zh > 0) {
      const zone = new Uint8Array(zw * zh);
      for (let y = zy0; y <= zy1; y++) {
        for (let x = zx0; x <= zx1; x++) {
          const i = y * w + x;
          if (front[i] && (parts[i] === PERSON_PART.hair || parts[i] === PERSON_PART.face)) zone[(y - zy0) * zw + x - zx0] = 1;
        }
      }
      const kept = open(zone, zw, zh, 1);
      for (let y = zy0; y <= zy1; y++) {
        for (let x = zx0; x <= zx1; x++) {
          const i = y * w + x;
          if (parts[i] !== PERSON_PART.face) front[i] = kept[(y - zy0) * zw + x - zx0];
        }
      }
    }
  }
  const nRows = Math.max(2, Math.ceil((y1 - meshTop) / PANEL_STEP) + 1);
  const mesh = createQuadMesh(PANEL_COLS, nRows);
  for (let j = 0; j < nRows; j++) {
    const y = Math.min(y1 + 1, meshTop + j * PANEL_STEP);
    const k = Math.max(0, Math.min(rows - 1, Math.round(y) - y0));
    const l = edgeAt(y, 0);
    const r = edgeAt(y, 1);
    const sx = scaleAcross(y);
    const c = midLine[k];
    const gy = shape.shoulderY + (y - topY) / s;
    for (let q = 0; q < PANEL_COLS; q++) {
      const u = -1 + (2 * q) / (PANEL_COLS - 1);
      const node = j * PANEL_COLS + q;
      // inner columns at the row's scale; the outermost reach the torso's side when it lies beyond
      const inner = Math.abs(u) <= 1 - 2 / (PANEL_COLS - 1);
      const side = u < 0 ? c - l : r - c;
      const at = u * hw * sx;
      mesh.px[node] = c + (inner ? at : Math.sign(u) * Math.max(Math.abs(at), side));
      mesh.py[node] = y;
      mesh.gx[node] = shape.centre + u * hw;
      mesh.gy[node] = gy;
      mesh.a[node] = u;
      mesh.b[node] = y;
    }
  }
  // a standing collar climbs the neck to its own top; elsewhere the neck shows above the collar
  const neckTop = collarTop === null ? Math.min(topY, neckFit?.base ?? topY) : topY + (collarTop - shape.shoulderY) * s;
  const g = new Float32Array(2);
  const lifted = shoulderFit(body, cut.labels, dropped, pw, ph, shape, s, { sw, topY, armpitY, tipL, tipR, neckSpan, centre: midLine[0], scaleAcross, shoulderTop, neckFit });
  rasteriseMesh(mesh, w, h, (i, mx, my) => {
    const y = (i / w) | 0;
    const x = i - y * w;
    if (y > y1 || x < edgeAt(y, 0) || x > edgeAt(y, 1)) return;
    if (y >= topY && mask[i] && !arm[i] && !front[i] && parts[i] !== PERSON_PART.neck) target[i] = 1;
    if (blocked(i) || arm[i]) return;
    // the neck shows above the collar: the panel does not climb onto it
    if (parts[i] === PERSON_PART.neck && y < neckTop) return;
    g[0] = mx;
    g[1] = my;
    neckFit?.map(x, y, g);
    lifted?.(x, y, g);
    const gx = g[0];
    const gy = g[1];
    if (waistband ? y > waistband.at(x) : parts[i] === PERSON_PART.legs && y > waist) return;
    const gxi = Math.round(gx);
    const gyi = Math.round(gy);
    if (gxi >= 0 && gyi >= 0 && gxi < pw && gyi < ph && dropped[gyi * pw + gxi]) return;
    if (gy > solidFrom && gy < solidTo) {
      const row = Math.max(0, Math.min(ph - 1, gyi));
      const lo = spanLo[row];
      const hi = spanHi[row];
      // mirrored back into the cloth at its edge (clamped, the edge's column smeared into stripes)
      const sx = lo < 0 || hi <= lo ? gx : gx < lo ? Math.min(hi, 2 * lo - gx) : gx > hi ? Math.max(lo, 2 * hi - gx) : gx;
      sampleBilinear(solid, sx, gy, px);
    } else sampleBilinear(src, gx, gy, px);
    if (!putSample(layer, i, px)) return;
    maps.gx[i] = gx;
    maps.gy[i] = gy;
    maps.piece[i] = 1;
  });
  // the torso's rows the mesh's sides left out (a torso wider than the cloth at its hem) still
  // count in the target
  for (let y = Math.max(y0, Math.ceil(topY)); y <= y1; y++) {
    for (let x = Math.max(0, Math.floor(edgeAt(y, 0))); x <= Math.min(w - 1, Math.ceil(edgeAt(y, 1))); x++) {
      const i = y * w + x;
      if (mask[i] && !arm[i] && !front[i] && parts[i] !== PERSON_PART.neck) target[i] = 1;
    }
  }

  // sleeves along the arms, in front of the panel
  // how deep each packshot pixel lies inside the cut-out (the sleeves' openings keep off its rim)
  const depthIn = shape.sleeves.length ? distanceTransform(cut.mask, pw, ph, 'unset') : new Float32Array(0);
  for (const sleeve of shape.sleeves) {
    const why = drawSleeve(layer, sleeve, shape, body, near, front, src, solid, sw, maps, { top: topY, armpit: armpitY, shoulderTop }, depthIn, repaint, dropped);
    fallback ??= why;
  }
  closeGaps(layer, arm, body.mask, Math.max(2, Math.round(0.08 * sw)));
  enclosedHair(layer, front, parts);
  matteLayer(layer, Math.max(2, 0.02 * sw));
  return { oldTop, repaint, target, maps, fallback, front, hair };
}

/**
 * Hair in front of the top that the top encloses on every side hangs from nothing: strands reach
 * the top's edge from the head. Such runs of the parsing's hair label are skin in shade it took for
 * hair (beside light-brown hair); left in front they were holes in the top through which that skin
 * showed. The top is drawn over them (the cloth around them carried in) and they leave `front`.
 */
function enclosedHair(layer: Layer, front: Uint8Array, parts: Uint8Array): void {
  const { width: w, height: h, data } = layer;
  const n = w * h;
  const candidate = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (front[i] && parts[i] === PERSON_PART.hair) candidate[i] = 1;
  const { labels, components } = labelComponents(candidate, w, h);
  const holes = new Uint8Array(n);
  for (const c of components) {
    // enclosed: every pixel beside the run (8-neighbours) is cloth drawn, none of it in front
    let open = c.x0 === 0 || c.y0 === 0 || c.x1 === w - 1 || c.y1 === h - 1;
    for (let y = Math.max(0, c.y0 - 1); y <= Math.min(h - 1, c.y1 + 1) && !open; y++) {
      for (let x = Math.max(0, c.x0 - 1); x <= Math.min(w - 1, c.x1 + 1) && !open; x++) {
        const i = y * w + x;
        if (labels[i] === c.label) continue;
        let beside = false;
        for (let dy = -1; dy <= 1 && !beside; dy++) for (let dx = -1; dx <= 1 && !beside; dx++) beside = labels[i + dy * w + dx] === c.label && x + dx >= 0 && x + dx < w;
        if (beside && (data[i * 4 + 3] <= 0.5 || front[i])) open = true;
      }
    }
    if (open) continue;
    for (let y = c.y0; y <= c.y1; y++) {
      for (let x = c.x0; x <= c.x1; x++) {
        const i = y * w + x;
        if (labels[i] !== c.label) continue;
        if (data[i * 4 + 3] <= 0.5) holes[i] = 1;
        front[i] = 0;
      }
    }
  }
  patchHoles(layer, holes);
}

/**
 * Where the person (not bare arm skin) still shows in a thin run (at most `gap` pixels, along a row
 * or a column) between cloth the new top drew on both sides (between a sleeve and the panel beside
 * it), that run takes the cloth of its nearer end: the sleeve joins the torso without a seam.
 */
function closeGaps(layer: Layer, bareArm: Uint8Array, mask: Uint8Array, gap: number): void {
  const { width: w, height: h, data } = layer;
  // what the top drew before any gap is filled (read once: the scans below only collect fills)
  const drawnAt = new Uint8Array(w * h);
  for (let i = 0; i < drawnAt.length; i++) drawnAt[i] = data[i * 4 + 3] > 0.5 ? 1 : 0;
  const fills: number[] = [];
  // rows (step 1 along a line, lines w apart), then columns (step w, lines 1 apart)
  for (const [count, len, lineStep, step] of [
    [h, w, w, 1],
    [w, h, 1, w],
  ]) {
    for (let line = 0; line < count; line++) {
      const base = line * lineStep;
      let last = -1;
      for (let k = 0; k < len; k++) {
        const i = base + k * step;
        if (!drawnAt[i]) continue;
        if (last >= 0 && k - last > 1 && k - last - 1 <= gap) {
          let ok = true;
          for (let m = last + 1; m < k && ok; m++) {
            const j = base + m * step;
            ok = !!mask[j] && !bareArm[j];
          }
          if (ok) for (let m = last + 1; m < k; m++) fills.push(base + m * step, m - last <= k - m ? base + last * step : i);
        }
        last = k;
      }
    }
  }
  for (let f = 0; f < fills.length; f += 2) {
    const i = fills[f];
    const from = fills[f + 1];
    if (data[i * 4 + 3] > 0.5) continue;
    for (let c = 0; c < 4; c++) data[i * 4 + c] = data[from * 4 + c];
  }
}

/** Linear interpolation in a packshot sleeve's bins at `t` along it. */
function sleeveAt(sleeve: SleeveShape, t: number): { centre: number; half: number } {
  const f = Math.max(0, Math.min(SLEEVE_BINS - 1, (t / sleeve.reach) * SLEEVE_BINS - 0.5));
  const b = Math.floor(f);
  const c = Math.min(SLEEVE_BINS - 1, b + 1);
  const k = f - b;
  const p = sleeve.bins[b];
  const q = sleeve.bins[c];
  return { centre: p.centre + (q.centre - p.centre) * k, half: p.half + (q.half - p.half) * k };
}

/**
 * The arm's keypoints for a sleeve (shoulder, elbow, wrist), or a straight arm hanging from the
 * shoulder where the elbow or wrist is uncertain or implausible (hidden, or a bone far off its
 * usual length against the shoulders' width): a stable fit rather than a wild one.
 */
function armAxis(sleeve: SleeveShape, L: PersonBody['landmarks'], sw: number): { axis: [Point, Point, Point]; fallback?: string } {
  const [S, E, Wr] = sleeve.side < 0 ? [L.rightShoulder, L.rightElbow, L.rightWrist] : [L.leftShoulder, L.leftElbow, L.leftWrist];
  const scoreOf = (p: Point) => ('score' in p && typeof p.score === 'number' ? p.score : 1);
  const upper = Math.hypot(E.x - S.x, E.y - S.y);
  const fore = Math.hypot(Wr.x - E.x, Wr.y - E.y);
  const name = sleeve.side < 0 ? 'right' : 'left';
  if (scoreOf(E) < 0.3 || upper < 0.35 * sw || upper > 1.6 * sw) {
    // hanging down, slightly away from the body
    const d = { x: sleeve.side * 0.15, y: 1 };
    const k = 1 / Math.hypot(d.x, d.y);
    const e = { x: S.x + d.x * k * 0.85 * sw, y: S.y + d.y * k * 0.85 * sw };
    return { axis: [S, e, { x: e.x + d.x * k * 0.75 * sw, y: e.y + d.y * k * 0.75 * sw }], fallback: `${name} elbow uncertain` };
  }
  if (scoreOf(Wr) < 0.3 || fore < 0.25 * sw || fore > 1.6 * sw) {
    // the forearm straight on from the upper arm
    const k = (0.75 * sw) / upper;
    return { axis: [S, E, { x: E.x + (E.x - S.x) * k, y: E.y + (E.y - S.y) * k }], fallback: `${name} wrist uncertain` };
  }
  return { axis: [S, E, Wr] };
}

/** Moving average of `v` over 2r+1 samples; the ends are mirrored through their end value (a straight run stays straight). */
function smoothRun(v: Float32Array, r: number): Float32Array {
  const n = v.length;
  const out = new Float32Array(n);
  if (r < 1 || n < 2) {
    out.set(v);
    return out;
  }
  const at = (j: number) => (j < 0 ? 2 * v[0] - v[Math.min(n - 1, -j)] : j >= n ? 2 * v[n - 1] - v[Math.max(0, 2 * (n - 1) - j)] : v[j]);
  for (let j = 0; j < n; j++) {
    let s = 0;
    for (let d = -r; d <= r; d++) s += at(j + d);
    out[j] = s / (2 * r + 1);
  }
  return out;
}

/**
 * One packshot sleeve laid along the person's arm by a quad mesh (a regularised warp): the arm's
 * axis from just before the shoulder keypoint over the elbow towards the wrist, as far as the
 * sleeve's share of the arm reaches (its length over ARM_PER_BODY_WIDTH body widths; a long sleeve
 * ends at the wrist, never on the hand), is smoothed (the elbow's corner rounded), and the mesh's
 * rows run across it along the smoothed normal. Across the arm the sleeve spans the arm's own
 * width, measured on the person mask either side of the axis and smoothed along it (never thinner
 * than the arm, so no skin shows inside it, and never wider than the bend's radius on its inner
 * side, where the rows would cross), plus a thin ease; the packshot sleeve's width is stretched to
 * it. Neighbouring cloth stays together: no fan at the shoulder or elbow, no smear. Drawn in front
 * of the body panel (an arm is in front of the torso) except near the shoulder; face, hair and
 * pixels away from the person are left out. Returns why a straight arm was assumed, if it was.
 */
function drawSleeve(layer: Layer, sleeve: SleeveShape, shape: TopShape, body: PersonBody & { parts: Uint8Array }, near: Uint8Array, front: Uint8Array, src: GarmentSource, solid: GarmentSource, sw: number, maps: WarpMaps, rows: { top: number; armpit: number; shoulderTop: (x: number, y: number) => number }, depthIn: Float32Array, oldTop: Uint8Array, dropped: Uint8Array): string | undefined {
  const { width: w, height: h } = layer;
  const { mask, parts } = body;
  const { axis, fallback } = armAxis(sleeve, body.landmarks, sw);
  const segs = [0, 1].map((k) => {
    const a = axis[k];
    const b = axis[k + 1];
    const len = Math.hypot(b.x - a.x, b.y - a.y) || 1e-6;
    return { a, len, d: { x: (b.x - a.x) / len, y: (b.y - a.y) / len } };
  });
  const armLen = segs[0].len + segs[1].len;
  const share = Math.min(1, sleeve.length / (ARM_PER_BODY_WIDTH * 2 * shape.halfWidth));
  // a short sleeve (a T-shirt's) starts at the shoulder's top, its cap over the shoulder's round;
  // a long one keeps its seam beside the panel as laid out (its cap drawn only where the panel
  // left the body bare): stretched along a hanging arm from the cap, its folds turn to streaks
  const short = share < 0.8;
  let uEnd = share * armLen;
  if (uEnd < 4) return fallback;
  if (share >= 1) {
    // a long sleeve covers the old one to its cuff, which can reach past the wrist's keypoint (onto
    // the hand's first stretch): on along the forearm while the old top fills most of the arm there
    const d = segs[1].d;
    const Wr = axis[2];
    const half = Math.max(2, Math.round(0.05 * sw));
    for (let k = 1; k <= 0.3 * segs[1].len; k++) {
      let own = 0;
      let all = 0;
      for (let v = -half; v <= half; v++) {
        const x = Math.round(Wr.x + d.x * k - d.y * v);
        const y = Math.round(Wr.y + d.y * k + d.x * v);
        if (x < 0 || y < 0 || x >= w || y >= h || !mask[y * w + x]) continue;
        all++;
        if (oldTop[y * w + x]) own++;
      }
      if (!all || own < 0.5 * all) break;
      uEnd = armLen + k;
    }
  }
  // the axis sampled every STEP pixels from `lead` before the shoulder keypoint (the shoulder's cap)
  const STEP = 2;
  // reaching up past the shoulder's top above the keypoint (rows off the body are not drawn), so
  // no skin shows between the panel's side and the sleeve at the shoulder's round
  const S0 = axis[0];
  const lead = Math.max(0.1 * sw, Math.min(0.35 * sw, S0.y - rows.shoulderTop(S0.x, S0.y) + 0.05 * sw));
  const nS = Math.floor((uEnd + lead) / STEP) + 1;
  const us = new Float32Array(nS);
  const ax = new Float32Array(nS);
  const ay = new Float32Array(nS);
  for (let j = 0; j < nS; j++) {
    const u = Math.min(uEnd, -lead + j * STEP);
    us[j] = u;
    const k = u <= segs[0].len ? 0 : 1;
    const s = segs[k];
    const t = k === 0 ? u : u - segs[0].len;
    ax[j] = s.a.x + s.d.x * t;
    ay[j] = s.a.y + s.d.y * t;
  }
  // the elbow's corner rounded over about a sleeve's width
  const R = Math.max(1, Math.round((0.12 * sw) / STEP));
  const cx = smoothRun(smoothRun(ax, R), R);
  const cy = smoothRun(smoothRun(ay, R), R);
  const tx = new Float32Array(nS);
  const ty = new Float32Array(nS);
  const theta = new Float32Array(nS);
  for (let j = 0; j < nS; j++) {
    const a = Math.max(0, j - 1);
    const b = Math.min(nS - 1, j + 1);
    const dx = cx[b] - cx[a];
    const dy = cy[b] - cy[a];
    const l = Math.hypot(dx, dy) || 1;
    tx[j] = dx / l;
    ty[j] = dy / l;
    theta[j] = Math.atan2(ty[j], tx[j]);
  }
  // signed curvature (turn per pixel of arc); the centre of the bend lies on the side of its sign
  const kappa = new Float32Array(nS);
  for (let j = 0; j < nS; j++) {
    const a = Math.max(0, j - 1);
    const b = Math.min(nS - 1, j + 1);
    let dt = theta[b] - theta[a];
    if (dt > Math.PI) dt -= 2 * Math.PI;
    if (dt < -Math.PI) dt += 2 * Math.PI;
    kappa[j] = b > a ? dt / ((b - a) * STEP) : 0;
  }

  // the arm's extent either side of the axis (side 0 along the normal (-t.y, t.x), side 1 against it)
  const cap = 0.25 * sw;
  const ext = [new Float32Array(nS), new Float32Array(nS)];
  for (let j = 0; j < nS; j++) {
    const nx = -ty[j];
    const ny = tx[j];
    for (const [e, sgn] of [[0, 1], [1, -1]] as const) {
      let r = 0;
      let armEnd = -1;
      while (r < cap) {
        const x = Math.round(cx[j] + sgn * nx * (r + 1));
        const y = Math.round(cy[j] + sgn * ny * (r + 1));
        if (x < 0 || y < 0 || x >= w || y >= h) break;
        const i = y * w + x;
        if (!mask[i] || front[i]) break;
        if (armEnd < 0 && parts[i] !== PERSON_PART.arm) armEnd = r;
        r++;
      }
      // a ray that runs on into the torso (an arm beside the body): the arm ends where the parsing
      // ends it, else it tells nothing and is filled in below
      ext[e][j] = r < cap ? r : armEnd > 2 ? armEnd : NaN;
    }
  }
  const floor = 0.06 * sw;
  const ease = Math.max(2, 0.02 * sw);
  const segOf = (j: number) => (us[j] <= segs[0].len ? 0 : 1);
  for (const [side, e] of ext.entries()) {
    for (const k of [0, 1]) {
      const valid: number[] = [];
      for (let j = 0; j < nS; j++) if (segOf(j) === k && us[j] >= 0 && !Number.isNaN(e[j])) valid.push(e[j]);
      const other: number[] = [];
      for (const o of ext) for (let j = 0; j < nS; j++) if (segOf(j) === k && us[j] >= 0 && !Number.isNaN(o[j])) other.push(o[j]);
      const typical = Math.max(floor, valid.length >= 3 ? median(valid) : other.length >= 3 ? median(other) : 0.12 * sw);
      for (let j = 0; j < nS; j++) if (segOf(j) === k) e[j] = Math.max(floor, Math.min(1.4 * typical, Number.isNaN(e[j]) || us[j] < 0 ? typical : e[j]));
    }
    // a running median along the arm drops single rays that slipped, a moving average smooths the
    // outline so the cloth's width changes gently
    const copy = Array.from(e);
    for (let j = 0; j < nS; j++) e[j] = median(copy.slice(Math.max(0, j - 4), j + 5));
    // the rows must not cross on the bend's inner side: the offset stays within the bend's radius
    const sgn = side === 0 ? 1 : -1;
    const limit = (j: number) => (sgn * kappa[j] > 1e-4 ? 0.8 / (sgn * kappa[j]) - ease : Infinity);
    for (let j = 0; j < nS; j++) e[j] = Math.max(1, Math.min(e[j], limit(j)));
    e.set(smoothRun(e, R));
    for (let j = 0; j < nS; j++) e[j] = Math.max(1, Math.min(e[j], limit(j)));
  }

  // the armhole seam: from the shoulder's top above its keypoint down to the sleeve's inner side at
  // the armpit's row (and straight down from there). Outside it the sleeve is in front of the
  // panel, inside it the panel: the sleeve joins the body along a slanted seam as a top's does,
  // not along a box's edges across the arm.
  const S = sleeve.side < 0 ? body.landmarks.rightShoulder : body.landmarks.leftShoulder;
  const bodyMid = (body.landmarks.leftShoulder.x + body.landmarks.rightShoulder.x) / 2;
  let jA = -1;
  for (let j = 0; j < nS; j++) if (us[j] >= 0 && (jA < 0 || Math.abs(cy[j] - rows.armpit) < Math.abs(cy[jA] - rows.armpit))) jA = j;
  let seamA = { x: S.x, y: rows.armpit };
  if (jA >= 0) {
    // the normal side facing the body's middle
    const e = -ty[jA] * (bodyMid - cx[jA]) >= 0 ? 0 : 1;
    const sgn = e === 0 ? 1 : -1;
    const r = ext[e][jA] + ease;
    seamA = { x: cx[jA] - sgn * ty[jA] * r, y: Math.max(rows.top + 1, cy[jA] + sgn * tx[jA] * r) };
  }
  const seamT = { x: S.x, y: rows.top };
  const outside = (x: number, y: number) => {
    const lx = y <= seamT.y ? seamT.x : y >= seamA.y ? seamA.x : seamT.x + ((seamA.x - seamT.x) * (y - seamT.y)) / (seamA.y - seamT.y);
    return (x - lx) * sleeve.side > 0;
  };

  // the mesh: rows along the arm, COLS nodes across (-1 .. 1 of the sleeve's half width plus ease)
  const COLS = 9;
  const mesh = createQuadMesh(COLS, nS);
  const pnx = -sleeve.dir.y;
  const pny = sleeve.dir.x;
  // output pixels per packshot pixel along the sleeve; across, the packshot's width is squeezed onto
  // the arm's by at most SLEEVE_SQUEEZE more than that: a wide (bell) sleeve shows its middle at
  // its print's spacing and its sides go round the arm, rather than its pleats and print narrowed
  const along = (short ? uEnd + lead : uEnd) / Math.max(1, sleeve.reach);
  for (let j = 0; j < nS; j++) {
    // the whole sleeve from its seam at the shoulder's top (the cap) to its opening: a packshot
    // sleeve's seam beside the panel lies below the shoulder's slope, above it is backdrop
    const t = short ? ((us[j] + lead) / (uEnd + lead)) * sleeve.reach : (us[j] / uEnd) * sleeve.reach;
    const at = sleeveAt(sleeve, Math.max(0, t));
    for (let c = 0; c < COLS; c++) {
      const a = -1 + (2 * c) / (COLS - 1);
      const e = a >= 0 ? ext[0][j] : ext[1][j];
      const v = a * (e + ease);
      const s = at.centre + (v / e) * Math.min(0.9 * at.half, (e * SLEEVE_SQUEEZE) / along);
      const k = j * COLS + c;
      mesh.px[k] = cx[j] - ty[j] * v;
      mesh.py[k] = cy[j] + tx[j] * v;
      mesh.gx[k] = sleeve.start.x + sleeve.dir.x * t + pnx * s;
      mesh.gy[k] = sleeve.start.y + sleeve.dir.y * t + pny * s;
      mesh.a[k] = v / e;
      mesh.b[k] = us[j];
    }
  }

  const px = new Float32Array(4);
  const piece = sleeve.side < 0 ? 2 : 3;
  const openingFrom = short ? sleeve.length - sleeve.bins[SLEEVE_BINS - 1].half : Infinity;
  // the packshot's drop shadow under an opening is kept by the cut-out as a grey rim some pixels
  // deep: at the opening the sleeve keeps that far inside its outline
  const pw = src.packshotWidth;
  const ph = depthIn.length / Math.max(1, pw);
  const rim = Math.max(2, 0.006 * Math.hypot(pw, ph));
  rasteriseMesh(mesh, w, h, (i, gx, gy, across, u) => {
    if (front[i] || !near[i]) return;
    const under = layer.data[i * 4 + 3] > 0.5;
    // the shoulder's cap only on the body (the mask or the parsing: they differ by a few pixels
    // along the shoulder's round); inside the armhole seam the panel stays in front
    if (u < 0 && ((!short && under) || (!mask[i] && parts[i] === PERSON_PART.background))) return;
    if (under && !outside(i % w, (i / w) | 0)) return;
    // inside the sleeve, away from its seam, edges and opening, the packshot is cloth throughout
    // (white cloth on a white backdrop is lost by the matte); elsewhere the matte decides
    // (and short of the opening as the packshot has it: a short sleeve's slanted opening leaves
    // the packshot's backdrop and drop shadow beside its far corner)
    const tp = (gx - sleeve.start.x) * sleeve.dir.x + (gy - sleeve.start.y) * sleeve.dir.y;
    const inside = Math.abs(across) <= 0.85 && u > 0.15 * uEnd && u < uEnd - 0.1 * sw && tp < openingFrom;
    const gxi = Math.round(gx);
    const gyi = Math.round(gy);
    if (tp > openingFrom && (gxi < 0 || gyi < 0 || gxi >= pw || gyi >= ph || depthIn[gyi * pw + gxi] < rim)) return;
    // a cap reaching in over the shoulder towards the neck meets the neck opening: its inside back
    // (a label, the lining's deeper shade) is no sleeve; the cloth beside the opening, outwards
    // along the row, stands in for it (left out, the skin under showed through a hole)
    let sx = gx;
    if (gxi >= 0 && gyi >= 0 && gxi < pw && gyi < ph && dropped[gyi * pw + gxi]) {
      const out = gx < shape.centre ? -1 : 1;
      let k = 1;
      while (k <= 0.1 * shape.halfWidth && dropped[gyi * pw + Math.max(0, Math.min(pw - 1, gxi + out * k))]) k++;
      if (k > 0.1 * shape.halfWidth) return;
      sx = gx + out * (k + 1);
    }
    sampleBilinear(inside ? solid : src, sx, gy, px);
    if (px[3] < 0.05) return;
    maps.gx[i] = gx;
    maps.gy[i] = gy;
    maps.piece[i] = piece;
    // opaque cloth in front of what the panel drew
    const o = i * 4;
    const k = 1 / px[3];
    layer.data[o] = px[0] * k;
    layer.data[o + 1] = px[1] * k;
    layer.data[o + 2] = px[2] * k;
    layer.data[o + 3] = 1;
  });
  return fallback;
}

/** The old top's folds carried onto the new one at this strength (of their contrast)... */
const FOLD_WEIGHT = 0.8;
/** ...when at least this share of its pixels is within the folds' range of its local mean, none at this share or below. */
const FOLDS_ALL = 0.9;
const FOLDS_NONE = 0.5;
/** Ripple of the old top finer than this share of the shoulder width is its knit or print, not a fold. */
const FOLD_FINE = 0.02;

/**
 * The photo's light and folds on the new top (luminance transfer): where the person's own top lay,
 * its local luminance over its smoothed mean (fine folds, clamped; print and seams, which differ
 * too much, left out) and, at half strength, that mean over the top's median (the light across
 * the body) multiply the new cloth.
 */
export function transferShading(layer: Layer, oldTop: Uint8Array, body: PersonBody, sw: number): void {
  const { width: w, height: h, data } = layer;
  const img = body.image.data;
  const R = Math.max(4, Math.round(0.06 * sw));
  // the work stays in the garment's box (plus the blur's reach)
  const bounds = maskBounds(data, w, h, 4, 3);
  if (!bounds) return;
  const { x0, y0, w: cw, h: ch } = grownBounds(bounds, R, w, h);
  const cn = cw * ch;
  const Y = new Float32Array(cn);
  const m = new Float32Array(cn);
  for (let y = 0; y < ch; y++) {
    for (let x = 0; x < cw; x++) {
      const i = (y + y0) * w + x + x0;
      if (!oldTop[i]) continue;
      const k = y * cw + x;
      Y[k] = 0.2126 * SRGB_TO_LINEAR[img[i * 4]] + 0.7152 * SRGB_TO_LINEAR[img[i * 4 + 1]] + 0.0722 * SRGB_TO_LINEAR[img[i * 4 + 2]];
      m[k] = 1;
    }
  }
  const bigY = boxBlur(Y, cw, ch, R);
  const bigM = boxBlur(m, cw, ch, R);
  const mean = new Float32Array(cn);
  const vals: number[] = [];
  for (let k = 0; k < cn; k++) {
    mean[k] = bigM[k] > 0.05 ? bigY[k] / bigM[k] : 0;
    if (m[k] && k % 7 === 0) vals.push(mean[k]);
  }
  const med = median(vals) || 1;
  // fine: pixels within 30 % of the mean only (folds, not print)
  const fy = new Float32Array(cn);
  const fm = new Float32Array(cn);
  let cloth = 0;
  let folds = 0;
  for (let k = 0; k < cn; k++) {
    if (!m[k] || mean[k] <= 0) continue;
    cloth++;
    const r = Y[k] / mean[k];
    if (r > 0.7 && r < 1.3) {
      fy[k] = r;
      fm[k] = 1;
      folds++;
    }
  }
  // a top whose light mostly steps further than folds do (satin's gloss, a sheer top over skin, a
  // busy print) tells little of its folds: what stays within the range is the edge of its gloss
  // and print, carried over as grey smudges on the new cloth; its folds count for less, down to none
  const foldWeight = FOLD_WEIGHT * Math.max(0, Math.min(1, (folds / Math.max(1, cloth) - FOLDS_NONE) / (FOLDS_ALL - FOLDS_NONE)));
  // folds are broad: a finer ripple (a rib knit's wales, a print's edges, the sensor's noise in a
  // dark top) is averaged out rather than carried onto the new cloth as wavy lines
  const fine = Math.max(2, Math.round(FOLD_FINE * sw));
  const sy = boxBlur(fy, cw, ch, fine);
  const sm = boxBlur(fm, cw, ch, fine);
  for (let y = 0; y < ch; y++) {
    for (let x = 0; x < cw; x++) {
      const k = y * cw + x;
      const i = (y + y0) * w + x + x0;
      const a = data[i * 4 + 3];
      if (a <= 0 || sm[k] < 0.05) continue;
      const fold = Math.max(0.8, Math.min(1.15, sy[k] / sm[k]));
      const light = Math.max(0.85, Math.min(1.1, mean[k] / med));
      const f = (1 + (fold - 1) * foldWeight * sm[k]) * (1 + (light - 1) * 0.5 * sm[k]);
      for (let c = 0; c < 3; c++) data[i * 4 + c] *= f;
    }
  }
}
