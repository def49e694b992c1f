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
  reconstruct(req: ReconstructionRequest): Promise<ReconstructionResult>;
  /** Live check of the key (and the pinned model version) for vendor adapters. */
  check?(signal: AbortSignal): Promise<VendorCheck>;
}
