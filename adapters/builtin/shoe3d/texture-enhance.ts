import type { Document, Texture } from '@gltf-transform/core';
import type { RasterImage } from '../../../core/images.ts';
import type { ImageCodec } from '../../../core/ports/image-codec.ts';
import { projectToView, rasterizeIds, renderScene, viewBasis, type IdBuffers, type OrthoView, type Vec3, type ViewBasis } from '../../gltf/render.ts';
import { builtinEnhance, builtinLogoRefine, findLogoRegions } from './image-filters.ts';
import { resizeRgba } from './raster.ts';
import { documentPrimitives, type GlbPrimitive } from './read-glb.ts';
import { texelCoverage } from './texel-coverage.ts';

export interface EnhanceView {
  index: number;
  azimuthDeg: number;
  elevationDeg: number;
}

/** Turns a rendered view into an enhanced one of the same size (builtin: classical filters). */
export type ViewFilter = (image: RasterImage, view: EnhanceView) => Promise<RasterImage> | RasterImage;

export interface EnhanceOptions {
  /** 4 views (quarter turns) or 6 (sixth turns), all 20 degrees above the horizon. */
  views: 4 | 6;
  /** Side of the rendered views in pixels. */
  renderSize?: number;
  signal?: AbortSignal;
}

export interface EnhanceResult {
  views: number;
  /** Texels whose colour changed by at least one level. */
  texelsChanged: number;
}

/**
 * Texture enhancement: renders the textured model (unlit) from 4 or 6 views, passes each render
 * through `filter`, and projects the change (enhanced - rendered) back onto every base colour
 * texture of the document, in place: each texel takes the visibility-tested, facing-weighted (cos^4)
 * mean of the changes seen at its surface point. Adding the change, rather than re-baking the
 * renders, keeps texture detail finer than a render pixel. Textures are decoded and re-encoded (PNG)
 * by the codec.
 */
export async function enhanceTexture(doc: Document, codec: ImageCodec, filter: ViewFilter = (img) => builtinEnhance(img), opts: EnhanceOptions): Promise<EnhanceResult> {
  return projectFilter(doc, codec, opts, async (render, view) => ({ enhanced: await filter(render, view), mask: null }));
}

export interface LogoRefinement {
  status: 'applied' | 'none_found' | 'failed';
  /** Logo / text regions found over all views. */
  regions: number;
  errorCode?: string;
}

/** Refines the detected regions of a view; gets the render and its logo mask (1 = logo). */
export type LogoFilter = (image: RasterImage, mask: Uint8Array, view: EnhanceView) => Promise<RasterImage> | RasterImage;

/**
 * Logo refinement: a second pass on high-contrast text and logo regions only (dense strong edges
 * found in each render), projected back the same way. Never throws except on abort: a failure
 * leaves the document's textures as they were (`failed`) so the pipeline goes on with the
 * first-pass result.
 */
export async function refineLogos(doc: Document, codec: ImageCodec, refine: LogoFilter = (img, mask) => builtinLogoRefine(img, mask), opts: EnhanceOptions): Promise<LogoRefinement> {
  let regions = 0;
  try {
    await projectFilter(doc, codec, opts, async (render, view) => {
      const found = findLogoRegions(render);
      regions += found.regions;
      if (found.regions === 0) return { enhanced: render, mask: found.mask };
      return { enhanced: await refine(render, found.mask, view), mask: found.mask };
    });
    if (regions === 0) return { status: 'none_found', regions };
    return { status: 'applied', regions };
  } catch (err) {
    if (opts.signal?.aborted) throw opts.signal.reason ?? err;
    return { status: 'failed', regions, errorCode: 'logo_refinement_failed' };
  }
}

interface Pass {
  view: OrthoView;
  basis: ViewBasis;
  back: Vec3;
  ids: IdBuffers;
  delta: Float32Array;
  /** Which pixels may contribute (null = all object pixels). */
  mask: Uint8Array | null;
}

/**
 * Renders, filters and projects the changes back. Every texture is written back only after all of
 * them were computed, so a failure part-way leaves the document as it was.
 */
async function projectFilter(doc: Document, codec: ImageCodec, opts: EnhanceOptions, run: (render: RasterImage, view: EnhanceView) => Promise<{ enhanced: RasterImage; mask: Uint8Array | null }>): Promise<EnhanceResult> {
  const primitives = await documentPrimitives(doc, codec);
  const textured = primitives.filter((p) => p.texture && p.uvs && p.textureRef);
  if (textured.length === 0) return { views: 0, texelsChanged: 0 };
  const size = opts.renderSize ?? 768;
  const azimuths = opts.views === 6 ? [0, 60, 120, 180, 240, 300] : [0, 90, 180, 270];
  const frame = framing(primitives, azimuths, 20, size);
  const passes: Pass[] = [];
  for (let i = 0; i < azimuths.length; i++) {
    if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
    const view = frame[i];
    const render = renderScene(primitives, view, { shading: 'unlit' }).image;
    const info: EnhanceView = { index: i, azimuthDeg: view.azimuthDeg, elevationDeg: view.elevationDeg };
    const result = await run(render, info);
    let enhanced = result.enhanced;
    if (enhanced.width !== render.width || enhanced.height !== render.height) enhanced = resizeRgba(enhanced, render.width, render.height);
    const delta = new Float32Array(size * size * 3);
    for (let k = 0; k < size * size; k++) {
      if (render.data[k * 4 + 3] < 255) continue;
      for (let c = 0; c < 3; c++) delta[k * 3 + c] = enhanced.data[k * 4 + c] - render.data[k * 4 + c];
    }
    let ids: IdBuffers | undefined;
    primitives.forEach((p, m) => { ids = rasterizeIds(p, view, ids, m); });
    const basis = viewBasis(view.azimuthDeg, view.elevationDeg);
    passes.push({ view, basis, back: basis.back, ids: ids!, delta, mask: result.mask });
  }
  // group primitives by texture and project the changes onto each texture
  const groups = new Map<Texture, GlbPrimitive[]>();
  for (const p of textured) {
    const list = groups.get(p.textureRef!) ?? [];
    list.push(p);
    groups.set(p.textureRef!, list);
  }
  let changed = 0;
  const writes: { tex: Texture; image: RasterImage }[] = [];
  for (const [tex, prims] of groups) {
    if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
    const updated = projectChanges(prims[0].texture!, prims, passes);
    changed += updated.changed;
    if (updated.changed > 0) writes.push({ tex, image: updated.image });
  }
  const encoded = await Promise.all(writes.map((w) => codec.encode(w.image, 'png')));
  writes.forEach((w, i) => w.tex.setImage(encoded[i].bytes).setMimeType(encoded[i].contentType));
  return { views: passes.length, texelsChanged: changed };
}

/** Views around the model, all at one scale, each centred on the model's projection. */
function framing(meshes: GlbPrimitive[], azimuths: number[], elevation: number, size: number): OrthoView[] {
  const frames = azimuths.map((az) => {
    const { right, up } = viewBasis(az, elevation);
    let u0 = Infinity, u1 = -Infinity, v0 = Infinity, v1 = -Infinity;
    for (const m of meshes) {
      for (let i = 0; i < m.positions.length; i += 3) {
        const p = m.positions;
        const u = p[i] * right[0] + p[i + 1] * right[1] + p[i + 2] * right[2];
        const v = p[i] * up[0] + p[i + 1] * up[1] + p[i + 2] * up[2];
        u0 = Math.min(u0, u); u1 = Math.max(u1, u); v0 = Math.min(v0, v); v1 = Math.max(v1, v);
      }
    }
    const cu = (u0 + u1) / 2, cv = (v0 + v1) / 2;
    const target: Vec3 = [right[0] * cu + up[0] * cv, right[1] * cu + up[1] * cv, right[2] * cu + up[2] * cv];
    return { az, target, extent: Math.max(u1 - u0, v1 - v0) };
  });
  const extent = Math.max(1e-9, ...frames.map((f) => f.extent));
  return frames.map((f) => ({ azimuthDeg: f.az, elevationDeg: elevation, target: f.target, pixelsPerUnit: (0.94 * size) / extent, width: size, height: size }));
}

function projectChanges(image: RasterImage, prims: GlbPrimitive[], passes: Pass[]): { image: RasterImage; changed: number } {
  const W = image.width, H = image.height;
  const cov = texelCoverage(prims.map((p) => ({ uvs: p.uvs!, indices: p.indices })), W, H, 1.5);
  // global face number -> primitive and local face
  const starts: number[] = [];
  let total = 0;
  for (const p of prims) { starts.push(total); total += p.indices.length / 3; }
  const acc = new Float32Array(W * H * 3);
  const wsum = new Float32Array(W * H);
  const pt: [number, number, number] = [0, 0, 0];
  let k = 0;
  for (let t = 0; t < W * H; t++) {
    const g = cov.face[t];
    if (g < 0) continue;
    while (k + 1 < starts.length && starts[k + 1] <= g) k++;
    while (k > 0 && starts[k] > g) k--;
    const prim = prims[k];
    const f = g - starts[k];
    const { positions: P, indices: I } = prim;
    const N = prim.normals;
    const i0 = I[f * 3], i1 = I[f * 3 + 1], i2 = I[f * 3 + 2];
    const w1 = cov.b1[t], w2 = cov.b2[t], w0 = 1 - w1 - w2;
    pt[0] = w0 * P[i0 * 3] + w1 * P[i1 * 3] + w2 * P[i2 * 3];
    pt[1] = w0 * P[i0 * 3 + 1] + w1 * P[i1 * 3 + 1] + w2 * P[i2 * 3 + 1];
    pt[2] = w0 * P[i0 * 3 + 2] + w1 * P[i1 * 3 + 2] + w2 * P[i2 * 3 + 2];
    let nx: number, ny: number, nz: number;
    if (N) {
      nx = w0 * N[i0 * 3] + w1 * N[i1 * 3] + w2 * N[i2 * 3];
      ny = w0 * N[i0 * 3 + 1] + w1 * N[i1 * 3 + 1] + w2 * N[i2 * 3 + 1];
      nz = w0 * N[i0 * 3 + 2] + w1 * N[i1 * 3 + 2] + w2 * N[i2 * 3 + 2];
    } else {
      const ax = P[i1 * 3] - P[i0 * 3], ay = P[i1 * 3 + 1] - P[i0 * 3 + 1], az = P[i1 * 3 + 2] - P[i0 * 3 + 2];
      const bx = P[i2 * 3] - P[i0 * 3], by = P[i2 * 3 + 1] - P[i0 * 3 + 1], bz = P[i2 * 3 + 2] - P[i0 * 3 + 2];
      nx = ay * bz - az * by; ny = az * bx - ax * bz; nz = ax * by - ay * bx;
    }
    const nl = Math.hypot(nx, ny, nz) || 1;
    for (const pass of passes) {
      const cos = (nx * pass.back[0] + ny * pass.back[1] + nz * pass.back[2]) / nl;
      if (cos <= 0.1) continue;
      const [sx, sy, depth] = projectToView(pass.view, pass.basis, pt);
      const px = Math.floor(sx), py = Math.floor(sy);
      const vw = pass.view.width, vh = pass.view.height;
      if (px < 1 || py < 1 || px >= vw - 1 || py >= vh - 1) continue;
      // visible when no surface in the 3x3 neighbourhood is clearly in front
      let front = -Infinity;
      for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) front = Math.max(front, pass.ids.depth[(py + dy) * vw + px + dx]);
      if (depth < front - 2 / pass.view.pixelsPerUnit) continue;
      const q = py * vw + px;
      if (pass.mask && !pass.mask[q]) continue;
      const w = cos ** 4;
      acc[t * 3] += pass.delta[q * 3] * w;
      acc[t * 3 + 1] += pass.delta[q * 3 + 1] * w;
      acc[t * 3 + 2] += pass.delta[q * 3 + 2] * w;
      wsum[t] += w;
    }
  }
  const out: RasterImage = { width: W, height: H, data: new Uint8Array(image.data) };
  let changed = 0;
  for (let t = 0; t < W * H; t++) {
    if (wsum[t] <= 0) continue;
    let moved = false;
    for (let c = 0; c < 3; c++) {
      const v = Math.round(image.data[t * 4 + c] + acc[t * 3 + c] / wsum[t]);
      const cl = v < 0 ? 0 : v > 255 ? 255 : v;
      if (cl !== image.data[t * 4 + c]) moved = true;
      out.data[t * 4 + c] = cl;
    }
    if (moved) changed++;
  }
  return { image: out, changed };
}
