import { silhouetteDistance, silhouetteSpan, type Silhouette, type WorkGrid } from './silhouettes.ts';

/** A silhouette placed at an azimuth around the vertical axis (orthographic camera at the silhouette's elevation). */
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
  private readonly cos: Float64Array;
  private readonly sin: Float64Array;
  private readonly cosE: Float64Array;
  private readonly sinE: Float64Array;
  /** Optional mirror plane z = symmetryZ: the field is also evaluated at the mirrored point. */
  symmetryZ: number | null = null;
  /** Optional ground plane y = floorY: nothing of the product lies below it. */
  floorY: number | null = null;

  constructor(views: HullView[]) {
    this.views = views;
    this.cos = Float64Array.from(views.map((v) => Math.cos((v.azimuthDeg * Math.PI) / 180)));
    this.sin = Float64Array.from(views.map((v) => Math.sin((v.azimuthDeg * Math.PI) / 180)));
    this.cosE = Float64Array.from(views.map((v) => Math.cos((v.sil.elevationDeg * Math.PI) / 180)));
    this.sinE = Float64Array.from(views.map((v) => Math.sin((v.sil.elevationDeg * Math.PI) / 180)));
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
    for (let i = 0; i < this.views.length; i++) {
      if (i === skip) continue;
      const v = this.views[i];
      let u = x * this.cos[i] - z * this.sin[i];
      if (v.mirrored) u = -u;
      const grid: WorkGrid = coarse ? v.sil.coarse : v.sil.work;
      const d = silhouetteDistance(v.sil, grid, u, y * this.cosE[i] - (x * this.sin[i] + z * this.cos[i]) * this.sinE[i]);
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
    // per view: the y part of the grid row for every y sample (plus a per-column offset when the
    // camera looks down: then the row also depends on x and z)
    const rows = this.views.map((v, a) => {
      const g = v.sil.work;
      const out = new Float64Array(ny);
      for (let j = 0; j < ny; j++) out[j] = -(origin[1] + j * step) * this.cosE[a] * v.sil.ppu * g.scale;
      return out;
    });
    const cols = new Float64Array(nvw);
    const rowOff = new Float64Array(nvw);
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
            const v = this.views[a];
            let u = x * this.cos[a] - z * this.sin[a];
            if (v.mirrored) u = -u;
            cols[a] = (v.sil.axisX + (u + v.sil.shift) * v.sil.ppu - v.sil.work.x0) * v.sil.work.scale - 0.5;
            rowOff[a] = (v.sil.bottom + ((x * this.sin[a] + z * this.cos[a]) * this.sinE[a] + v.sil.vMin) * v.sil.ppu - v.sil.work.y0) * v.sil.work.scale - 0.5;
          }
          for (let j = 1; j < ny - 1; j++) {
            const idx = (k * ny + j) * nx + i;
            let f = mirror ? values[idx] : -Infinity;
            if (f >= cap) continue;
            for (let a = 0; a < nvw && f < cap; a++) {
              const g = this.views[a].sil.work;
              const d = gridSample(g.sdf, g.width, g.height, cols[a], rowOff[a] + rows[a][j]) / (g.scale * this.views[a].sil.ppu);
              if (d > f) f = d;
            }
            if (this.floorY !== null) f = Math.max(f, this.floorY - (origin[1] + j * step));
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
    r *= 1.05;
    const n = 256;
    let x0 = Infinity, x1 = -Infinity, z0 = Infinity, z1 = -Infinity;
    for (let i = 0; i <= n; i++) {
      const x = -r + (2 * r * i) / n;
      for (let k = 0; k <= n; k++) {
        const z = -r + (2 * r * k) / n;
        let inside = true;
        for (let j = 0; j < this.views.length && inside; j++) {
          let u = x * this.cos[j] - z * this.sin[j];
          if (this.views[j].mirrored) u = -u;
          if (u < spans[j][0] || u > spans[j][1]) inside = false;
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
      const lo = v.sil.vMin, hi = v.sil.vMin + (v.sil.bottom - v.sil.top) / v.sil.ppu;
      const depth = r * Math.abs(this.sinE[i]);
      y0 = Math.min(y0, (lo - depth) / this.cosE[i]);
      y1 = Math.max(y1, (hi + depth) / this.cosE[i]);
    });
    if (!Number.isFinite(x0)) return { min: [-r, y0, -r], max: [r, y1, r] };
    const pad = (2 * r) / n;
    return { min: [x0 - pad, y0, z0 - pad], max: [x1 + pad, y1, z1 + pad] };
  }
}

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
