import type { TriMesh } from './surface-nets.ts';

/**
 * Projection-based UV atlas (used because glTF-Transform's `unwrap` needs the optional `watlas`
 * package, which is not installed). Faces are grouped by the closest of the six axis directions,
 * split into edge-connected charts, each chart is projected orthographically onto its axis plane
 * (foreshortening at most 1/cos(54.7 deg) = 1.73), overlapping triangles inside a chart are moved
 * to new charts, and the charts are shelf-packed at one common texel density with a gutter.
 */
export interface AtlasMesh {
  positions: Float32Array;
  uvs: Float32Array;
  indices: Uint32Array;
  /** Source vertex of every atlas vertex (vertices are split along chart borders). */
  sourceVertex: Uint32Array;
  /** Chart of every face. */
  faceChart: Int32Array;
  charts: number;
  /** Atlas side in texels the packing was computed for. */
  size: number;
  /** Gutter in texels around every chart. */
  gutter: number;
}

const AXES: [number, number, number][] = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]];

/**
 * `density` (optional, per face, in (0, 1]) scales a face's share of texels: faces no photo can see
 * (a shoe's lining) take less of the atlas, so the outside keeps its resolution. Faces of different
 * densities never share a chart.
 */
export function buildAtlas(mesh: TriMesh, size: number, gutter = 4, density?: Float32Array): AtlasMesh {
  const { positions: p, indices: idx } = mesh;
  const nf = idx.length / 3;
  const normals = new Float32Array(nf * 3);
  const areas = new Float64Array(nf);
  for (let f = 0; f < nf; f++) {
    const a = idx[f * 3] * 3, b = idx[f * 3 + 1] * 3, c = idx[f * 3 + 2] * 3;
    const ux = p[b] - p[a], uy = p[b + 1] - p[a + 1], uz = p[b + 2] - p[a + 2];
    const vx = p[c] - p[a], vy = p[c + 1] - p[a + 1], vz = p[c + 2] - p[a + 2];
    const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    const l = Math.hypot(nx, ny, nz);
    areas[f] = l / 2;
    normals[f * 3] = l ? nx / l : 0;
    normals[f * 3 + 1] = l ? ny / l : 0;
    normals[f * 3 + 2] = l ? nz / l : 1;
  }
  const adjacency = faceAdjacency(idx, p.length / 3);
  // 1. axis label per face, then a few majority passes so labels do not fragment into slivers
  const label = new Int8Array(nf);
  for (let f = 0; f < nf; f++) label[f] = bestAxis(normals, f);
  for (let pass = 0; pass < 3; pass++) {
    for (let f = 0; f < nf; f++) {
      const counts = new Int32Array(6);
      for (let k = 0; k < 3; k++) {
        const g = adjacency[f * 3 + k];
        if (g >= 0) counts[label[g]]++;
      }
      for (let a = 0; a < 6; a++) {
        if (a !== label[f] && counts[a] >= 2 && dotAxis(normals, f, a) > 0.35) { label[f] = a; break; }
      }
    }
  }
  // 2. charts = edge-connected components of equal label, with in-chart overlaps moved out
  const faceChart = new Int32Array(nf).fill(-1);
  const chartAxis: number[] = [];
  const chartDensity: number[] = [];
  const dens = (f: number) => density?.[f] ?? 1;
  let pending: number[] = Array.from({ length: nf }, (_, f) => f);
  const texel = Math.sqrt(totalArea(areas) / (size * size * 0.55));
  for (let round = 0; round < 8 && pending.length > 0; round++) {
    const pendingSet = new Uint8Array(nf);
    for (const f of pending) pendingSet[f] = 1;
    const overflow: number[] = [];
    for (const seed of pending) {
      if (faceChart[seed] >= 0 || !pendingSet[seed]) continue;
      const chart = chartAxis.length;
      chartAxis.push(label[seed]);
      chartDensity.push(dens(seed));
      const members: number[] = [];
      const stack = [seed];
      faceChart[seed] = chart;
      while (stack.length) {
        const f = stack.pop()!;
        members.push(f);
        for (let k = 0; k < 3; k++) {
          const g = adjacency[f * 3 + k];
          if (g >= 0 && pendingSet[g] && faceChart[g] < 0 && label[g] === label[seed] && dens(g) === dens(seed)) {
            faceChart[g] = chart;
            stack.push(g);
          }
        }
      }
      for (const f of overlapping(members, idx, p, label[seed], texel)) {
        faceChart[f] = -1;
        overflow.push(f);
      }
    }
    pending = overflow;
  }
  // anything still overlapping after the rounds gets a chart per face
  for (const f of pending) {
    faceChart[f] = chartAxis.length;
    chartAxis.push(label[f]);
    chartDensity.push(dens(f));
  }
  // 3. split vertices per chart and project
  const key = new Map<number, number>();
  const srcVertex: number[] = [];
  const planar: number[] = [];
  const indices = new Uint32Array(idx.length);
  const nv = p.length / 3;
  for (let f = 0; f < nf; f++) {
    const chart = faceChart[f];
    for (let k = 0; k < 3; k++) {
      const v = idx[f * 3 + k];
      const id = chart * nv + v;
      let out = key.get(id);
      if (out === undefined) {
        out = srcVertex.length;
        key.set(id, out);
        srcVertex.push(v);
        const [a, b] = project(p, v, chartAxis[chart]);
        planar.push(a * chartDensity[chart], b * chartDensity[chart]);
      }
      indices[f * 3 + k] = out;
    }
  }
  // chart extents in plane units
  const charts = chartAxis.length;
  const box = new Float64Array(charts * 4).fill(NaN);
  for (let f = 0; f < nf; f++) {
    const c = faceChart[f];
    for (let k = 0; k < 3; k++) {
      const v = indices[f * 3 + k];
      const a = planar[v * 2], b = planar[v * 2 + 1];
      if (Number.isNaN(box[c * 4]) || a < box[c * 4]) box[c * 4] = a;
      if (Number.isNaN(box[c * 4 + 1]) || b < box[c * 4 + 1]) box[c * 4 + 1] = b;
      if (Number.isNaN(box[c * 4 + 2]) || a > box[c * 4 + 2]) box[c * 4 + 2] = a;
      if (Number.isNaN(box[c * 4 + 3]) || b > box[c * 4 + 3]) box[c * 4 + 3] = b;
    }
  }
  // small atlases with many charts may not fit full gutters: narrow them before giving up
  let placement: ReturnType<typeof pack> | null = null;
  let usedGutter = gutter;
  for (let g = gutter; g >= 0 && !placement; g = g > 1 ? Math.floor(g / 2) : g - 1) {
    placement = pack(box, charts, size, g);
    usedGutter = g;
  }
  if (!placement) throw new Error(`atlas packing failed: ${charts} charts do not fit ${size}px`);
  const uvs = new Float32Array(srcVertex.length * 2);
  const chartOfVertex = new Int32Array(srcVertex.length);
  for (let f = 0; f < nf; f++) for (let k = 0; k < 3; k++) chartOfVertex[indices[f * 3 + k]] = faceChart[f];
  for (let v = 0; v < srcVertex.length; v++) {
    const c = chartOfVertex[v];
    const x = placement.x[c] + (planar[v * 2] - box[c * 4]) * placement.scale;
    const y = placement.y[c] + (planar[v * 2 + 1] - box[c * 4 + 1]) * placement.scale;
    uvs[v * 2] = x / size;
    uvs[v * 2 + 1] = y / size;
  }
  const positions = new Float32Array(srcVertex.length * 3);
  for (let v = 0; v < srcVertex.length; v++) {
    positions[v * 3] = p[srcVertex[v] * 3];
    positions[v * 3 + 1] = p[srcVertex[v] * 3 + 1];
    positions[v * 3 + 2] = p[srcVertex[v] * 3 + 2];
  }
  return { positions, uvs, indices, sourceVertex: Uint32Array.from(srcVertex), faceChart, charts, size, gutter: usedGutter };
}

function totalArea(areas: Float64Array): number {
  let s = 0;
  for (const a of areas) s += a;
  return s;
}

function bestAxis(normals: Float32Array, f: number): number {
  let best = 0, bestDot = -Infinity;
  for (let a = 0; a < 6; a++) {
    const d = dotAxis(normals, f, a);
    if (d > bestDot) { bestDot = d; best = a; }
  }
  return best;
}

function dotAxis(normals: Float32Array, f: number, a: number): number {
  const ax = AXES[a];
  return normals[f * 3] * ax[0] + normals[f * 3 + 1] * ax[1] + normals[f * 3 + 2] * ax[2];
}

/** Plane coordinates for an axis, chosen so the projection is not mirrored (right-handed). */
function project(p: Float32Array, v: number, axis: number): [number, number] {
  const x = p[v * 3], y = p[v * 3 + 1], z = p[v * 3 + 2];
  switch (axis) {
    case 0: return [-z, -y];
    case 1: return [z, -y];
    case 2: return [x, z];
    case 3: return [x, -z];
    case 4: return [x, -y];
    default: return [-x, -y];
  }
}

/** Three neighbours per face across its edges (-1 on borders). */
function faceAdjacency(idx: Uint32Array, nv: number): Int32Array {
  const nf = idx.length / 3;
  const adj = new Int32Array(nf * 3).fill(-1);
  const edges = new Map<number, number>();
  for (let f = 0; f < nf; f++) {
    for (let k = 0; k < 3; k++) {
      const a = idx[f * 3 + k], b = idx[f * 3 + ((k + 1) % 3)];
      const key = Math.min(a, b) * nv + Math.max(a, b);
      const other = edges.get(key);
      if (other === undefined) edges.set(key, f * 3 + k);
      else {
        const g = Math.floor(other / 3);
        adj[f * 3 + k] = g;
        adj[other] = f;
        edges.delete(key);
      }
    }
  }
  return adj;
}

/**
 * Faces of a chart whose projections cover texels already covered by a face they share no vertex
 * with (the chart folds over itself); rasterised at roughly the final texel size.
 */
function overlapping(members: number[], idx: Uint32Array, p: Float32Array, axis: number, texel: number): number[] {
  if (members.length < 2) return [];
  const pts = new Map<number, [number, number]>();
  let a0 = Infinity, b0 = Infinity, a1 = -Infinity, b1 = -Infinity;
  for (const f of members) {
    for (let k = 0; k < 3; k++) {
      const v = idx[f * 3 + k];
      if (pts.has(v)) continue;
      const q = project(p, v, axis);
      pts.set(v, q);
      a0 = Math.min(a0, q[0]); b0 = Math.min(b0, q[1]); a1 = Math.max(a1, q[0]); b1 = Math.max(b1, q[1]);
    }
  }
  const w = Math.max(1, Math.ceil((a1 - a0) / texel) + 1), h = Math.max(1, Math.ceil((b1 - b0) / texel) + 1);
  if (w * h > 16e6) return [];
  const owner = new Int32Array(w * h).fill(-1);
  const out: number[] = [];
  for (const f of members) {
    const v0 = idx[f * 3], v1 = idx[f * 3 + 1], v2 = idx[f * 3 + 2];
    const q0 = pts.get(v0)!, q1 = pts.get(v1)!, q2 = pts.get(v2)!;
    const x0 = (q0[0] - a0) / texel, y0 = (q0[1] - b0) / texel;
    const x1 = (q1[0] - a0) / texel, y1 = (q1[1] - b0) / texel;
    const x2 = (q2[0] - a0) / texel, y2 = (q2[1] - b0) / texel;
    const area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0);
    if (Math.abs(area) < 1e-12) continue;
    const cells: number[] = [];
    let conflict = false;
    for (let y = Math.max(0, Math.floor(Math.min(y0, y1, y2))); y <= Math.min(h - 1, Math.ceil(Math.max(y0, y1, y2))) && !conflict; y++) {
      for (let x = Math.max(0, Math.floor(Math.min(x0, x1, x2))); x <= Math.min(w - 1, Math.ceil(Math.max(x0, x1, x2))); x++) {
        const cx = x + 0.5, cy = y + 0.5;
        const w1 = ((cx - x0) * (y2 - y0) - (x2 - x0) * (cy - y0)) / area;
        const w2 = ((x1 - x0) * (cy - y0) - (cx - x0) * (y1 - y0)) / area;
        if (w1 < 0 || w2 < 0 || w1 + w2 > 1) continue;
        const o = owner[y * w + x];
        if (o >= 0) {
          const ov = [idx[o * 3], idx[o * 3 + 1], idx[o * 3 + 2]];
          if (!ov.includes(v0) && !ov.includes(v1) && !ov.includes(v2)) { conflict = true; break; }
          continue;
        }
        cells.push(y * w + x);
      }
    }
    if (conflict) { out.push(f); continue; }
    for (const c of cells) owner[c] = f;
  }
  return out;
}

/** Shelf packing of chart boxes at the largest common scale that fits the atlas. */
function pack(box: Float64Array, charts: number, size: number, gutter: number): { scale: number; x: Float64Array; y: Float64Array } | null {
  const order = Array.from({ length: charts }, (_, c) => c).sort((a, b) => (box[b * 4 + 3] - box[b * 4 + 1]) - (box[a * 4 + 3] - box[a * 4 + 1]) || a - b);
  const x = new Float64Array(charts), y = new Float64Array(charts);
  const tryScale = (s: number): boolean => {
    let cx = 0, cy = 0, shelf = 0;
    for (const c of order) {
      const w = (box[c * 4 + 2] - box[c * 4]) * s + 2 * gutter;
      const h = (box[c * 4 + 3] - box[c * 4 + 1]) * s + 2 * gutter;
      if (w > size) return false;
      if (cx + w > size) { cx = 0; cy += shelf; shelf = 0; }
      if (cy + h > size) return false;
      x[c] = cx + gutter;
      y[c] = cy + gutter;
      cx += Math.ceil(w);
      shelf = Math.max(shelf, Math.ceil(h));
    }
    return true;
  };
  let area = 0;
  for (let c = 0; c < charts; c++) area += (box[c * 4 + 2] - box[c * 4]) * (box[c * 4 + 3] - box[c * 4 + 1]);
  let lo = 0, hi = Math.sqrt((size * size) / Math.max(1e-12, area)) * 1.2;
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (tryScale(mid)) lo = mid;
    else hi = mid;
  }
  if (!tryScale(lo)) return null;
  return { scale: lo, x, y };
}
