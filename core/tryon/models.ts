import type { ModelSpec, ModelTask, ProviderId, Quality } from '../ports/image-model.ts';

/**
 * The model registry: every image model Fitroom knows, with its provider, how many reference images
 * one call may carry, the tasks and qualities it serves and how a quality maps to vendor parameters.
 * Reference caps come from the vendors' documentation (docs/research/tryon.md, section 3).
 */

const ALL_QUALITIES: readonly Quality[] = ['draft', 'standard', 'high'];
const EDITING_TASKS: readonly ModelTask[] = ['tryon', 'shoe-tryon', 'twin', 'generate', 'pose-transfer', 'enhance'];

/** FLUX.1 Kontext [pro] and [max] take the same parameters. */
const KONTEXT_PARAMS = byQuality({
  draft: { output_format: 'jpeg', guidance_scale: 3.5 },
  standard: { output_format: 'png', guidance_scale: 3.5 },
  high: { output_format: 'png', guidance_scale: 4 },
});

function byQuality<T>(table: Record<Quality, T>): (quality: Quality) => T {
  return (quality) => table[quality];
}

export const MODEL_CATALOGUE: readonly ModelSpec[] = [
  {
    // Nano Banana: Google says it works best with up to 3 input images (a soft limit we enforce as the cap).
    // Output is fixed at about 1024 px, so quality has no parameter to change.
    id: 'gemini-2.5-flash-image',
    provider: 'gemini',
    maxReferences: 3,
    tasks: EDITING_TASKS,
    qualities: ALL_QUALITIES,
    params: () => ({}),
  },
  {
    // Gemini 3 Pro Image takes up to 14 references and an output size of 1K, 2K or 4K.
    id: 'gemini-3-pro-image-preview',
    provider: 'gemini',
    maxReferences: 14,
    tasks: EDITING_TASKS,
    qualities: ALL_QUALITIES,
    params: byQuality({
      draft: { imageConfig: { imageSize: '1K' } },
      standard: { imageConfig: { imageSize: '2K' } },
      high: { imageConfig: { imageSize: '4K' } },
    }),
  },
  {
    // Seedream 4.0 edit on fal: up to 10 input images (inputs + outputs <= 15). `auto*` sizes keep the
    // aspect ratio of the first input.
    id: 'fal-ai/bytedance/seedream/v4/edit',
    provider: 'fal',
    maxReferences: 10,
    tasks: EDITING_TASKS,
    qualities: ALL_QUALITIES,
    params: byQuality({
      draft: { image_size: 'auto', enhance_prompt_mode: 'fast' },
      standard: { image_size: 'auto_2K', enhance_prompt_mode: 'standard' },
      high: { image_size: 'auto_4K', enhance_prompt_mode: 'standard' },
    }),
  },
  {
    // FLUX.1 Kontext [pro] takes exactly one context image (about 1 MP out).
    id: 'fal-ai/flux-pro/kontext',
    provider: 'fal',
    maxReferences: 1,
    tasks: EDITING_TASKS,
    qualities: ALL_QUALITIES,
    params: KONTEXT_PARAMS,
  },
  {
    id: 'fal-ai/flux-pro/kontext/max',
    provider: 'fal',
    maxReferences: 1,
    tasks: EDITING_TASKS,
    qualities: ALL_QUALITIES,
    params: KONTEXT_PARAMS,
  },
  {
    // The classical CPU engine: geometric garment warping onto a body render. Generous slots: every
    // garment slot plus on-model references fit. `longSide` is the output's longer edge in pixels.
    id: 'builtin-warp',
    provider: 'builtin',
    maxReferences: 16,
    tasks: ['tryon', 'shoe-tryon'],
    qualities: ALL_QUALITIES,
    params: byQuality({
      draft: { longSide: 768 },
      standard: { longSide: 1024 },
      high: { longSide: 1536 },
    }),
  },
];

/**
 * The default fallback chain: the vendors first (best quality), the builtin engine last so a deployment
 * without credentials still answers. Models that cannot serve a call (task, slots, missing credentials)
 * are skipped by the chain runner.
 */
export const DEFAULT_MODEL_CHAIN: readonly string[] = [
  'gemini-2.5-flash-image',
  'fal-ai/bytedance/seedream/v4/edit',
  'gemini-3-pro-image-preview',
  'fal-ai/flux-pro/kontext',
  'builtin-warp',
];

/** A lookup of model specs by id; plugins may add the models their own providers serve. */
export class ModelRegistry {
  readonly #specs = new Map<string, ModelSpec>();

  constructor(specs: readonly ModelSpec[] = MODEL_CATALOGUE) {
    for (const spec of specs) this.add(spec);
  }

  add(spec: ModelSpec): void {
    if (!spec.id) throw new TypeError('a model needs an id');
    if (!Number.isInteger(spec.maxReferences) || spec.maxReferences < 0) {
      throw new TypeError(`model ${spec.id}: maxReferences must be a non-negative integer`);
    }
    if (this.#specs.has(spec.id)) throw new TypeError(`model ${spec.id} is registered twice`);
    this.#specs.set(spec.id, spec);
  }

  get(id: string): ModelSpec | undefined {
    return this.#specs.get(id);
  }

  all(): ModelSpec[] {
    return [...this.#specs.values()];
  }

  forProvider(provider: ProviderId): ModelSpec[] {
    return this.all().filter((m) => m.provider === provider);
  }

  /** The configured chain as specs; an unknown id is a configuration error raised at start. */
  resolveChain(ids: readonly string[] = DEFAULT_MODEL_CHAIN): ModelSpec[] {
    const unknown = ids.filter((id) => !this.#specs.has(id));
    if (unknown.length > 0) {
      throw new TypeError(`unknown model id(s) in the model chain: ${unknown.join(', ')} (known: ${[...this.#specs.keys()].join(', ')})`);
    }
    return [...new Set(ids)].map((id) => this.#specs.get(id)!);
  }
}

const defaultRegistry = new ModelRegistry();

/** The catalogue's models of one provider (what a vendor adapter reports from `models()`). */
export function modelsForProvider(provider: ProviderId): readonly ModelSpec[] {
  return defaultRegistry.forProvider(provider);
}

/**
 * Parses a configured chain: model ids separated by commas, spaces or newlines (e.g.
 * FITROOM_MODEL_CHAIN="gemini-2.5-flash-image, builtin-warp"). Empty or absent means the default.
 */
export function parseModelChain(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const ids = value.split(/[\s,]+/).filter((s) => s.length > 0);
  return ids.length > 0 ? ids : undefined;
}
