import { silhouetteDistance, silhouetteSpan, viewTrig, viewUV, type Silhouette, type ViewTrig } from './silhouettes.ts';

/** A silhouette placed at an azimuth around the vertical axis (camera at the silhouette's elevation and distance). */
export interface HullView {
  sil: Silhouette;
  azimuthDeg: number;
  /** Mirror the silhouette horizontally (a virtual view from the symmetric side). */
  mirrored?: boolean;
}

/**
 * The visual hull as an implicit field: the largest of the per-view signed distances of a point's
 * projection to each silhouette (world units, negative inside every silhouette cone). It is a
 * lower bound of the true distance to the hull, exact near faces, so its zero level set is the hull
 * and a marching mesher can place vertices with sub-voxel accuracy.
 */
export class HullField {
  readonly views: HullView[];
  private readonly trig: ViewTrig[];
  /** Optional mirror plane z = symmetryZ: the field is also evaluated at the mirrored point. */
  symmetryZ: number | null = null;
  /** Optional ground plane y = floorY: nothing of the product lies below it. */
  floorY: number | null = null;
  private readonly uv = [0, 0];

  constructor(views: HullView[]) {
    this.views = views;
    this.trig = views.map((v) => viewTrig(v.azimuthDeg, v.sil.elevationDeg));
  }

  /** Field value at a point; `coarse` uses the low-resolution grids (hypothesis scoring). */
  at(x: number, y: number, z: number, coarse = false, skip = -1): number {
    let f = this.raw(x, y, z, coarse, skip);
    if (this.symmetryZ !== null) f = Math.max(f, this.raw(x, y, 2 * this.symmetryZ - z, coarse, skip));
    if (this.floorY !== null) f = Math.max(f, this.floorY - y);
    return f;
  }

  private raw(x: number, y: number, z: number, coarse: boolean, skip: number): number {
    let f = -Infinity;
    const uv = this.uv;
    for (let i = 0; i < this.views.length; i++) {
      if (i === skip) continue;
      const v = this.views[i];
      viewUV(v.sil, this.trig[i], x, y, z, uv);
      const d = silhouetteDistance(v.sil, coarse ? v.sil.coarse : v.sil.work, v.mirrored ? -uv[0] : uv[0], uv[1]);
      if (d > f) f = d;
    }
    return f;
  }

  /**
   * The field on a regular grid (see `sampleField`), computed column by column: a view's pixel
   * column depends only on (x, z) and its row only on y. Values above 1.5 steps are clamped: the
   * field is 1-Lipschitz, so such a corner never shares a sign change with a neighbour.
   */
  async sampleGrid(bounds: { min: [number, number, number]; max: [number, number, number] }, step: number, signal?: AbortSignal): Promise<FieldGrid> {
    const pad = 2;
    const origin: [number, number, number] = [bounds.min[0] - pad * step, bounds.min[1] - pad * step, bounds.min[2] - pad * step];
    const nx = Math.ceil((bounds.max[0] - bounds.min[0]) / step) + 1 + 2 * pad;
    const ny = Math.ceil((bounds.max[1] - bounds.min[1]) / step) + 1 + 2 * pad;
    const nz = Math.ceil((bounds.max[2] - bounds.min[2]) / step) + 1 + 2 * pad;
    const values = new Float32Array(nx * ny * nz).fill(1.5 * step);
    const nvw = this.views.length;
    const cap = 1.5 * step;
    // per view: orthographic views split into a pixel column that depends only on (x, z) and a row
    // that is a y part plus a per-column offset; perspective views are projected per sample
    const rows = this.views.map((v, a) => {
      const g = v.sil.work;
      const out = new Float64Array(ny);
      for (let j = 0; j < ny; j++) out[j] = -(origin[1] + j * step) * this.trig[a].ce * v.sil.ppu * g.scale;
      return out;
    });
    const cols = new Float64Array(nvw);
    const rowOff = new Float64Array(nvw);
    const us = new Float64Array(nvw), ws = new Float64Array(nvw);
    const mirrors = this.symmetryZ === null ? [false] : [false, true];
    for (let k = 1; k < nz - 1; k++) {
      if (k % 8 === 0) {
        await new Promise((r) => setImmediate(r));
        if (signal?.aborted) throw signal.reason ?? new Error('aborted');
      }
      for (let i = 1; i < nx - 1; i++) {
        const x = origin[0] + i * step;
        for (const mirror of mirrors) {
          const z = mirror ? 2 * this.symmetryZ! - (origin[2] + k * step) : origin[2] + k * step;
          for (let a = 0; a < nvw; a++) {
            const { sil } = this.views[a], t = this.trig[a];
            us[a] = x * t.ca - z * t.sa;
            ws[a] = x * t.sa + z * t.ca;
            const u = this.views[a].mirrored ? -us[a] : us[a];
            cols[a] = (sil.axisX + (u + sil.shift) * sil.ppu - sil.work.x0) * sil.work.scale - 0.5;
            rowOff[a] = (sil.bottom + (ws[a] * t.se + sil.vMin) * sil.ppu - sil.work.y0) * sil.work.scale - 0.5;
          }
          for (let j = 1; j < ny - 1; j++) {
            const idx = (k * ny + j) * nx + i;
            let f = mirror ? values[idx] : -Infinity;
            if (f >= cap) continue;
            const y = origin[1] + j * step;
            for (let a = 0; a < nvw && f < cap; a++) {
              const { sil, mirrored } = this.views[a];
              const g = sil.work;
              let col = cols[a], row = rowOff[a] + rows[a][j];
              if (sil.inverseDistance !== 0) {
                const t = this.trig[a];
                const kk = 1 / Math.max(0.05, 1 - (ws[a] * t.ce + (y - sil.centreY) * t.se) * sil.inverseDistance);
                const vc = sil.centreY * t.ce, v = y * t.ce - ws[a] * t.se;
                col = (sil.axisX + ((mirrored ? -us[a] : us[a]) * kk + sil.shift) * sil.ppu - g.x0) * g.scale - 0.5;
                row = (sil.bottom - (vc + (v - vc) * kk - sil.vMin) * sil.ppu - g.y0) * g.scale - 0.5;
              }
              const d = gridSample(g.sdf, g.width, g.height, col, row) / (g.scale * sil.ppu);
              if (d > f) f = d;
            }
            if (this.floorY !== null) f = Math.max(f, this.floorY - y);
            values[idx] = Math.min(f, cap);
          }
        }
      }
    }
    return { nx, ny, nz, origin, step, values };
  }

  /** Bounding box of the intersection of the silhouettes' slabs in x/z, and the heights the views allow. */
  bounds(): { min: [number, number, number]; max: [number, number, number] } {
    let r = 0;
    const spans = this.views.map((v) => silhouetteSpan(v.sil));
    for (const [a, b] of spans) r = Math.max(r, Math.abs(a), Math.abs(b));
    // perspective: a view shows nearer parts larger, so the slabs widen with depth
    const widen = Math.max(...this.views.map((v) => 1 / Math.max(0.05, 1 - 1.05 * r * v.sil.inverseDistance)));
    r *= 1.05 * widen;
    const n = 256;
    const uv = this.uv;
    let x0 = Infinity, x1 = -Infinity, z0 = Infinity, z1 = -Infinity;
    for (let i = 0; i <= n; i++) {
      const x = -r + (2 * r * i) / n;
      for (let k = 0; k <= n; k++) {
        const z = -r + (2 * r * k) / n;
        let inside = true;
        for (let j = 0; j < this.views.length && inside; j++) {
          const v = this.views[j];
          viewUV(v.sil, this.trig[j], x, v.sil.centreY, z, uv);
          const u = v.mirrored ? -uv[0] : uv[0];
          const slack = v.sil.inverseDistance === 0 ? 0 : (spans[j][1] - spans[j][0]) * (widen - 1);
          if (u < spans[j][0] - slack || u > spans[j][1] + slack) inside = false;
        }
        if (!inside) continue;
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (z < z0) z0 = z;
        if (z > z1) z1 = z;
      }
    }
    // heights: level views see y directly; raised ones mix in the depth along the line of sight
    let y0 = Infinity, y1 = -Infinity;
    this.views.forEach((v, i) => {
      if (this.trig[i].ce < 0.3) return; // a view from straight above does not bound the height
      const lo = v.sil.vMin, hi = v.sil.vMin + (v.sil.bottom - v.sil.top) / v.sil.ppu;
      const depth = r * Math.abs(this.trig[i].se);
      const vc = v.sil.centreY * this.trig[i].ce;
      y0 = Math.min(y0, (vc + (lo - vc) * widen - depth) / this.trig[i].ce);
      y1 = Math.max(y1, (vc + (hi - vc) * widen + depth) / this.trig[i].ce);
    });
    if (!Number.isFinite(y0)) [y0, y1] = [-r, r];
    if (!Number.isFinite(x0)) return { min: [-r, y0, -r], max: [r, y1, r] };
    const pad = (2 * r) / n;
    const box: Box = { min: [x0 - pad, y0, z0 - pad], max: [x1 + pad, y1, z1 + pad] };
    return widen > 1 ? this.tighten(box) : box;
  }

  /**
   * The box shrunk to the hull on a lattice, padded by two lattice cells. A lattice point counts
   * when the hull comes within half a cell's diagonal of it (the field is a distance bound), so a
   * part thinner than a cell, such as a bag's handle, is never lost between the points.
   */
  private tighten(box: Box, n = 48): Box {
    const min: [number, number, number] = [Infinity, Infinity, Infinity], max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
    const cell = [0, 1, 2].map((a) => (box.max[a] - box.min[a]) / n);
    const near = 0.5 * Math.hypot(cell[0], cell[1], cell[2]);
    for (let i = 0; i <= n; i++) for (let j = 0; j <= n; j++) for (let k = 0; k <= n; k++) {
      const p = [box.min[0] + i * cell[0], box.min[1] + j * cell[1], box.min[2] + k * cell[2]];
      if (this.at(p[0], p[1], p[2]) > near) continue;
      for (let a = 0; a < 3; a++) {
        if (p[a] < min[a]) min[a] = p[a];
        if (p[a] > max[a]) max[a] = p[a];
      }
    }
    if (!Number.isFinite(min[0])) return box;
    return {
      min: [0, 1, 2].map((a) => Math.max(box.min[a], min[a] - 2 * cell[a])) as [number, number, number],
      max: [0, 1, 2].map((a) => Math.min(box.max[a], max[a] + 2 * cell[a])) as [number, number, number],
    };
  }
}

type Box = { min: [number, number, number]; max: [number, number, number] };

/** Field samples on a regular grid of points (x fastest, then y, then z). */
export interface FieldGrid {
  nx: number;
  ny: number;
  nz: number;
  origin: [number, number, number];
  step: number;
  values: Float32Array;
}

/**
 * Samples a field on a grid covering `bounds` with `step` spacing, padded by two samples on every
 * side where the value is forced positive, so the extracted surface is closed.
 */
export function sampleField(field: (x: number, y: number, z: number) => number, bounds: { min: [number, number, number]; max: [number, number, number] }, step: number, signal?: AbortSignal): FieldGrid {
  const pad = 2;
  const origin: [number, number, number] = [bounds.min[0] - pad * step, bounds.min[1] - pad * step, bounds.min[2] - pad * step];
  const nx = Math.ceil((bounds.max[0] - bounds.min[0]) / step) + 1 + 2 * pad;
  const ny = Math.ceil((bounds.max[1] - bounds.min[1]) / step) + 1 + 2 * pad;
  const nz = Math.ceil((bounds.max[2] - bounds.min[2]) / step) + 1 + 2 * pad;
  const values = new Float32Array(nx * ny * nz);
  for (let k = 0; k < nz; k++) {
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    const z = origin[2] + k * step;
    for (let j = 0; j < ny; j++) {
      const y = origin[1] + j * step;
      for (let i = 0; i < nx; i++) {
        const idx = (k * ny + j) * nx + i;
        if (i < 1 || j < 1 || k < 1 || i >= nx - 1 || j >= ny - 1 || k >= nz - 1) {
          values[idx] = step;
          continue;
        }
        values[idx] = field(origin[0] + i * step, y, z);
      }
    }
  }
  return { nx, ny, nz, origin, step, values };
}

/** Bilinear sample of a working-grid distance field, growing linearly outside the grid (pixels). */
function gridSample(sdf: Float32Array, w: number, h: number, gx: number, gy: number): number {
  const cx = gx < 0 ? 0 : gx > w - 1.001 ? w - 1.001 : gx;
  const cy = gy < 0 ? 0 : gy > h - 1.001 ? h - 1.001 : gy;
  const ix = Math.floor(cx), iy = Math.floor(cy);
  const fx = cx - ix, fy = cy - iy;
  const k = iy * w + ix;
  const top = sdf[k] + (sdf[k + 1] - sdf[k]) * fx;
  const bot = sdf[k + w] + (sdf[k + w + 1] - sdf[k + w]) * fx;
  let d = top + (bot - top) * fy;
  if (cx !== gx || cy !== gy) d += Math.hypot(gx - cx, gy - cy);
  return d;
}
