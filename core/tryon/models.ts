import { PROVIDER_IDS } from '../ports/image-model.ts';
import type { ModelSpec, ModelTask, ProviderId, Quality } from '../ports/image-model.ts';

/**
 * The model registry: every image model Fitroom knows, with its provider, how many reference images
 * one call may carry, the tasks and qualities it serves and how a quality maps to vendor parameters.
 * Reference caps come from the vendors' documentation (docs/research/tryon.md, section 3).
 */

const ALL_QUALITIES: readonly Quality[] = ['draft', 'standard', 'high'];
const EDITING_TASKS: readonly ModelTask[] = ['tryon', 'shoe-tryon', 'twin', 'generate', 'pose-transfer', 'enhance'];

/** The Gemini image models share their output sizes (1K, 2K, 4K). */
const GEMINI_IMAGE_PARAMS = byQuality({
  draft: { imageConfig: { imageSize: '1K' } },
  standard: { imageConfig: { imageSize: '2K' } },
  high: { imageConfig: { imageSize: '4K' } },
});

/** FLUX.1 Kontext [pro] and [max] take the same parameters. */
const KONTEXT_PARAMS = byQuality({
  draft: { output_format: 'jpeg', guidance_scale: 3.5 },
  standard: { output_format: 'png', guidance_scale: 3.5 },
  high: { output_format: 'png', guidance_scale: 4 },
});

/** FASHN v1.6 (its own API and fal): speed against quality. */
const FASHN_V16_PARAMS = byQuality({ draft: { mode: 'performance' }, standard: { mode: 'balanced' }, high: { mode: 'quality' } });

/** What dedicated clothing try-on models dress; `auto` is a product image of unknown kind. */
const CLOTHING_SLOTS: readonly string[] = ['topGarment', 'bottomGarment', 'fullBodyGarment', 'auto'];

function byQuality<T>(table: Record<Quality, T>): (quality: Quality) => T {
  return (quality) => table[quality];
}

export const MODEL_CATALOGUE: readonly ModelSpec[] = [
  {
    // Gemini 3.1 Flash Image (GA 2026-05-28, deprecated by Google on 2026-10-06; its preview id was shut
    // down on 2026-06-25): up to 14 images per prompt, output sizes 512, 1K, 2K, 4K (Gemini API image
    // generation guide; Vertex AI model card). Kept so a pinned configuration keeps working until the
    // shutdown; the default chain reaches the flash line through the family entry below.
    id: 'gemini-3.1-flash-image',
    provider: 'gemini',
    maxReferences: 14,
    tasks: EDITING_TASKS,
    qualities: ALL_QUALITIES,
    params: GEMINI_IMAGE_PARAMS,
  },
  {
    // The newest GA Gemini flash image model, whatever its number: a family entry (FAMILIES below)
    // that discovery points at the newest active `gemini-<version>-flash-image` Google lists. Limits and
    // parameters are the flash line's.
    id: 'gemini-flash-image-newest',
    provider: 'gemini',
    maxReferences: 14,
    tasks: EDITING_TASKS,
    qualities: ALL_QUALITIES,
    params: GEMINI_IMAGE_PARAMS,
  },
  {
    // Gemini 3 Pro Image (GA; `gemini-3-pro-image-preview` was shut down on 2026-06-25): up to 14
    // references, output 1K, 2K or 4K.
    id: 'gemini-3-pro-image',
    provider: 'gemini',
    maxReferences: 14,
    tasks: EDITING_TASKS,
    qualities: ALL_QUALITIES,
    params: GEMINI_IMAGE_PARAMS,
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
  // Dedicated try-on models: the person photo (or a twin's render) and one garment photo as they are,
  // no prompt and no garment grid; identity, pose and body are kept and only the garment changes.
  {
    // FASHN Virtual Try-On v1.6 (docs.fashn.ai/api-reference/tryon-v1-6, lifecycle stable): 864x1296,
    // categories tops, bottoms, one-pieces or auto; 5 s / 8 s / 12-17 s by mode; 1 credit an image.
    id: 'tryon-v1.6',
    provider: 'fashn',
    kind: 'tryon',
    maxReferences: 2,
    slots: CLOTHING_SLOTS,
    tasks: ['tryon'],
    qualities: ALL_QUALITIES,
    params: FASHN_V16_PARAMS,
    priceHint: '1 FASHN credit an image',
  },
  {
    // FASHN Try-On Max (docs.fashn.ai/api-reference/tryon-max, lifecycle experimental): clothing, shoes,
    // hats, jewellery, bags; about 50 s, up to 4K; 4 credits an image.
    id: 'tryon-max',
    provider: 'fashn',
    kind: 'tryon',
    maxReferences: 2,
    slots: [...CLOTHING_SLOTS, 'shoes'],
    tasks: ['tryon', 'shoe-tryon'],
    qualities: ALL_QUALITIES,
    params: byQuality({
      draft: { generation_mode: 'balanced', resolution: '1k' },
      standard: { generation_mode: 'balanced', resolution: '2k' },
      high: { generation_mode: 'quality', resolution: '4k' },
    }),
    priceHint: '4 FASHN credits an image',
  },
  {
    // Google Vertex AI Virtual Try-On (GA 2026-01; model-reference/virtual-try-on-api): synchronous
    // predict, one product image, output the size of the person image, 10 MB an image, 50 requests a
    // minute a project. `baseSteps` defaults to 32.
    id: 'virtual-try-on-001',
    provider: 'vertex',
    kind: 'tryon',
    maxReferences: 2,
    slots: CLOTHING_SLOTS,
    tasks: ['tryon'],
    qualities: ALL_QUALITIES,
    params: byQuality({ draft: { baseSteps: 16 }, standard: { baseSteps: 32 }, high: { baseSteps: 48 } }),
    maxImageBytes: 10 * 1024 * 1024,
    priceHint: 'Vertex AI Imagen pricing (no per-call price published for try-on)',
  },
  {
    // FASHN v1.6 on fal (fal.ai/models/fal-ai/fashn/tryon/v1.6/llms.txt): the same inputs as FASHN's API.
    id: 'fal-ai/fashn/tryon/v1.6',
    provider: 'fal',
    kind: 'tryon',
    maxReferences: 2,
    slots: CLOTHING_SLOTS,
    tasks: ['tryon'],
    qualities: ALL_QUALITIES,
    params: FASHN_V16_PARAMS,
    priceHint: '$0.075 an image (fal)',
  },
  {
    // Kling Kolors Virtual Try-On v1.5 on fal (llms.txt): human_image_url and garment_image_url only.
    id: 'fal-ai/kling/v1-5/kolors-virtual-try-on',
    provider: 'fal',
    kind: 'tryon',
    maxReferences: 2,
    slots: CLOTHING_SLOTS,
    tasks: ['tryon'],
    qualities: ALL_QUALITIES,
    params: () => ({}),
    maxImageBytes: 10 * 1024 * 1024,
    priceHint: '$0.07 an image (fal)',
  },
  {
    // An open try-on model in a Cog container on the merchant's own GPU (FITROOM_COG_URL); the input
    // field names come from FITROOM_COG_INPUTS (default: FASHN VTON v1.5's, which has no `auto`).
    id: 'cog-tryon',
    provider: 'cog',
    kind: 'tryon',
    maxReferences: 2,
    slots: ['topGarment', 'bottomGarment', 'fullBodyGarment'],
    tasks: ['tryon'],
    qualities: ALL_QUALITIES,
    params: () => ({}),
    priceHint: 'your own GPU',
  },
  {
    // A try-on model hosted on Replicate (REPLICATE_MODEL), with the same input mapping as Cog.
    id: 'replicate-tryon',
    provider: 'replicate',
    kind: 'tryon',
    maxReferences: 2,
    slots: ['topGarment', 'bottomGarment', 'fullBodyGarment'],
    tasks: ['tryon'],
    qualities: ALL_QUALITIES,
    params: () => ({}),
    priceHint: "Replicate's per-second GPU price of the configured model",
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
 * Dedicated try-on models, first in the default chain: they serve try-on on person photos and twins
 * when the call carries the garment photos and its garments fit their slots (image-edit models and the
 * builtin engine take the rest). The merchant's own GPU first (no data leaves their network), then
 * FASHN v1.6 (fast, 1 credit), Vertex, the same FASHN model on fal, Kling Kolors, a Replicate-hosted
 * model, and Try-On Max last (slow and 4 credits, but the one that also dresses shoes).
 */
export const DEDICATED_TRYON_CHAIN: readonly string[] = [
  'cog-tryon',
  'tryon-v1.6',
  'virtual-try-on-001',
  'fal-ai/fashn/tryon/v1.6',
  'fal-ai/kling/v1-5/kolors-virtual-try-on',
  'replicate-tryon',
  'tryon-max',
];

/**
 * The default fallback chain: the vendors first (best quality), the builtin engine last so a deployment
 * without credentials still answers. Models that cannot serve a call (task, slots, missing credentials)
 * are skipped by the chain runner.
 */
export const DEFAULT_MODEL_CHAIN: readonly string[] = [
  // dedicated try-on models first; then GA image-edit models: the flash line comes through its family
  // entry, which discovery points at the successor of the deprecated gemini-3.1-flash-image
  ...DEDICATED_TRYON_CHAIN,
  'gemini-3-pro-image',
  'gemini-flash-image-newest',
  'fal-ai/bytedance/seedream/v4/edit',
  'fal-ai/flux-pro/kontext',
  'builtin-warp',
];

/**
 * The catalogue's family entries: the pattern (`*` is a version number) and the id called before
 * discovery has read the vendor's list.
 */
export const MODEL_FAMILIES: readonly { id: string; follow: string; fallback: string }[] = [
  { id: 'gemini-flash-image-newest', follow: 'gemini-*-flash-image', fallback: 'gemini-3.1-flash-image' },
];

/** A model entry from configuration (FITROOM_MODELS): a new or changed model without a release. */
export interface ConfiguredModel {
  id: string;
  provider?: ProviderId;
  /** Copy the provider, limits, tasks and parameters of this known model, then apply the rest. */
  like?: string;
  maxReferences?: number;
  tasks?: ModelTask[];
  qualities?: Quality[];
  /** Vendor parameters per quality (`{draft, standard, high}`), or one object for every quality. */
  params?: Partial<Record<Quality, Record<string, unknown>>> | Record<string, unknown>;
  /** Take the model out of every chain (the vendor retired it). */
  retired?: boolean;
  /**
   * Follow a model family instead of a pinned id: `*` stands for a version number (digits and dots),
   * e.g. `gemini-*-flash-image`. Each discovery run points this entry at the newest model of the
   * family that the vendor lists as active and not preview; until one has run, at `fallback`.
   */
  follow?: string;
  /** The id a family entry calls before discovery has run (default: `like` when it fits the family). */
  fallback?: string;
  /** `tryon` for a dedicated try-on model, with the garment `slots` it dresses. */
  kind?: 'image-edit' | 'tryon';
  slots?: string[];
}

/** A vendor's notice that a model is ending, as discovery read it. */
export interface Deprecation {
  provider: string;
  successor?: string;
}

/** A family entry and the id it currently calls. */
export interface FamilyState {
  id: string;
  follow: string;
  /** The id calls go to; undefined while the family has no known member. */
  target: string | undefined;
  /** `discovery` once the vendor's list chose it, else `fallback`. */
  source: 'discovery' | 'fallback';
}

/** A lookup of model specs by id; plugins may add the models their own providers serve. */
export class ModelRegistry {
  readonly #specs = new Map<string, ModelSpec>();
  readonly #retired = new Map<string, string>();
  readonly #onRetire: ((id: string, reason: string) => void)[] = [];
  readonly #deprecated = new Map<string, Deprecation>();
  readonly #families = new Map<string, FamilyState>();

  constructor(specs: readonly ModelSpec[] = MODEL_CATALOGUE, families: readonly { id: string; follow: string; fallback?: string }[] = specs === MODEL_CATALOGUE ? MODEL_FAMILIES : []) {
    for (const spec of specs) this.add(spec);
    for (const f of families) this.follow(f.id, f.follow, f.fallback);
  }

  add(spec: ModelSpec): void {
    if (this.#specs.has(spec.id)) throw new TypeError(`model ${spec.id} is registered twice`);
    this.set(spec);
  }

  /** Adds or replaces a model. */
  set(spec: ModelSpec): void {
    if (!spec.id) throw new TypeError('a model needs an id');
    if (!Number.isInteger(spec.maxReferences) || spec.maxReferences < 0) {
      throw new TypeError(`model ${spec.id}: maxReferences must be a non-negative integer`);
    }
    this.#specs.set(spec.id, spec);
  }

  /**
   * Applies configured models over the catalogue: new ids are added (`like` copies a known model),
   * known ids are changed field by field, `retired: true` takes one out of the chains.
   */
  configure(entries: readonly ConfiguredModel[]): void {
    for (const e of entries) {
      if (!e || typeof e.id !== 'string' || e.id === '') throw new TypeError('every configured model needs an "id"');
      const base = this.#specs.get(e.like ?? e.id);
      if (e.like && !base) throw new TypeError(`model ${e.id}: "like" names an unknown model ${e.like}`);
      const provider = e.provider ?? base?.provider;
      if (!provider || !(PROVIDERS as readonly string[]).includes(provider)) throw new TypeError(`model ${e.id}: "provider" must be one of ${PROVIDERS.join(', ')}`);
      const maxReferences = e.maxReferences ?? base?.maxReferences;
      if (maxReferences === undefined) throw new TypeError(`model ${e.id}: "maxReferences" is required for a new model (or "like" a known one)`);
      const tasks = e.tasks ?? base?.tasks ?? EDITING_TASKS;
      const bad = tasks.filter((t) => !(EDITING_TASKS as readonly string[]).includes(t));
      if (bad.length) throw new TypeError(`model ${e.id}: unknown task(s) ${bad.join(', ')}`);
      const qualities = e.qualities ?? base?.qualities ?? ALL_QUALITIES;
      let params = base?.params ?? (() => ({}));
      if (e.params) {
        const p = e.params as Record<string, unknown>;
        const perQuality = ALL_QUALITIES.some((q) => q in p);
        params = perQuality ? (q) => ({ ...((p[q] as Record<string, unknown> | undefined) ?? {}) }) : () => ({ ...p });
      }
      const kind = e.kind ?? base?.kind;
      const slots = e.slots ?? base?.slots;
      if (kind === 'tryon' && !slots?.length) throw new TypeError(`model ${e.id}: a dedicated try-on model needs "slots"`);
      const extra = { ...(kind ? { kind } : {}), ...(slots ? { slots } : {}), ...(base?.maxImageBytes ? { maxImageBytes: base.maxImageBytes } : {}), ...(base?.priceHint ? { priceHint: base.priceHint } : {}) };
      this.set({ id: e.id, provider, maxReferences, tasks, qualities, params, ...extra });
      if (e.retired) this.retire(e.id, 'retired in configuration');
      if (e.follow !== undefined) {
        const fallback = e.fallback ?? (e.like && familyMatch(e.follow, e.like) ? e.like : undefined);
        this.follow(e.id, e.follow, fallback);
      }
    }
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

  /**
   * Takes a model out of every chain of this process: the vendor answered that it does not exist or
   * was retired. Listeners hear of it once (the composition root logs it loudly).
   */
  retire(id: string, reason: string): void {
    if (this.#retired.has(id)) return;
    this.#retired.set(id, reason);
    for (const fn of this.#onRetire) fn(id, reason);
  }

  retiredReason(id: string): string | undefined {
    return this.#retired.get(id);
  }

  retired(): { id: string; reason: string }[] {
    return [...this.#retired].map(([id, reason]) => ({ id, reason }));
  }

  onRetire(fn: (id: string, reason: string) => void): void {
    this.#onRetire.push(fn);
  }

  /** Marks a model deprecated by its vendor (discovery); the chain passes it over. `null` lifts it. */
  deprecate(id: string, notice: Deprecation | null): void {
    if (notice) this.#deprecated.set(id, notice);
    else this.#deprecated.delete(id);
  }

  deprecation(id: string): Deprecation | undefined {
    return this.#deprecated.get(id);
  }

  deprecated(): ({ id: string } & Deprecation)[] {
    return [...this.#deprecated].map(([id, d]) => ({ id, ...d }));
  }

  /** Makes `id` a family entry: calls go to the family's newest active model (see `resolveFamily`). */
  follow(id: string, pattern: string, fallback?: string): void {
    if (!this.#specs.has(id)) throw new TypeError(`model ${id}: a family entry needs a catalogue entry (provider, limits)`);
    familyRegExp(pattern);
    if (fallback !== undefined && !familyMatch(pattern, fallback)) throw new TypeError(`model ${id}: fallback ${fallback} is not of the family ${pattern}`);
    this.#families.set(id, { id, follow: pattern, target: fallback, source: 'fallback' });
  }

  families(): FamilyState[] {
    return [...this.#families.values()].map((f) => ({ ...f }));
  }

  /**
   * Points a family entry at the newest member of `listed` (the vendor's models): active, not preview,
   * matching the pattern, highest version number. The chosen id joins the registry with the family
   * entry's limits and parameters, so adapters find them. Nothing listed keeps the current target.
   */
  resolveFamily(id: string, listed: readonly { id: string; state: 'active' | 'deprecated'; preview?: boolean }[]): string | undefined {
    const family = this.#families.get(id);
    if (!family) return undefined;
    const newest = newestOfFamily(family.follow, listed.filter((m) => m.state === 'active' && !m.preview && !this.#retired.has(m.id)).map((m) => m.id));
    if (newest === undefined) return family.target;
    family.target = newest;
    family.source = 'discovery';
    if (!this.#specs.has(newest)) this.set({ ...this.#specs.get(id)!, id: newest });
    return newest;
  }

  /** The id a call to this entry goes to: a family's current member, else the id itself. */
  target(id: string): string | undefined {
    const family = this.#families.get(id);
    return family ? family.target : id;
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

const PROVIDERS: readonly ProviderId[] = PROVIDER_IDS;

/** A family pattern as a regular expression: `*` is a version number, the rest is literal. */
function familyRegExp(pattern: string): RegExp {
  const parts = pattern.split('*');
  if (parts.length !== 2) throw new TypeError(`family "${pattern}" must have exactly one "*" (the version number)`);
  const lit = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${lit(parts[0])}(\\d+(?:\\.\\d+)*)${lit(parts[1])}$`);
}

function familyMatch(pattern: string, id: string): boolean {
  return familyRegExp(pattern).test(id);
}

/** The id of the family with the highest version number (compared part by part: 3.10 > 3.9 > 3). */
export function newestOfFamily(pattern: string, ids: readonly string[]): string | undefined {
  const re = familyRegExp(pattern);
  let best: { id: string; version: number[] } | undefined;
  for (const id of ids) {
    const m = re.exec(id);
    if (!m) continue;
    const version = m[1].split('.').map(Number);
    if (!best || compareVersions(version, best.version) > 0) best = { id, version };
  }
  return best?.id;
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The process's registry: the catalogue plus what FITROOM_MODELS configures at start, and the models
 * found retired while running. Adapters, the chain and the try-on service read it.
 */
export const modelRegistry = new ModelRegistry();

/** The registry's models of one provider (what a vendor adapter reports from `models()`). */
export function modelsForProvider(provider: ProviderId): readonly ModelSpec[] {
  return modelRegistry.forProvider(provider);
}

/**
 * Parses a configured chain: model ids separated by commas, spaces or newlines (e.g.
 * FITROOM_MODEL_CHAIN="gemini-3.1-flash-image, builtin-warp"). Empty or absent means the default.
 */
export function parseModelChain(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const ids = value.split(/[\s,]+/).filter((s) => s.length > 0);
  return ids.length > 0 ? ids : undefined;
}
