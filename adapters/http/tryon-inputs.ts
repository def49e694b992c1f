import type { EncodedImage } from '../../core/images.ts';
import { ProviderError } from '../../core/ports/image-model.ts';
import type { GarmentReference, ModelCall } from '../../core/ports/image-model.ts';

/**
 * What every dedicated try-on adapter (fashn, vertex, fal's try-on endpoints, cog) reads from a call:
 * the person image (the photo, or a twin's render) and the one garment photo, as the request sent them.
 * The chain only hands such a model calls it can take; a call without them is a retryable failure so
 * the chain moves on rather than the job failing.
 */
export function tryOnInputs(provider: string, call: ModelCall): { person: EncodedImage; garment: GarmentReference } {
  const person = call.references.find((r) => r.role === 'person')?.image;
  const garment = call.garments?.[0];
  if (!person || !garment) throw new ProviderError(provider, `${call.model} needs a person image and a garment photo`, { retryable: true });
  if (call.garments!.length > 1) throw new ProviderError(provider, `${call.model} dresses one garment a call; this call has ${call.garments!.length}`, { retryable: true });
  return { person, garment };
}

/** FASHN's garment categories (its API, fal's FASHN endpoint and FASHN VTON v1.5) by Fitroom slot. */
export const FASHN_CATEGORY: Readonly<Record<string, string>> = {
  topGarment: 'tops',
  bottomGarment: 'bottoms',
  fullBodyGarment: 'one-pieces',
  auto: 'auto',
};

/**
 * The garment photo to send and its FASHN `garment_photo_type`: the on-model reference when the request
 * has one (`model`), else the packshot (`flat-lay`, which covers ghost mannequin shots too).
 */
export function fashnGarment(garment: GarmentReference): { image: EncodedImage; photoType: 'model' | 'flat-lay' } {
  return garment.onModel ? { image: garment.onModel, photoType: 'model' } : { image: garment.image, photoType: 'flat-lay' };
}

/** A base64 data URI (`data:image/png;base64,...`) decoded, or undefined when it is not one. */
export function fromDataUri(uri: string): EncodedImage | undefined {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(uri);
  if (!m) return undefined;
  return { bytes: new Uint8Array(Buffer.from(m[2], 'base64')), contentType: m[1] };
}
