import type { RasterImage } from '../../../core/images.ts';
import { labelComponents } from '../raster/components.ts';
import { alphaMask, maskBounds } from '../raster/mask.ts';

export interface ProductTypeDecision {
  productType: 'shoe' | 'other';
  /** Why, in a sentence, for the job's trace. */
  reason: string;
  features: { maxAspect: number; handleHoles: number };
}

/**
 * `productType: auto`: shoe or other (bags) from the cleaned packshots' silhouettes. A handle
 * shows as a hole (background enclosed by the product) in the upper part of a view; a shoe seen
 * from the side is long and low (width / height of 1.9 or more). Neither: other.
 */
export function classifyProduct(views: RasterImage[]): ProductTypeDecision {
  let maxAspect = 0, handleHoles = 0;
  for (const img of views) {
    const mask = alphaMask(img, 128);
    const b = maskBounds(mask, img.width, img.height);
    if (!b) continue;
    const w = b.x1 - b.x0 + 1, h = b.y1 - b.y0 + 1;
    maxAspect = Math.max(maxAspect, w / h);
    // holes: background components inside the bounding box that do not touch its border
    const bw = w + 2, bh = h + 2;
    const bg = new Uint8Array(bw * bh);
    for (let y = 0; y < bh; y++) for (let x = 0; x < bw; x++) {
      const sx = x - 1 + b.x0, sy = y - 1 + b.y0;
      const inside = sx >= b.x0 && sx <= b.x1 && sy >= b.y0 && sy <= b.y1 && mask[sy * img.width + sx];
      bg[y * bw + x] = inside ? 0 : 1;
    }
    const { components } = labelComponents(bg, bw, bh, { order: 'area' });
    for (const c of components) {
      const touches = c.x0 === 0 || c.y0 === 0 || c.x1 === bw - 1 || c.y1 === bh - 1;
      if (touches || c.area < 0.01 * w * h) continue;
      if (c.cy - 1 < h * 0.5) handleHoles++;
    }
  }
  const features = { maxAspect: Math.round(maxAspect * 100) / 100, handleHoles };
  if (handleHoles > 0) return { productType: 'other', reason: `a handle-like opening in the upper part of ${handleHoles} view(s): treated as a bag (other)`, features };
  if (maxAspect >= 1.9) return { productType: 'shoe', reason: `a long, low silhouette (width/height ${features.maxAspect}): treated as a shoe`, features };
  return { productType: 'other', reason: `no long, low side view (largest width/height ${features.maxAspect}) and no handle: treated as other`, features };
}
