/**
 * Procedural shoe GLB for tests: a sneaker-like model built in a canonical frame (metres, +Y up,
 * toe towards +Z, back of the heel at the origin, sole bottom on y = 0) with named parts:
 * `sole`, `upper` (textured), `laces`, the overlay `perforado_1` and the floor `suelo`.
 * The footprint is asymmetric like a real last: the medial side (big-toe side) has the arch
 * indentation and the toe tip leans medially. For a right shoe the medial side is +X (glTF's
 * +X is the wearer's left when the model faces +Z).
 */
import { Document, NodeIO } from '@gltf-transform/core';
import type { Material, Texture } from '@gltf-transform/core';
import sharp from 'sharp';

export type ShoeSide = 'left' | 'right';

export interface ShoeOptions {
  side?: ShoeSide;
  /** Heel-to-toe length in metres. */
  length?: number;
  /** Add the floor mesh `suelo`. */
  floor?: boolean;
  /** Add the overlay part `perforado_1`. */
  overlays?: boolean;
  /** Give the upper a PNG base-colour texture. */
  texture?: boolean;
  /** Column-major 4x4 matrix placed on the root node (the mesh data stays canonical). */
  rootMatrix?: number[];
  /** Multiply every vertex by this matrix instead of using a node transform. */
  bakedMatrix?: number[];
  /** Samples along the length. */
  segments?: number;
}

export const SHOE_PART_NAMES = ['sole', 'upper', 'laces', 'perforado_1', 'suelo'] as const;

interface PartMesh {
  positions: number[];
  uvs: number[];
  indices: number[];
  /** Point "inside" the part used to orient each triangle outward. */
  inside: (x: number, y: number, z: number) => [number, number, number];
}

function smoothstep(a: number, b: number, x: number): number {
  const t = Math.min(1, Math.max(0, (x - a) / (b - a)));
  return t * t * (3 - 2 * t);
}

/** Footprint in units of the length: lateral and medial half-widths and the centre-line offset. */
export function footprint(t: number): { lat: number; med: number; centre: number } {
  const heelCap = t < 0.14 ? Math.sqrt(Math.max(0, 1 - ((0.14 - t) / 0.14) ** 2)) : 1;
  let lat = 0.125 + 0.05 * smoothstep(0.14, 0.7, t);
  let med = 0.125 + 0.075 * smoothstep(0.14, 0.72, t) - 0.04 * Math.exp(-(((t - 0.45) / 0.11) ** 2));
  let centre = 0;
  if (t > 0.72) {
    const u = Math.min(1, (t - 0.72) / 0.28);
    const round = Math.sqrt(Math.max(0, 1 - u * u));
    centre = 0.05 * u ** 1.5;
    lat *= round;
    med *= round;
  }
  return { lat: lat * heelCap, med: med * heelCap, centre };
}

/** Sole thickness and upper height above the sole, in units of the length. */
function soleThickness(t: number): number {
  return 0.11 - 0.055 * smoothstep(0.15, 0.8, t);
}
function upperHeight(t: number): number {
  const u = t > 0.72 ? Math.min(1, (t - 0.72) / 0.28) : 0;
  const body = 0.3 - 0.06 * smoothstep(0.3, 0.6, t) - 0.1 * smoothstep(0.55, 0.88, t);
  return body * Math.sqrt(Math.max(0, 1 - u * u)) ** 0.6;
}

function mulPoint(m: number[], x: number, y: number, z: number): [number, number, number] {
  const w = m[3] * x + m[7] * y + m[11] * z + m[15];
  return [
    (m[0] * x + m[4] * y + m[8] * z + m[12]) / w,
    (m[1] * x + m[5] * y + m[9] * z + m[13]) / w,
    (m[2] * x + m[6] * y + m[10] * z + m[14]) / w,
  ];
}

function buildParts(side: ShoeSide, L: number, n: number, withOverlays: boolean, withFloor: boolean): Record<string, PartMesh> {
  const s = side === 'right' ? 1 : -1;
  const ts = Array.from({ length: n + 1 }, (_, i) => i / n);
  const edge = (t: number) => {
    const f = footprint(t);
    return { xl: (f.centre * s - f.lat * s) * L, xm: (f.centre * s + f.med * s) * L, xc: f.centre * s * L };
  };
  const parts: Record<string, PartMesh> = {};

  // Sole: top, bottom and side wall as separate vertex sets so the rims stay crisp.
  {
    const p: PartMesh = { positions: [], uvs: [], indices: [], inside: (x, y, z) => [edge(z / L).xc, soleThickness(z / L) * L * 0.5, z] };
    const push = (x: number, y: number, z: number) => {
      p.positions.push(x, y, z);
      p.uvs.push(x / L + 0.5, z / L);
      return p.positions.length / 3 - 1;
    };
    for (const top of [true, false]) {
      const base = p.positions.length / 3;
      for (const t of ts) {
        const e = edge(t);
        const y = top ? soleThickness(t) * L : 0;
        push(e.xl, y, t * L);
        push(e.xm, y, t * L);
      }
      for (let i = 0; i < n; i++) {
        const a = base + 2 * i;
        p.indices.push(a, a + 2, a + 3, a, a + 3, a + 1);
      }
    }
    // Wall: the outline loop (lateral heel→toe, then medial toe→heel), bottom and top rings.
    const loop: [number, number][] = [];
    for (const t of ts) loop.push([edge(t).xl, t]);
    for (let i = ts.length - 1; i >= 0; i--) loop.push([edge(ts[i]).xm, ts[i]]);
    const base = p.positions.length / 3;
    for (const [x, t] of loop) {
      push(x, 0, t * L);
      push(x, soleThickness(t) * L, t * L);
    }
    for (let i = 0; i < loop.length; i++) {
      const a = base + 2 * i;
      const b = base + 2 * ((i + 1) % loop.length);
      p.indices.push(a, b, b + 1, a, b + 1, a + 1);
    }
    parts.sole = p;
  }

  // Upper: cross-section arcs from the lateral rim over the top to the medial rim, with an
  // elliptical collar opening behind the laces.
  const m = 28;
  const upperPoint = (t: number, phi: number, offset = 0): [number, number, number] => {
    const e = edge(t);
    const half = phi < Math.PI / 2 ? Math.abs(e.xc - e.xl) : Math.abs(e.xm - e.xc);
    const shrink = 1 - 0.18 * Math.sin(phi) ** 2;
    const h = upperHeight(t) * L;
    const x = e.xc - Math.cos(phi) * half * shrink * s;
    const y = soleThickness(t) * L + h * Math.sin(phi) ** 0.7;
    // push outward from the section's centre for overlays
    const cy = soleThickness(t) * L;
    const dx = x - e.xc;
    const dy = y - cy;
    const d = Math.hypot(dx, dy) || 1;
    return [x + (dx / d) * offset, y + (dy / d) * offset, t * L];
  };
  const insideUpper = (_x: number, _y: number, z: number): [number, number, number] => {
    const t = Math.min(1, Math.max(0, z / L));
    return [edge(t).xc, soleThickness(t) * L, z];
  };
  {
    // Each section is two halves (lateral rim up to the top or to the collar edge, and the medial
    // rim up to the same), so the collar opening follows its ellipse exactly instead of the grid.
    const half = m / 2;
    const cols = m + 2;
    const collar = (t: number) => {
      const k = 1 - ((t - 0.25) / 0.17) ** 2;
      return k > 0 ? 0.24 * Math.PI * Math.sqrt(k) : 0;
    };
    const p: PartMesh = { positions: [], uvs: [], indices: [], inside: insideUpper };
    for (const t of ts) {
      const top = Math.PI / 2 - collar(t);
      for (let j = 0; j < cols; j++) {
        const phi = j <= half ? (j / half) * top : Math.PI - ((cols - 1 - j) / half) * top;
        p.positions.push(...upperPoint(t, phi));
        p.uvs.push(t, phi / Math.PI);
      }
    }
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < cols - 1; j++) {
        if (j === half) continue; // between the two halves: the opening, or a seam of coincident points
        const a = i * cols + j;
        const b = a + cols;
        p.indices.push(a, b, b + 1, a, b + 1, a + 1);
      }
    }
    parts.upper = p;
  }

  // Laces: five bars across the instep, just above the upper.
  {
    const p: PartMesh = { positions: [], uvs: [], indices: [], inside: insideUpper };
    for (const t of [0.45, 0.49, 0.53, 0.57, 0.61]) {
      const a = upperPoint(t, 0.36 * Math.PI, 0.003);
      const b = upperPoint(t, 0.64 * Math.PI, 0.003);
      const top = upperPoint(t, Math.PI / 2, 0.003)[1];
      const y0 = Math.max(a[1], b[1], top - 0.004);
      const hw = 0.0035;
      const x0 = Math.min(a[0], b[0]);
      const x1 = Math.max(a[0], b[0]);
      const z = t * L;
      addBox(p, [x0, y0, z - hw], [x1, y0 + 0.004, z + hw]);
    }
    parts.laces = p;
  }

  if (withOverlays) {
    const p: PartMesh = { positions: [], uvs: [], indices: [], inside: insideUpper };
    const nt = 8;
    const nphi = 6;
    for (let i = 0; i <= nt; i++) {
      for (let j = 0; j <= nphi; j++) {
        const t = 0.6 + (0.12 * i) / nt;
        const phi = 0.12 * Math.PI + (0.16 * Math.PI * j) / nphi;
        p.positions.push(...upperPoint(t, phi, 0.0015));
        p.uvs.push(i / nt, j / nphi);
      }
    }
    for (let i = 0; i < nt; i++) {
      for (let j = 0; j < nphi; j++) {
        const a = i * (nphi + 1) + j;
        const b = a + nphi + 1;
        p.indices.push(a, b, b + 1, a, b + 1, a + 1);
      }
    }
    parts.perforado_1 = p;
  }

  if (withFloor) {
    const p: PartMesh = { positions: [], uvs: [], indices: [], inside: (x, _y, z) => [x, -1, z] };
    const w = 0.35 * L;
    p.positions.push(-w, -0.0005, -0.2 * L, w, -0.0005, -0.2 * L, w, -0.0005, 1.2 * L, -w, -0.0005, 1.2 * L);
    p.uvs.push(0, 0, 1, 0, 1, 1, 0, 1);
    p.indices.push(0, 1, 2, 0, 2, 3);
    parts.suelo = p;
  }
  return parts;
}

function addBox(p: PartMesh, lo: number[], hi: number[]): void {
  const faces: [number, number[]][] = [
    [0, [lo[0], hi[0]]],
    [1, [lo[1], hi[1]]],
    [2, [lo[2], hi[2]]],
  ];
  for (const [axis, vals] of faces) {
    for (const v of vals) {
      const u = (axis + 1) % 3;
      const w = (axis + 2) % 3;
      const base = p.positions.length / 3;
      for (const [a, b] of [[lo[u], lo[w]], [hi[u], lo[w]], [hi[u], hi[w]], [lo[u], hi[w]]]) {
        const pt = [0, 0, 0];
        pt[axis] = v;
        pt[u] = a;
        pt[w] = b;
        p.positions.push(pt[0], pt[1], pt[2]);
        p.uvs.push(a === lo[u] ? 0 : 1, b === lo[w] ? 0 : 1);
      }
      p.indices.push(base, base + 1, base + 2, base, base + 2, base + 3);
    }
  }
}

/** Flips triangles whose normal points towards the part's inside, then computes vertex normals. */
function orientAndNormals(p: PartMesh): number[] {
  const P = p.positions;
  const box = centreOfBox(p);
  for (let i = 0; i < p.indices.length; i += 3) {
    const [a, b, c] = [p.indices[i], p.indices[i + 1], p.indices[i + 2]];
    const n = triNormal(P, a, b, c);
    const cx = (P[3 * a] + P[3 * b] + P[3 * c]) / 3;
    const cy = (P[3 * a + 1] + P[3 * b + 1] + P[3 * c + 1]) / 3;
    const cz = (P[3 * a + 2] + P[3 * b + 2] + P[3 * c + 2]) / 3;
    let ref = p.inside(cx, cy, cz);
    // boxes (laces) are oriented against their own centre
    if (box) ref = box(i / 3);
    if (n[0] * (cx - ref[0]) + n[1] * (cy - ref[1]) + n[2] * (cz - ref[2]) < 0) {
      p.indices[i + 1] = c;
      p.indices[i + 2] = b;
    }
  }
  const normals = new Array<number>(P.length).fill(0);
  for (let i = 0; i < p.indices.length; i += 3) {
    const [a, b, c] = [p.indices[i], p.indices[i + 1], p.indices[i + 2]];
    const n = triNormal(P, a, b, c); // area weighted
    for (const v of [a, b, c]) {
      normals[3 * v] += n[0];
      normals[3 * v + 1] += n[1];
      normals[3 * v + 2] += n[2];
    }
  }
  for (let v = 0; v < normals.length; v += 3) {
    const l = Math.hypot(normals[v], normals[v + 1], normals[v + 2]);
    if (l === 0) {
      // only degenerate triangles touch this vertex (the heel and toe tips of the outline)
      normals[v + 1] = 1;
      continue;
    }
    normals[v] /= l;
    normals[v + 1] /= l;
    normals[v + 2] /= l;
  }
  return normals;
}

/** For parts made of boxes (24 vertices each), the centre of the box a triangle belongs to. */
function centreOfBox(p: PartMesh): ((tri: number) => [number, number, number]) | null {
  if (p.positions.length % 72 !== 0 || p.indices.length !== (p.positions.length / 72) * 36) return null;
  return (tri) => {
    const box = Math.floor(tri / 12);
    let x = 0, y = 0, z = 0;
    for (let v = box * 24; v < box * 24 + 24; v++) {
      x += p.positions[3 * v];
      y += p.positions[3 * v + 1];
      z += p.positions[3 * v + 2];
    }
    return [x / 24, y / 24, z / 24];
  };
}

function triNormal(P: number[], a: number, b: number, c: number): [number, number, number] {
  const ux = P[3 * b] - P[3 * a], uy = P[3 * b + 1] - P[3 * a + 1], uz = P[3 * b + 2] - P[3 * a + 2];
  const vx = P[3 * c] - P[3 * a], vy = P[3 * c + 1] - P[3 * a + 1], vz = P[3 * c + 2] - P[3 * a + 2];
  return [uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx];
}

/** A 256x256 leather-like texture: stitch rows, a contrasting side stripe and a heel tab. */
async function upperTexture(): Promise<Uint8Array> {
  const size = 256;
  const px = Buffer.alloc(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      // u = x (heel→toe), v = y (lateral rim → top → medial rim)
      const u = x / size;
      const v = y / size;
      let r = 196, g = 84, b = 52;
      const grain = ((x * 7 + y * 13) % 17) - 8;
      r += grain; g += grain; b += grain;
      const stripe = Math.abs(v - 0.25 - 0.1 * Math.sin(u * 5)) < 0.035 && u > 0.25 && u < 0.8;
      const stripe2 = Math.abs(v - 0.75 + 0.1 * Math.sin(u * 5)) < 0.035 && u > 0.25 && u < 0.8;
      if (stripe || stripe2) [r, g, b] = [240, 236, 226];
      if (u < 0.07) [r, g, b] = [40, 40, 46];
      if (y % 32 === 30 && x % 6 < 3) [r, g, b] = [250, 250, 250];
      const i = (y * size + x) * 4;
      px[i] = Math.max(0, Math.min(255, r));
      px[i + 1] = Math.max(0, Math.min(255, g));
      px[i + 2] = Math.max(0, Math.min(255, b));
      px[i + 3] = 255;
    }
  }
  return new Uint8Array(await sharp(px, { raw: { width: size, height: size, channels: 4 } }).png().toBuffer());
}

export async function makeShoeDocument(opts: ShoeOptions = {}): Promise<Document> {
  const side = opts.side ?? 'right';
  const L = opts.length ?? 0.27;
  const parts = buildParts(side, L, opts.segments ?? 64, opts.overlays ?? true, opts.floor ?? true);
  const doc = new Document();
  const buffer = doc.createBuffer();
  const scene = doc.createScene('shoe');
  const root = doc.createNode('shoe');
  scene.addChild(root);
  if (opts.rootMatrix) root.setMatrix(opts.rootMatrix as never);

  let texture: Texture | null = null;
  if (opts.texture ?? true) {
    texture = doc.createTexture('upper_basecolor').setImage(await upperTexture()).setMimeType('image/png');
  }
  const materials: Record<string, Material> = {
    sole: doc.createMaterial('rubber').setBaseColorFactor([0.08, 0.08, 0.09, 1]).setRoughnessFactor(0.9).setMetallicFactor(0),
    upper: doc.createMaterial('leather').setBaseColorFactor([1, 1, 1, 1]).setRoughnessFactor(0.6).setMetallicFactor(0).setBaseColorTexture(texture).setDoubleSided(true),
    laces: doc.createMaterial('laces').setBaseColorFactor([0.95, 0.95, 0.93, 1]).setRoughnessFactor(0.85).setMetallicFactor(0),
    perforado_1: doc.createMaterial('perforated').setBaseColorFactor([0.15, 0.15, 0.2, 1]).setRoughnessFactor(0.5).setMetallicFactor(0.3),
    suelo: doc.createMaterial('floor').setBaseColorFactor([0.85, 0.85, 0.85, 1]).setRoughnessFactor(1).setMetallicFactor(0),
  };
  for (const [name, p] of Object.entries(parts)) {
    const normals = orientAndNormals(p);
    let positions = p.positions;
    let norms = normals;
    if (opts.bakedMatrix) {
      const mtx = opts.bakedMatrix;
      positions = [];
      norms = [];
      for (let i = 0; i < p.positions.length; i += 3) {
        positions.push(...mulPoint(mtx, p.positions[i], p.positions[i + 1], p.positions[i + 2]));
        const o = mulPoint(mtx, 0, 0, 0);
        const q = mulPoint(mtx, normals[i], normals[i + 1], normals[i + 2]);
        const d = [q[0] - o[0], q[1] - o[1], q[2] - o[2]];
        const l = Math.hypot(d[0], d[1], d[2]) || 1;
        norms.push(d[0] / l, d[1] / l, d[2] / l);
      }
    }
    const prim = doc
      .createPrimitive()
      .setAttribute('POSITION', doc.createAccessor().setType('VEC3').setArray(new Float32Array(positions)).setBuffer(buffer))
      .setAttribute('NORMAL', doc.createAccessor().setType('VEC3').setArray(new Float32Array(norms)).setBuffer(buffer))
      .setAttribute('TEXCOORD_0', doc.createAccessor().setType('VEC2').setArray(new Float32Array(p.uvs)).setBuffer(buffer))
      .setIndices(doc.createAccessor().setType('SCALAR').setArray(new Uint32Array(p.indices)).setBuffer(buffer))
      .setMaterial(materials[name]);
    const mesh = doc.createMesh(name).addPrimitive(prim);
    root.addChild(doc.createNode(name).setMesh(mesh));
  }
  return doc;
}

export async function makeShoeGlb(opts: ShoeOptions = {}): Promise<Uint8Array> {
  return await new NodeIO().writeBinary(await makeShoeDocument(opts));
}
