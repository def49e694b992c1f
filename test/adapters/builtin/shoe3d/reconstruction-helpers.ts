import type { RasterImage } from '../../../../core/images.ts';
import type { ReconstructionRequest, ReconstructionView } from '../../../../core/ports/product-reconstructor.ts';
import { encodeRaster } from '../../../../adapters/builtin/shoe3d/encode.ts';
import { readGlbMeshes } from '../../../../adapters/builtin/shoe3d/read-glb.ts';
import { SharpImageCodec } from '../../../../adapters/sharp/image-codec.ts';

const codec = new SharpImageCodec();
import { renderScene, viewBasis, type RenderMesh } from '../../../../adapters/gltf/render.ts';
import { meshBounds, shapeMetrics, type ProductMesh, type ShapeMetrics } from '../../../support/products.ts';

export async function viewsOf(images: { cutout: RasterImage }[]): Promise<ReconstructionView[]> {
  return Promise.all(images.map(async (v) => ({ image: v.cutout, encoded: await encodeRaster(v.cutout) })));
}

export function request(views: ReconstructionView[], productType: 'shoe' | 'other', quality: 'default' | 'high' = 'default'): ReconstructionRequest & { progress: number[] } {
  const progress: number[] = [];
  return { views, productType, quality, signal: new AbortController().signal, onProgress: (f) => progress.push(f), progress };
}

export async function glbMeshes(glb: Uint8Array): Promise<RenderMesh[]> {
  return readGlbMeshes(glb, codec);
}

/** Chamfer / F-score of the GLB's geometry against the generated truth, both grounded and centred. */
export function compare(meshes: RenderMesh[], truth: ProductMesh, length: number): ShapeMetrics & { extent: [number, number, number] } {
  const m = meshes[0];
  const b = meshBounds(m.positions);
  return { ...shapeMetrics(m, truth, 0.01 * length), extent: [b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2]] };
}

/**
 * Mean absolute colour difference between a photo (cutout) and the textured model rendered unlit
 * from the same azimuth, both mapped onto the photo's object bounding box.
 */
export function textureError(meshes: RenderMesh[], photo: RasterImage, azimuthDeg: number): number {
  const { right, up } = viewBasis(azimuthDeg, 0);
  let u0 = Infinity, u1 = -Infinity, v0 = Infinity, v1 = -Infinity;
  for (const m of meshes) {
    for (let i = 0; i < m.positions.length; i += 3) {
      const u = m.positions[i] * right[0] + m.positions[i + 2] * right[2];
      const v = m.positions[i + 1] * up[1];
      u0 = Math.min(u0, u); u1 = Math.max(u1, u); v0 = Math.min(v0, v); v1 = Math.max(v1, v);
    }
  }
  // photo bbox
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (let y = 0; y < photo.height; y++) for (let x = 0; x < photo.width; x++) {
    if (photo.data[(y * photo.width + x) * 4 + 3] < 128) continue;
    x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
  }
  const ppu = (x1 - x0 + 1) / (u1 - u0);
  const cu = (u0 + u1) / 2, cv = (v0 + v1) / 2;
  const target: [number, number, number] = [right[0] * cu, cv, right[2] * cu];
  const render = renderScene(meshes, { azimuthDeg, elevationDeg: 0, target, pixelsPerUnit: ppu, width: photo.width, height: photo.height }, { shading: 'unlit' }).image;
  // shift so the bounding boxes' centres coincide
  const dx = Math.round((x0 + x1) / 2 - photo.width / 2), dy = Math.round((y0 + y1) / 2 - photo.height / 2);
  let sum = 0, n = 0;
  for (let y = 0; y < photo.height; y++) for (let x = 0; x < photo.width; x++) {
    const p = (y * photo.width + x) * 4;
    const rx = x - dx, ry = y - dy;
    if (rx < 0 || ry < 0 || rx >= photo.width || ry >= photo.height) continue;
    const r = (ry * photo.width + rx) * 4;
    if (photo.data[p + 3] < 255 || render.data[r + 3] < 255) continue;
    sum += (Math.abs(photo.data[p] - render.data[r]) + Math.abs(photo.data[p + 1] - render.data[r + 1]) + Math.abs(photo.data[p + 2] - render.data[r + 2])) / 3;
    n++;
  }
  return sum / n;
}
