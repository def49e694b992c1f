import type { RateDecision, RateLimiter } from '../../core/ports/rate-limiter.ts';
import type { MonitoringStore } from '../../core/ports/monitoring-store.ts';

/**
 * Counts the refusals of a rate limiter per category (the key's prefix) and minute, and writes them
 * to the monitoring store every few seconds, so every process's refusals show in one place. A
 * refusal storm costs one upsert per category and minute per flush, not one per refused request.
 */
export class RefusalRecorder {
  readonly #store: MonitoringStore;
  readonly #pending = new Map<string, { category: string; minute: Date; count: number }>();
  readonly #flushMs: number;
  #timer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> = Promise.resolve();
  /** Called for each refusal (the in-process Prometheus counter). */
  onRefusal: ((category: string) => void) | null = null;

  constructor(store: MonitoringStore, flushMs = 5000) {
    this.#store = store;
    this.#flushMs = flushMs;
  }

  /** A rate limiter that behaves like `inner` and records its refusals. */
  wrap(inner: RateLimiter): RateLimiter {
    const seen = (key: string, d: RateDecision) => {
      if (!d.allowed) this.record(key.slice(0, Math.max(0, key.indexOf(':'))) || 'other');
      return d;
    };
    return {
      consume: (key: string, limit: number, windowSeconds: number) => {
        const d = inner.consume(key, limit, windowSeconds);
        return d instanceof Promise ? d.then((v) => seen(key, v)) : seen(key, d);
      },
    };
  }

  record(category: string, at = new Date()): void {
    const minute = new Date(Math.floor(at.getTime() / 60_000) * 60_000);
    const id = `${category}|${minute.getTime()}`;
    const e = this.#pending.get(id);
    if (e) e.count++;
    else this.#pending.set(id, { category, minute, count: 1 });
    this.onRefusal?.(category);
    this.#schedule();
  }

  #schedule() {
    if (this.#timer) return;
    this.#timer = setTimeout(() => void this.flush(), this.#flushMs);
    this.#timer.unref();
  }

  /** Writes what was counted; on failure the counts are kept for the next flush. */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#flushing = this.#flushing.then(async () => {
      const items = [...this.#pending.values()];
      this.#pending.clear();
      try {
        await this.#store.recordRefusals(items);
      } catch {
        for (const i of items) {
          const id = `${i.category}|${i.minute.getTime()}`;
          const e = this.#pending.get(id);
          if (e) e.count += i.count;
          else this.#pending.set(id, i);
        }
        this.#schedule();
      }
    });
    return this.#flushing;
  }
}
