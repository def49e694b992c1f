import pg from 'pg';

type Handler = (payload: string) => void;

/**
 * One dedicated connection per process for LISTEN/NOTIFY (job cancellations, cache invalidation).
 * When the connection drops it reconnects with backoff and calls the reset handlers: caches that
 * rely on notifications must forget everything, since notifications sent meanwhile are lost.
 */
export class PgListener {
  private readonly url: string;
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly resetHandlers = new Set<() => void>();
  private client: pg.Client | null = null;
  private stopped = false;
  private connecting: Promise<void> | null = null;

  constructor(connectionString: string) {
    this.url = connectionString;
  }

  /** Subscribes to a channel; returns an unsubscribe function. */
  async on(channel: string, handler: Handler): Promise<() => void> {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`Invalid channel ${channel}`);
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      // Not reachable right now: the retry listens to every registered channel once connected.
      await this.ensure().catch(() => this.scheduleRetry());
      await this.client?.query(`listen ${channel}`).catch(() => undefined);
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
    const client = new pg.Client({ connectionString: this.url });
    client.on('notification', (m) => {
      for (const h of this.handlers.get(m.channel) ?? []) h(m.payload ?? '');
    });
    const lost = () => {
      if (this.client !== client) return;
      this.client = null;
      for (const r of this.resetHandlers) r();
      if (!this.stopped) setTimeout(() => void this.ensure().catch(() => this.scheduleRetry()), 500).unref();
    };
    client.on('error', lost);
    client.on('end', lost);
    await client.connect();
    if (this.stopped) {
      // closed while connecting: this connection is not wanted any more
      await client.end().catch(() => undefined);
      return;
    }
    for (const ch of this.handlers.keys()) await client.query(`listen ${ch}`);
    this.client = client;
  }

  private scheduleRetry() {
    if (!this.stopped) setTimeout(() => void this.ensure().catch(() => this.scheduleRetry()), 2000).unref();
  }

  async close(): Promise<void> {
    this.stopped = true;
    const c = this.client;
    this.client = null;
    if (c) await c.end().catch(() => undefined);
  }
}
