import type { FieldGrid } from './hull-field.ts';

export interface TriMesh {
  positions: Float32Array;
  indices: Uint32Array;
}

/**
 * Naive surface nets on a sampled field (negative inside): one vertex per cell that the surface
 * crosses, at the mean of its edge crossings, and one quad per crossing grid edge joining the four
 * cells around it, wound so normals point outwards. Quads are split along their shorter diagonal.
 */
export function surfaceNets(grid: FieldGrid): TriMesh {
  const { nx, ny, nz, origin, step, values } = grid;
  const cx = nx - 1, cy = ny - 1, cz = nz - 1;
  const cellVertex = new Int32Array(cx * cy * cz).fill(-1);
  const pos: number[] = [];
  const corner = new Float64Array(8);
  const edges: [number, number][] = [[0, 1], [2, 3], [4, 5], [6, 7], [0, 2], [1, 3], [4, 6], [5, 7], [0, 4], [1, 5], [2, 6], [3, 7]];
  const at = (i: number, j: number, k: number) => values[(k * ny + j) * nx + i];
  for (let k = 0; k < cz; k++) {
    for (let j = 0; j < cy; j++) {
      for (let i = 0; i < cx; i++) {
        let mask = 0;
        for (let c = 0; c < 8; c++) {
          const v = at(i + (c & 1), j + ((c >> 1) & 1), k + ((c >> 2) & 1));
          corner[c] = v;
          if (v < 0) mask |= 1 << c;
        }
        if (mask === 0 || mask === 255) continue;
        let sx = 0, sy = 0, sz = 0, n = 0;
        for (const [a, b] of edges) {
          const va = corner[a], vb = corner[b];
          if (va < 0 === vb < 0) continue;
          const t = va / (va - vb);
          sx += (a & 1) + t * ((b & 1) - (a & 1));
          sy += ((a >> 1) & 1) + t * (((b >> 1) & 1) - ((a >> 1) & 1));
          sz += ((a >> 2) & 1) + t * (((b >> 2) & 1) - ((a >> 2) & 1));
          n++;
        }
        cellVertex[(k * cy + j) * cx + i] = pos.length / 3;
        pos.push(origin[0] + (i + sx / n) * step, origin[1] + (j + sy / n) * step, origin[2] + (k + sz / n) * step);
      }
    }
  }
  const idx: number[] = [];
  const cell = (i: number, j: number, k: number) => cellVertex[(k * cy + j) * cx + i];
  const quad = (a: number, b: number, c: number, d: number, flip: boolean) => {
    if (a < 0 || b < 0 || c < 0 || d < 0) return;
    if (flip) { const t = b; b = d; d = t; }
    // split along the shorter diagonal
    const dac = dist2(pos, a, c), dbd = dist2(pos, b, d);
    if (dac <= dbd) idx.push(a, b, c, a, c, d);
    else idx.push(a, b, d, b, c, d);
  };
  for (let k = 1; k < nz - 1; k++) {
    for (let j = 1; j < ny - 1; j++) {
      for (let i = 1; i < nx - 1; i++) {
        const v0 = at(i, j, k);
        const inside = v0 < 0;
        // x edge (i,j,k)-(i+1,j,k): cells (i, j-1..j, k-1..k); normal +x when inside at the low end
        if (i < nx - 1 && inside !== at(i + 1, j, k) < 0) {
          quad(cell(i, j - 1, k - 1), cell(i, j, k - 1), cell(i, j, k), cell(i, j - 1, k), !inside);
        }
        if (j < ny - 1 && inside !== at(i, j + 1, k) < 0) {
          quad(cell(i - 1, j, k - 1), cell(i - 1, j, k), cell(i, j, k), cell(i, j, k - 1), !inside);
        }
        if (k < nz - 1 && inside !== at(i, j, k + 1) < 0) {
          quad(cell(i - 1, j - 1, k), cell(i, j - 1, k), cell(i, j, k), cell(i - 1, j, k), !inside);
        }
      }
    }
  }
  return { positions: new Float32Array(pos), indices: new Uint32Array(idx) };
}

function dist2(p: number[], a: number, b: number): number {
  const dx = p[a * 3] - p[b * 3], dy = p[a * 3 + 1] - p[b * 3 + 1], dz = p[a * 3 + 2] - p[b * 3 + 2];
  return dx * dx + dy * dy + dz * dz;
}
