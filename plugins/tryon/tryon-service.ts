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
import { UrlHashes, type KnownImage } from '../../core/tryon/url-hashes.ts';
import type { FetchedResource } from '../../core/ports/outbound-http.ts';
import { cpuTask, type CpuPool } from '../../core/ports/cpu-pool.ts';
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
  /** The hashes of image URLs the result cache may reuse (one per process). */
  urlHashes?: UrlHashes;
  /** Hashes large fetched images off the event loop; without it they are hashed in place. */
  pool?: CpuPool;
}

const hashTask = cpuTask<{ bytes: Uint8Array }, { sha256: string; bytes: Uint8Array }>(new URL('./tasks.ts', import.meta.url), 'hashBytes');
/** Below this a hash costs well under a millisecond: not worth a thread hop. */
const HASH_IN_PLACE_BYTES = 256 * 1024;

interface Fetched {
  /** The image's bytes (a held data URL's are decoded when first asked for). */
  bytes: () => Promise<Uint8Array>;
  contentType: string;
  sha256: string;
  field: string;
  /**
   * false: the hash is a URL's known hash (fresh, or confirmed by a 304), not of bytes fetched now;
   * a miss fetches the images again before it stashes anything, so the key and the bytes agree.
   */
  verified: boolean;
}

/** How a request's image URLs are read: fetched; their known hashes reused (asking the origin when stale); or only the hashes of a snapshot (nothing sent out). */
type Reuse = 'fetch' | 'known' | Map<string, KnownImage>;

function monthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

export class TryOnService {
  readonly #d: TryOnServiceDeps;
  readonly #registry = modelRegistry;
  readonly #urlHashes: UrlHashes;
  constructor(deps: TryOnServiceDeps) {
    this.#d = deps;
    this.#urlHashes = deps.urlHashes ?? new UrlHashes();
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
      return { bytes: async () => (await this.#d.images.fetchBytes(url, field, maxBytes)).bytes, contentType: held.contentType, sha256: held.sha256, field, verified: true };
    }
    return await this.#fetched(url, field, await this.#d.images.fetchBytes(url, field, maxBytes));
  }

  /** A full response: its hash, remembered for the URL under the response's caching headers. */
  async #fetched(url: string, field: string, r: FetchedResource): Promise<Fetched> {
    if (!r.contentType.toLowerCase().startsWith('image/')) throw new FitroomError('IMAGE_INVALID', `${field} is not an image (${r.contentType})`);
    let bytes = r.bytes;
    let sha256 = r.sha256;
    if (!sha256) {
      const pool = this.#d.pool;
      // moved to the thread and back when the bytes own their buffer (a copy of 25 MB is tens of ms)
      const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
      if (pool && bytes.length > HASH_IN_PLACE_BYTES) ({ sha256, bytes } = await pool.run(hashTask, { bytes }, whole ? { transfer: [bytes.buffer as ArrayBuffer] } : {}));
      else sha256 = sha256Hex(bytes);
    }
    if (/^https?:/i.test(url)) this.#urlHashes.remember(url, { sha256, contentType: r.contentType, size: bytes.length }, r.caching);
    return { bytes: async () => bytes, contentType: r.contentType, sha256, field, verified: true };
  }

  /**
   * An image whose known hash may serve the cache key: a URL fresh in `reuse`'s snapshot or in the
   * URL hashes; a stale one with a validator is asked about with a conditional request (a 304 keeps
   * its hash, anything else is fetched in full). Otherwise fetched as usual.
   */
  async #image(url: string, field: string, reuse: Reuse): Promise<Fetched> {
    if (reuse === 'fetch' || !/^https?:/i.test(url)) return this.#fetch(url, field);
    let known = reuse instanceof Map ? reuse.get(url) : this.#urlHashes.fresh(url);
    if (!known && reuse === 'known') {
      const stale = this.#urlHashes.get(url);
      if (stale && (stale.etag || stale.lastModified)) {
        const r = await this.#d.images.fetchBytes(url, field, this.#d.config.fetch.maxBytes, undefined, { etag: stale.etag, lastModified: stale.lastModified });
        if (!r.notModified) return this.#fetched(url, field, r);
        known = this.#urlHashes.revalidated(url, stale, r.caching);
      }
    }
    if (!known) return this.#fetch(url, field);
    if (!known.contentType.toLowerCase().startsWith('image/')) throw new FitroomError('IMAGE_INVALID', `${field} is not an image (${known.contentType})`);
    return { bytes: async () => (await this.#fetch(url, field)).bytes(), contentType: known.contentType, sha256: known.sha256, field, verified: false };
  }

  /** Every http(s) URL of the plan with a hash fresh now, or null if one has none (then reading them would send requests out). */
  #freshSnapshot(plan: TryOnPlan): Map<string, KnownImage> | null {
    const now = Date.now();
    // a fitting that skips the cache fetches its URLs
    if (plan.options.skipResultCache && !planUrls(plan).every((u) => /^data:/i.test(u))) return null;
    const snapshot = new Map<string, KnownImage>();
    for (const u of planUrls(plan)) {
      if (/^data:/i.test(u)) continue;
      const known = /^https?:/i.test(u) ? this.#urlHashes.fresh(u, now) : undefined;
      if (!known) return null;
      snapshot.set(u, known);
    }
    return snapshot;
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
   * The request's images (fetched, a held data URL's hash, or a URL's known hash per `reuse`), the
   * result-cache key they make with the identity and the options, and the live cache entry under it
   * (its result file in the same lookup), unless the request skips the cache. `refetch`: a miss
   * keyed on known URL hashes, whose images must now be fetched (and keyed again); `fetched` are the
   * images already read from their bytes, which a refetch takes as they are.
   */
  async #images(plan: TryOnPlan, twinId: string | null, caller: Caller, reuse: Reuse, fetched?: Map<string, Fetched>) {
    const { options } = plan;
    const id = plan.identity;
    const byField = new Map<string, Fetched>();
    const read = (u: string, field: string) => {
      const had = fetched?.get(`${field} ${u}`);
      // a fitting that skips the cache needs the bytes anyway
      return had?.verified ? Promise.resolve(had) : this.#image(u, field, options.skipResultCache ? 'fetch' : reuse).then((f) => (byField.set(`${field} ${u}`, f), f));
    };
    // all at once; a failure is reported in the request's order (persons, slots, shoe views, product)
    const slotList = Object.entries(plan.garments) as [GarmentSlot, string[]][];
    const reads = [
      ...(id.kind === 'person' ? id.images.map((u, i) => read(u, `personImages[${i}]`)) : []),
      ...slotList.flatMap(([slot, urls]) => urls.map((u, i) => read(u, urls.length > 1 ? `${slot}[${i}]` : slot))),
      ...plan.shoeViews.map((v, i) => read(v.url, `shoeImages[${i}].url`)),
      ...(plan.product ? [read(plan.product.image, 'productImage')] : []),
    ];
    const settled = await Promise.allSettled(reads);
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    const all = settled.map((r) => (r as PromiseFulfilledResult<Fetched>).value);
    const next = (n: number) => all.splice(0, n);
    const persons = next(id.kind === 'person' ? id.images.length : 0);
    const garments: Partial<Record<GarmentSlot, Fetched[]>> = Object.fromEntries(slotList.map(([slot, urls]) => [slot, next(urls.length)]));
    const shoeViews = next(plan.shoeViews.length).map((image, i) => ({ image, angle: plan.shoeViews[i].angle }));
    const product = plan.product ? { image: next(1)[0], category: plan.product.category } : null;

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
    const verified = settled.every((r) => (r as PromiseFulfilledResult<Fetched>).value.verified);
    return { persons, garments, shoeViews, product, cacheKey, hit, refetch: !hit && !verified, fetched: byField };
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
    // When every image is a data URL or a URL with a fresh known hash, reading them sends nothing out:
    // they, the cache key and the lookup go along with the quota and the twin reads (a hit then waits
    // on one round trip fewer). Their outcome is only taken after those checks, so refusals keep their order.
    const snapshot = id.kind !== 'inline' ? this.#freshSnapshot(plan) : null;
    const early = snapshot ? this.#images(plan, id.kind === 'twin' ? id.twinId : null, caller, snapshot) : null;
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

    let images = await (early ?? this.#images(plan, twinId, caller, 'known'));
    // a miss on known URL hashes: the images are fetched now, and the key made from what came
    if (images.refetch) images = await this.#images(plan, twinId, caller, 'fetch', images.fetched);
    const { persons, garments, shoeViews, product, cacheKey, hit } = images;
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
