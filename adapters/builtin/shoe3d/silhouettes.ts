import type { RasterImage } from '../../../core/images.ts';
import { labelComponents } from '../raster/components.ts';
import { signedDistance } from '../raster/distance-transform.ts';
import { alphaMask } from '../raster/mask.ts';
import { blurFloat, cropRgba, resizeRgba } from './raster.ts';

/**
 * A view's silhouette registered to normalised world units: the object's height is 1, the ground
 * (lowest point) is y = 0 and the vertical rotation axis projects to `axisX` (plus `shift`).
 * Cameras at azimuth a and elevation e: a world point (x, y, z) has view coordinates
 * u = x cos a - z sin a, v = y cos e - (x sin a + z cos a) sin e and depth towards the camera
 * d = (x sin a + z cos a) cos e + y sin e. A perspective camera (`inverseDistance` > 0) scales u and
 * v about the object's centre (0, centreY, 0) by k = 1 / (1 - (d - dc) / D), dc the centre's depth;
 * an orthographic one (0) has k = 1. The point lands on full-resolution pixel
 * (axisX + (u k + shift) * ppu, bottom - (vc + (v - vc) k - vMin) * ppu), vc = centreY cos e (see
 * `viewUV`). Level views (e = 0) have vMin = 0 and ppu = the object's height in pixels;
 * `registerViews` and `refinePerspective` (registration.ts) set them otherwise.
 */
export interface Silhouette {
  /** Cleaned full-resolution view (alpha = object). */
  image: RasterImage;
  /** Sub-pixel extents of the object in full-resolution pixels. */
  left: number;
  right: number;
  top: number;
  bottom: number;
  /** Full-resolution pixels per world unit (= object height in pixels). */
  ppu: number;
  /** Pixel column of the rotation axis before `shift`. */
  axisX: number;
  /** Horizontal registration offset in world units, refined against the other views. */
  shift: number;
  /** Camera elevation in degrees (0 = level). */
  elevationDeg: number;
  /** View coordinate v of the lowest image point (the nearest ground point; 0 for level views). */
  vMin: number;
  /** 1 / the camera's distance from the object's centre, world units (0 = orthographic). */
  inverseDistance: number;
  /** Height of the object's centre, the point perspective scales about (world units). */
  centreY: number;
  /** Working-resolution signed distance field (pixels, negative inside). */
  work: WorkGrid;
  /** Coarse grid for hypothesis scoring. */
  coarse: WorkGrid;
}

export interface WorkGrid {
  width: number;
  height: number;
  /** Working pixels per full-resolution pixel. */
  scale: number;
  /** Full-resolution pixel of the working grid's origin. */
  x0: number;
  y0: number;
  mask: Uint8Array;
  sdf: Float32Array;
}

/** Share of the alpha-significant components kept as part of the object. */
const MIN_COMPONENT_SHARE = 0.02;

export function buildSilhouette(image: RasterImage, workHeight = 256, coarseHeight = 56): Silhouette | null {
  const { width, height, data } = image;
  const bin = alphaMask(image);
  const { labels, components } = labelComponents(bin, width, height, { order: 'area' });
  if (components.length === 0 || components[0].area < 16) return null;
  const keep = new Uint8Array(components.length + 1);
  for (const c of components) if (c.area >= components[0].area * MIN_COMPONENT_SHARE) keep[c.label] = 1;
  // coverage per row / column (max alpha), for sub-pixel extents
  const rowCov = new Float32Array(height), colCov = new Float32Array(width);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const a = data[i * 4 + 3] / 255;
      if (a <= 0) continue;
      if (bin[i]) {
        if (!keep[labels[i]]) continue;
      } else if (!nearKept(labels, keep, x, y, width, height)) {
        continue; // a soft edge pixel counts when it touches a kept component
      }
      if (a > rowCov[y]) rowCov[y] = a;
      if (a > colCov[x]) colCov[x] = a;
    }
  }
  let y0 = 0;
  while (y0 < height && rowCov[y0] === 0) y0++;
  let y1 = height - 1;
  while (y1 >= 0 && rowCov[y1] === 0) y1--;
  let x0 = 0;
  while (x0 < width && colCov[x0] === 0) x0++;
  let x1 = width - 1;
  while (x1 >= 0 && colCov[x1] === 0) x1--;
  const top = y0 + (1 - rowCov[y0]);
  const bottom = y1 + rowCov[y1];
  const left = x0 + (1 - colCov[x0]);
  const right = x1 + colCov[x1];
  const ppu = Math.max(1, bottom - top);
  const obj: RasterImage = { width, height, data: new Uint8Array(data) };
  for (let i = 0; i < width * height; i++) {
    if (bin[i] && !keep[labels[i]]) obj.data[i * 4 + 3] = 0;
  }
  const sil: Silhouette = {
    image: obj,
    left, right, top, bottom, ppu,
    axisX: (left + right) / 2,
    shift: 0,
    elevationDeg: 0,
    vMin: 0,
    inverseDistance: 0,
    centreY: 0.5,
    work: workGrid(obj, left, right, top, bottom, workHeight),
    coarse: workGrid(obj, left, right, top, bottom, coarseHeight),
  };
  return sil;
}

function nearKept(labels: Int32Array, keep: Uint8Array, x: number, y: number, width: number, height: number): boolean {
  for (let dy = -1; dy <= 1; dy++) {
    for (let dx = -1; dx <= 1; dx++) {
      const xx = x + dx, yy = y + dy;
      if (xx >= 0 && yy >= 0 && xx < width && yy < height && keep[labels[yy * width + xx]]) return true;
    }
  }
  return false;
}

/** Crops around the object with a margin, resamples to `targetHeight` object pixels, builds the SDF. */
function workGrid(img: RasterImage, left: number, right: number, top: number, bottom: number, targetHeight: number): WorkGrid {
  const h = bottom - top;
  const scale = Math.min(1, targetHeight / Math.max(1, h)) || 1;
  const margin = Math.max(4 / scale, 0.15 * Math.max(h, right - left));
  const cx0 = Math.floor(left - margin), cy0 = Math.floor(top - margin);
  const cw = Math.ceil(right + margin) - cx0, ch = Math.ceil(bottom + margin) - cy0;
  // crop (outside the image is transparent), then resample
  const crop = cropRgba(img, cx0, cy0, cw, ch);
  const ww = Math.max(4, Math.round(cw * scale)), wh = Math.max(4, Math.round(ch * scale));
  const small = scale === 1 ? crop : resizeRgba(crop, ww, wh);
  const mask = new Uint8Array(small.width * small.height);
  for (let i = 0; i < mask.length; i++) mask[i] = small.data[i * 4 + 3] >= 128 ? 1 : 0;
  return {
    width: small.width,
    height: small.height,
    scale: small.width / cw,
    x0: cx0,
    y0: cy0,
    mask,
    sdf: subpixelDistance(small),
  };
}

/**
 * Signed distance (working pixels, negative inside) with sub-pixel outlines: a binary mask's
 * distance field is terraced along slanted outlines (one-pixel steps), which shows as ridges on
 * the hull. The alpha is upsampled 2x bilinearly before thresholding, the distance computed there
 * and averaged back down, then lightly blurred.
 */
function subpixelDistance(img: RasterImage): Float32Array {
  const { width: w, height: h, data } = img;
  const W = w * 2, H = h * 2;
  const hi = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) {
    const sy = Math.min(h - 1, Math.max(0, (y + 0.5) / 2 - 0.5));
    const y0 = Math.floor(sy), y1 = Math.min(h - 1, y0 + 1), fy = sy - y0;
    for (let x = 0; x < W; x++) {
      const sx = Math.min(w - 1, Math.max(0, (x + 0.5) / 2 - 0.5));
      const x0 = Math.floor(sx), x1 = Math.min(w - 1, x0 + 1), fx = sx - x0;
      const a = (data[(y0 * w + x0) * 4 + 3] * (1 - fx) + data[(y0 * w + x1) * 4 + 3] * fx) * (1 - fy)
        + (data[(y1 * w + x0) * 4 + 3] * (1 - fx) + data[(y1 * w + x1) * 4 + 3] * fx) * fy;
      hi[y * W + x] = a >= 127.5 ? 1 : 0;
    }
  }
  const sdHi = signedDistance(hi, W, H);
  const sd = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const k = 2 * y * W + 2 * x;
      sd[y * w + x] = (sdHi[k] + sdHi[k + 1] + sdHi[k + W] + sdHi[k + W + 1]) / 8;
    }
  }
  return blurFloat(sd, w, h, 0.8);
}

/**
 * Signed distance (world units, negative inside) of a projected point (u, v) to the silhouette,
 * bilinear inside the working grid and growing linearly outside it.
 */
export function silhouetteDistance(sil: Silhouette, grid: WorkGrid, u: number, v: number): number {
  const px = sil.axisX + (u + sil.shift) * sil.ppu;
  const py = sil.bottom - (v - sil.vMin) * sil.ppu;
  const gx = (px - grid.x0) * grid.scale - 0.5;
  const gy = (py - grid.y0) * grid.scale - 0.5;
  const cx = Math.min(Math.max(gx, 0), grid.width - 1.001);
  const cy = Math.min(Math.max(gy, 0), grid.height - 1.001);
  const ix = Math.floor(cx), iy = Math.floor(cy);
  const fx = cx - ix, fy = cy - iy;
  const w = grid.width;
  const s = grid.sdf;
  const k = iy * w + ix;
  const top = s[k] + (s[k + 1] - s[k]) * fx;
  const bot = s[k + w] + (s[k + w + 1] - s[k + w]) * fx;
  let d = top + (bot - top) * fy;
  const ox = gx - cx, oy = gy - cy;
  if (ox !== 0 || oy !== 0) d += Math.hypot(ox, oy);
  return d / (grid.scale * sil.ppu);
}

/** Sines and cosines of a view's azimuth and elevation, for `viewUV` and `viewRayPoint`. */
export interface ViewTrig {
  ca: number;
  sa: number;
  ce: number;
  se: number;
}

export function viewTrig(azimuthDeg: number, elevationDeg: number): ViewTrig {
  const a = (azimuthDeg * Math.PI) / 180, e = (elevationDeg * Math.PI) / 180;
  return { ca: Math.cos(a), sa: Math.sin(a), ce: Math.cos(e), se: Math.sin(e) };
}

/** Perspective factor at a depth d towards the camera (d = 0 at the object's centre). */
function perspectiveK(sil: Silhouette, d: number): number {
  return 1 / Math.max(0.05, 1 - d * sil.inverseDistance);
}

/** The view coordinates (u, v) at which the photo shows a world point (into out[0], out[1]). */
export function viewUV(sil: Silhouette, t: ViewTrig, x: number, y: number, z: number, out: number[]): void {
  const u = x * t.ca - z * t.sa, w = x * t.sa + z * t.ca;
  const v = y * t.ce - w * t.se;
  if (sil.inverseDistance === 0) {
    out[0] = u;
    out[1] = v;
    return;
  }
  const k = perspectiveK(sil, w * t.ce + (y - sil.centreY) * t.se);
  const vc = sil.centreY * t.ce;
  out[0] = u * k;
  out[1] = vc + (v - vc) * k;
}

/**
 * The world point on the ray through view coordinates (u, v) at depth d towards the camera (d = 0
 * at the object's centre's depth): the inverse of `viewUV` along one line of sight.
 */
export function viewRayPoint(sil: Silhouette, t: ViewTrig, u: number, v: number, d: number, out: number[]): void {
  const k = sil.inverseDistance === 0 ? 1 : perspectiveK(sil, d);
  const vc = sil.centreY * t.ce;
  const uu = u / k, vv = vc + (v - vc) / k, dd = d + sil.centreY * t.se;
  // right = (ca, 0, -sa), up = (-sa se, ce, -ca se), back = (sa ce, se, ca ce)
  out[0] = uu * t.ca - vv * t.sa * t.se + dd * t.sa * t.ce;
  out[1] = vv * t.ce + dd * t.se;
  out[2] = -uu * t.sa - vv * t.ca * t.se + dd * t.ca * t.ce;
}

/** Horizontal extent of the silhouette in world units around the axis: [uMin, uMax]. */
export function silhouetteSpan(sil: Silhouette): [number, number] {
  return [(sil.left - sil.axisX) / sil.ppu - sil.shift, (sil.right - sil.axisX) / sil.ppu - sil.shift];
}
