import type { Document } from '@gltf-transform/core';
import type { EncodedImage, RasterImage } from '../../../core/images.ts';
import { createRaster } from '../../../core/images.ts';
import type { ImageCodec } from '../../../core/ports/image-codec.ts';
import { renderScene, viewBasis, type OrthoView, type RenderMesh, type Vec3 } from '../../gltf/render.ts';
import { documentPrimitives } from './read-glb.ts';

export interface PreviewOptions {
  /** Azimuths to show, degrees; default six around the product. */
  angles?: number[];
  elevationDeg?: number;
  tile?: number;
  columns?: number;
}

/**
 * The result's `previewGrid`: the final model rendered from several angles by the software
 * rasterizer (textured, lit), tiled on white, as a PNG from the codec. All tiles share one scale so
 * proportions compare; tiles take the object's proportions (wide for a shoe). Textures are decoded
 * at most 2048 pixels wide: a tile shows far fewer.
 */
export async function previewGrid(doc: Document, codec: ImageCodec, opts: PreviewOptions = {}): Promise<EncodedImage> {
  const meshes = await documentPrimitives(doc, codec, { maxTextureSide: 2048 });
  return codec.encode(renderPreviewGrid(meshes, opts), 'png');
}

export function renderPreviewGrid(meshes: RenderMesh[], opts: PreviewOptions = {}): RasterImage {
  const angles = opts.angles ?? [0, 60, 120, 180, 240, 300];
  const tile = opts.tile ?? 320;
  const cols = opts.columns ?? 3;
  const rows = Math.ceil(angles.length / cols);
  if (meshes.length === 0) return createRaster(cols * tile, rows * tile, [255, 255, 255, 255]);
  // one scale for every tile: the largest projected extent over the angles; each tile centred
  const elevation = opts.elevationDeg ?? 20;
  const frames = angles.map((az) => {
    const { right, up } = viewBasis(az, elevation);
    let u0 = Infinity, u1 = -Infinity, v0 = Infinity, v1 = -Infinity;
    for (const m of meshes) {
      for (let i = 0; i < m.positions.length; i += 3) {
        const x = m.positions[i], y = m.positions[i + 1], z = m.positions[i + 2];
        const u = x * right[0] + y * right[1] + z * right[2];
        const v = x * up[0] + y * up[1] + z * up[2];
        if (u < u0) u0 = u;
        if (u > u1) u1 = u;
        if (v < v0) v0 = v;
        if (v > v1) v1 = v;
      }
    }
    const cu = (u0 + u1) / 2, cv = (v0 + v1) / 2;
    const target: Vec3 = [right[0] * cu + up[0] * cv, right[1] * cu + up[1] * cv, right[2] * cu + up[2] * cv];
    return { target, width: u1 - u0, height: v1 - v0 };
  });
  const maxW = Math.max(1e-6, ...frames.map((f) => f.width));
  const maxH = Math.max(1e-6, ...frames.map((f) => f.height));
  // tiles follow the object's proportions (a shoe gets wide tiles), within limits
  const tileH = Math.round(tile * Math.min(1, Math.max(0.45, (maxH / maxW) * 1.08)));
  const ppu = 0.92 * Math.min(tile / maxW, tileH / maxH);
  const out = createRaster(cols * tile, rows * tileH, [255, 255, 255, 255]);
  angles.forEach((az, i) => {
    const view: OrthoView = {
      azimuthDeg: az,
      elevationDeg: elevation,
      target: frames[i].target,
      pixelsPerUnit: ppu,
      width: tile,
      height: tileH,
    };
    const img = renderScene(meshes, view, { supersample: 2, background: [255, 255, 255, 255], ambient: 0.55 }).image;
    const ox = (i % cols) * tile, oy = Math.floor(i / cols) * tileH;
    for (let y = 0; y < tileH; y++) out.data.set(img.data.subarray(y * tile * 4, (y + 1) * tile * 4), ((oy + y) * out.width + ox) * 4);
  });
  return out;
}
