import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Pool } from './db.ts';
import type { RateDecision, RateLimiter } from '../../core/ports/rate-limiter.ts';

/**
 * Fixed-window counters in PostgreSQL (rate-limiter-flexible), shared by every API process.
 * Each consume is one atomic upsert.
 */
export class PostgresRateLimiter implements RateLimiter {
  private readonly pool: Pool;
  private readonly limiters = new Map<string, RateLimiterPostgres>();
  constructor(pool: Pool) {
    this.pool = pool;
  }

  private limiter(limit: number, windowSeconds: number) {
    const id = `${limit}/${windowSeconds}`;
    let l = this.limiters.get(id);
    if (!l) {
      l = new RateLimiterPostgres({ storeClient: this.pool, storeType: 'pool', tableName: 'rate_limits', tableCreated: true, clearExpiredByTimeout: false, points: limit, duration: windowSeconds, keyPrefix: `rl${id}` } as never);
      this.limiters.set(id, l);
    }
    return l;
  }

  async consume(key: string, limit: number, windowSeconds: number): Promise<RateDecision> {
    try {
      const res = await this.limiter(limit, windowSeconds).consume(key, 1);
      return { allowed: true, limit, remaining: res.remainingPoints, resetAt: Math.ceil((Date.now() + res.msBeforeNext) / 1000) };
    } catch (e) {
      if (e instanceof RateLimiterRes) return { allowed: false, limit, remaining: 0, resetAt: Math.ceil((Date.now() + e.msBeforeNext) / 1000) };
      throw e;
    }
  }

  /** Deletes expired counters (the library's own timer is off: a cron task calls this). */
  async purge() {
    await this.pool.query('delete from rate_limits where expire < $1', [Date.now() - 60_000]);
  }
}
