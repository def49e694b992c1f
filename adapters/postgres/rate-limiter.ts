import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Pool } from './db.ts';
import type { RateDecision, RateLimiter } from '../../core/ports/rate-limiter.ts';

/** How long a decision waits for the shared count before it falls back to this process's own. */
const DB_DECISION_TIMEOUT_MS = 1000;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('rate-limit store did not answer')), ms)))]).finally(() => clearTimeout(timer));
}

interface WindowState {
  /** Points the database had counted at the last sync (all processes). */
  consumed: number;
  /** Points this process granted since, not yet written. */
  pending: number;
  /** Points being written right now. */
  inFlight: number;
  resetAt: number;
  /** When this process last read the shared count. */
  syncedAt: number;
}

/**
 * Fixed-window counters in PostgreSQL (rate-limiter-flexible), shared by every API process.
 * A request is an atomic upsert when this process's view of the shared count is older than
 * `flushMs` (100 ms); in between, requests are granted against that count plus this process's own
 * pending points. Pending points are written back within half the interval, and the write answers
 * the shared count, so under steady traffic the view stays fresh and no request waits for the
 * database. Decisions for one key that need the database are serialized in the process (and with
 * the write-backs), so one process is exact under any concurrency; with several processes, a key can
 * overshoot by what the other processes granted within one interval (100 ms).
 */
export class PostgresRateLimiter implements RateLimiter {
  private readonly pool: Pool;
  private readonly flushMs: number;
  private readonly limiters = new Map<string, RateLimiterPostgres>();
  private readonly windows = new Map<string, WindowState & { limiter: RateLimiterPostgres }>();
  private timer: NodeJS.Timeout | null = null;
  private readonly locks = new Map<string, Promise<void>>();
  /** Keys with a database decision queued or running: local decisions wait behind it (it replaces the window). */
  private readonly deciding = new Map<string, number>();
  private flushing: Promise<void> | null = null;

  constructor(pool: Pool, opts: { flushMs?: number } = {}) {
    this.pool = pool;
    this.flushMs = opts.flushMs ?? 100;
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

  /**
   * Decisions for one key are taken one at a time in this process, so a request never decides on a
   * count that another request of this process is about to change (exact within one process).
   */
  consume(key: string, limit: number, windowSeconds: number): RateDecision | Promise<RateDecision> {
    const id = `${limit}/${windowSeconds}:${key}`;
    // The common case needs no queue: no database decision of this key is pending and its shared
    // count is fresh, so the decision is taken now, in this turn, exactly as a queued one would be.
    // A write-back in flight does not stop it: its points stay counted (inFlight) until the
    // database's answer, which counts them, replaces them.
    if (!this.deciding.has(id)) {
      const local = this.decideLocally(id, limit, Date.now());
      if (local) return local;
    }
    this.deciding.set(id, (this.deciding.get(id) ?? 0) + 1);
    return this.serial(id, () => this.decide(id, key, limit, windowSeconds)).finally(() => {
      const n = this.deciding.get(id)! - 1;
      if (n > 0) this.deciding.set(id, n);
      else this.deciding.delete(id);
    });
  }

  private serial<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.locks.get(id) ?? Promise.resolve()).then(fn);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.locks.set(id, tail);
    void tail.then(() => {
      if (this.locks.get(id) === tail) this.locks.delete(id);
    });
    return run;
  }

  /** A decision on this process's view of the shared count while that view is fresh, or null. */
  private decideLocally(id: string, limit: number, now: number): RateDecision | null {
    const w = this.windows.get(id);
    if (!w || now >= w.resetAt || now - w.syncedAt >= this.flushMs) return null;
    const used = w.consumed + w.inFlight + w.pending;
    if (used >= limit) return { allowed: false, limit, remaining: 0, resetAt: Math.ceil(w.resetAt / 1000) };
    w.pending++;
    this.scheduleFlush();
    return { allowed: true, limit, remaining: limit - used - 1, resetAt: Math.ceil(w.resetAt / 1000) };
  }

  private async decide(id: string, key: string, limit: number, windowSeconds: number): Promise<RateDecision> {
    const now = Date.now();
    const local = this.decideLocally(id, limit, now);
    if (local) return local;
    const w = this.windows.get(id);
    // First request of a window, or the shared count is older than one flush interval: write this
    // request together with the points granted since, and read the count all processes share.
    const carried = w && now < w.resetAt ? w.pending : 0;
    if (w) w.pending = 0;
    const limiter = w?.limiter ?? this.limiter(limit, windowSeconds);
    const state = (consumed: number, ms: number) => ({ limiter, consumed, pending: 0, inFlight: 0, resetAt: now + ms, syncedAt: now });
    try {
      const res = await withTimeout(limiter.consume(key, 1 + carried), DB_DECISION_TIMEOUT_MS);
      this.windows.set(id, state(res.consumedPoints, res.msBeforeNext));
      return { allowed: true, limit, remaining: res.remainingPoints, resetAt: Math.ceil((now + res.msBeforeNext) / 1000) };
    } catch (e) {
      if (e instanceof RateLimiterRes) {
        this.windows.set(id, state(e.consumedPoints, e.msBeforeNext));
        return { allowed: false, limit, remaining: 0, resetAt: Math.ceil((now + e.msBeforeNext) / 1000) };
      }
      // The database is slow or gone: decide on this process's own count (an insurance limiter, as
      // rate-limiter-flexible recommends) and write the points back once it answers again.
      const local = w && now < w.resetAt ? w : { ...state(0, windowSeconds * 1000), pending: 0 };
      const used = local.consumed + local.inFlight + carried;
      const allowed = used < limit;
      this.windows.set(id, { ...local, pending: carried + (allowed ? 1 : 0), syncedAt: now });
      if (carried || allowed) this.scheduleFlush();
      return { allowed, limit, remaining: allowed ? limit - used - 1 : 0, resetAt: Math.ceil(local.resetAt / 1000) };
    }
  }

  /** Within half the interval: the write-back's answer refreshes the view before it goes stale. */
  private scheduleFlush() {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flushing = this.flush().finally(() => (this.flushing = null));
    }, this.flushMs / 2);
    this.timer.unref();
  }

  /** Writes pending points and refreshes the shared counts (each key in turn with its decisions). */
  async flush(): Promise<void> {
    for (const id of [...this.windows.keys()]) {
      await this.serial(id, async () => {
        const w = this.windows.get(id);
        if (!w) return;
        if (Date.now() >= w.resetAt) {
          // Points granted in a window that has ended no longer matter.
          this.windows.delete(id);
          return;
        }
        if (w.pending === 0) return;
        const points = w.pending;
        w.pending = 0;
        w.inFlight += points;
        const key = id.slice(id.indexOf(':') + 1);
        try {
          const res = await withTimeout(w.limiter.penalty(key, points), DB_DECISION_TIMEOUT_MS);
          w.consumed = Math.max(w.consumed, res.consumedPoints);
          w.syncedAt = Date.now();
        } catch (e) {
          w.pending += points;
          console.error('[rate-limit] write-back failed (kept for the next one):', (e as Error).message);
          this.scheduleFlush();
        } finally {
          w.inFlight -= points;
        }
      });
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.flushing) await this.flushing;
    await this.flush();
  }

  /** Deletes expired counters (the library's own timer is off: a cron task calls this). */
  async purge() {
    await this.pool.query('delete from rate_limits where expire < $1', [Date.now() - 60_000]);
  }
}
