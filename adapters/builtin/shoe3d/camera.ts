import type { RasterImage } from '../../../core/images.ts';
import { viewBasis, type OrthoView, type Vec3 } from '../../gltf/render.ts';
import type { Silhouette } from './silhouettes.ts';

/**
 * A camera in the reconstruction's world. Orthographic: pixel x = ox + dot(p, right) * ppu,
 * pixel y = oy - dot(p, up) * ppu, depth = dot(p, back) (larger = closer). Perspective (a photo's
 * camera at `distance` from `centre`): the offsets from the centre are scaled by
 * k = distance / (distance - depth), depth then measured from the centre (silhouettes.ts has the
 * same model). Photos registered as silhouettes and views rendered for texture enhancement both
 * become ViewCameras.
 */
export interface ViewCamera {
  image: RasterImage;
  azimuthDeg: number;
  elevationDeg: number;
  right: Vec3;
  up: Vec3;
  back: Vec3;
  ox: number;
  oy: number;
  ppu: number;
  /** Relative trust in this view's colours (1 = a photo). */
  weight: number;
  /** Perspective: the camera's distance from `centre` (world units). */
  distance?: number;
  centre?: Vec3;
}

export function cameraFromSilhouette(sil: Silhouette, azimuthDeg: number): ViewCamera {
  const { right, up, back } = viewBasis(azimuthDeg, sil.elevationDeg);
  const cam: ViewCamera = { image: sil.image, azimuthDeg, elevationDeg: sil.elevationDeg, right, up, back, ox: sil.axisX + sil.shift * sil.ppu, oy: sil.bottom + sil.vMin * sil.ppu, ppu: sil.ppu, weight: 1 };
  if (sil.inverseDistance > 0) {
    cam.distance = 1 / sil.inverseDistance;
    cam.centre = [0, sil.centreY, 0];
  }
  return cam;
}

export function cameraFromOrthoView(view: OrthoView, image: RasterImage, weight = 1): ViewCamera {
  const { right, up, back } = viewBasis(view.azimuthDeg, view.elevationDeg);
  const t = view.target;
  const tr = t[0] * right[0] + t[1] * right[1] + t[2] * right[2];
  const tu = t[0] * up[0] + t[1] * up[1] + t[2] * up[2];
  return {
    image,
    azimuthDeg: view.azimuthDeg,
    elevationDeg: view.elevationDeg,
    right, up, back,
    ox: view.width / 2 - tr * view.pixelsPerUnit,
    oy: view.height / 2 + tu * view.pixelsPerUnit,
    ppu: view.pixelsPerUnit,
    weight,
  };
}

/** The render.ts view that reproduces a camera's projection at its image size. */
export function orthoViewOf(cam: ViewCamera): OrthoView {
  const w = cam.image.width, h = cam.image.height;
  const a = (w / 2 - cam.ox) / cam.ppu, b = (cam.oy - h / 2) / cam.ppu;
  const target: Vec3 = [cam.right[0] * a + cam.up[0] * b, cam.right[1] * a + cam.up[1] * b, cam.right[2] * a + cam.up[2] * b];
  if (cam.distance !== undefined && cam.centre) {
    const c = cam.centre;
    const principal: [number, number] = [cam.ox + dot(c, cam.right) * cam.ppu, cam.oy - dot(c, cam.up) * cam.ppu];
    return { azimuthDeg: cam.azimuthDeg, elevationDeg: cam.elevationDeg, target: c, pixelsPerUnit: cam.ppu, width: w, height: h, distance: cam.distance, principal };
  }
  return { azimuthDeg: cam.azimuthDeg, elevationDeg: cam.elevationDeg, target, pixelsPerUnit: cam.ppu, width: w, height: h };
}

function dot(a: Vec3, b: Vec3): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

export function projectCamera(cam: ViewCamera, x: number, y: number, z: number, out: number[]): void {
  if (cam.distance !== undefined && cam.centre) {
    const c = cam.centre;
    const dx = x - c[0], dy = y - c[1], dz = z - c[2];
    const depth = dx * cam.back[0] + dy * cam.back[1] + dz * cam.back[2];
    const k = cam.distance / Math.max(1e-6, cam.distance - depth);
    out[0] = cam.ox + dot(c, cam.right) * cam.ppu + (dx * cam.right[0] + dy * cam.right[1] + dz * cam.right[2]) * cam.ppu * k;
    out[1] = cam.oy - dot(c, cam.up) * cam.ppu - (dx * cam.up[0] + dy * cam.up[1] + dz * cam.up[2]) * cam.ppu * k;
    out[2] = depth;
    return;
  }
  out[0] = cam.ox + (x * cam.right[0] + y * cam.right[1] + z * cam.right[2]) * cam.ppu;
  out[1] = cam.oy - (x * cam.up[0] + y * cam.up[1] + z * cam.up[2]) * cam.ppu;
  out[2] = x * cam.back[0] + y * cam.back[1] + z * cam.back[2];
}
