import type { RasterImage } from '../images.ts';
import { token } from '../plugin.ts';

/**
 * PackshotCorrector: `options.correctImage`, run on each photo before cleanup: white balance and
 * exposure, straightening, centring. `correction` says what was done (for the trace). The builtin
 * adapter is classical (`adapters/builtin/shoe3d/packshot-ports.ts`).
 */
export interface PackshotCorrector {
  correct(image: RasterImage): { image: RasterImage; correction: Record<string, unknown> };
}

export const PACKSHOT_CORRECTOR = token<PackshotCorrector>('PackshotCorrector');
