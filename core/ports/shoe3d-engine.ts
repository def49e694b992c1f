import type { EncodedImage, RasterImage } from '../images.ts';
import { token } from '../plugin.ts';

/** Packshot diagnostics exactly as the spec records them on shoe-3d jobs. */
export interface PackshotCleanup {
  status: 'applied' | 'noop' | 'unreported' | 'unavailable' | 'failed';
  numComponents?: number;
  areaRatio?: number;
  /** A code, only when `failed`; never provider prose. */
  errorCode?: string;
}

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
 * Shoe3dEngine: the image and GLB work of the shoe-3d pipeline apart from reconstruction (which is
 * the ProductReconstructor port): packshot correction, ghost cleanup, the single-shoe guard, the
 * product-type decision, defensive GLB inspection, validation, compression to a byte budget,
 * texture enhancement and logo refinement, and the preview grid. The builtin adapter is
 * `adapters/builtin/shoe3d/engine.ts`.
 */
export interface Shoe3dEngine {
  correct(image: RasterImage): { image: RasterImage; correction: Record<string, unknown> };
  cleanup(image: RasterImage): { image: RasterImage; cleanup: PackshotCleanup; removed: Record<string, number> };
  guard(image: RasterImage, opts: { deadline?: number; signal?: AbortSignal }): Promise<{ image: RasterImage; singleShoe: PackshotSingleShoe }>;
  classify(images: RasterImage[]): { productType: 'shoe' | 'other'; reason: string; features: Record<string, number> };
  encodePng(image: RasterImage): Promise<EncodedImage>;
  /** Container and JSON checks of an untrusted GLB; throws an error whose `code` is `invalid_glb`. */
  inspectGlb(bytes: Uint8Array, maxBytes: number): { bytes: number; meshes: number; primitives: number; images: number; nodes: number };
  validateGlb(glb: Uint8Array): Promise<{ errors: number; warnings: number; messages: string[] }>;
  compressGlb(glb: Uint8Array, maxBytes: number, signal?: AbortSignal): Promise<{ glb: Uint8Array; bytes: number; withinBudget: boolean; steps: string[] }>;
  enhanceTexture(glb: Uint8Array, views: 4 | 6, signal?: AbortSignal): Promise<{ glb: Uint8Array; texelsChanged: number; views: number }>;
  refineLogos(glb: Uint8Array, views: 4 | 6, signal?: AbortSignal): Promise<{ status: 'applied' | 'none_found' | 'failed'; glb: Uint8Array; regions: number; errorCode?: string }>;
  previewGrid(glb: Uint8Array): Promise<EncodedImage>;
}

export const SHOE3D_ENGINE = token<Shoe3dEngine>('Shoe3dEngine');

/** Stage timeouts (ms) of the generation and texture passes per genaiQuality; spec: 3 and 5 minutes. */
export interface Shoe3dTimeouts {
  default: number;
  high: number;
}

export const DEFAULT_SHOE3D_TIMEOUTS: Shoe3dTimeouts = { default: 3 * 60_000, high: 5 * 60_000 };

/** Optional override of the timeouts (deployments with slow vendors, tests). */
export const SHOE3D_TIMEOUTS = token<Shoe3dTimeouts>('Shoe3dTimeouts');
