/**
 * Draws one garment piece onto a layer by backward warping: a thin-plate spline from body points
 * to garment points (with far anchor points following the pairs' best affine map, so the warp stays
 * stable away from the landmarks), evaluated on a coarse grid and interpolated per pixel, then
 * sampled from the garment (bilinear or bicubic) and clipped to a body-relative region.
 */
import type { Point } from '../../../core/twins/body.ts';
import type { BodyFrame } from './body-frame.ts';
import { type GarmentSource, sampleBicubic, sampleBilinear } from './garment-source.ts';
import { fitAffine, fitTps } from './tps.ts';
import { fillHoles, labelComponents } from '../raster/components.ts';

export interface Pair {
  /** Garment point (packshot pixels). */
  g: Point;
  /** Where it lands on the body (output pixels). */
  b: Point;
}

export interface Piece {
  source: GarmentSource;
  pairs: Pair[];
  /** Packshot box [x0, y0, x1, y1] of the piece. */
  box: [number, number, number, number];
  /** Packshot-space mask (0..255) selecting this piece's pixels; all when absent. */
  select?: Uint8Array;
  /** Farthest a painted pixel may be from the body mask, in output pixels. */
  reach: number;
  /** Output pixels the piece leaves alone (arms in front of a torso piece). */
  exclude?: Uint8Array;
  /** Output rows above this are not painted (head and neck). */
  minY?: number;
}

/** Premultiplied linear RGBA, 4 floats per output pixel. */
export interface Layer {
  width: number;
  height: number;
  data: Float32Array;
}

export function createLayer(width: number, height: number): Layer {
  return { width, height, data: new Float32Array(width * height * 4) };
}

/** Writes the premultiplied sample `px` at pixel `i`, unless it is (almost) transparent; whether it did. */
export function putSample(layer: Layer, i: number, px: Float32Array): boolean {
  const a = px[3];
  if (a <= 0.01) return false;
  const o = i * 4;
  layer.data[o] = px[0];
  layer.data[o + 1] = px[1];
  layer.data[o + 2] = px[2];
  layer.data[o + 3] = a;
  return true;
}

const GRID = 4;

export function drawPiece(layer: Layer, piece: Piece, frame: BodyFrame, filter: 'bilinear' | 'bicubic'): void {
  const { width: W, height: H } = layer;
  const [gx0, gy0, gx1, gy1] = piece.box;
  const bw = gx1 - gx0;
  const bh = gy1 - gy0;
  // far anchors: the expanded garment box mapped by the pairs' affine fit
  const affine = fitAffine(
    piece.pairs.map((p) => p.g),
    piece.pairs.map((p) => p.b),
  );
  const anchors: Pair[] = [];
  const m = 0.35;
  for (const [u, v] of [
    [-m, -m],
    [0.5, -m],
    [1 + m, -m],
    [1 + m, 0.5],
    [1 + m, 1 + m],
    [0.5, 1 + m],
    [-m, 1 + m],
    [-m, 0.5],
  ]) {
    const g = { x: gx0 + u * bw, y: gy0 + v * bh };
    anchors.push({ g, b: affine(g) });
  }
  const all = [...piece.pairs, ...anchors];
  const forward = fitTps(
    all.map((p) => p.g),
    all.map((p) => p.b),
  );
  const inverse = fitTps(
    all.map((p) => p.b),
    all.map((p) => p.g),
  );

  // output box: the garment box outline mapped forward, plus the targets
  let ox0 = Infinity;
  let oy0 = Infinity;
  let ox1 = -Infinity;
  let oy1 = -Infinity;
  const tmp = new Float64Array(2);
  const grow = (x: number, y: number) => {
    ox0 = Math.min(ox0, x);
    oy0 = Math.min(oy0, y);
    ox1 = Math.max(ox1, x);
    oy1 = Math.max(oy1, y);
  };
  for (let k = 0; k <= 16; k++) {
    const t = k / 16;
    for (const [u, v] of [
      [t, 0],
      [t, 1],
      [0, t],
      [1, t],
    ]) {
      forward.map(gx0 + u * bw, gy0 + v * bh, tmp);
      grow(tmp[0], tmp[1]);
    }
  }
  for (const p of piece.pairs) grow(p.b.x, p.b.y);
  const pad = H * 0.02;
  const x0 = Math.max(0, Math.floor(ox0 - pad));
  const y0 = Math.max(Math.max(0, Math.floor(piece.minY ?? 0)), Math.floor(oy0 - pad));
  const x1 = Math.min(W - 1, Math.ceil(ox1 + pad));
  const y1 = Math.min(H - 1, Math.ceil(oy1 + pad));
  if (x1 < x0 || y1 < y0) return;

  // inverse map on a coarse grid
  const gw = Math.ceil((x1 - x0) / GRID) + 2;
  const gh = Math.ceil((y1 - y0) / GRID) + 2;
  const mapX = new Float32Array(gw * gh);
  const mapY = new Float32Array(gw * gh);
  for (let j = 0; j < gh; j++) {
    for (let i = 0; i < gw; i++) {
      inverse.map(x0 + i * GRID, y0 + j * GRID, tmp);
      mapX[j * gw + i] = tmp[0];
      mapY[j * gw + i] = tmp[1];
    }
  }

  const sample = filter === 'bicubic' ? sampleBicubic : sampleBilinear;
  const px = new Float32Array(4);
  const dist = frame.distance;
  const { select, exclude, reach } = piece;
  const srcW = piece.source.packshotWidth;
  const srcH = piece.source.packshotHeight;
  const out = layer.data;
  for (let y = y0; y <= y1; y++) {
    const fy = (y - y0) / GRID;
    const j = Math.floor(fy);
    const ty = fy - j;
    for (let x = x0; x <= x1; x++) {
      const o = y * W + x;
      if (exclude && exclude[o]) continue;
      const d = dist[o];
      if (d > reach + 1) continue;
      const fx = (x - x0) / GRID;
      const i = Math.floor(fx);
      const tx = fx - i;
      const k = j * gw + i;
      const sx = (mapX[k] * (1 - tx) + mapX[k + 1] * tx) * (1 - ty) + (mapX[k + gw] * (1 - tx) + mapX[k + gw + 1] * tx) * ty;
      const sy = (mapY[k] * (1 - tx) + mapY[k + 1] * tx) * (1 - ty) + (mapY[k + gw] * (1 - tx) + mapY[k + gw + 1] * tx) * ty;
      if (sx < -2 || sy < -2 || sx > srcW + 1 || sy > srcH + 1) continue;
      sample(piece.source, sx, sy, px);
      let a = px[3];
      if (a <= 0.002) continue;
      let wgt = d > reach ? reach + 1 - d : 1;
      if (select) {
        const si = Math.round(sy) * srcW + Math.round(sx);
        const sel = sx >= 0 && sy >= 0 && sx < srcW && sy < srcH ? select[si] / 255 : 0;
        wgt *= sel;
      }
      if (wgt <= 0) continue;
      a *= wgt;
      const q = o * 4;
      const keep = 1 - a;
      out[q] = px[0] * wgt + out[q] * keep;
      out[q + 1] = px[1] * wgt + out[q + 1] * keep;
      out[q + 2] = px[2] * wgt + out[q + 2] * keep;
      out[q + 3] = a + out[q + 3] * keep;
    }
  }
}

/**
 * Closes the small gaps a garment's pieces leave between them (under the arm, where a sleeve meets
 * the torso piece): uncovered pixels enclosed by the layer's cloth, up to `maxArea` pixels a gap,
 * are filled from their covered neighbours, ring by ring inwards. Without it the body's armpit
 * crease and the backdrop show through as dark slivers.
 */
export function closePieceGaps(layer: Layer, maxArea: number): void {
  const { width: w, height: h, data } = layer;
  const n = w * h;
  const covered = new Uint8Array(n);
  for (let i = 0; i < n; i++) covered[i] = data[i * 4 + 3] >= 0.5 ? 1 : 0;
  const filled = fillHoles(covered, w, h);
  const gap = new Uint8Array(n);
  let any = false;
  for (let i = 0; i < n; i++) if (filled[i] && !covered[i]) { gap[i] = 1; any = true; }
  if (!any) return;
  const { labels, components } = labelComponents(gap, w, h, { connectivity: 4 });
  for (let i = 0; i < n; i++) if (gap[i] && components[labels[i] - 1].area > maxArea) gap[i] = 0;
  // onion peeling: each pass fills the gap pixels that touch cloth with the mean of that cloth
  let frontier: number[] = [];
  for (let i = 0; i < n; i++) if (gap[i]) frontier.push(i);
  while (frontier.length) {
    const next: number[] = [];
    const done: [number, Float32Array][] = [];
    for (const i of frontier) {
      const x = i % w;
      const acc = new Float32Array(4);
      let k = 0;
      for (const j of [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, i - w, i + w]) {
        if (j < 0 || j >= n || gap[j] || data[j * 4 + 3] < 0.5) continue;
        for (let c = 0; c < 4; c++) acc[c] += data[j * 4 + c];
        k++;
      }
      if (k) {
        for (let c = 0; c < 4; c++) acc[c] /= k;
        done.push([i, acc]);
      } else next.push(i);
    }
    if (!done.length) break;
    for (const [i, px] of done) {
      data.set(px, i * 4);
      gap[i] = 0;
    }
    frontier = next;
  }
}
