/**
 * The body engine's component count in its `{ labels, sizes }` form (4-connected, as the body's
 * segmentation keeps its largest component), over the shared raster helpers.
 */
import { labelComponents as label } from '../raster/components.ts';

export { maskBounds } from '../raster/mask.ts';

/** Labels 4-connected components; `sizes[l]` is the area of label l (`sizes[0]` = 0, background). */
export function labelComponents(mask: Uint8Array, w: number, h: number): { labels: Int32Array; sizes: number[] } {
  const { labels, components } = label(mask, w, h, { connectivity: 4 });
  return { labels, sizes: [0, ...components.map((c) => c.area)] };
}
