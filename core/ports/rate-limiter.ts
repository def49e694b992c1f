export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch seconds when the window resets. */
  resetAt: number;
}

/** RateLimiter: fixed-window counters shared by every process (postgres adapter). */
export interface RateLimiter {
  /** A decision the limiter can take at once comes back as it is (no promise): every request asks. */
  consume(key: string, limit: number, windowSeconds: number): RateDecision | Promise<RateDecision>;
}
