import { MeshoptSimplifier } from 'meshoptimizer';
import type { TriMesh } from './surface-nets.ts';

/** Geometry helpers for the reconstructed surface: adjacency, smoothing, projection, simplification. */

export function vertexNeighbours(mesh: TriMesh): { offsets: Int32Array; list: Int32Array } {
  const nv = mesh.positions.length / 3;
  const sets: Set<number>[] = Array.from({ length: nv }, () => new Set<number>());
  const idx = mesh.indices;
  for (let f = 0; f < idx.length; f += 3) {
    const a = idx[f], b = idx[f + 1], c = idx[f + 2];
    sets[a].add(b).add(c);
    sets[b].add(a).add(c);
    sets[c].add(a).add(b);
  }
  const offsets = new Int32Array(nv + 1);
  for (let v = 0; v < nv; v++) offsets[v + 1] = offsets[v] + sets[v].size;
  const list = new Int32Array(offsets[nv]);
  for (let v = 0; v < nv; v++) {
    let k = offsets[v];
    for (const n of sets[v]) list[k++] = n;
  }
  return { offsets, list };
}

/**
 * Taubin smoothing (lambda / mu umbrella steps): removes the voxel staircase without the shrinkage
 * of plain Laplacian smoothing.
 */
export function taubinSmooth(mesh: TriMesh, iterations: number, lambda = 0.5, mu = -0.53): void {
  const { offsets, list } = vertexNeighbours(mesh);
  const p = mesh.positions;
  const nv = p.length / 3;
  const delta = new Float32Array(p.length);
  for (let it = 0; it < iterations * 2; it++) {
    const w = it % 2 === 0 ? lambda : mu;
    for (let v = 0; v < nv; v++) {
      const s = offsets[v], e = offsets[v + 1];
      if (e === s) continue;
      let x = 0, y = 0, z = 0;
      for (let k = s; k < e; k++) {
        const n = list[k] * 3;
        x += p[n]; y += p[n + 1]; z += p[n + 2];
      }
      const inv = 1 / (e - s);
      delta[v * 3] = x * inv - p[v * 3];
      delta[v * 3 + 1] = y * inv - p[v * 3 + 1];
      delta[v * 3 + 2] = z * inv - p[v * 3 + 2];
    }
    for (let i = 0; i < p.length; i++) p[i] += w * delta[i];
  }
}

/**
 * Moves vertices onto the zero level set of `field` with Newton steps along its numerical
 * gradient; steps are clamped to `maxStep` so a vertex never jumps across thin parts.
 */
export function projectToSurface(mesh: TriMesh, field: (x: number, y: number, z: number) => number, h: number, maxStep: number, iterations = 2): void {
  const p = mesh.positions;
  for (let it = 0; it < iterations; it++) {
    for (let v = 0; v < p.length; v += 3) {
      const x = p[v], y = p[v + 1], z = p[v + 2];
      const f = field(x, y, z);
      const gx = (field(x + h, y, z) - field(x - h, y, z)) / (2 * h);
      const gy = (field(x, y + h, z) - field(x, y - h, z)) / (2 * h);
      const gz = (field(x, y, z + h) - field(x, y, z - h)) / (2 * h);
      const g2 = gx * gx + gy * gy + gz * gz;
      if (g2 < 1e-8) continue;
      let s = -f / g2;
      const len = Math.abs(s) * Math.sqrt(g2);
      if (len > maxStep) s *= maxStep / len;
      p[v] += s * gx;
      p[v + 1] += s * gy;
      p[v + 2] += s * gz;
    }
  }
}

/** Area-weighted vertex normals. */
export function vertexNormals(mesh: TriMesh): Float32Array {
  const { positions: p, indices: idx } = mesh;
  const n = new Float32Array(p.length);
  for (let f = 0; f < idx.length; f += 3) {
    const a = idx[f] * 3, b = idx[f + 1] * 3, c = idx[f + 2] * 3;
    const ux = p[b] - p[a], uy = p[b + 1] - p[a + 1], uz = p[b + 2] - p[a + 2];
    const vx = p[c] - p[a], vy = p[c + 1] - p[a + 1], vz = p[c + 2] - p[a + 2];
    const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    for (const o of [a, b, c]) { n[o] += nx; n[o + 1] += ny; n[o + 2] += nz; }
  }
  for (let v = 0; v < n.length; v += 3) {
    const l = Math.hypot(n[v], n[v + 1], n[v + 2]);
    if (l > 1e-20) { n[v] /= l; n[v + 1] /= l; n[v + 2] /= l; }
    else { n[v] = 0; n[v + 1] = 1; n[v + 2] = 0; } // only degenerate faces touch it
  }
  return n;
}

/** Signed volume (positive when faces wind outwards). */
export function signedVolume(mesh: TriMesh): number {
  const { positions: p, indices: idx } = mesh;
  let v = 0;
  for (let f = 0; f < idx.length; f += 3) {
    const a = idx[f] * 3, b = idx[f + 1] * 3, c = idx[f + 2] * 3;
    v += p[a] * (p[b + 1] * p[c + 2] - p[b + 2] * p[c + 1]) - p[a + 1] * (p[b] * p[c + 2] - p[b + 2] * p[c]) + p[a + 2] * (p[b] * p[c + 1] - p[b + 1] * p[c]);
  }
  return v / 6;
}

export function bounds(positions: Float32Array): { min: [number, number, number]; max: [number, number, number] } {
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i += 3) {
    for (let k = 0; k < 3; k++) {
      const v = positions[i + k];
      if (v < min[k]) min[k] = v;
      if (v > max[k]) max[k] = v;
    }
  }
  return { min, max };
}

/** Drops unreferenced vertices. */
export function compact(mesh: TriMesh): TriMesh {
  const nv = mesh.positions.length / 3;
  const remap = new Int32Array(nv).fill(-1);
  let next = 0;
  for (const i of mesh.indices) if (remap[i] < 0) remap[i] = next++;
  const positions = new Float32Array(next * 3);
  for (let v = 0; v < nv; v++) {
    const r = remap[v];
    if (r < 0) continue;
    positions[r * 3] = mesh.positions[v * 3];
    positions[r * 3 + 1] = mesh.positions[v * 3 + 1];
    positions[r * 3 + 2] = mesh.positions[v * 3 + 2];
  }
  const indices = new Uint32Array(mesh.indices.length);
  for (let i = 0; i < indices.length; i++) indices[i] = remap[mesh.indices[i]];
  return { positions, indices };
}

/**
 * Drops the connected pieces with fewer than `minShare` of the triangles: specks left where a thin
 * part (a pull loop) falls apart between the voxels. Returns the mesh and how many pieces went.
 */
export function dropSpecks(mesh: TriMesh, minShare: number): { mesh: TriMesh; dropped: number } {
  const nv = mesh.positions.length / 3, nf = mesh.indices.length / 3;
  const parent = new Int32Array(nv);
  for (let v = 0; v < nv; v++) parent[v] = v;
  const find = (v: number) => {
    while (parent[v] !== v) { parent[v] = parent[parent[v]]; v = parent[v]; }
    return v;
  };
  for (let f = 0; f < nf; f++) {
    const a = find(mesh.indices[f * 3]);
    for (let k = 1; k < 3; k++) { const b = find(mesh.indices[f * 3 + k]); if (a !== b) parent[b] = a; }
  }
  const count = new Map<number, number>();
  for (let f = 0; f < nf; f++) { const r = find(mesh.indices[f * 3]); count.set(r, (count.get(r) ?? 0) + 1); }
  const min = minShare * nf;
  let dropped = 0;
  for (const c of count.values()) if (c < min) dropped++;
  if (!dropped) return { mesh, dropped };
  const kept: number[] = [];
  for (let f = 0; f < nf; f++) if (count.get(find(mesh.indices[f * 3]))! >= min) kept.push(mesh.indices[f * 3], mesh.indices[f * 3 + 1], mesh.indices[f * 3 + 2]);
  return { mesh: compact({ positions: mesh.positions, indices: Uint32Array.from(kept) }), dropped };
}

/**
 * Welds vertices at identical positions, then simplifies with meshoptimizer towards
 * `targetTriangles`, allowing `relativeError` of the mesh extent as geometric deviation. The
 * triangle count is a budget: when the error bound stops the simplifier above it (a detailed
 * surface such as a shoe's hollowed inside), the bound is relaxed, up to 16 times.
 */
export async function simplify(mesh: TriMesh, targetTriangles: number, relativeError: number): Promise<TriMesh> {
  await MeshoptSimplifier.ready;
  const welded = weld(mesh);
  if (welded.indices.length / 3 <= targetTriangles) return welded;
  let indices = welded.indices;
  for (let error = relativeError; error <= relativeError * 16; error *= 2) {
    [indices] = MeshoptSimplifier.simplify(welded.indices, welded.positions, 3, targetTriangles * 3, error, []);
    if (indices.length / 3 <= targetTriangles * BUDGET_SLACK) break;
  }
  return compact({ positions: welded.positions, indices });
}

/** Share over the triangle budget that is accepted without relaxing the error bound. */
const BUDGET_SLACK = 1.02;

export function weld(mesh: TriMesh): TriMesh {
  const remap = MeshoptSimplifier.generatePositionRemap(mesh.positions, 3);
  const indices = new Uint32Array(mesh.indices.length);
  for (let i = 0; i < indices.length; i++) indices[i] = remap[mesh.indices[i]];
  // drop triangles that collapsed
  const kept: number[] = [];
  for (let f = 0; f < indices.length; f += 3) {
    const a = indices[f], b = indices[f + 1], c = indices[f + 2];
    if (a !== b && b !== c && a !== c) kept.push(a, b, c);
  }
  return compact({ positions: mesh.positions, indices: Uint32Array.from(kept) });
}

/** Applies x' = s * (R_y(rot) x) + t to every vertex (rotation about +Y by `rotDeg`). */
export function transform(mesh: TriMesh, scale: number, translate: [number, number, number], rotDeg = 0): void {
  const c = Math.cos((rotDeg * Math.PI) / 180), s = Math.sin((rotDeg * Math.PI) / 180);
  const p = mesh.positions;
  for (let v = 0; v < p.length; v += 3) {
    const x = p[v], z = p[v + 2];
    p[v] = scale * (c * x + s * z) + translate[0];
    p[v + 1] = scale * p[v + 1] + translate[1];
    p[v + 2] = scale * (-s * x + c * z) + translate[2];
  }
}
