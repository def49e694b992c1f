/**
 * The content hashes of image URLs, kept as long as their origin lets a shared cache reuse the
 * response (RFC 9111 freshness, capped at a few minutes): a result-cache hit for product image URLs
 * then sends nothing to their origin while the response is fresh, and one conditional request
 * (answered 304, no body) once it is stale. Only hashes are kept, never bytes: a miss fetches the
 * images again and keys the result on what it fetched.
 */
import type { ResponseCaching } from '../ports/outbound-http.ts';

export interface KnownImage {
  sha256: string;
  contentType: string;
  size: number;
  etag?: string;
  lastModified?: string;
  /** Epoch ms until which the hash is reused without asking the origin. */
  freshUntil: number;
}

/** Longest reuse without asking the origin, whatever its max-age (a shop may replace an image in place). */
export const URL_HASH_MAX_FRESH_MS = 5 * 60_000;

export class UrlHashes {
  readonly #entries = new Map<string, KnownImage>();
  readonly #maxEntries: number;
  readonly #maxFreshMs: number;
  constructor(opts: { maxEntries?: number; maxFreshMs?: number } = {}) {
    this.#maxEntries = opts.maxEntries ?? 5000;
    this.#maxFreshMs = opts.maxFreshMs ?? URL_HASH_MAX_FRESH_MS;
  }

  /** The URL's entry, fresh or stale (its validators make a conditional request). */
  get(url: string): KnownImage | undefined {
    const e = this.#entries.get(url);
    if (e) {
      // least recently used first out
      this.#entries.delete(url);
      this.#entries.set(url, e);
    }
    return e;
  }

  /** The URL's entry when it may be reused at `now` without asking its origin. */
  fresh(url: string, now = Date.now()): KnownImage | undefined {
    const e = this.#entries.get(url);
    return e && e.freshUntil > now ? this.get(url) : undefined;
  }

  /**
   * Records a full response's hash under its caching headers: kept when the origin allows it and it
   * is either fresh for a while or has a validator; otherwise any older entry is dropped.
   */
  remember(url: string, image: Omit<KnownImage, 'freshUntil' | 'etag' | 'lastModified'>, caching: ResponseCaching | undefined, now = Date.now()): void {
    this.#entries.delete(url);
    if (!caching?.storable || (caching.freshForMs === 0 && !caching.etag && !caching.lastModified)) return;
    this.#set(url, { ...image, etag: caching.etag, lastModified: caching.lastModified, freshUntil: now + Math.min(caching.freshForMs, this.#maxFreshMs) });
  }

  /**
   * The origin answered 304 to the entry's validators: its hash is current. The entry takes the
   * 304's freshness and any new validators (RFC 9111 4.3.4), or is dropped if the 304 forbids keeping it.
   * Returns the entry as it was confirmed.
   */
  revalidated(url: string, known: KnownImage, caching: ResponseCaching | undefined, now = Date.now()): KnownImage {
    this.#entries.delete(url);
    if (caching?.storable === false) return known;
    const renewed: KnownImage = {
      ...known,
      etag: caching?.etag ?? known.etag,
      lastModified: caching?.lastModified ?? known.lastModified,
      freshUntil: now + Math.min(caching?.freshForMs ?? 0, this.#maxFreshMs),
    };
    this.#set(url, renewed);
    return renewed;
  }

  #set(url: string, e: KnownImage): void {
    this.#entries.set(url, e);
    if (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
  }
}
