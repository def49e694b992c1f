/**
 * The rules of the try-on requests that a schema cannot state (which identity, which garments,
 * what combines with what), applied to the three request shapes, and their normal form.
 */
import { validationError, type ErrorDetail } from '../../core/errors.ts';
import type { ProviderId, Quality } from '../../core/ports/image-model.ts';
import type { InlineTwinRequest } from '../../core/tryon/inline-twins.ts';
import type { PromptPreset } from '../../core/tryon/prompts.ts';
import { GARMENT_SLOTS, type GarmentSlot, type ProductCategory } from '../../core/tryon/tryon-input.ts';

export interface TryOnOptions {
  quality: Quality;
  preserveBackground: boolean;
  skipResultCache: boolean;
  provider?: ProviderId;
  model?: string;
  promptPreset: PromptPreset;
}

export type Identity =
  | { kind: 'twin'; twinId: string }
  | { kind: 'person'; images: string[] }
  | { kind: 'inline'; request: InlineTwinRequest };

/** A try-on request in normal form: image strings still to fetch. */
export interface TryOnPlan {
  task: 'tryon' | 'shoe-tryon';
  identity: Identity;
  /** Slot -> [packshot, on-model?]. */
  garments: Partial<Record<GarmentSlot, string[]>>;
  /** Shoe try-on: the shoe views with their angles. */
  shoeViews: { url: string; angle?: 'front' | 'side' | 'back' }[];
  product: { image: string; category: ProductCategory } | null;
  options: TryOnOptions;
  webhookUrl?: string;
}

type SlotValue = string | string[];

export interface ClothingRequestBody {
  personImages?: string[];
  digitalTwinId?: string;
  topGarment?: SlotValue;
  bottomGarment?: SlotValue;
  fullBodyGarment?: SlotValue;
  shoes?: SlotValue;
  productImage?: string;
  productCategory?: ProductCategory;
  options?: Partial<TryOnOptions>;
  webhookUrl?: string;
}

export interface VirtualFittingBody extends ClothingRequestBody {
  faceImage?: string;
  photoUrl?: string;
  silhouetteImage?: string;
  bodyMeasurements?: InlineTwinRequest['bodyMeasurements'];
  clothingSize?: InlineTwinRequest['clothingSize'];
  gender?: InlineTwinRequest['gender'];
  poseId?: InlineTwinRequest['poseId'];
}

export interface ShoeRequestBody {
  shoeImages: { url: string; angle?: 'front' | 'side' | 'back' }[];
  personImages?: string[];
  digitalTwinId?: string;
  options?: { quality?: Quality; provider?: ProviderId; model?: string };
  webhookUrl?: string;
}

const BODY_SOURCES = ['photoUrl', 'silhouetteImage', 'bodyMeasurements', 'clothingSize'] as const;
const CLOTHING_SLOTS: GarmentSlot[] = ['topGarment', 'bottomGarment', 'fullBodyGarment'];

function options(o: Partial<TryOnOptions> | undefined): TryOnOptions {
  return {
    quality: o?.quality ?? 'standard',
    preserveBackground: o?.preserveBackground ?? true,
    skipResultCache: o?.skipResultCache ?? false,
    provider: o?.provider,
    model: o?.model,
    promptPreset: o?.promptPreset ?? 'clothing-1',
  };
}

function garmentsOf(body: ClothingRequestBody, details: ErrorDetail[]): TryOnPlan['garments'] {
  const out: TryOnPlan['garments'] = {};
  for (const slot of GARMENT_SLOTS) {
    const v = body[slot];
    if (v !== undefined) out[slot] = typeof v === 'string' ? [v] : [...v];
  }
  const clothing = CLOTHING_SLOTS.filter((s) => out[s]);
  if (body.productImage !== undefined) {
    for (const s of GARMENT_SLOTS.filter((s) => out[s])) details.push({ field: s, message: 'cannot be combined with productImage; send either garment slots or one productImage' });
  } else if (clothing.length === 0) {
    details.push({
      field: '(body)',
      message: out.shoes
        ? 'shoes are an add-on: send at least one clothing slot (topGarment, bottomGarment, fullBodyGarment) or a productImage; shoes alone go to /api/v1/tryon/shoes'
        : 'at least one clothing slot (topGarment, bottomGarment, fullBodyGarment) or a productImage is required',
    });
  }
  if (body.productCategory !== undefined && body.productCategory !== 'auto' && body.productImage === undefined) {
    details.push({ field: 'productCategory', message: 'is a hint for productImage and needs one' });
  }
  return out;
}

/** POST /api/v1/tryon/clothing: personImages or digitalTwinId. */
export function resolveClothingRequest(body: ClothingRequestBody): TryOnPlan {
  const details: ErrorDetail[] = [];
  let identity: Identity | null = null;
  if (body.digitalTwinId !== undefined && body.personImages !== undefined) {
    details.push({ field: 'personImages', message: 'cannot be combined with digitalTwinId; identify the person one way' });
  } else if (body.digitalTwinId !== undefined) identity = { kind: 'twin', twinId: body.digitalTwinId };
  else if (body.personImages !== undefined) identity = { kind: 'person', images: body.personImages };
  else details.push({ field: 'personImages', message: 'is required when digitalTwinId is absent' });
  return clothingPlan(body, identity, details);
}

/** The garments and options shared by the clothing requests, once the identity is resolved. */
function clothingPlan(body: ClothingRequestBody, identity: Identity | null, details: ErrorDetail[]): TryOnPlan {
  const garments = garmentsOf(body, details);
  if (details.length) throw validationError(details);
  return {
    task: 'tryon',
    identity: identity!,
    garments,
    shoeViews: [],
    product: body.productImage !== undefined ? { image: body.productImage, category: body.productCategory ?? 'auto' } : null,
    options: options(body.options),
    webhookUrl: body.webhookUrl,
  };
}

/** POST /api/v1/virtual-fitting: digitalTwinId, faceImage plus one inline body source, or personImages. */
export function resolveVirtualFitting(body: VirtualFittingBody): TryOnPlan {
  const details: ErrorDetail[] = [];
  const sources = BODY_SOURCES.filter((s) => body[s] !== undefined);
  const ways = [body.digitalTwinId !== undefined && 'digitalTwinId', body.faceImage !== undefined && 'faceImage', body.personImages !== undefined && 'personImages'].filter(Boolean) as string[];
  let identity: Identity | null = null;
  if (ways.length > 1) {
    for (const w of ways.slice(1)) details.push({ field: w, message: `cannot be combined with ${ways[0]}; identify the person one way` });
  } else if (ways.length === 0) {
    details.push({
      field: sources.length ? 'faceImage' : '(body)',
      message: sources.length ? `is required with ${sources[0]}` : 'an identity is required: digitalTwinId, faceImage plus one body source, or personImages',
    });
  } else if (ways[0] === 'faceImage') {
    if (sources.length === 0) details.push({ field: 'faceImage', message: `needs exactly one body source: ${BODY_SOURCES.join(', ')}` });
    for (const s of sources.slice(1)) details.push({ field: s, message: `cannot be combined with ${sources[0]}; send exactly one body source` });
    identity = {
      kind: 'inline',
      request: {
        faceImage: body.faceImage!,
        photoUrl: body.photoUrl,
        silhouetteImage: body.silhouetteImage,
        bodyMeasurements: body.bodyMeasurements,
        clothingSize: body.clothingSize,
        gender: body.gender,
        poseId: body.poseId,
      },
    };
  } else {
    for (const s of sources) details.push({ field: s, message: 'is an inline body source and needs faceImage instead of ' + ways[0] });
    identity = ways[0] === 'digitalTwinId' ? { kind: 'twin', twinId: body.digitalTwinId! } : { kind: 'person', images: body.personImages! };
  }
  if (identity?.kind !== 'inline') {
    if (body.gender !== undefined) details.push({ field: 'gender', message: 'applies to an inline body (faceImage plus a body source) only' });
    if (body.poseId !== undefined) details.push({ field: 'poseId', message: 'applies to an inline body (faceImage plus a body source) only' });
  }
  return clothingPlan(body, identity, details);
}

/** POST /api/v1/tryon/shoes. */
export function resolveShoeRequest(body: ShoeRequestBody): TryOnPlan {
  const details: ErrorDetail[] = [];
  let identity: Identity | null = null;
  if (body.digitalTwinId !== undefined && body.personImages !== undefined) details.push({ field: 'personImages', message: 'cannot be combined with digitalTwinId; identify the person one way' });
  else if (body.digitalTwinId !== undefined) identity = { kind: 'twin', twinId: body.digitalTwinId };
  else if (body.personImages !== undefined) identity = { kind: 'person', images: body.personImages };
  else details.push({ field: 'personImages', message: 'is required when digitalTwinId is absent' });
  const angles = body.shoeImages.map((s) => s.angle).filter(Boolean);
  if (new Set(angles).size !== angles.length) details.push({ field: 'shoeImages', message: 'each angle may appear once' });
  if (details.length) throw validationError(details);
  return {
    task: 'shoe-tryon',
    identity: identity!,
    garments: {},
    shoeViews: body.shoeImages,
    product: null,
    options: { ...options(body.options), preserveBackground: true, promptPreset: 'clothing-1' },
    webhookUrl: body.webhookUrl,
  };
}

/** How many reference images a vendor call of this plan sends: the person photo(s) or twin render, then the garment grid, product or shoe views. */
export function referenceCount(plan: TryOnPlan): number {
  const person = plan.identity.kind === 'person' ? plan.identity.images.length : 1;
  return person + (plan.task === 'shoe-tryon' ? plan.shoeViews.length : 1);
}
