/**
 * Try-on submissions: model and quota checks before anything is fetched, the images fetched once
 * through the kernel's safe outbound client (their hashes make the result-cache key), then either
 * a cache hit recorded as a completed job (its webhook enqueued in the same transaction) or the
 * images stashed for a queued try-on job.
 */
import type { FitroomConfig } from '../../core/config.ts';
import type { Caller } from '../../core/credentials.ts';
import { monthlyQuotaOf } from '../../core/credentials.ts';
import { FitroomError, notFound } from '../../core/errors.ts';
import type { FileService } from '../../core/files.ts';
import type { ImageLoader } from '../../core/image-loader.ts';
import type { JobService } from '../../core/jobs.ts';
import type { OperationResult } from '../../core/plugin.ts';
import type { CredentialStore } from '../../core/ports/credential-store.ts';
import type { ImageModelProvider, ModelTask, ProviderId, Quality } from '../../core/ports/image-model.ts';
import type { TwinDirectory } from '../../core/ports/twin-store.ts';
import { twinScope } from '../../core/ports/twin-store.ts';
import { sha256Hex, tryOnCacheKey } from '../../core/tryon/cache-key.ts';
import type { InlineTwins } from '../../core/tryon/inline-twins.ts';
import { checkPinnedModel } from '../../core/tryon/model-chain.ts';
import { DEFAULT_MODEL_CHAIN, modelRegistry, type ModelRegistry } from '../../core/tryon/models.ts';
import type { TryOnStore } from '../../core/tryon/tryon-store.ts';
import type { GarmentSlot } from '../../core/tryon/tryon-input.ts';
import type { Links } from '../../core/links.ts';
import { submissionAnswer } from '../../core/jobs.ts';
import { inlineData } from '../../core/inline-data.ts';
import { referenceCount, type TryOnPlan } from './tryon-request.ts';

/** Job kinds whose submissions count toward the monthly AI quota. */
export const AI_JOB_KINDS = ['tryon', 'generate', 'pose-transfer'] as const;
/** Stashed request images live this long (the job reads them when it runs). */
const STASH_TTL_SECONDS = 24 * 3600;

export interface StashedImage {
  fileId: string;
  contentType: string;
  /** The request field it came from, for error messages. */
  field: string;
}

export interface TryOnJobInput {
  task: 'tryon' | 'shoe-tryon';
  identity: { kind: 'twin'; twinId: string } | { kind: 'person'; images: StashedImage[] } | { kind: 'inline'; twinId: string; handle: unknown };
  garments: Partial<Record<GarmentSlot, StashedImage[]>>;
  shoeViews: { image: StashedImage; angle?: 'front' | 'side' | 'back' }[];
  product: { image: StashedImage; category: string } | null;
  options: TryOnPlan['options'];
  cacheKey: string | null;
  /** Counts toward the monthly AI quota (failed or cancelled jobs do not). */
  aiQuota: boolean;
}

export interface TryOnServiceDeps {
  jobs: JobService;
  files: FileService;
  images: ImageLoader;
  config: FitroomConfig;
  store: TryOnStore;
  credentialStore: CredentialStore;
  providers: () => readonly ImageModelProvider[];
  twins: () => TwinDirectory | null;
  inlineTwins: () => InlineTwins | null;
  estimatedSeconds: number;
}

interface Fetched {
  /** The image's bytes (a held data URL's are decoded when first asked for). */
  bytes: () => Promise<Uint8Array>;
  contentType: string;
  sha256: string;
  field: string;
}

function monthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

export class TryOnService {
  readonly #d: TryOnServiceDeps;
  readonly #registry = modelRegistry;
  constructor(deps: TryOnServiceDeps) {
    this.#d = deps;
  }

  /**
   * Before any outbound request: a pinned model must exist, serve the task and quality and take as
   * many references as the call sends (else INPUT_REFERENCE_LIMIT); otherwise some configured model
   * must be able to run the task at all.
   */
  checkModels(task: ModelTask, quality: Quality, references: number, model?: string, provider?: ProviderId): void {
    const providers = this.#d.providers();
    if (model !== undefined) {
      checkPinnedModel({ model, task, quality, referenceCount: references, provider, registry: this.#registry, providers });
      return;
    }
    const configured = new Set(providers.map((p) => p.id));
    const chain = this.#d.config.ai.modelChain ?? DEFAULT_MODEL_CHAIN;
    const usable = chain
      .map((id) => this.#registry.get(id) ?? providers.flatMap((p) => p.models()).find((m) => m.id === id))
      .some((m) => m && usableTarget(this.#registry, m.id) && configured.has(m.provider) && m.tasks.includes(task) && (!provider || m.provider === provider) && m.maxReferences >= references && m.qualities.includes(quality));
    if (!usable) {
      throw new FitroomError('SERVICE_UNAVAILABLE', `No configured model can run ${task}${provider ? ` on provider ${provider}` : ''} with ${references} reference image${references === 1 ? '' : 's'} on this deployment`);
    }
  }

  /** The monthly AI quota of the caller's key (per account when it has one): 429 when used up. */
  async checkQuota(caller: Caller, now = new Date()): Promise<void> {
    if (!caller.countsAiQuota) return;
    const limit = await monthlyQuotaOf(this.#d.credentialStore, caller, now);
    if (limit === null) return;
    const used = await this.#d.store.aiCallsSince({ accountId: caller.accountId, credentialId: caller.credentialId }, monthStart(now), AI_JOB_KINDS);
    if (used >= limit) throw new FitroomError('QUOTA_EXCEEDED', `The monthly AI quota of ${limit} call${limit === 1 ? '' : 's'} is used up; it renews on the first of next month (UTC)`);
  }

  async #fetch(url: string, field: string): Promise<Fetched> {
    const maxBytes = this.#d.config.fetch.maxBytes;
    // A large data URL held for this request was hashed off the event loop: the cache key needs no
    // bytes, which are decoded only if a miss stores them. The same checks as a fetch's.
    const held = inlineData(url);
    if (held) {
      if (held.size > maxBytes) throw new FitroomError('IMAGE_FETCH_FAILED', `Could not fetch ${field}: too_large: larger than ${maxBytes} bytes`);
      if (!held.contentType.toLowerCase().startsWith('image/')) throw new FitroomError('IMAGE_INVALID', `${field} is not an image (${held.contentType})`);
      return { bytes: async () => (await this.#d.images.fetchBytes(url, field, maxBytes)).bytes, contentType: held.contentType, sha256: held.sha256, field };
    }
    const r = await this.#d.images.fetchBytes(url, field, maxBytes);
    if (!r.contentType.toLowerCase().startsWith('image/')) throw new FitroomError('IMAGE_INVALID', `${field} is not an image (${r.contentType})`);
    return { bytes: async () => r.bytes, contentType: r.contentType, sha256: r.sha256 ?? sha256Hex(r.bytes), field };
  }

  async #stash(f: Fetched, caller: Caller): Promise<StashedImage> {
    const rec = await this.#d.files.store(await f.bytes(), { ownerHash: caller.ownerHash, contentType: f.contentType, ttlSeconds: STASH_TTL_SECONDS, internal: true });
    return { fileId: rec.id, contentType: f.contentType, field: f.field };
  }

  /** Fetches request images and keeps them for the job that reads them (generation, pose transfer). */
  async fetchAndStash(images: { url: string; field: string }[], caller: Caller): Promise<StashedImage[]> {
    const fetched = await Promise.all(images.map((i) => this.#fetch(i.url, i.field)));
    return Promise.all(fetched.map((f) => this.#stash(f, caller)));
  }

  /**
   * The request's images (fetched, or a held data URL's hash), the result-cache key they make with
   * the identity and the options, and the live cache entry under it (its result file in the same
   * lookup), unless the request skips the cache.
   */
  async #images(plan: TryOnPlan, twinId: string | null, caller: Caller) {
    const { options } = plan;
    const id = plan.identity;
    const persons = id.kind === 'person' ? await Promise.all(id.images.map((u, i) => this.#fetch(u, `personImages[${i}]`))) : [];
    const garments: Partial<Record<GarmentSlot, Fetched[]>> = {};
    for (const [slot, urls] of Object.entries(plan.garments) as [GarmentSlot, string[]][]) {
      garments[slot] = await Promise.all(urls.map((u, i) => this.#fetch(u, urls.length > 1 ? `${slot}[${i}]` : slot)));
    }
    const shoeViews = await Promise.all(plan.shoeViews.map(async (v, i) => ({ image: await this.#fetch(v.url, `shoeImages[${i}].url`), angle: v.angle })));
    const product = plan.product ? { image: await this.#fetch(plan.product.image, 'productImage'), category: plan.product.category } : null;

    const cacheKey = options.skipResultCache
      ? null
      : tryOnCacheKey({
          task: plan.task,
          identity: twinId ? `twin:${twinId}` : `person:${persons.map((p) => p.sha256).join(',')}`,
          garments: {
            ...Object.fromEntries(Object.entries(garments).map(([s, list]) => [s, list!.map((f) => f.sha256)])),
            ...(shoeViews.length ? { shoeViews: shoeViews.map((v) => `${v.angle ?? ''}:${v.image.sha256}`) } : {}),
          },
          product: product ? { sha256: product.image.sha256, category: product.category } : null,
          options: { quality: options.quality, preserveBackground: options.preserveBackground, provider: options.provider, model: options.model, promptPreset: options.promptPreset },
        });
    // the entry and its live result file in one lookup
    const hit = cacheKey ? await this.#d.store.getCached(cacheKey, caller.ownerHash, new Date()) : null;
    return { persons, garments, shoeViews, product, cacheKey, hit };
  }

  /** Runs a try-on submission end to end (after request validation). */
  async submit(plan: TryOnPlan, caller: Caller, links: Links): Promise<OperationResult> {
    const { options } = plan;
    const modelTask: ModelTask = plan.task;
    this.checkModels(modelTask, options.quality, referenceCount(plan), options.model, options.provider);
    const id = plan.identity;
    // the quota and the twin are read at once (two lookups, one wait); the quota's refusal comes first
    const twins = id.kind === 'twin' ? this.#d.twins() : null;
    const twinFound = id.kind === 'twin' && twins ? twins.find(id.twinId, twinScope(caller)) : null;
    twinFound?.catch(() => undefined); // awaited below unless the quota refuses first
    // When every image is a data URL, reading them sends nothing out: they, the cache key and the
    // lookup go along with the quota and the twin reads (a hit then waits on one round trip fewer).
    // Their outcome is only taken after those checks, so refusals keep their order.
    const early = id.kind !== 'inline' && planUrls(plan).every((u) => /^data:/i.test(u)) ? this.#images(plan, id.kind === 'twin' ? id.twinId : null, caller) : null;
    early?.catch(() => undefined);
    await this.checkQuota(caller);

    // identity first: an unknown twin is a 404 before anything is fetched
    let twinId: string | null = null;
    let inline: { handle: unknown; cached: boolean } | null = null;
    if (id.kind === 'twin') {
      if (!twinFound || !(await twinFound)) throw notFound('Unknown or expired digital twin');
      twinId = id.twinId;
    } else if (id.kind === 'inline') {
      const inlineTwins = this.#d.inlineTwins();
      if (!inlineTwins) {
        throw new FitroomError('SERVICE_UNAVAILABLE', 'Inline body sources are not available on this deployment: create the twin with POST /api/v1/digital-twin and send its digitalTwinId');
      }
      const identified = await inlineTwins.identify(id.request, caller);
      twinId = identified.digitalTwinId;
      inline = { handle: identified.handle, cached: identified.cached };
    }

    const { persons, garments, shoeViews, product, cacheKey, hit } = await (early ?? this.#images(plan, twinId, caller));
    const digitalTwin = twinId ? { digitalTwinId: twinId } : {};
    if (cacheKey) {
      if (hit) {
        const results = [{ ...this.#d.files.signedUrl(hit.file, links), ...digitalTwin }];
        // recorded as a completed job with its webhook in one transaction; if that fails the request
        // fails (500) before usage is counted
        const job = await this.#d.jobs.recordCompleted({
          kind: 'tryon',
          input: { task: plan.task, cached: true, cacheKey, aiQuota: caller.countsAiQuota, ...digitalTwin },
          caller,
          webhookUrl: plan.webhookUrl,
          links,
          charged: caller.countsKeyUsage,
          outcome: { result: { imageUrl: results[0].url }, results },
        });
        return submissionAnswer(job.id, links, { status: 'completed', estimatedProcessingTime: 0, extra: { results, ...digitalTwin } });
      }
    }

    const stash = (f: Fetched) => this.#stash(f, caller);
    const input: TryOnJobInput = {
      task: plan.task,
      identity:
        id.kind === 'twin'
          ? { kind: 'twin', twinId: twinId! }
          : id.kind === 'inline'
            ? { kind: 'inline', twinId: twinId!, handle: inline!.handle }
            : { kind: 'person', images: await Promise.all(persons.map(stash)) },
      garments: Object.fromEntries(await Promise.all(Object.entries(garments).map(async ([s, list]) => [s, await Promise.all(list!.map(stash))]))),
      shoeViews: await Promise.all(shoeViews.map(async (v) => ({ image: await stash(v.image), angle: v.angle }))),
      product: product ? { image: await stash(product.image), category: product.category } : null,
      options,
      cacheKey,
      aiQuota: caller.countsAiQuota,
    };
    const job = await this.#d.jobs.submit({ kind: 'tryon', input, caller, webhookUrl: plan.webhookUrl, links, charged: caller.countsKeyUsage });
    // inline body data names the twin it creates or reuses at once
    return submissionAnswer(job.id, links, { estimatedProcessingTime: this.#d.estimatedSeconds, extra: inline ? digitalTwin : {} });
  }
}

/** Every image URL of a plan. */
function planUrls(plan: TryOnPlan): string[] {
  return [...(plan.identity.kind === 'person' ? plan.identity.images : []), ...Object.values(plan.garments).flat(), ...plan.shoeViews.map((v) => v.url), ...(plan.product ? [plan.product.image] : [])];
}

/** A chain entry jobs can call: its model (a family's current member) neither retired nor deprecated. */
function usableTarget(registry: ModelRegistry, id: string): boolean {
  const target = registry.target(id);
  return target !== undefined && !registry.retiredReason(target) && !registry.deprecation(target);
}
