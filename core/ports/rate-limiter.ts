export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch seconds when the window resets. */
  resetAt: number;
}

/** RateLimiter: fixed-window counters shared by every process (postgres adapter). */
export interface RateLimiter {
  consume(key: string, limit: number, windowSeconds: number): Promise<RateDecision>;
}
