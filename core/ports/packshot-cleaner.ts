import type { RasterImage } from '../images.ts';
import { token } from '../plugin.ts';

/** The cleanup of one packshot exactly as the spec records it on shoe-3d jobs ("Packshot diagnostics"). */
export interface PackshotCleanup {
  status: 'applied' | 'noop' | 'unreported' | 'unavailable' | 'failed';
  numComponents?: number;
  areaRatio?: number;
  /** A code, only when `failed`; never provider prose. */
  errorCode?: string;
}

/**
 * PackshotCleaner: background, shadow and ghost cleanup of one packshot, with the spec's record of
 * it. A cleanup that errs returns `failed` (with a code) and the photo as it was: the job goes on
 * with the raw packshot. Without a cleaner bound the job records `unavailable`. The builtin adapter
 * is classical (`adapters/builtin/shoe3d/packshot-ports.ts`).
 */
export interface PackshotCleaner {
  clean(image: RasterImage): Promise<{ image: RasterImage; cleanup: PackshotCleanup }>;
}

export const PACKSHOT_CLEANER = token<PackshotCleaner>('PackshotCleaner');
