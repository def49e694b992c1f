import pg from 'pg';

type Handler = (payload: string) => void;

/**
 * One dedicated connection per process for LISTEN/NOTIFY (job cancellations, cache invalidation).
 * When the connection drops it reconnects with backoff (250 ms doubling to 10 s) and calls the reset
 * handlers when it is lost and again once it listens: caches that rely on notifications must forget
 * everything, since notifications sent meanwhile are lost (and a read that straddled the gap is stale).
 */
export class PgListener {
  private readonly url: string;
  private readonly connectTimeoutMs: number;
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly resetHandlers = new Set<() => void>();
  private client: pg.Client | null = null;
  private stopped = false;
  private connecting: Promise<void> | null = null;
  private failures = 0;
  private retryPending = false;
  private lostAt: number | null = null;
  private listening: Promise<unknown> = Promise.resolve();

  /** `connectTimeoutMs`: a server that accepts the connection and never answers is retried, not waited on. */
  constructor(connectionString: string, opts: { connectTimeoutMs?: number } = {}) {
    this.url = connectionString;
    this.connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
  }

  /** Subscribes to a channel; returns an unsubscribe function. */
  async on(channel: string, handler: Handler): Promise<() => void> {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`Invalid channel ${channel}`);
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      // Not reachable right now: the retry listens to every registered channel once connected.
      await this.ensure().catch((e: Error) => this.scheduleRetry(e));
      // one query at a time on this connection: pg queues overlapping calls, a use it deprecates
      const client = this.client;
      if (client) await (this.listening = this.listening.then(() => client.query(`listen ${channel}`)).catch(() => undefined));
    }
    set.add(handler);
    return () => void set.delete(handler);
  }

  onReset(fn: () => void): () => void {
    this.resetHandlers.add(fn);
    return () => void this.resetHandlers.delete(fn);
  }

  /** Whether notifications are currently being received (caches may only serve while true). */
  get live(): boolean {
    return this.client !== null;
  }

  private ensure(): Promise<void> {
    if (this.client || this.stopped) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => (this.connecting = null));
    return this.connecting;
  }

  private async connect(): Promise<void> {
    // keepAlive: a peer that vanishes without closing (partition, frozen host) is noticed, not waited on forever
    const client = new pg.Client({ connectionString: this.url, keepAlive: true, connectionTimeoutMillis: this.connectTimeoutMs });
    client.on('notification', (m) => {
      for (const h of this.handlers.get(m.channel) ?? []) h(m.payload ?? '');
    });
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = null;
      this.lostAt = Date.now();
      client.end().catch(() => undefined);
      this.reset();
      this.scheduleRetry(err ?? new Error('connection ended'));
    };
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      if (this.stopped) {
        // closed while connecting: this connection is not wanted any more
        await client.end().catch(() => undefined);
        return;
      }
      for (const ch of this.handlers.keys()) await client.query(`listen ${ch}`);
    } catch (e) {
      await client.end().catch(() => undefined);
      throw e;
    }
    this.client = client;
    this.failures = 0;
    if (this.lostAt !== null) {
      console.error(`[postgres] notifications back after ${Date.now() - this.lostAt} ms; caches flushed`);
      this.lostAt = null;
      this.reset();
    }
  }

  private reset() {
    for (const r of this.resetHandlers) r();
  }

  private scheduleRetry(err: Error) {
    if (this.stopped || this.retryPending) return;
    this.retryPending = true;
    const delay = Math.min(10_000, 250 * 2 ** this.failures++);
    if (this.failures === 1) console.error(`[postgres] notifications lost (${err.message}): caches off, reconnecting`);
    this.lostAt ??= Date.now();
    setTimeout(() => {
      this.retryPending = false;
      void this.ensure().catch((e: Error) => this.scheduleRetry(e));
    }, delay).unref();
  }

  async close(): Promise<void> {
    this.stopped = true;
    const c = this.client;
    this.client = null;
    if (c) await c.end().catch(() => undefined);
  }
}
