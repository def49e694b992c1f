/** Bounds for one outbound request. */
export interface FetchLimits {
  maxBytes?: number;
  timeoutMs?: number;
  /** Accepted media types (prefix match, e.g. `image/`); others fail with `unsupported_type`. */
  accept?: string[];
  signal?: AbortSignal;
  /** Validators of a copy the caller knows: sent as If-None-Match / If-Modified-Since; a 304 answers `notModified`. */
  validators?: Validators;
}

export interface Validators {
  etag?: string;
  lastModified?: string;
}

/**
 * What the origin's headers say about reusing this response (RFC 9111, as a shared cache that never
 * guesses a lifetime): how long it stays fresh and its validators. Absent after a redirect, whose own
 * lifetime is not known.
 */
export interface ResponseCaching extends Validators {
  /** false: `no-store` or `private`, not to be kept. */
  storable: boolean;
  /** Milliseconds the response stays fresh from now (0: revalidate before each reuse). */
  freshForMs: number;
}

export interface FetchedResource {
  bytes: Uint8Array;
  contentType: string;
  finalUrl: string;
  /** Lowercase hex SHA-256 of `bytes` when the fetcher already has it (a data URL decoded off the event loop). */
  sha256?: string;
  /** true: the origin answered 304 to `validators` (no bytes: the caller's copy is current). */
  notModified?: boolean;
  caching?: ResponseCaching;
}

export type OutboundFailure = 'invalid_url' | 'blocked_address' | 'unsupported_scheme' | 'too_many_redirects' | 'too_large' | 'timeout' | 'http_status' | 'network' | 'unsupported_type';

export class OutboundError extends Error {
  readonly reason: OutboundFailure;
  readonly status: number | undefined;
  constructor(reason: OutboundFailure, message: string, status?: number) {
    super(message);
    this.name = 'OutboundError';
    this.reason = reason;
    this.status = status;
  }
}

/**
 * OutboundHttp: requests to user-supplied URLs (images, GLBs, webhooks, shop pages). Only http(s)
 * (and data: URLs for fetches); the address actually connected to must be public unless inside the
 * configured private networks; checked at connect time and on every redirect; bounded in bytes and time.
 */
export interface OutboundHttp {
  fetch(url: string, limits?: FetchLimits): Promise<FetchedResource>;
  /** POST a body (webhooks). Resolves with the status; network errors and blocked targets throw OutboundError. */
  post(url: string, body: string, headers: Record<string, string>, limits?: { timeoutMs?: number }): Promise<{ status: number }>;
}
