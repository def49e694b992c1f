/**
 * A small software rasteriser for looking at GLBs in tests: orthographic views with Lambert
 * shading, base-colour textures, back faces tinted magenta (wrong winding shows up) and the
 * X (red), Y (green), Z (blue) axes drawn from the origin, 10 cm long.
 */
import sharp from 'sharp';
import { NodeIO } from '@gltf-transform/core';
import type { Document, Texture } from '@gltf-transform/core';
import { triangleIndices } from '../../../../adapters/builtin/ar/surface.ts';

type V3 = [number, number, number];
interface Tri { p: V3[]; uv: [number, number][]; color: number[]; tex: Tex | null }
interface Tex { w: number; h: number; data: Buffer }

export interface View { eye: V3; up: V3 }
export const VIEWS: Record<string, View> = {
  side: { eye: [1, 0, 0], up: [0, 1, 0] },
  top: { eye: [0, 1, 0], up: [0, 0, 1] },
  front: { eye: [0, 0, 1], up: [0, 1, 0] },
  threeQuarter: { eye: [0.8, 0.6, 0.9], up: [0, 1, 0] },
};

const norm = (a: V3): V3 => { const l = Math.hypot(...a) || 1; return [a[0] / l, a[1] / l, a[2] / l]; };
const cross = (a: V3, b: V3): V3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const dot = (a: V3, b: V3) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

async function decodeTexture(t: Texture | null, cache: Map<Texture, Tex>): Promise<Tex | null> {
  if (!t || !t.getImage()) return null;
  if (!cache.has(t)) {
    const { data, info } = await sharp(t.getImage()!).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    cache.set(t, { w: info.width, h: info.height, data });
  }
  return cache.get(t)!;
}

async function collect(doc: Document): Promise<Tri[]> {
  const tris: Tri[] = [];
  const cache = new Map<Texture, Tex>();
  const scene = doc.getRoot().getDefaultScene() ?? doc.getRoot().listScenes()[0];
  const nodes: import('@gltf-transform/core').Node[] = [];
  scene.traverse((n) => { if (n.getMesh()) nodes.push(n); });
  for (const node of nodes) {
    const m = node.getWorldMatrix();
    for (const prim of node.getMesh()!.listPrimitives()) {
      const idx = triangleIndices(prim);
      const pos = prim.getAttribute('POSITION');
      if (!idx || !pos) continue;
      const uvA = prim.getAttribute('TEXCOORD_0');
      const mat = prim.getMaterial();
      const color = mat ? mat.getBaseColorFactor() : [0.8, 0.8, 0.8, 1];
      const tex = mat ? await decodeTexture(mat.getBaseColorTexture(), cache) : null;
      const P: V3[] = [];
      const U: [number, number][] = [];
      const el = [0, 0, 0];
      for (let i = 0; i < pos.getCount(); i++) {
        pos.getElement(i, el);
        P.push([
          m[0] * el[0] + m[4] * el[1] + m[8] * el[2] + m[12],
          m[1] * el[0] + m[5] * el[1] + m[9] * el[2] + m[13],
          m[2] * el[0] + m[6] * el[1] + m[10] * el[2] + m[14],
        ]);
        if (uvA) { const u = [0, 0]; uvA.getElement(i, u); U.push([u[0], u[1]]); } else U.push([0, 0]);
      }
      for (let i = 0; i < idx.length; i += 3) {
        tris.push({ p: [P[idx[i]], P[idx[i + 1]], P[idx[i + 2]]], uv: [U[idx[i]], U[idx[i + 1]], U[idx[i + 2]]], color, tex });
      }
    }
  }
  return tris;
}

function renderView(tris: Tri[], view: View, size: number, extent: number, centre: V3): Buffer {
  const e = norm(view.eye);
  const r = norm(cross(view.up, e));
  const u = cross(e, r);
  const img = Buffer.alloc(size * size * 3, 255);
  const depth = new Float32Array(size * size).fill(-Infinity);
  const s = (size * 0.9) / extent;
  const proj = (p: V3): V3 => {
    const q: V3 = [p[0] - centre[0], p[1] - centre[1], p[2] - centre[2]];
    return [size / 2 + dot(q, r) * s, size / 2 - dot(q, u) * s, dot(q, e)];
  };
  const light = norm([e[0] + 0.3, e[1] + 0.6, e[2] + 0.2]);
  for (const t of tris) {
    const a = proj(t.p[0]), b = proj(t.p[1]), c = proj(t.p[2]);
    const n = norm(cross([t.p[1][0] - t.p[0][0], t.p[1][1] - t.p[0][1], t.p[1][2] - t.p[0][2]], [t.p[2][0] - t.p[0][0], t.p[2][1] - t.p[0][1], t.p[2][2] - t.p[0][2]]));
    const facing = dot(n, e) >= 0;
    const shade = 0.35 + 0.65 * Math.abs(dot(n, light));
    const area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    if (area === 0) continue;
    const x0 = Math.max(0, Math.floor(Math.min(a[0], b[0], c[0]))), x1 = Math.min(size - 1, Math.ceil(Math.max(a[0], b[0], c[0])));
    const y0 = Math.max(0, Math.floor(Math.min(a[1], b[1], c[1]))), y1 = Math.min(size - 1, Math.ceil(Math.max(a[1], b[1], c[1])));
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const px = x + 0.5, py = y + 0.5;
        const w0 = ((b[0] - px) * (c[1] - py) - (b[1] - py) * (c[0] - px)) / area;
        const w1 = ((c[0] - px) * (a[1] - py) - (c[1] - py) * (a[0] - px)) / area;
        const w2 = 1 - w0 - w1;
        if (w0 < 0 || w1 < 0 || w2 < 0) continue;
        const z = w0 * a[2] + w1 * b[2] + w2 * c[2];
        const k = y * size + x;
        if (z <= depth[k]) continue;
        depth[k] = z;
        let col = [t.color[0], t.color[1], t.color[2]];
        if (t.tex) {
          const uu = w0 * t.uv[0][0] + w1 * t.uv[1][0] + w2 * t.uv[2][0];
          const vv = w0 * t.uv[0][1] + w1 * t.uv[1][1] + w2 * t.uv[2][1];
          const tx = Math.min(t.tex.w - 1, Math.max(0, Math.floor((uu - Math.floor(uu)) * t.tex.w)));
          const ty = Math.min(t.tex.h - 1, Math.max(0, Math.floor((vv - Math.floor(vv)) * t.tex.h)));
          const o = (ty * t.tex.w + tx) * 4;
          col = col.map((c0, i) => c0 * Math.pow(t.tex!.data[o + i] / 255, 2.2));
        }
        const rgb = col.map((c0) => Math.pow(Math.min(1, c0 * shade), 1 / 2.2) * 255);
        if (!facing) { rgb[0] = rgb[0] * 0.5 + 127; rgb[1] *= 0.4; rgb[2] = rgb[2] * 0.5 + 127; }
        img[k * 3] = rgb[0]; img[k * 3 + 1] = rgb[1]; img[k * 3 + 2] = rgb[2];
      }
    }
  }
  // axes from the origin
  const axes: [V3, number[]][] = [[[0.1, 0, 0], [230, 30, 30]], [[0, 0.1, 0], [30, 180, 30]], [[0, 0, 0.1], [30, 60, 230]]];
  const o = proj([0, 0, 0]);
  for (const [tip, rgb] of axes) {
    const p = proj(tip);
    const steps = Math.ceil(Math.hypot(p[0] - o[0], p[1] - o[1])) + 1;
    for (let i = 0; i <= steps; i++) {
      const x = Math.round(o[0] + ((p[0] - o[0]) * i) / steps), y = Math.round(o[1] + ((p[1] - o[1]) * i) / steps);
      for (const [dx, dy] of [[0, 0], [1, 0], [0, 1]]) {
        const xx = x + dx, yy = y + dy;
        if (xx < 0 || yy < 0 || xx >= size || yy >= size) continue;
        img.set(rgb, (yy * size + xx) * 3);
      }
    }
  }
  return img;
}

/** Renders side, top, front and three-quarter views into one PNG. */
export async function renderGlbViews(glb: Uint8Array, size = 300): Promise<Buffer> {
  const doc = await new NodeIO().readBinary(glb);
  const tris = await collect(doc);
  const lo: V3 = [Infinity, Infinity, Infinity], hi: V3 = [-Infinity, -Infinity, -Infinity];
  for (const t of tris) for (const p of t.p) for (let k = 0; k < 3; k++) { lo[k] = Math.min(lo[k], p[k]); hi[k] = Math.max(hi[k], p[k]); }
  const centre: V3 = [(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2];
  const extent = Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) * 1.1;
  const names = Object.keys(VIEWS);
  const tiles = names.map((n) => renderView(tris, VIEWS[n], size, extent, centre));
  const out = Buffer.alloc(size * 2 * size * 2 * 3, 255);
  tiles.forEach((tile, i) => {
    const ox = (i % 2) * size, oy = Math.floor(i / 2) * size;
    for (let y = 0; y < size; y++) tile.copy(out, ((oy + y) * size * 2 + ox) * 3, y * size * 3, (y + 1) * size * 3);
  });
  return await sharp(out, { raw: { width: size * 2, height: size * 2, channels: 3 } }).png().toBuffer();
}
