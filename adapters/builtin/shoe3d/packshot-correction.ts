import type { RasterImage } from '../../../core/images.ts';
import { createRaster } from '../../../core/images.ts';
import { backgroundDifference, estimateBackground } from '../raster/backdrop.ts';
import { labelComponents } from '../raster/components.ts';
import { clamp255, flatten, sampleRgba } from './raster.ts';

export interface ImageCorrection {
  /** Per-channel gains applied at the image centre (white balance and exposure together). */
  gains: [number, number, number];
  /** Background colour measured before correction (at the image centre). */
  backgroundBefore: [number, number, number];
  /** Rotation applied, degrees, counter-clockwise on screen. */
  rotationDeg: number;
  /** How the rotation was decided. */
  axis: 'support-edge' | 'principal-axis' | 'none';
  /** Uniform scale applied so the object fits the frame (1 = none). */
  scale: number;
  /** Translation applied to centre the object, pixels. */
  shift: [number, number];
}

export interface CorrectionResult {
  image: RasterImage;
  correction: ImageCorrection;
}

const MAX_STRAIGHTEN_DEG = 30;

/**
 * Packshot correction (`options.correctImage`): white balance and exposure from the background,
 * straightening from the object's dominant axis, and centring on a clean white background.
 *
 * - White balance and exposure: the background plane is mapped to white per pixel (a flat-field
 *   correction), which also removes light gradients across the backdrop.
 * - Straightening: the principal axis (PCA of the object mask) gives the orientation; a shoe's
 *   upright side view is not symmetric about that axis (heel high, toe low), so when the convex
 *   hull has a long edge close to it (the sole resting on the floor) that edge is used instead.
 *   Only tilts up to 30 degrees from horizontal or vertical are corrected; larger ones are taken
 *   as intentional.
 * - Centring: the object's bounding box is moved to the middle of the frame (scaled down only if it
 *   would not fit with a margin), and near-background pixels are repainted pure white.
 */
export function correctImage(input: RasterImage): CorrectionResult {
  const img = flatten(input);
  const { width, height } = img;
  const n = width * height;
  const bg = estimateBackground(img);
  // 1. flat-field white balance and exposure
  const balanced = createRaster(width, height);
  const b = [0, 0, 0];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      bg.surface.at(x, y, b);
      const o = (y * width + x) * 4;
      for (let c = 0; c < 3; c++) balanced.data[o + c] = clamp255((img.data[o + c] * 255) / Math.max(8, b[c]));
      balanced.data[o + 3] = 255;
    }
  }
  const gains = bg.mean.map((v) => 255 / Math.max(8, v)) as [number, number, number];
  const white = estimateBackground(balanced);
  const diff = backgroundDifference(balanced, white);
  const tLo = Math.max(12, 4 * white.noise);
  const rawMask = new Uint8Array(n);
  for (let i = 0; i < n; i++) rawMask[i] = diff.delta[i] > tLo ? 1 : 0;
  const { labels, components } = labelComponents(rawMask, width, height, { order: 'area' });
  const largest = components[0]?.area ?? 0;
  const keep = new Set(components.filter((c) => c.area >= Math.max(16, largest * 0.03)).map((c) => c.label));
  const mask = new Uint8Array(n);
  for (let i = 0; i < n; i++) mask[i] = keep.has(labels[i]) ? 1 : 0;
  if (largest === 0) {
    return {
      image: balanced,
      correction: { gains, backgroundBefore: bg.mean, rotationDeg: 0, axis: 'none', scale: 1, shift: [0, 0] },
    };
  }
  // 2. orientation
  const { angle, axis, cx, cy } = dominantAxis(mask, width, height);
  const rot = axis === 'none' ? 0 : straightening(angle);
  // 3. placement: rotate about the centroid, then centre the rotated bounding box (scaled to fit)
  const cosr = Math.cos(rot), sinr = Math.sin(rot);
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!mask[y * width + x]) continue;
      const dx = x + 0.5 - cx, dy = y + 0.5 - cy;
      // forward map of a CCW-on-screen rotation in y-down coordinates
      const rx = cosr * dx + sinr * dy, ry = -sinr * dx + cosr * dy;
      if (rx < x0) x0 = rx;
      if (rx > x1) x1 = rx;
      if (ry < y0) y0 = ry;
      if (ry > y1) y1 = ry;
    }
  }
  const margin = 0.04;
  const scale = Math.min(1, ((1 - 2 * margin) * width) / Math.max(1, x1 - x0 + 1), ((1 - 2 * margin) * height) / Math.max(1, y1 - y0 + 1));
  const bcx = (x0 + x1) / 2, bcy = (y0 + y1) / 2;
  const out = createRaster(width, height, [255, 255, 255, 255]);
  const tmp = new Uint8Array(4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      // destination -> rotated frame -> source
      const rx = (x + 0.5 - width / 2) / scale + bcx, ry = (y + 0.5 - height / 2) / scale + bcy;
      const sx = cosr * rx - sinr * ry + cx - 0.5, sy = sinr * rx + cosr * ry + cy - 0.5;
      tmp.fill(0);
      sampleRgba(balanced, sx, sy, tmp, 0);
      const o = (y * width + x) * 4;
      const a = tmp[3] / 255;
      for (let c = 0; c < 3; c++) {
        const v = tmp[c] * a + 255 * (1 - a);
        // repaint near-background pixels pure white: a clean backdrop
        out.data[o + c] = clamp255(v);
      }
    }
  }
  repaintBackground(out, tLo);
  const shift: [number, number] = [round2(width / 2 - (cx + bcx)), round2(height / 2 - (cy + bcy))];
  return {
    image: out,
    correction: { gains: gains.map(round2) as [number, number, number], backgroundBefore: bg.mean.map(round2) as [number, number, number], rotationDeg: round2((rot * 180) / Math.PI), axis, scale: round2(scale), shift },
  };
}

function repaintBackground(img: RasterImage, threshold: number): void {
  for (let i = 0; i < img.width * img.height; i++) {
    const o = i * 4;
    const d = Math.hypot(255 - img.data[o], 255 - img.data[o + 1], 255 - img.data[o + 2]);
    if (d < threshold) img.data[o] = img.data[o + 1] = img.data[o + 2] = 255;
  }
}

/** Rotation (radians, CCW on screen) that brings an axis at `angle` to the nearest of horizontal/vertical. */
function straightening(angle: number): number {
  // angle is the axis direction in y-down image coordinates, in (-pi/2, pi/2]
  let dev = angle;
  if (dev > Math.PI / 4) dev -= Math.PI / 2;
  if (dev < -Math.PI / 4) dev += Math.PI / 2;
  const deg = (Math.abs(dev) * 180) / Math.PI;
  if (deg < 0.5 || deg > MAX_STRAIGHTEN_DEG) return 0;
  // an axis going down-right (positive angle) is a clockwise tilt on screen; undo it CCW
  return dev;
}

/**
 * Orientation of the object: principal axis of the mask, replaced by the longest convex-hull edge
 * when that edge runs within 20 degrees of the axis and spans at least 40% of the object's length.
 */
export function dominantAxis(mask: Uint8Array, width: number, height: number): { angle: number; axis: ImageCorrection['axis']; cx: number; cy: number } {
  let n = 0, sx = 0, sy = 0;
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) if (mask[y * width + x]) { n++; sx += x + 0.5; sy += y + 0.5; }
  const cx = sx / n, cy = sy / n;
  let cxx = 0, cyy = 0, cxy = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!mask[y * width + x]) continue;
      const dx = x + 0.5 - cx, dy = y + 0.5 - cy;
      cxx += dx * dx; cyy += dy * dy; cxy += dx * dy;
    }
  }
  cxx /= n; cyy /= n; cxy /= n;
  const tr = cxx + cyy, det = cxx * cyy - cxy * cxy;
  const l1 = tr / 2 + Math.sqrt(Math.max(0, (tr * tr) / 4 - det));
  const l2 = tr / 2 - Math.sqrt(Math.max(0, (tr * tr) / 4 - det));
  const pca = 0.5 * Math.atan2(2 * cxy, cxx - cyy);
  if (l2 <= 0 || l1 / l2 < 1.3 * 1.3) return { angle: 0, axis: 'none', cx, cy };
  // convex hull of the row extremes (enough points for the hull)
  const pts: [number, number][] = [];
  for (let y = 0; y < height; y++) {
    let first = -1, last = -1;
    for (let x = 0; x < width; x++) if (mask[y * width + x]) { if (first < 0) first = x; last = x; }
    if (first >= 0) {
      pts.push([first, y], [last + 1, y], [first, y + 1], [last + 1, y + 1]);
    }
  }
  const hull = convexHull(pts);
  const length = 4 * Math.sqrt(l1);
  let best = -1, bestAngle = pca;
  for (let i = 0; i < hull.length; i++) {
    const [ax, ay] = hull[i], [bx, by] = hull[(i + 1) % hull.length];
    const len = Math.hypot(bx - ax, by - ay);
    let ang = Math.atan2(by - ay, bx - ax);
    if (ang > Math.PI / 2) ang -= Math.PI;
    if (ang <= -Math.PI / 2) ang += Math.PI;
    let d = Math.abs(ang - pca);
    d = Math.min(d, Math.PI - d);
    if (d < (20 * Math.PI) / 180 && len > best) { best = len; bestAngle = ang; }
  }
  if (best >= 0.4 * length) return { angle: bestAngle, axis: 'support-edge', cx, cy };
  return { angle: pca, axis: 'principal-axis', cx, cy };
}

/** Andrew's monotone chain; returns the hull counter-clockwise in y-down coordinates. */
function convexHull(points: [number, number][]): [number, number][] {
  const p = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (p.length < 3) return p;
  const cross = (o: [number, number], a: [number, number], b: [number, number]) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower: [number, number][] = [];
  for (const q of p) {
    while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], q) <= 0) lower.pop();
    lower.push(q);
  }
  const upper: [number, number][] = [];
  for (let i = p.length - 1; i >= 0; i--) {
    const q = p[i];
    while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], q) <= 0) upper.pop();
    upper.push(q);
  }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}

function round2(v: number): number {
  return Math.round(v * 100) / 100;
}
