/**
 * What the try-on operations hand to the builtin engine through `ModelCall.structured`: the body to
 * dress and the decoded garments per slot. Vendor models get the same garments as encoded
 * references (the person image and the garment grid) and ignore this.
 */
import type { RasterImage } from '../images.ts';
import type { BodyRender } from '../twins/body.ts';

/** The spec's garment slots, in the order garments are layered and listed. */
export type GarmentSlot = 'topGarment' | 'bottomGarment' | 'fullBodyGarment' | 'shoes';
export const GARMENT_SLOTS: readonly GarmentSlot[] = ['topGarment', 'bottomGarment', 'fullBodyGarment', 'shoes'];

/** `productCategory`: a hint for a single product image; `auto` decides from the garment's shape. */
export type ProductCategory = 'auto' | 'top' | 'bottom' | 'full-body' | 'shoe';
export const PRODUCT_CATEGORIES: readonly ProductCategory[] = ['auto', 'top', 'bottom', 'full-body', 'shoe'];

/** One slot's images: [0] the packshot (required), [1] an optional on-model reference. */
export interface SlotImages {
  packshot: RasterImage;
  onModel?: RasterImage;
}

export interface TryOnStructuredInput {
  body: BodyRender;
  garments: Partial<Record<GarmentSlot, SlotImages>>;
  /** The direct path: one product image without a garment grid. */
  product?: { image: RasterImage; category: ProductCategory };
  /** false: the person's background is replaced with a clean studio backdrop. */
  preserveBackground: boolean;
}

function isRaster(v: unknown): v is RasterImage {
  const r = v as RasterImage;
  return !!r && typeof r === 'object' && Number.isInteger(r.width) && Number.isInteger(r.height) && r.width > 0 && r.height > 0 && r.data instanceof Uint8Array && r.data.length === r.width * r.height * 4;
}

/** Checks the shape of a structured try-on input (it crosses a process boundary inside jobs). */
export function isTryOnStructuredInput(v: unknown): v is TryOnStructuredInput {
  const s = v as TryOnStructuredInput;
  if (!s || typeof s !== 'object' || typeof s.preserveBackground !== 'boolean') return false;
  const b = s.body;
  if (!b || !isRaster(b.image) || !(b.mask instanceof Uint8Array) || !(b.depth instanceof Float32Array) || !b.landmarks) return false;
  if (b.mask.length !== b.image.width * b.image.height || b.depth.length !== b.mask.length) return false;
  if (b.parts !== undefined && (!(b.parts instanceof Uint8Array) || b.parts.length !== b.mask.length)) return false;
  if (!s.garments || typeof s.garments !== 'object') return false;
  for (const [slot, images] of Object.entries(s.garments)) {
    if (!GARMENT_SLOTS.includes(slot as GarmentSlot)) return false;
    if (!images || !isRaster(images.packshot) || (images.onModel !== undefined && !isRaster(images.onModel))) return false;
  }
  if (s.product !== undefined && (!isRaster(s.product.image) || !PRODUCT_CATEGORIES.includes(s.product.category))) return false;
  return s.product !== undefined || Object.keys(s.garments).length > 0;
}
