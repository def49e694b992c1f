/**
 * Textured test objects for the 3D reconstruction, not made by the code that reconstructs them:
 * a real shoe model (Shopify's Materials Variants Shoe, CC BY 4.0, test/fixtures/objects) and two
 * objects modelled here as parametric surfaces with UVs and painted textures (an ankle boot with a
 * block heel and an open shaft, a tote bag with two open handles). Photos of them are rendered
 * like a studio packshot: a perspective camera at a given distance, azimuth and elevation, each
 * photo framed on the object. `measureShape` aligns a reconstruction to the truth (scale, then
 * ICP with scale) and reports Chamfer distance and F-score.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RasterImage } from '../../core/images.ts';
import { readGlbMeshes } from '../../adapters/builtin/shoe3d/read-glb.ts';
import { SharpImageCodec } from '../../adapters/sharp/image-codec.ts';
import { renderScene, viewBasis, type OrthoView, type RenderMesh } from '../../adapters/gltf/render.ts';
import { meshBounds, onWhite, rng, samplePoints, surfaceDistances, type Surface } from './products.ts';

export interface TestObject {
  name: string;
  productType: 'shoe' | 'other';
  /** Textured primitives in metres, ground at y = 0; a shoe's toe points to +X. */
  meshes: RenderMesh[];
  /** The whole surface as one triangle list (for the metrics). */
  surface: Surface;
  /** Longest horizontal extent, metres. */
  length: number;
  source: string;
}

const FIXTURES = fileURLToPath(new URL('../fixtures/objects/', import.meta.url));

export async function loadTestObjects(): Promise<TestObject[]> {
  return [await materialsVariantsShoe(), ankleBoot(), toteBag()];
}

export async function materialsVariantsShoe(): Promise<TestObject> {
  const meshes = await readGlbMeshes(readFileSync(`${FIXTURES}materials-variants-shoe.glb`), new SharpImageCodec());
  return finish('sneaker', 'shoe', meshes.map((m) => ({ positions: m.positions, indices: m.indices, uvs: m.uvs, texture: m.texture })), 'Materials Variants Shoe, © 2021 Shopify, CC BY 4.0 (glTF Sample Assets)');
}

function finish(name: string, productType: 'shoe' | 'other', meshes: RenderMesh[], source: string): TestObject {
  let count = 0, tris = 0;
  for (const m of meshes) { count += m.positions.length; tris += m.indices.length; }
  const positions = new Float32Array(count), indices = new Uint32Array(tris);
  let pv = 0, pi = 0;
  for (const m of meshes) {
    positions.set(m.positions, pv);
    for (let i = 0; i < m.indices.length; i++) indices[pi + i] = m.indices[i] + pv / 3;
    pv += m.positions.length;
    pi += m.indices.length;
  }
  // ground at y = 0, centred on the vertical axis
  const b = meshBounds(positions);
  const cx = (b.min[0] + b.max[0]) / 2, cz = (b.min[2] + b.max[2]) / 2;
  for (const m of [...meshes, { positions }]) {
    for (let i = 0; i < m.positions.length; i += 3) {
      m.positions[i] -= cx;
      m.positions[i + 1] -= b.min[1];
      m.positions[i + 2] -= cz;
    }
  }
  const nb = meshBounds(positions);
  return { name, productType, meshes, surface: { positions, indices }, length: Math.max(nb.max[0] - nb.min[0], nb.max[2] - nb.min[2]), source };
}

// ---------------------------------------------------------------------------------------------
// Parametric surfaces

/** A (u, v) grid surface: `at(u, v)` in [0,1]², closed in u when `wrapU`. */
function gridSurface(nu: number, nv: number, at: (u: number, v: number) => [number, number, number], wrapU: boolean, uvRect: [number, number, number, number], flip = false): { positions: Float32Array; uvs: Float32Array; indices: Uint32Array } {
  const cols = wrapU ? nu : nu + 1;
  const positions = new Float32Array(cols * (nv + 1) * 3), uvs = new Float32Array(cols * (nv + 1) * 2);
  for (let j = 0; j <= nv; j++) {
    for (let i = 0; i < cols; i++) {
      const u = i / nu, v = j / nv;
      const p = at(u, v);
      const k = j * cols + i;
      positions.set(p, k * 3);
      uvs[k * 2] = uvRect[0] + u * (uvRect[2] - uvRect[0]);
      uvs[k * 2 + 1] = uvRect[1] + v * (uvRect[3] - uvRect[1]);
    }
  }
  const idx: number[] = [];
  for (let j = 0; j < nv; j++) {
    for (let i = 0; i < nu; i++) {
      const a = j * cols + i, b = j * cols + ((i + 1) % cols), c = (j + 1) * cols + i, d = (j + 1) * cols + ((i + 1) % cols);
      if (flip) idx.push(a, c, b, b, c, d);
      else idx.push(a, b, c, b, d, c);
    }
  }
  return { positions, uvs, indices: Uint32Array.from(idx) };
}

function merge(parts: { positions: Float32Array; uvs: Float32Array; indices: Uint32Array }[], texture: RasterImage): RenderMesh {
  let nv = 0, ni = 0;
  for (const p of parts) { nv += p.positions.length / 3; ni += p.indices.length; }
  const positions = new Float32Array(nv * 3), uvs = new Float32Array(nv * 2), indices = new Uint32Array(ni);
  let v = 0, i = 0;
  for (const p of parts) {
    positions.set(p.positions, v * 3);
    uvs.set(p.uvs, v * 2);
    for (let k = 0; k < p.indices.length; k++) indices[i + k] = p.indices[k] + v;
    v += p.positions.length / 3;
    i += p.indices.length;
  }
  return { positions, uvs, indices, texture };
}

/** Superellipse point at angle t (radians) with half-axes a, b and exponent n (2 = ellipse). */
function superellipse(t: number, a: number, b: number, n: number): [number, number] {
  const c = Math.cos(t), s = Math.sin(t);
  return [a * Math.sign(c) * Math.abs(c) ** (2 / n), b * Math.sign(s) * Math.abs(s) ** (2 / n)];
}

/** A painted texture: `paint(x, y)` gives RGB for texel centres, plus per-texel noise. */
function paintTexture(size: number, seed: number, paint: (x: number, y: number, noise: number) => [number, number, number]): RasterImage {
  const r = rng(seed);
  const data = new Uint8Array(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const c = paint((x + 0.5) / size, (y + 0.5) / size, r() - 0.5);
      const o = (y * size + x) * 4;
      data[o] = Math.max(0, Math.min(255, c[0]));
      data[o + 1] = Math.max(0, Math.min(255, c[1]));
      data[o + 2] = Math.max(0, Math.min(255, c[2]));
      data[o + 3] = 255;
    }
  }
  return { width: size, height: size, data };
}

/**
 * An ankle boot, 27 cm long and 17 cm high: a foot part with toe spring and a raised heel seat on
 * a 3.5 cm block heel (the arch shows background between heel and tread in side views), and an
 * open shaft whose inner wall and insole are seen from above; the foot part is hollow (a lining
 * over an insole reaching into the toe box), as a real boot is. Brown leather with stitching, an
 * elastic side panel, a dark sole.
 */
export function ankleBoot(): TestObject {
  const L = 0.27, H = 0.17, heel = 0.035, soleT = 0.012;
  // sole bottom and top of the foot part along x (0 = heel end, L = toe)
  const soleBottom = (x: number) => {
    const t = x / L;
    if (t < 0.25) return heel;
    if (t < 0.62) return heel * (1 - smooth((t - 0.25) / 0.37));
    return 0.012 * smooth((t - 0.86) / 0.14);
  };
  const halfWidth = (x: number) => {
    const t = x / L;
    return 0.045 * Math.sqrt(Math.max(0, Math.sin(Math.PI * Math.min(1, (t + 0.04) / 1.06)))) * (0.82 + 0.18 * smooth((t - 0.2) / 0.5));
  };
  const footTop = (x: number) => {
    const t = x / L;
    return soleBottom(x) + soleT + 0.075 * (1 - smooth((t - 0.45) / 0.55)) + 0.02;
  };
  const centreZ = (x: number) => 0.006 * Math.sin((Math.PI * x) / L);
  const tex = paintTexture(512, 11, (u, v, n) => {
    // left half: upper leather (u < 0.5), right top: shaft, bottom right: sole
    if (v > 0.75) return [40 + 20 * n, 34 + 20 * n, 30 + 20 * n];
    const stitch = Math.abs(((u * 24) % 1) - 0.5) < 0.08 && Math.abs(v - 0.3) < 0.01;
    const elastic = u > 0.55 && u < 0.7 && v < 0.5;
    if (stitch) return [225, 205, 160];
    if (elastic) return [60 + 30 * Math.sin(v * 400) + 10 * n, 45 + 20 * Math.sin(v * 400), 35];
    const grain = 12 * Math.sin(u * 91 + v * 37) * Math.sin(v * 113);
    return [128 + grain + 30 * n, 78 + grain * 0.7 + 20 * n, 45 + grain * 0.4 + 15 * n];
  });
  const N = 96;
  // foot part: cross-sections along x, each a superellipse from the sole to the top
  const foot = gridSurface(N, 80, (s, v) => {
    const x = L * (0.004 + 0.992 * v);
    const t = 2 * Math.PI * s;
    const yb = soleBottom(x), yt = footTop(x);
    const [z, y] = superellipse(t, halfWidth(x), (yt - yb) / 2, 3);
    // close the ends: shrink towards the tips
    // rounded ends: an elliptic profile over the first 6 % (heel) and the last 10 % (toe)
    const e = v < 0.06 ? 1 - v / 0.06 : v > 0.9 ? (v - 0.9) / 0.1 : 0;
    const cap = Math.sqrt(Math.max(0, 1 - e * e));
    return [x, (yb + yt) / 2 + y * (0.35 + 0.65 * cap), centreZ(x) + z * cap];
  }, true, [0, 0, 0.5, 0.75]);
  // shaft: an open tube above the heel seat, outer and inner wall and a rim
  const sx = 0.26 * L, rx = 0.056, rz = 0.046, wall = 0.004;
  // the foot goes in: the shaft's inner wall reaches down to the footbed
  const footbed = heel + soleT + 0.012;
  const shaftAt = (s: number, v: number, inset: number): [number, number, number] => {
    const [dx, dz] = superellipse(2 * Math.PI * s, rx - inset, rz - inset, 2.4);
    const x = sx + dx, z = centreZ(x) + dz;
    const y0 = inset > 0 ? footbed : footTop(Math.max(0, Math.min(L, x))) - 0.015;
    const top = H - 0.01 * Math.cos(2 * Math.PI * s);
    return [x, y0 + (top - y0) * v, z];
  };
  const outer = gridSurface(N, 40, (s, v) => shaftAt(s, v, 0), true, [0.5, 0, 1, 0.75]);
  const inner = gridSurface(N, 40, (s, v) => shaftAt(s, v, wall), true, [0.5, 0, 1, 0.75], true);
  const rim = gridSurface(N, 1, (s, v) => {
    const a = shaftAt(s, 1, 0), b = shaftAt(s, 1, wall);
    return [a[0] + (b[0] - a[0]) * v, a[1], a[2] + (b[2] - a[2]) * v];
  }, true, [0.5, 0.7, 1, 0.75]);
  // insole seen through the shaft
  const insole = gridSurface(N, 8, (s, v) => {
    const p = shaftAt(s, 0, wall);
    const x = sx + (p[0] - sx) * v, z = centreZ(sx) + (p[2] - centreZ(sx)) * v;
    return [x, footbed, z];
  }, true, [0, 0.75, 0.5, 1]);
  // the foot part's top inside the shaft is the opening, not a surface
  const insideShaft = (x: number, y: number, z: number) => y > footbed + 0.002 && ((x - sx) / (rx - wall)) ** 2 + ((z - centreZ(x)) / (rz - wall)) ** 2 < 1;
  const kept: number[] = [];
  for (let t = 0; t < foot.indices.length; t += 3) {
    const inside = [0, 1, 2].every((c) => { const k = foot.indices[t + c] * 3; return insideShaft(foot.positions[k], foot.positions[k + 1], foot.positions[k + 2]); });
    if (!inside) kept.push(foot.indices[t], foot.indices[t + 1], foot.indices[t + 2]);
  }
  foot.indices = Uint32Array.from(kept);
  // the foot part is hollow like a real boot's: a lining 4 mm inside the upper, over an insole
  // that follows the sole, from the shaft to the toe box (behind it lies the shaft's own inside)
  const lining = gridSurface(N, 60, (s, v) => {
    const x = sx + (0.93 * L - sx) * v;
    const yb = soleBottom(x) + soleT + 0.008, yt = footTop(x) - wall;
    const [z, y] = superellipse(2 * Math.PI * s, halfWidth(x) - wall, (yt - yb) / 2, 3);
    // the toe end closes over its last 12 %
    const e = v > 0.88 ? (v - 0.88) / 0.12 : 0;
    const cap = Math.sqrt(Math.max(0, 1 - e * e));
    return [x, (yb + yt) / 2 + y * (0.35 + 0.65 * cap), centreZ(x) + z * cap];
  }, true, [0, 0.75, 0.5, 1], true);
  const liningKept: number[] = [];
  for (let t = 0; t < lining.indices.length; t += 3) {
    const inside = [0, 1, 2].every((c) => { const k = lining.indices[t + c] * 3; return insideShaft(lining.positions[k], lining.positions[k + 1] + 0.01, lining.positions[k + 2]); });
    if (!inside) liningKept.push(lining.indices[t], lining.indices[t + 1], lining.indices[t + 2]);
  }
  lining.indices = Uint32Array.from(liningKept);
  // block heel: a tapered box under the heel seat
  const heelBlock = gridSurface(4 * 24, 12, (s, v) => {
    const [dx, dz] = superellipse(2 * Math.PI * s, 0.035 - 0.006 * (1 - v), 0.028 - 0.004 * (1 - v), 6);
    return [0.045 + dx, v * (heel + 0.002), centreZ(0.045) + dz];
  }, true, [0.5, 0.75, 1, 1]);
  const heelCap = gridSurface(4 * 24, 6, (s, v) => {
    const [dx, dz] = superellipse(2 * Math.PI * s, (0.035 - 0.006) * (1 - v), (0.028 - 0.004) * (1 - v), 6);
    return [0.045 + dx, 0, centreZ(0.045) + dz];
  }, true, [0.5, 0.75, 1, 1], true);
  return finish('ankle boot', 'shoe', [merge([foot, lining, outer, inner, rim, insole, heelBlock, heelCap], tex)], 'modelled in test/support/objects.ts (parametric surfaces, painted texture)');
}

/**
 * A tote bag 34 cm wide, 27 cm high and 12 cm deep with two 1.1 cm thick handles standing 14 cm
 * above the body, whose openings show the background from the front and back. Striped canvas with
 * a printed square.
 */
export function toteBag(): TestObject {
  const W = 0.34, D = 0.12, Hb = 0.27;
  const tex = paintTexture(512, 5, (u, v, n) => {
    if (v > 0.8) return [58 + 20 * n, 40 + 15 * n, 28 + 10 * n];
    const stripe = Math.floor(u * 14) % 2 === 0;
    const print = Math.abs(u - 0.25) < 0.08 && Math.abs(v - 0.35) < 0.1;
    if (print) return [30, 90 + 40 * n, 150];
    const weave = 10 * Math.sin(u * 800) * Math.sin(v * 800);
    return stripe ? [225 + weave + 15 * n, 215 + weave + 15 * n, 190 + weave] : [190 + weave, 60 + 15 * n, 50];
  });
  // body: horizontal superellipse sections, wider at the top
  const body = gridSurface(128, 40, (s, v) => {
    const y = Hb * v;
    const w = (W / 2) * (0.9 + 0.1 * v), d = (D / 2) * (1 - 0.15 * v);
    const [x, z] = superellipse(2 * Math.PI * s, w, d, 5);
    return [x, y, z];
  }, true, [0, 0, 1, 0.8]);
  const disc = (y: number, flip: boolean) => gridSurface(128, 8, (s, v) => {
    const w = (W / 2) * (0.9 + 0.1 * (y / Hb)), d = (D / 2) * (1 - 0.15 * (y / Hb));
    const [x, z] = superellipse(2 * Math.PI * s, w * (1 - v), d * (1 - v), 5);
    return [x, y, z];
  }, true, [0, 0.8, 1, 0.9], flip);
  // handles: half tori in the x-y plane at z = +-d, tube radius 0.55 cm
  const handle = (zc: number) => gridSurface(24, 60, (s, v) => {
    const R = 0.09, r = 0.0055;
    const a = Math.PI * (0.04 + 0.92 * v); // along the arc, ends inside the body's top
    const c: [number, number, number] = [-R * Math.cos(a), Hb - 0.01 + 0.15 * Math.sin(a), zc];
    const t = 2 * Math.PI * s;
    // tube around the arc tangent: normal in x-y and z
    const nx = -Math.cos(a), ny = Math.sin(a) * (0.15 / R);
    const len = Math.hypot(nx, ny);
    return [c[0] + r * Math.cos(t) * (nx / len), c[1] + r * Math.cos(t) * (ny / len), c[2] + r * Math.sin(t)];
  }, true, [0, 0.9, 1, 1]);
  return finish('tote bag', 'other', [merge([body, disc(0, true), disc(Hb, false), handle(D * 0.3), handle(-D * 0.3)], tex)], 'modelled in test/support/objects.ts (parametric surfaces, painted texture)');
}

function smooth(t: number): number {
  const c = Math.max(0, Math.min(1, t));
  return c * c * (3 - 2 * c);
}

// ---------------------------------------------------------------------------------------------
// Photos

export interface PhotoOptions {
  size?: number;
  elevationDeg?: number;
  /** Camera distance in object lengths (perspective); 0 = orthographic. */
  distance?: number;
  /** Share of the frame the object fills on its longer side. */
  fill?: number;
  supersample?: number;
}

export interface ObjectPhoto {
  /** On white, opaque. */
  image: RasterImage;
  /** Transparent background. */
  cutout: RasterImage;
  azimuthDeg: number;
  elevationDeg: number;
}

/** Studio photos of an object: each framed on the object, lit from the camera's upper left. */
export function photographObject(obj: TestObject, azimuths: number[], opts: PhotoOptions = {}): ObjectPhoto[] {
  const size = opts.size ?? 768, el = opts.elevationDeg ?? 0, fill = opts.fill ?? 0.8;
  const P = obj.surface.positions;
  const b = meshBounds(P);
  const centre: [number, number, number] = [(b.min[0] + b.max[0]) / 2, (b.min[1] + b.max[1]) / 2, (b.min[2] + b.max[2]) / 2];
  return azimuths.map((az) => {
    const distance = opts.distance ? opts.distance * obj.length : undefined;
    const { right, up, back } = viewBasis(az, el);
    // frame on the projected extent (perspective: project every vertex)
    let u0 = Infinity, u1 = -Infinity, v0 = Infinity, v1 = -Infinity;
    for (let i = 0; i < P.length; i += 3) {
      const dx = P[i] - centre[0], dy = P[i + 1] - centre[1], dz = P[i + 2] - centre[2];
      const d = dx * back[0] + dy * back[1] + dz * back[2];
      const k = distance ? distance / (distance - d) : 1;
      const u = (dx * right[0] + dy * right[1] + dz * right[2]) * k, v = (dx * up[0] + dy * up[1] + dz * up[2]) * k;
      u0 = Math.min(u0, u); u1 = Math.max(u1, u); v0 = Math.min(v0, v); v1 = Math.max(v1, v);
    }
    const ppu = (fill * size) / Math.max(u1 - u0, v1 - v0);
    // shift the image centre onto the object's projected centre (a shift of the target at its depth)
    const cu = (u0 + u1) / 2, cv = (v0 + v1) / 2;
    const view: OrthoView = { azimuthDeg: az, elevationDeg: el, target: centre, pixelsPerUnit: ppu, width: size, height: size, distance };
    // the renderer centres the target; moving the image window onto the object is a pixel shift
    const cutout = translate(renderScene(obj.meshes, view, { supersample: opts.supersample ?? 3, ambient: 0.55 }).image, -Math.round(cu * ppu), Math.round(cv * ppu));
    return { image: onWhite(cutout), cutout, azimuthDeg: az, elevationDeg: el };
  });
}

function translate(img: RasterImage, dx: number, dy: number): RasterImage {
  const out = new Uint8Array(img.data.length);
  for (let y = 0; y < img.height; y++) {
    const sy = y - dy;
    if (sy < 0 || sy >= img.height) continue;
    for (let x = 0; x < img.width; x++) {
      const sx = x - dx;
      if (sx < 0 || sx >= img.width) continue;
      const o = (y * img.width + x) * 4, s = (sy * img.width + sx) * 4;
      out[o] = img.data[s]; out[o + 1] = img.data[s + 1]; out[o + 2] = img.data[s + 2]; out[o + 3] = img.data[s + 3];
    }
  }
  return { width: img.width, height: img.height, data: out };
}

// ---------------------------------------------------------------------------------------------
// Metrics

export interface AlignedMetrics {
  chamfer: number;
  fscore: number;
  precision: number;
  recall: number;
  threshold: number;
  /** Uniform scale applied to the reconstruction. */
  scale: number;
}

/**
 * Chamfer distance and F-score after aligning the reconstruction to the truth: both grounded and
 * centred, the reconstruction scaled to the truth's length, then ICP with rotation, translation and
 * uniform scale (Horn's closed form) on surface samples. Distances are point-to-surface.
 */
export function measureShape(recon: Surface, truth: Surface, threshold: number, samples = 20000): AlignedMetrics {
  const t = centreGround(truth.positions);
  let r = centreGround(recon.positions);
  const tb = meshBounds(t), rb = meshBounds(r);
  const s0 = Math.max(tb.max[0] - tb.min[0], tb.max[2] - tb.min[2]) / Math.max(rb.max[0] - rb.min[0], rb.max[2] - rb.min[2]);
  r = r.map((v) => v * s0) as Float32Array;
  let scale = s0;
  const truthSurface = { positions: t, indices: truth.indices };
  const tp = samplePoints(t, truth.indices, 4000, 3);
  for (let it = 0; it < 12; it++) {
    const rp = samplePoints(r, recon.indices, 4000, 7);
    // pairs both ways: recon samples to their nearest truth sample and truth samples to recon's
    const src: number[] = [], dst: number[] = [];
    nearestPairs(rp, tp, src, dst, false);
    nearestPairs(tp, rp, src, dst, true);
    const tr = horn(src, dst);
    r = applySimilarity(r, tr);
    scale *= tr.s;
    if (Math.abs(tr.s - 1) < 1e-4 && Math.hypot(...tr.t) < 1e-5) break;
  }
  const rp = samplePoints(r, recon.indices, samples, 7);
  const tps = samplePoints(t, truth.indices, samples, 3);
  const dr = surfaceDistances(rp, truthSurface, threshold * 2);
  const dt = surfaceDistances(tps, { positions: r, indices: recon.indices }, threshold * 2);
  const mean = (d: Float64Array) => d.reduce((a, v) => a + v, 0) / d.length;
  const within = (d: Float64Array) => d.reduce((a, v) => a + (v <= threshold ? 1 : 0), 0) / d.length;
  const precision = within(dr), recall = within(dt);
  (globalThis as any).__detail = { rp, dr, tps, dt, t };
  return { chamfer: (mean(dr) + mean(dt)) / 2, precision, recall, fscore: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0, threshold, scale };
}

function centreGround(p: Float32Array): Float32Array {
  const b = meshBounds(p);
  const out = new Float32Array(p.length);
  const cx = (b.min[0] + b.max[0]) / 2, cz = (b.min[2] + b.max[2]) / 2;
  for (let i = 0; i < p.length; i += 3) { out[i] = p[i] - cx; out[i + 1] = p[i + 1] - b.min[1]; out[i + 2] = p[i + 2] - cz; }
  return out;
}

/** Appends (a_i, nearest b) pairs (or reversed), brute force over a coarse grid of b. */
function nearestPairs(a: Float32Array, b: Float32Array, src: number[], dst: number[], reversed: boolean): void {
  const cell = 0.01;
  const grid = new Map<string, number[]>();
  const key = (x: number, y: number, z: number) => `${Math.floor(x / cell)},${Math.floor(y / cell)},${Math.floor(z / cell)}`;
  for (let i = 0; i < b.length; i += 3) {
    const k = key(b[i], b[i + 1], b[i + 2]);
    const list = grid.get(k);
    if (list) list.push(i); else grid.set(k, [i]);
  }
  for (let i = 0; i < a.length; i += 3) {
    const gx = Math.floor(a[i] / cell), gy = Math.floor(a[i + 1] / cell), gz = Math.floor(a[i + 2] / cell);
    let best = -1, bd = Infinity;
    for (let r = 1; r <= 4 && best < 0; r++) {
      for (let x = gx - r; x <= gx + r; x++) for (let y = gy - r; y <= gy + r; y++) for (let z = gz - r; z <= gz + r; z++) {
        for (const j of grid.get(`${x},${y},${z}`) ?? []) {
          const d = (a[i] - b[j]) ** 2 + (a[i + 1] - b[j + 1]) ** 2 + (a[i + 2] - b[j + 2]) ** 2;
          if (d < bd) { bd = d; best = j; }
        }
      }
    }
    if (best < 0) continue;
    if (reversed) { src.push(b[best], b[best + 1], b[best + 2]); dst.push(a[i], a[i + 1], a[i + 2]); }
    else { src.push(a[i], a[i + 1], a[i + 2]); dst.push(b[best], b[best + 1], b[best + 2]); }
  }
}

interface Similarity { s: number; R: number[]; t: [number, number, number] }

/** Horn's closed-form similarity (quaternion method) taking `src` points onto `dst`. */
function horn(src: number[], dst: number[]): Similarity {
  const n = src.length / 3;
  const cs = [0, 0, 0], cd = [0, 0, 0];
  for (let i = 0; i < n; i++) for (let k = 0; k < 3; k++) { cs[k] += src[i * 3 + k] / n; cd[k] += dst[i * 3 + k] / n; }
  const S = new Array(9).fill(0);
  let ss = 0, sd = 0;
  for (let i = 0; i < n; i++) {
    const a = [src[i * 3] - cs[0], src[i * 3 + 1] - cs[1], src[i * 3 + 2] - cs[2]];
    const b = [dst[i * 3] - cd[0], dst[i * 3 + 1] - cd[1], dst[i * 3 + 2] - cd[2]];
    ss += a[0] ** 2 + a[1] ** 2 + a[2] ** 2;
    sd += b[0] ** 2 + b[1] ** 2 + b[2] ** 2;
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) S[r * 3 + c] += a[r] * b[c];
  }
  const [Sxx, Sxy, Sxz, Syx, Syy, Syz, Szx, Szy, Szz] = S;
  const N = [
    [Sxx + Syy + Szz, Syz - Szy, Szx - Sxz, Sxy - Syx],
    [Syz - Szy, Sxx - Syy - Szz, Sxy + Syx, Szx + Sxz],
    [Szx - Sxz, Sxy + Syx, -Sxx + Syy - Szz, Syz + Szy],
    [Sxy - Syx, Szx + Sxz, Syz + Szy, -Sxx - Syy + Szz],
  ];
  const q = topEigenvector(N);
  const [w, x, y, z] = q;
  const R = [
    w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y),
    2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x),
    2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z,
  ];
  const s = Math.sqrt(sd / Math.max(1e-12, ss));
  const Rc = [R[0] * cs[0] + R[1] * cs[1] + R[2] * cs[2], R[3] * cs[0] + R[4] * cs[1] + R[5] * cs[2], R[6] * cs[0] + R[7] * cs[1] + R[8] * cs[2]];
  return { s, R, t: [cd[0] - s * Rc[0], cd[1] - s * Rc[1], cd[2] - s * Rc[2]] };
}

/** Eigenvector of the largest eigenvalue of a symmetric 4x4 matrix (shifted power iteration). */
function topEigenvector(M: number[][]): number[] {
  let shift = 0;
  for (const row of M) shift = Math.max(shift, row.reduce((a, v) => a + Math.abs(v), 0));
  let v = [1, 0, 0, 0];
  for (let it = 0; it < 500; it++) {
    const nv = [0, 1, 2, 3].map((r) => M[r].reduce((a, m, c) => a + m * v[c], 0) + shift * v[r]);
    const len = Math.hypot(...nv);
    v = nv.map((x) => x / len);
  }
  return v;
}

function applySimilarity(p: Float32Array, tr: Similarity): Float32Array {
  const out = new Float32Array(p.length);
  const { s, R, t } = tr;
  for (let i = 0; i < p.length; i += 3) {
    const x = p[i], y = p[i + 1], z = p[i + 2];
    out[i] = s * (R[0] * x + R[1] * y + R[2] * z) + t[0];
    out[i + 1] = s * (R[3] * x + R[4] * y + R[5] * z) + t[1];
    out[i + 2] = s * (R[6] * x + R[7] * y + R[8] * z) + t[2];
  }
  return out;
}
