import type { BodyProfile } from '../twins/body.ts';
import type { EstimatedBodyProfile } from './estimated-profile.ts';
import type { SizeFittingProduct } from './size-chart.ts';
import { evaluateProducts } from './size-fitting.ts';
import type { ProductFit } from './size-fitting.ts';

/** Body of a 200 answer to POST /api/v1/size-fitting (see SIZE_FITTING_RESPONSE_SCHEMA). */
export interface SizeFittingResponse {
  success: true;
  available: boolean;
  digitalTwinId: string;
  reason?: string;
  products?: ProductFit[];
}

export const UNAVAILABLE_REASON = 'Size fitting needs a twin created from bodyMeasurements or clothingSize; this twin has no body profile.';

/** Evaluates the products for a twin's profile; a twin without one (photo or direct mode) answers available: false. */
export function sizeFittingResponse(
  digitalTwinId: string,
  profile: BodyProfile | EstimatedBodyProfile | null,
  products: readonly SizeFittingProduct[],
): SizeFittingResponse {
  if (!profile) return { success: true, available: false, digitalTwinId, reason: UNAVAILABLE_REASON };
  return { success: true, available: true, digitalTwinId, products: evaluateProducts(profile, products) };
}
