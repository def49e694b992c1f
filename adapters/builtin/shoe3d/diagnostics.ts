/** Packshot diagnostics as the spec records them on shoe-3d jobs ("Packshot diagnostics"). */

export type PackshotCleanupStatus = 'applied' | 'noop' | 'unreported' | 'unavailable' | 'failed';

export interface PackshotCleanup {
  status: PackshotCleanupStatus;
  numComponents?: number;
  areaRatio?: number;
  /** A code (HTTP-style or server-error code), only when `failed`; never prose. */
  errorCode?: string;
}

export type PackshotSingleShoeStatus = 'single' | 'regenerated' | 'multiple_after_retries' | 'unavailable';
export type SingleShoeStopReason = 'regeneration_failed' | 'deadline' | 'sync_path';

export interface PackshotSingleShoe {
  status: PackshotSingleShoeStatus;
  /** 1-3: the first check plus up to two regenerations. */
  attempts: number;
  count?: number;
  errorCode?: string;
  stopReason?: SingleShoeStopReason;
  regeneratedFromCount?: number;
}
