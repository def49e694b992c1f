import type { EncodedImage } from '../images.ts';

/** Provider identifiers accepted by `options.provider`. */
export type ProviderId = 'builtin' | 'gemini' | 'fal' | 'fashn' | 'vertex' | 'cog' | 'replicate';
export const PROVIDER_IDS: readonly ProviderId[] = ['builtin', 'gemini', 'fal', 'fashn', 'vertex', 'cog', 'replicate'];

export type Quality = 'draft' | 'standard' | 'high';

/** What a model is asked to do; vendors get a prompt, the builtin engines get structured inputs. */
export type ModelTask = 'tryon' | 'shoe-tryon' | 'twin' | 'generate' | 'pose-transfer' | 'enhance';

export interface ModelReference {
  /** person, garment-grid, product, face, silhouette, pose, input, view */
  role: string;
  image: EncodedImage;
}

/**
 * One garment photo as the request sent it, for dedicated try-on models (which take the person and
 * the garment in their own fields, not a prompt and the garment grid). `slot` is the request's slot
 * (topGarment, bottomGarment, fullBodyGarment, shoes) or `auto` for a product image of unknown kind.
 */
export interface GarmentReference {
  slot: string;
  /** The packshot (flat-lay, ghost mannequin or product shot). */
  image: EncodedImage;
  /** The same garment worn by a model, when the request gave one. */
  onModel?: EncodedImage;
}

/** One entry of the model registry. */
export interface ModelSpec {
  id: string;
  provider: ProviderId;
  /** Most reference images one call may carry. */
  maxReferences: number;
  tasks: readonly ModelTask[];
  qualities: readonly Quality[];
  /** Vendor parameters for a quality (resolution, steps, ...). */
  params(quality: Quality): Record<string, unknown>;
  /**
   * `tryon`: a dedicated try-on model. It takes the person reference and `ModelCall.garments` in its
   * own fields (no prompt, no grid), one garment per call, and serves only calls whose garments all
   * fall in `slots`. Absent: an image-edit model driven by the prompt and the references.
   */
  kind?: 'image-edit' | 'tryon';
  /** Garment slots a dedicated try-on model dresses (`auto`: a product image of unknown kind). */
  slots?: readonly string[];
  /** Largest input image the vendor accepts, in bytes; a call with a larger one skips the model. */
  maxImageBytes?: number;
  /** The price per call as the vendor publishes it (for operators; nothing is billed from it). */
  priceHint?: string;
}

export interface ModelCall {
  task: ModelTask;
  model: string;
  prompt: string;
  /** The reference images a vendor model receives, in this order. */
  references: ModelReference[];
  quality: Quality;
  signal: AbortSignal;
  /** Structured inputs for engines that work geometrically (builtin); vendors ignore it. */
  structured?: unknown;
  /** The garment photos as sent, for dedicated try-on models; image-edit models use the references. */
  garments?: GarmentReference[];
  /** Facts about this attempt for the job's trace (the builtin engine's quality checks); the chain sets it. */
  report?: (facts: Record<string, unknown>) => void;
}

/**
 * ImageModelProvider: one AI backend that edits or generates images (try-on, twins, generation,
 * texture enhancement). Vendor adapters speak their documented HTTP API; `builtin` runs classical
 * engines on the CPU. Throws ProviderError (retryable decides whether the chain falls back).
 */
export interface ImageModelProvider {
  readonly id: ProviderId;
  models(): readonly ModelSpec[];
  run(call: ModelCall): Promise<EncodedImage[]>;
  /** Live check of the key and of these model ids (vendor adapters; builtin engines have none). */
  check?(modelIds: readonly string[], signal: AbortSignal): Promise<VendorCheck>;
}

/**
 * What a failure says beyond retrying: `PROVIDER_ACCOUNT` the deployment's key or credits (no retry
 * helps until an operator acts; the chain moves on to other providers), `MODEL_UNAVAILABLE` the model
 * does not exist or was retired (a configuration error: the model leaves the chain),
 * `RESULT_UNRELIABLE` the engine checked its own result and refused it (the chain moves on; when no
 * later model succeeds, the job fails with this code and the engine's reason).
 */
export type ProviderErrorCode = 'PROVIDER_ACCOUNT' | 'MODEL_UNAVAILABLE' | 'RESULT_UNRELIABLE';

/** A failure of a provider call; `retryable` failures let the chain fall back to the next model. */
export class ProviderError extends Error {
  readonly provider: string;
  readonly retryable: boolean;
  readonly status: number | undefined;
  /** Becomes the job's errorCode when the failure ends a job. */
  readonly code: ProviderErrorCode | undefined;
  constructor(provider: string, message: string, opts: { retryable: boolean; status?: number; cause?: unknown; code?: ProviderErrorCode }) {
    super(`${provider}: ${message}`, { cause: opts.cause });
    this.name = 'ProviderError';
    this.provider = provider;
    this.retryable = opts.retryable;
    this.status = opts.status;
    this.code = opts.code;
  }
}

/** A vendor's answer to the live check: does the key work, do the configured models exist. */
export interface VendorCheck {
  provider: string;
  /** `ok`: key accepted and every model found; `unreachable`: no answer (offline); else what failed. */
  status: 'ok' | 'account_refused' | 'model_missing' | 'unreachable' | 'error';
  message?: string;
  /** `unverified`: the vendor has no model list to confirm it (Meshy, Tripo: the first task will say). */
  models?: { id: string; available: boolean; detail?: string; unverified?: boolean }[];
  /** Account facts the vendor reports (credits). */
  balance?: number;
}
