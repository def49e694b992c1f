import type { RasterImage } from '../../../core/images.ts';
import { viewBasis, type OrthoView, type Vec3 } from '../../gltf/render.ts';
import type { Silhouette } from './silhouettes.ts';

/**
 * An orthographic camera in the reconstruction's world: pixel x = ox + dot(p, right) * ppu,
 * pixel y = oy - dot(p, up) * ppu, depth = dot(p, back) (larger = closer). Photos registered as
 * silhouettes and views rendered for texture enhancement both become ViewCameras.
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
}

export function cameraFromSilhouette(sil: Silhouette, azimuthDeg: number): ViewCamera {
  const { right, up, back } = viewBasis(azimuthDeg, sil.elevationDeg);
  return { image: sil.image, azimuthDeg, elevationDeg: sil.elevationDeg, right, up, back, ox: sil.axisX + sil.shift * sil.ppu, oy: sil.bottom + sil.vMin * sil.ppu, ppu: sil.ppu, weight: 1 };
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
  return { azimuthDeg: cam.azimuthDeg, elevationDeg: cam.elevationDeg, target, pixelsPerUnit: cam.ppu, width: w, height: h };
}

export function projectCamera(cam: ViewCamera, x: number, y: number, z: number, out: number[]): void {
  out[0] = cam.ox + (x * cam.right[0] + y * cam.right[1] + z * cam.right[2]) * cam.ppu;
  out[1] = cam.oy - (x * cam.up[0] + y * cam.up[1] + z * cam.up[2]) * cam.ppu;
  out[2] = x * cam.back[0] + y * cam.back[1] + z * cam.back[2];
}
