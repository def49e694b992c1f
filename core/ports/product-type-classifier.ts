import type { RasterImage } from '../images.ts';
import { token } from '../plugin.ts';

export interface ProductTypeDecision {
  productType: 'shoe' | 'other';
  /** Why, in a sentence, for the trace. */
  reason: string;
  features: Record<string, number>;
}

/**
 * ProductTypeClassifier: `productType: auto`, decided from the cleaned packshots (a shoe or another
 * product such as a bag). The builtin adapter reads the silhouettes (`adapters/builtin/shoe3d/packshot-ports.ts`).
 */
export interface ProductTypeClassifier {
  classify(images: RasterImage[]): ProductTypeDecision;
}

export const PRODUCT_TYPE_CLASSIFIER = token<ProductTypeClassifier>('ProductTypeClassifier');
