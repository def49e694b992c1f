import type { RasterImage } from '../../core/images.ts';

/**
 * A small software rasterizer for previews, visibility tests and synthetic views: orthographic (or,
 * with `distance`, perspective) cameras orbiting the vertical (+Y) axis, a z-buffer, bilinear textures or vertex colours and a
 * simple ambient + Lambert light. Deterministic and dependency-free.
 *
 * Camera convention (shared with the reconstruction): azimuth 0 looks along -Z (camera on +Z) with
 * +X to the right, so a shoe lying along +X with its toe at +X is seen from the side, toe right;
 * azimuth 90 puts the camera on +X (toe facing the camera). Elevation raises the camera above the
 * horizon; 90 looks straight down with +X to the right and -Z up in the image.
 */

export type Vec3 = [number, number, number];

export interface RenderMesh {
  /** xyz per vertex. */
  positions: Float32Array;
  /** Triangle list. */
  indices: Uint32Array;
  /** Optional xyz per vertex; face normals are used when absent. */
  normals?: Float32Array;
  /** Optional uv per vertex (glTF convention: v grows downwards in the image). */
  uvs?: Float32Array;
  /** Optional linear 0..1 rgb per vertex. */
  colors?: Float32Array;
  /** Base colour texture, sampled with `uvs`. */
  texture?: RasterImage;
  /** Multiplies the texture or vertex colour (0..1); white when absent. */
  baseColor?: Vec3;
}

export interface OrthoView {
  azimuthDeg: number;
  elevationDeg: number;
  /** World point shown at the image centre. */
  target: Vec3;
  pixelsPerUnit: number;
  width: number;
  height: number;
  /**
   * Perspective when set: the camera sits this far from `target` along the view direction and
   * `pixelsPerUnit` holds at the target's depth (a photo taken from that distance).
   */
  distance?: number;
  /** Pixel at which `target` appears (the image centre when absent). */
  principal?: [number, number];
}

export interface ViewBasis {
  right: Vec3;
  up: Vec3;
  /** Points from the scene towards the camera; larger depth = closer. */
  back: Vec3;
}

export interface RenderOptions {
  /** RGBA 0-255; transparent when absent. */
  background?: [number, number, number, number];
  shading?: 'lit' | 'unlit';
  /** Direction towards the light in world space; defaults to upper front-left of the camera. */
  light?: Vec3;
  ambient?: number;
  /** Supersampling factor per axis for anti-aliased edges (1 = none). */
  supersample?: number;
}

export interface RenderOutput {
  image: RasterImage;
  /** Per pixel depth along `back` (-Infinity where empty), at output resolution. */
  depth: Float32Array;
  /** Per pixel triangle index (-1 where empty), at output resolution. */
  face: Int32Array;
}

export function viewBasis(azimuthDeg: number, elevationDeg: number): ViewBasis {
  const a = (azimuthDeg * Math.PI) / 180;
  const e = (elevationDeg * Math.PI) / 180;
  const right: Vec3 = [Math.cos(a), 0, -Math.sin(a)];
  const back: Vec3 = [Math.sin(a) * Math.cos(e), Math.sin(e), Math.cos(a) * Math.cos(e)];
  const up = cross(back, right);
  return { right, up, back };
}

/** Projects a world point to pixel coordinates (x right, y down, pixel centres at +0.5) and depth. */
export function projectToView(view: OrthoView, basis: ViewBasis, p: ArrayLike<number>): [number, number, number] {
  const dx = p[0] - view.target[0];
  const dy = p[1] - view.target[1];
  const dz = p[2] - view.target[2];
  const { right, up, back } = basis;
  const depth = dx * back[0] + dy * back[1] + dz * back[2];
  const k = view.distance ? view.distance / Math.max(1e-6, view.distance - depth) : 1;
  return [
    (view.principal?.[0] ?? view.width / 2) + (dx * right[0] + dy * right[1] + dz * right[2]) * view.pixelsPerUnit * k,
    (view.principal?.[1] ?? view.height / 2) - (dx * up[0] + dy * up[1] + dz * up[2]) * view.pixelsPerUnit * k,
    depth,
  ];
}

/** Depth and triangle id per pixel; the visibility buffer that shading and texture baking share. */
export interface IdBuffers {
  depth: Float32Array;
  face: Int32Array;
  /** Which mesh of a scene the face belongs to (0 for a single mesh). */
  mesh: Int32Array;
  b1: Float32Array;
  b2: Float32Array;
}

export function rasterizeIds(mesh: RenderMesh, view: OrthoView, into?: IdBuffers, meshIndex = 0): IdBuffers {
  const { width, height } = view;
  const basis = viewBasis(view.azimuthDeg, view.elevationDeg);
  const nv = mesh.positions.length / 3;
  const sx = new Float32Array(nv);
  const sy = new Float32Array(nv);
  const sz = new Float32Array(nv);
  const tmp: number[] = [0, 0, 0];
  for (let i = 0; i < nv; i++) {
    tmp[0] = mesh.positions[i * 3];
    tmp[1] = mesh.positions[i * 3 + 1];
    tmp[2] = mesh.positions[i * 3 + 2];
    const [x, y, z] = projectToView(view, basis, tmp);
    sx[i] = x;
    sy[i] = y;
    sz[i] = z;
  }
  const buffers: IdBuffers = into ?? {
    depth: new Float32Array(width * height).fill(-Infinity),
    face: new Int32Array(width * height).fill(-1),
    mesh: new Int32Array(width * height).fill(-1),
    b1: new Float32Array(width * height),
    b2: new Float32Array(width * height),
  };
  const { depth, face, b1, b2 } = buffers;
  const owner = buffers.mesh;
  const idx = mesh.indices;
  for (let f = 0; f < idx.length / 3; f++) {
    const i0 = idx[f * 3];
    const i1 = idx[f * 3 + 1];
    const i2 = idx[f * 3 + 2];
    const x0 = sx[i0], y0 = sy[i0], x1 = sx[i1], y1 = sy[i1], x2 = sx[i2], y2 = sy[i2];
    const area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0);
    if (Math.abs(area) < 1e-12) continue;
    const minX = Math.max(0, Math.floor(Math.min(x0, x1, x2)));
    const maxX = Math.min(width - 1, Math.ceil(Math.max(x0, x1, x2)));
    const minY = Math.max(0, Math.floor(Math.min(y0, y1, y2)));
    const maxY = Math.min(height - 1, Math.ceil(Math.max(y0, y1, y2)));
    if (minX > maxX || minY > maxY) continue;
    const inv = 1 / area;
    const z0 = sz[i0], z1 = sz[i1], z2 = sz[i2];
    for (let py = minY; py <= maxY; py++) {
      const cy = py + 0.5;
      for (let px = minX; px <= maxX; px++) {
        const cx = px + 0.5;
        // barycentric weights of vertices 1 and 2
        const w1 = ((cx - x0) * (y2 - y0) - (x2 - x0) * (cy - y0)) * inv;
        const w2 = ((x1 - x0) * (cy - y0) - (cx - x0) * (y1 - y0)) * inv;
        const w0 = 1 - w1 - w2;
        if (w0 < -1e-7 || w1 < -1e-7 || w2 < -1e-7) continue;
        const z = w0 * z0 + w1 * z1 + w2 * z2;
        const k = py * width + px;
        if (z > depth[k]) {
          depth[k] = z;
          face[k] = f;
          owner[k] = meshIndex;
          b1[k] = w1;
          b2[k] = w2;
        }
      }
    }
  }
  return buffers;
}

/** Renders one mesh; with `supersample` > 1 edges are anti-aliased by box filtering. */
export function renderMesh(mesh: RenderMesh, view: OrthoView, opts: RenderOptions = {}): RenderOutput {
  return renderScene([mesh], view, opts);
}

/** Renders several meshes into one z-buffer (a glTF scene's primitives). */
export function renderScene(meshes: RenderMesh[], view: OrthoView, opts: RenderOptions = {}): RenderOutput {
  const ss = Math.max(1, Math.round(opts.supersample ?? 1));
  const big: OrthoView = { ...view, width: view.width * ss, height: view.height * ss, pixelsPerUnit: view.pixelsPerUnit * ss };
  let ids: IdBuffers | undefined;
  meshes.forEach((m, i) => { ids = rasterizeIds(m, big, ids, i); });
  const basis = viewBasis(view.azimuthDeg, view.elevationDeg);
  const light = normalize(opts.light ?? add(add(basis.back, scale(basis.up, 0.8)), scale(basis.right, -0.5)));
  const ambient = opts.ambient ?? 0.45;
  const lit = (opts.shading ?? 'lit') === 'lit';
  const faceNormals = meshes.map((m) => (lit && !m.normals ? computeFaceNormals(m) : undefined));
  const W = big.width;
  const H = big.height;
  const rgb = new Float32Array(W * H * 3);
  const color: number[] = [0, 0, 0];
  for (let k = 0; k < W * H; k++) {
    const f = ids!.face[k];
    if (f < 0) continue;
    const mesh = meshes[ids!.mesh[k]];
    const bc = mesh.baseColor ?? [1, 1, 1];
    const fn = faceNormals[ids!.mesh[k]];
    const i0 = mesh.indices[f * 3], i1 = mesh.indices[f * 3 + 1], i2 = mesh.indices[f * 3 + 2];
    const w1 = ids!.b1[k], w2 = ids!.b2[k], w0 = 1 - w1 - w2;
    surfaceColor(mesh, i0, i1, i2, w0, w1, w2, color);
    let shade = 1;
    if (lit) {
      let nx: number, ny: number, nz: number;
      if (mesh.normals) {
        const n = mesh.normals;
        nx = w0 * n[i0 * 3] + w1 * n[i1 * 3] + w2 * n[i2 * 3];
        ny = w0 * n[i0 * 3 + 1] + w1 * n[i1 * 3 + 1] + w2 * n[i2 * 3 + 1];
        nz = w0 * n[i0 * 3 + 2] + w1 * n[i1 * 3 + 2] + w2 * n[i2 * 3 + 2];
      } else {
        nx = fn![f * 3];
        ny = fn![f * 3 + 1];
        nz = fn![f * 3 + 2];
      }
      const len = Math.hypot(nx, ny, nz) || 1;
      nx /= len; ny /= len; nz /= len;
      if (nx * basis.back[0] + ny * basis.back[1] + nz * basis.back[2] < 0) { nx = -nx; ny = -ny; nz = -nz; }
      const d = Math.max(0, nx * light[0] + ny * light[1] + nz * light[2]);
      shade = ambient + (1 - ambient) * d;
    }
    rgb[k * 3] = color[0] * bc[0] * shade;
    rgb[k * 3 + 1] = color[1] * bc[1] * shade;
    rgb[k * 3 + 2] = color[2] * bc[2] * shade;
  }
  const bg = opts.background ?? [0, 0, 0, 0];
  const out = new Uint8Array(view.width * view.height * 4);
  const depth = new Float32Array(view.width * view.height).fill(-Infinity);
  const face = new Int32Array(view.width * view.height).fill(-1);
  const n = ss * ss;
  for (let y = 0; y < view.height; y++) {
    for (let x = 0; x < view.width; x++) {
      let r = 0, g = 0, b = 0, cover = 0;
      let bestDepth = -Infinity, bestFace = -1;
      for (let sy = 0; sy < ss; sy++) {
        for (let sx = 0; sx < ss; sx++) {
          const k = (y * ss + sy) * W + (x * ss + sx);
          if (ids!.face[k] < 0) continue;
          cover++;
          r += rgb[k * 3]; g += rgb[k * 3 + 1]; b += rgb[k * 3 + 2];
          if (ids!.depth[k] > bestDepth) { bestDepth = ids!.depth[k]; bestFace = ids!.face[k]; }
        }
      }
      const o = (y * view.width + x) * 4;
      const a = cover / n;
      depth[y * view.width + x] = bestDepth;
      face[y * view.width + x] = bestFace;
      if (cover > 0) { r /= cover; g /= cover; b /= cover; }
      const bga = bg[3] / 255;
      const outA = a + bga * (1 - a);
      if (outA <= 0) continue;
      out[o] = clamp255((r * a + bg[0] * bga * (1 - a)) / outA);
      out[o + 1] = clamp255((g * a + bg[1] * bga * (1 - a)) / outA);
      out[o + 2] = clamp255((b * a + bg[2] * bga * (1 - a)) / outA);
      out[o + 3] = clamp255(outA * 255);
    }
  }
  return { image: { width: view.width, height: view.height, data: out }, depth, face };
}

/** Albedo at a surface point in 0..255, from texture or vertex colours. */
function surfaceColor(mesh: RenderMesh, i0: number, i1: number, i2: number, w0: number, w1: number, w2: number, out: number[]): void {
  if (mesh.texture && mesh.uvs) {
    const uv = mesh.uvs;
    let u = w0 * uv[i0 * 2] + w1 * uv[i1 * 2] + w2 * uv[i2 * 2];
    let v = w0 * uv[i0 * 2 + 1] + w1 * uv[i1 * 2 + 1] + w2 * uv[i2 * 2 + 1];
    // glTF's default sampler repeats
    if (u < 0 || u > 1) u -= Math.floor(u);
    if (v < 0 || v > 1) v -= Math.floor(v);
    sampleBilinear(mesh.texture, u * mesh.texture.width - 0.5, v * mesh.texture.height - 0.5, out);
    return;
  }
  if (mesh.colors) {
    const c = mesh.colors;
    for (let ch = 0; ch < 3; ch++) out[ch] = 255 * (w0 * c[i0 * 3 + ch] + w1 * c[i1 * 3 + ch] + w2 * c[i2 * 3 + ch]);
    return;
  }
  out[0] = out[1] = out[2] = 200;
}

/** Bilinear RGB sample at continuous pixel coordinates (pixel centres at integers), clamped. */
export function sampleBilinear(img: RasterImage, x: number, y: number, out: number[]): void {
  const { width, height, data } = img;
  const xc = Math.min(Math.max(x, 0), width - 1);
  const yc = Math.min(Math.max(y, 0), height - 1);
  const x0 = Math.floor(xc), y0 = Math.floor(yc);
  const x1 = Math.min(x0 + 1, width - 1), y1 = Math.min(y0 + 1, height - 1);
  const fx = xc - x0, fy = yc - y0;
  const a = (y0 * width + x0) * 4, b = (y0 * width + x1) * 4, c = (y1 * width + x0) * 4, d = (y1 * width + x1) * 4;
  for (let ch = 0; ch < 3; ch++) {
    const top = data[a + ch] + (data[b + ch] - data[a + ch]) * fx;
    const bot = data[c + ch] + (data[d + ch] - data[c + ch]) * fx;
    out[ch] = top + (bot - top) * fy;
  }
}

export function computeFaceNormals(mesh: { positions: Float32Array; indices: Uint32Array }): Float32Array {
  const { positions: p, indices: idx } = mesh;
  const out = new Float32Array(idx.length);
  for (let f = 0; f < idx.length / 3; f++) {
    const a = idx[f * 3] * 3, b = idx[f * 3 + 1] * 3, c = idx[f * 3 + 2] * 3;
    const ux = p[b] - p[a], uy = p[b + 1] - p[a + 1], uz = p[b + 2] - p[a + 2];
    const vx = p[c] - p[a], vy = p[c + 1] - p[a + 1], vz = p[c + 2] - p[a + 2];
    const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    const len = Math.hypot(nx, ny, nz) || 1;
    out[f * 3] = nx / len;
    out[f * 3 + 1] = ny / len;
    out[f * 3 + 2] = nz / len;
  }
  return out;
}

function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}
function add(a: Vec3, b: Vec3): Vec3 {
  return [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
}
function scale(a: Vec3, s: number): Vec3 {
  return [a[0] * s, a[1] * s, a[2] * s];
}
function normalize(a: Vec3): Vec3 {
  const l = Math.hypot(a[0], a[1], a[2]) || 1;
  return [a[0] / l, a[1] / l, a[2] / l];
}
function clamp255(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : Math.round(v);
}
