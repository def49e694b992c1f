import type { RasterImage } from '../images.ts';
import { token } from '../plugin.ts';

/** The single-shoe guard of one packshot exactly as the spec records it on shoe-3d jobs. */
export interface PackshotSingleShoe {
  status: 'single' | 'regenerated' | 'multiple_after_retries' | 'unavailable';
  /** 1-3. */
  attempts: number;
  count?: number;
  errorCode?: string;
  stopReason?: 'regeneration_failed' | 'deadline' | 'sync_path';
  regeneratedFromCount?: number;
}

/**
 * SingleShoeGuard: counts shoes in a cleaned packshot and, with two or more, regenerates it up to
 * twice (until `deadline`, epoch ms). The job records `unavailable` when the guard throws and goes
 * on with the image. The builtin adapter isolates the most complete shoe
 * (`adapters/builtin/shoe3d/packshot-ports.ts`).
 */
export interface SingleShoeGuard {
  guard(image: RasterImage, opts: { deadline?: number; signal?: AbortSignal }): Promise<{ image: RasterImage; singleShoe: PackshotSingleShoe }>;
}

export const SINGLE_SHOE_GUARD = token<SingleShoeGuard>('SingleShoeGuard');
