import type { RasterImage } from '../../../core/images.ts';
import { createRaster } from '../../../core/images.ts';
import { rasterizeIds } from '../../gltf/render.ts';
import type { AtlasMesh } from './atlas.ts';
import { orthoViewOf, projectCamera, type ViewCamera } from './camera.ts';
import { vertexNeighbours } from './mesh-ops.ts';
import { sampleRgba } from './raster.ts';
import { texelCoverage } from './texel-coverage.ts';

/** Mirror planes of the product, used to colour surfaces no photo saw from their mirror image. */
export interface Symmetry {
  /** Mirror across z = value (left-right symmetry of shoes and bags). */
  z?: number;
  /** Mirror across x = value (front-back symmetry of bags). */
  x?: number;
}

export interface BakeOptions {
  size: number;
  /** Depth tolerance for visibility, world units. */
  depthTolerance: number;
  symmetry?: Symmetry;
  signal?: AbortSignal;
}

export interface BakeResult {
  texture: RasterImage;
  /** Share of covered texels coloured from a photo (the rest from mirror images or diffusion). */
  seenShare: number;
  mirroredShare: number;
  /** View chosen for each face (-1 = none). */
  faceView: Int32Array;
}

interface Visibility {
  depth: Float32Array;
  face: Int32Array;
}

/**
 * Projects the photos onto the atlas: per-face best-view selection (visibility from a z-buffer,
 * facing angle, silhouette margin and resolution), a few label-smoothing passes, then blending
 * across label borders by interpolating per-vertex view weights over each face (seam blending).
 * Texels no photo saw take their colour from the mirror image of the point when the product is
 * symmetric, else by diffusion of vertex colours over the surface. Gutters are dilated.
 */
export async function bakeTexture(mesh: AtlasMesh, normals: Float32Array, cams: ViewCamera[], opts: BakeOptions): Promise<BakeResult> {
  const { positions: p, indices: idx, uvs } = mesh;
  const nf = idx.length / 3;
  const nsrc = Math.max(...Array.from(mesh.sourceVertex)) + 1;
  const vis: Visibility[] = cams.map((cam) => {
    const ids = rasterizeIds({ positions: p, indices: idx }, orthoViewOf(cam));
    return { depth: ids.depth, face: ids.face };
  });
  const tmp = [0, 0, 0];
  const visible = (c: number, x: number, y: number, z: number): boolean => {
    const cam = cams[c];
    projectCamera(cam, x, y, z, tmp);
    const px = Math.floor(tmp[0]), py = Math.floor(tmp[1]);
    const w = cam.image.width, h = cam.image.height;
    if (px < 0 || py < 0 || px >= w || py >= h) return false;
    // nearest front depth in a 3x3 window: tolerant to rasterisation at silhouette edges
    let front = -Infinity;
    for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) {
      const xx = px + dx, yy = py + dy;
      if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
      const d = vis[c].depth[yy * w + xx];
      if (d > front) front = d;
    }
    if (front === -Infinity) return true;
    return tmp[2] >= front - opts.depthTolerance;
  };
  const alphaAt = (c: number, x: number, y: number, z: number): number => {
    const cam = cams[c];
    projectCamera(cam, x, y, z, tmp);
    const px = Math.round(tmp[0] - 0.5), py = Math.round(tmp[1] - 0.5);
    if (px < 0 || py < 0 || px >= cam.image.width || py >= cam.image.height) return 0;
    return cam.image.data[(py * cam.image.width + px) * 4 + 3] / 255;
  };
  // 1. per-face scores and best view
  const maxPpu = Math.max(...cams.map((c) => c.ppu));
  const faceNormal = new Float32Array(nf * 3);
  const scores = new Float32Array(nf * cams.length);
  for (let f = 0; f < nf; f++) {
    const a = idx[f * 3], b = idx[f * 3 + 1], c = idx[f * 3 + 2];
    let nx = normals[a * 3] + normals[b * 3] + normals[c * 3];
    let ny = normals[a * 3 + 1] + normals[b * 3 + 1] + normals[c * 3 + 1];
    let nz = normals[a * 3 + 2] + normals[b * 3 + 2] + normals[c * 3 + 2];
    const l = Math.hypot(nx, ny, nz) || 1;
    nx /= l; ny /= l; nz /= l;
    faceNormal[f * 3] = nx; faceNormal[f * 3 + 1] = ny; faceNormal[f * 3 + 2] = nz;
    const cx = (p[a * 3] + p[b * 3] + p[c * 3]) / 3, cy = (p[a * 3 + 1] + p[b * 3 + 1] + p[c * 3 + 1]) / 3, cz = (p[a * 3 + 2] + p[b * 3 + 2] + p[c * 3 + 2]) / 3;
    for (let v = 0; v < cams.length; v++) {
      const cam = cams[v];
      const cos = nx * cam.back[0] + ny * cam.back[1] + nz * cam.back[2];
      if (cos < 0.15) continue;
      let seen = 0;
      for (const s of [-1, a, b, c]) {
        const x = s < 0 ? cx : cx + 0.8 * (p[s * 3] - cx), y = s < 0 ? cy : cy + 0.8 * (p[s * 3 + 1] - cy), z = s < 0 ? cz : cz + 0.8 * (p[s * 3 + 2] - cz);
        if (visible(v, x, y, z) && alphaAt(v, x, y, z) > 0.5) seen++;
      }
      if (seen === 0) continue;
      scores[f * cams.length + v] = cam.weight * cos * (seen / 4) * Math.sqrt(cam.ppu / maxPpu);
    }
  }
  const faceView = new Int32Array(nf).fill(-1);
  for (let f = 0; f < nf; f++) {
    let best = 0;
    for (let v = 0; v < cams.length; v++) {
      const s = scores[f * cams.length + v];
      if (s > best) { best = s; faceView[f] = v; }
    }
  }
  smoothLabels(faceView, scores, cams.length, mesh);
  // 2. per source-vertex view weights (continuous across chart borders): seam blending
  const vw = new Float32Array(nsrc * cams.length);
  const vcount = new Float32Array(nsrc);
  for (let f = 0; f < nf; f++) {
    if (faceView[f] < 0) continue;
    for (let k = 0; k < 3; k++) {
      const s = mesh.sourceVertex[idx[f * 3 + k]];
      vw[s * cams.length + faceView[f]] += 1;
      vcount[s] += 1;
    }
  }
  for (let s = 0; s < nsrc; s++) if (vcount[s] > 0) for (let v = 0; v < cams.length; v++) vw[s * cams.length + v] /= vcount[s];
  // 3. texels
  const size = opts.size;
  const acc = new Float32Array(size * size * 3);
  const state = new Uint8Array(size * size); // 0 empty, 1 photo, 2 mirror, 3 needs fill
  const px = new Uint8Array(4);
  const weights = new Float32Array(cams.length);
  const cov = texelCoverage([{ uvs, indices: idx }], size, size, 1.5);
  const texelFace = cov.face;
  let photo = 0, mirrored = 0, covered = 0;
  for (let t = 0; t < size * size; t++) {
    const f = texelFace[t];
    if (f < 0) continue;
    if ((t & 0x1ffff) === 0) {
      // let timers and cancellation notices in, then stop if asked
      await new Promise((r) => setImmediate(r));
      if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
    }
    const i0 = idx[f * 3], i1 = idx[f * 3 + 1], i2 = idx[f * 3 + 2];
    const w1 = cov.b1[t], w2 = cov.b2[t], w0 = 1 - w1 - w2;
    const s0 = mesh.sourceVertex[i0], s1 = mesh.sourceVertex[i1], s2 = mesh.sourceVertex[i2];
    const X = w0 * p[i0 * 3] + w1 * p[i1 * 3] + w2 * p[i2 * 3];
    const Y = w0 * p[i0 * 3 + 1] + w1 * p[i1 * 3 + 1] + w2 * p[i2 * 3 + 1];
    const Z = w0 * p[i0 * 3 + 2] + w1 * p[i1 * 3 + 2] + w2 * p[i2 * 3 + 2];
    covered++;
    for (let v = 0; v < cams.length; v++) weights[v] = w0 * vw[s0 * cams.length + v] + w1 * vw[s1 * cams.length + v] + w2 * vw[s2 * cams.length + v];
    let r = 0, g = 0, b = 0, wsum = 0;
    for (let v = 0; v < cams.length; v++) {
      if (weights[v] <= 0.001 || !visible(v, X, Y, Z)) continue;
      projectCamera(cams[v], X, Y, Z, tmp);
      px.fill(0);
      sampleRgba(cams[v].image, tmp[0] - 0.5, tmp[1] - 0.5, px, 0);
      if (px[3] < 250) continue; // outline pixels mix in the background
      r += px[0] * weights[v]; g += px[1] * weights[v]; b += px[2] * weights[v]; wsum += weights[v];
    }
    if (wsum > 0) {
      acc[t * 3] = r / wsum; acc[t * 3 + 1] = g / wsum; acc[t * 3 + 2] = b / wsum;
      state[t] = 1;
      photo++;
      continue;
    }
    const nx = w0 * normals[i0 * 3] + w1 * normals[i1 * 3] + w2 * normals[i2 * 3];
    const ny = w0 * normals[i0 * 3 + 1] + w1 * normals[i1 * 3 + 1] + w2 * normals[i2 * 3 + 1];
    const nz = w0 * normals[i0 * 3 + 2] + w1 * normals[i1 * 3 + 2] + w2 * normals[i2 * 3 + 2];
    if (softSample(cams, visible, X, Y, Z, nx, ny, nz, px, tmp)) {
      acc[t * 3] = px[0]; acc[t * 3 + 1] = px[1]; acc[t * 3 + 2] = px[2];
      state[t] = 1;
      photo++;
      continue;
    }
    let done = false;
    for (const m of opts.symmetry ? mirrors(opts.symmetry) : []) {
      const [mx, my, mz] = m(X, Y, Z);
      const [mnx, mny, mnz] = m(nx, ny, nz, true);
      if (softSample(cams, visible, mx, my, mz, mnx, mny, mnz, px, tmp)) {
        acc[t * 3] = px[0]; acc[t * 3 + 1] = px[1]; acc[t * 3 + 2] = px[2];
        state[t] = 2;
        mirrored++;
        done = true;
        break;
      }
    }
    if (!done) state[t] = 3;
  }
  const texelBary = new Float32Array(size * size * 2);
  for (let t = 0; t < size * size; t++) { texelBary[t * 2] = cov.b1[t]; texelBary[t * 2 + 1] = cov.b2[t]; }
  fillUnseen(mesh, acc, state, texelFace, texelBary, size);
  const texture = createRaster(size, size, [0, 0, 0, 255]);
  for (let t = 0; t < size * size; t++) {
    if (!state[t]) continue;
    texture.data[t * 4] = Math.round(acc[t * 3]);
    texture.data[t * 4 + 1] = Math.round(acc[t * 3 + 1]);
    texture.data[t * 4 + 2] = Math.round(acc[t * 3 + 2]);
  }
  dilate(texture, state, mesh.gutter + 1);
  return { texture, seenShare: covered ? photo / covered : 0, mirroredShare: covered ? mirrored / covered : 0, faceView };
}

type Mirror = (x: number, y: number, z: number, vector?: boolean) => [number, number, number];

function mirrors(sym: Symmetry): Mirror[] {
  const out: Mirror[] = [];
  if (sym.z !== undefined) { const z0 = sym.z; out.push((x, y, z, vec) => [x, y, vec ? -z : 2 * z0 - z]); }
  if (sym.x !== undefined) { const x0 = sym.x; out.push((x, y, z, vec) => [vec ? -x : 2 * x0 - x, y, z]); }
  return out;
}

/** Weighted colour from every view that sees the point, weighted by facing angle (cos^4). */
function softSample(cams: ViewCamera[], visible: (c: number, x: number, y: number, z: number) => boolean, x: number, y: number, z: number, nx: number, ny: number, nz: number, px: Uint8Array, tmp: number[]): boolean {
  let r = 0, g = 0, b = 0, wsum = 0;
  for (let v = 0; v < cams.length; v++) {
    const cam = cams[v];
    const cos = nx * cam.back[0] + ny * cam.back[1] + nz * cam.back[2];
    if (cos <= 0.05 || !visible(v, x, y, z)) continue;
    projectCamera(cam, x, y, z, tmp);
    px.fill(0);
    sampleRgba(cam.image, tmp[0] - 0.5, tmp[1] - 0.5, px, 0);
    if (px[3] < 128) continue;
    const w = cam.weight * cos ** 4;
    r += px[0] * w; g += px[1] * w; b += px[2] * w; wsum += w;
  }
  if (wsum <= 0) return false;
  px[0] = r / wsum; px[1] = g / wsum; px[2] = b / wsum;
  return true;
}

/** Majority smoothing of face labels where the neighbours' view is nearly as good (fewer seams). */
function smoothLabels(faceView: Int32Array, scores: Float32Array, views: number, mesh: AtlasMesh): void {
  const idx = mesh.indices;
  const nf = idx.length / 3;
  // faces sharing a source edge are neighbours (across chart borders too)
  const edgeFaces = new Map<string, number[]>();
  for (let f = 0; f < nf; f++) {
    for (let k = 0; k < 3; k++) {
      const a = mesh.sourceVertex[idx[f * 3 + k]], b = mesh.sourceVertex[idx[f * 3 + ((k + 1) % 3)]];
      const key = a < b ? `${a},${b}` : `${b},${a}`;
      const list = edgeFaces.get(key);
      if (list) list.push(f);
      else edgeFaces.set(key, [f]);
    }
  }
  const neighbours: number[][] = Array.from({ length: nf }, () => []);
  for (const list of edgeFaces.values()) if (list.length === 2) { neighbours[list[0]].push(list[1]); neighbours[list[1]].push(list[0]); }
  for (let pass = 0; pass < 3; pass++) {
    for (let f = 0; f < nf; f++) {
      const counts = new Map<number, number>();
      for (const g of neighbours[f]) if (faceView[g] >= 0) counts.set(faceView[g], (counts.get(faceView[g]) ?? 0) + 1);
      for (const [label, count] of counts) {
        if (label === faceView[f] || count < 2) continue;
        const cur = faceView[f] >= 0 ? scores[f * views + faceView[f]] : 0;
        if (scores[f * views + label] >= 0.7 * cur && scores[f * views + label] > 0) { faceView[f] = label; break; }
      }
    }
  }
}

/**
 * Colours texels no view or mirror image reached: vertex colours are averaged from coloured texels
 * of their faces, diffused over the surface to uncoloured vertices, then interpolated.
 */
function fillUnseen(mesh: AtlasMesh, acc: Float32Array, state: Uint8Array, texelFace: Int32Array, texelBary: Float32Array, size: number): void {
  let missing = 0;
  for (let t = 0; t < size * size; t++) if (state[t] === 3) missing++;
  if (missing === 0) return;
  const nsrc = Math.max(...Array.from(mesh.sourceVertex)) + 1;
  const col = new Float32Array(nsrc * 3);
  const cnt = new Float32Array(nsrc);
  const idx = mesh.indices;
  for (let t = 0; t < size * size; t++) {
    if (state[t] !== 1 && state[t] !== 2) continue;
    const f = texelFace[t];
    if (f < 0) continue;
    const w1 = texelBary[t * 2], w2 = texelBary[t * 2 + 1], w0 = 1 - w1 - w2;
    const ws = [w0, w1, w2];
    for (let k = 0; k < 3; k++) {
      const s = mesh.sourceVertex[idx[f * 3 + k]];
      col[s * 3] += acc[t * 3] * ws[k]; col[s * 3 + 1] += acc[t * 3 + 1] * ws[k]; col[s * 3 + 2] += acc[t * 3 + 2] * ws[k];
      cnt[s] += ws[k];
    }
  }
  const known = new Uint8Array(nsrc);
  for (let s = 0; s < nsrc; s++) if (cnt[s] > 0.05) { col[s * 3] /= cnt[s]; col[s * 3 + 1] /= cnt[s]; col[s * 3 + 2] /= cnt[s]; known[s] = 1; }
  // source-vertex adjacency from the atlas faces
  const srcIdx = new Uint32Array(idx.length);
  for (let i = 0; i < idx.length; i++) srcIdx[i] = mesh.sourceVertex[idx[i]];
  const { offsets, list } = vertexNeighbours({ positions: new Float32Array(nsrc * 3), indices: srcIdx });
  const any = known.some((k) => k === 1);
  const fixed = new Uint8Array(known);
  for (let it = 0; it < 400 && any; it++) {
    let changed = false;
    for (let s = 0; s < nsrc; s++) {
      if (fixed[s]) continue;
      let r = 0, g = 0, b = 0, n = 0;
      for (let k = offsets[s]; k < offsets[s + 1]; k++) {
        const q = list[k];
        if (!known[q]) continue;
        r += col[q * 3]; g += col[q * 3 + 1]; b += col[q * 3 + 2]; n++;
      }
      if (n === 0) continue;
      col[s * 3] = r / n; col[s * 3 + 1] = g / n; col[s * 3 + 2] = b / n;
      if (!known[s]) changed = true;
      known[s] = 1;
    }
    if (!changed && it > 60) break;
  }
  if (!any) col.fill(128);
  for (let t = 0; t < size * size; t++) {
    if (state[t] !== 3) continue;
    const f = texelFace[t];
    const w1 = texelBary[t * 2], w2 = texelBary[t * 2 + 1], w0 = 1 - w1 - w2;
    const ws = [w0, w1, w2];
    for (let c = 0; c < 3; c++) {
      let v = 0;
      for (let k = 0; k < 3; k++) v += col[mesh.sourceVertex[idx[f * 3 + k]] * 3 + c] * ws[k];
      acc[t * 3 + c] = v;
    }
  }
}

/** Grows chart colours into the gutter so filtering never picks up the empty background. */
function dilate(tex: RasterImage, state: Uint8Array, rings: number): void {
  const size = tex.width;
  const filled = new Uint8Array(size * size);
  for (let t = 0; t < size * size; t++) filled[t] = state[t] ? 1 : 0;
  const offsets = [[-1, 0], [1, 0], [0, -1], [0, 1], [-1, -1], [1, 1], [-1, 1], [1, -1]];
  // frontier: empty texels next to filled ones
  let frontier: number[] = [];
  const queued = new Uint8Array(size * size);
  for (let t = 0; t < size * size; t++) {
    if (!filled[t]) continue;
    const x = t % size, y = (t - x) / size;
    for (const [dx, dy] of offsets) {
      const xx = x + dx, yy = y + dy;
      if (xx < 0 || yy < 0 || xx >= size || yy >= size) continue;
      const q = yy * size + xx;
      if (!filled[q] && !queued[q]) { queued[q] = 1; frontier.push(q); }
    }
  }
  for (let r = 0; r < rings && frontier.length; r++) {
    for (const t of frontier) {
      const x = t % size, y = (t - x) / size;
      let cr = 0, cg = 0, cb = 0, n = 0;
      for (const [dx, dy] of offsets) {
        const xx = x + dx, yy = y + dy;
        if (xx < 0 || yy < 0 || xx >= size || yy >= size) continue;
        const q = yy * size + xx;
        if (!filled[q]) continue;
        cr += tex.data[q * 4]; cg += tex.data[q * 4 + 1]; cb += tex.data[q * 4 + 2]; n++;
      }
      tex.data[t * 4] = Math.round(cr / n); tex.data[t * 4 + 1] = Math.round(cg / n); tex.data[t * 4 + 2] = Math.round(cb / n);
    }
    for (const t of frontier) filled[t] = 1;
    const next: number[] = [];
    for (const t of frontier) {
      const x = t % size, y = (t - x) / size;
      for (const [dx, dy] of offsets) {
        const xx = x + dx, yy = y + dy;
        if (xx < 0 || yy < 0 || xx >= size || yy >= size) continue;
        const q = yy * size + xx;
        if (!filled[q] && !queued[q]) { queued[q] = 1; next.push(q); }
      }
    }
    frontier = next;
  }
}
