import type { EncodedImage, RasterImage } from '../images.ts';
import type { VendorCheck } from './image-model.ts';

export interface ReconstructionView {
  /** Cleaned packshot: RGBA with the background transparent. */
  image: RasterImage;
  /** The same view encoded (PNG), for vendors that take files or data URLs. */
  encoded: EncodedImage;
  /** Azimuth around the vertical axis in degrees when known (0 = side view, toe to the right). */
  angleDeg?: number;
  /** Camera elevation in degrees when known (0 = level, looking down when positive). */
  elevationDeg?: number;
}

export interface ReconstructionRequest {
  views: ReconstructionView[];
  productType: 'shoe' | 'other';
  quality: 'default' | 'high';
  signal: AbortSignal;
  /** Fraction 0..1 of this step done. */
  onProgress?: (fraction: number) => void;
  /** Facts worth recording in the job's trace (assumptions, fallbacks). */
  note?: (message: string) => void;
  /**
   * A task this job already created at the vendor (an earlier attempt, before a restart or retry):
   * the adapter polls it instead of creating another, so the job is billed once.
   */
  resume?: VendorTask;
  /**
   * Called with a new vendor task as soon as the vendor answered its creation, and awaited before
   * the first status read: the job stores it so a retried or restarted attempt resumes it.
   */
  onTask?: (task: VendorTask) => Promise<void>;
}

/** A task running at a vendor on behalf of a job. */
export interface VendorTask {
  /** The vendor's task id. */
  id: string;
  /** ISO time the task was created (the job's time budget for it counts from here). */
  createdAt: string;
}

export interface ReconstructionResult {
  /** A binary glTF 2.0 file with a PBR material. */
  glb: Uint8Array;
  notes: string[];
}

/**
 * ProductReconstructor: product photos to a textured 3D model (image-to-3D). `builtin` carves a
 * visual hull and projects the photos; vendor adapters (meshy, tripo) call their task APIs.
 */
export interface ProductReconstructor {
  readonly id: 'builtin' | 'meshy' | 'tripo';
  /**
   * Model stages (core/ports/model-stage.ts, by name) the job does not run on this reconstructor's
   * models, because it does that work itself or its models do not need it: a vendor whose models come
   * textured from its own texturing pass lists `enhance-texture`. The job records each skipped stage
   * in the trace (`skipped`). Stages marked `required` (validation) always run. Optional; default none.
   */
  readonly skipsStages?: readonly string[];
  /**
   * How long one job may wait for this reconstructor, from the creation of its vendor task: above
   * the vendor's documented task duration. Absent for builtin (the job's stage timeouts apply).
   */
  readonly taskTimeoutMs?: number;
  reconstruct(req: ReconstructionRequest): Promise<ReconstructionResult>;
  /**
   * Stops a vendor task the job no longer wants (the job was cancelled, or gave up on it), where the
   * vendor's API allows it. Resolves false when the vendor offers no way to; never throws.
   */
  cancel?(task: VendorTask, signal: AbortSignal): Promise<boolean>;
  /** Live check of the key (and the pinned model version) for vendor adapters. */
  check?(signal: AbortSignal): Promise<VendorCheck>;
}
