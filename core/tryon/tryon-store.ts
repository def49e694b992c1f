/**
 * TryOnStore: the try-on result cache and the monthly AI-call count behind the quota.
 *
 * A cached result is keyed by the SHA-256 of everything that decides the output (identity,
 * garment bytes, product image and category, output-affecting options) and scoped to the
 * credential that made it; it lives as long as its result file. Bound in the standalone
 * connector's adapters (PostgreSQL, migration 020).
 */
import type { FileRecord } from '../files.ts';
import { token } from '../plugin.ts';

export interface CachedTryOnResult {
  key: string;
  ownerHash: string;
  /** The result file (PNG). */
  fileId: string;
  /** The twin the result was drawn on, when there was one. */
  digitalTwinId: string | null;
  createdAt: Date;
  /** When the result file expires; the entry is unusable from then on. */
  expiresAt: Date;
}

/** Who a monthly AI quota belongs to: the account when the credential has one, else the credential. */
export interface QuotaSubject {
  accountId: string | null;
  credentialId: string;
}

/** A cache entry with its result file, both live. */
export interface CachedTryOnHit {
  entry: CachedTryOnResult;
  file: FileRecord;
}

export interface TryOnStore {
  /**
   * A live cache entry of this owner with its result file (not expired), or null: one lookup, as a
   * cache hit is answered at once.
   */
  getCached(key: string, ownerHash: string, now: Date): Promise<CachedTryOnHit | null>;
  /** Records (or replaces) a cache entry. */
  putCached(entry: CachedTryOnResult): Promise<void>;
  /** Deletes entries whose file has expired; returns how many. */
  purgeExpired(now: Date, limit: number): Promise<number>;
  /**
   * AI calls charged to a quota subject since a moment: try-on, generation and pose-transfer jobs
   * (cache hits included) that count toward the AI quota and did not fail or get cancelled.
   */
  aiCallsSince(subject: QuotaSubject, since: Date, kinds: readonly string[]): Promise<number>;
}

export const TRYON_STORE = token<TryOnStore>('TryOnStore');
