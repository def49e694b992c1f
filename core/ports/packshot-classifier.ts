import type { RasterImage } from '../images.ts';
import { token } from '../plugin.ts';

/** How much a photo looks like a packshot: one product on a plain backdrop, not a lifestyle photo. */
export interface PackshotAssessment {
  /** 0..1; 0.5 and above counts as a packshot. */
  score: number;
  packshot: boolean;
  /** Plain words for what lowered the score ("busy background", "2 objects", "cut off by the frame"). */
  reasons: string[];
  features: {
    /** Share of the border that fits one smooth backdrop (plain studio background: close to 1). */
    plainBorder: number;
    /** Noise of the backdrop in 8-bit levels (texture, a room, a street: high). */
    backdropNoise: number;
    /** Share of the frame the product covers. */
    productShare: number;
    /** Significant separate objects. */
    objects: number;
    /** Whether the largest object touches the frame. */
    touchesFrame: boolean;
  };
}

/**
 * PackshotClassifier: tells packshots (what shoe-3d reconstructs well) from lifestyle photos, worn
 * shots and collages. The builtin adapter is classical (`adapters/builtin/shoe3d/packshot-classifier.ts`).
 */
export interface PackshotClassifier {
  /** Seconds of pixel work for a large image: adapters run it off the HTTP event loop; `signal` stops it. */
  assess(image: RasterImage, signal?: AbortSignal): Promise<PackshotAssessment>;
}

export const PACKSHOT_CLASSIFIER = token<PackshotClassifier>('PackshotClassifier');
