import { createHash } from 'node:crypto';

/** Everything that decides a try-on result; two requests with equal parts get the same image. */
export interface TryOnCacheParts {
  task: string;
  /** `twin:<id>` or `person:<sha256>,...` */
  identity: string;
  /** Slot name -> SHA-256 of each image, in order (packshot, on-model). */
  garments: Record<string, string[]>;
  product: { sha256: string; category: string } | null;
  /** Options that change the output: quality, preserveBackground, provider, model, promptPreset. */
  options: Record<string, unknown>;
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v as object)
        .sort()
        .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/** Lowercase hex SHA-256 of the parts' canonical JSON (sorted keys, undefined left out). */
export function tryOnCacheKey(parts: TryOnCacheParts): string {
  return createHash('sha256').update(JSON.stringify(canonical(parts))).digest('hex');
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
