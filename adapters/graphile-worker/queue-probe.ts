import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Pool } from '../postgres/db.ts';
import type { QueueProbe } from '../../core/ports/queue-probe.ts';

export const PING_TASK = 'fitroom_ping';
export const PING_CHANNEL = 'fitroom_ping';

/** A warm-up round trip: queue a ping task and wait for a worker to answer through NOTIFY. */
export class GraphileQueueProbe implements QueueProbe {
  private readonly pool: Pool;
  constructor(pool: Pool) {
    this.pool = pool;
  }

  async ping(timeoutMs: number) {
    const pingId = randomUUID();
    if (timeoutMs <= 0) {
      await this.pool.query('select graphile_worker.add_job($1, json_build_object($2::text, $3::text), max_attempts => 1)', [PING_TASK, 'pingId', pingId]);
      return { warm: true, roundTripMs: null };
    }
    const client = await this.pool.connect();
    const t0 = performance.now();
    try {
      await client.query(`listen ${PING_CHANNEL}`);
      const answered = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        client.on('notification', (m: pg.Notification) => {
          if (m.channel === PING_CHANNEL && m.payload === pingId) {
            clearTimeout(timer);
            resolve(true);
          }
        });
      });
      await client.query('select graphile_worker.add_job($1, json_build_object($2::text, $3::text), max_attempts => 1)', [PING_TASK, 'pingId', pingId]);
      const warm = await answered;
      return { warm, roundTripMs: warm ? Math.round(performance.now() - t0) : null };
    } finally {
      await client.query(`unlisten ${PING_CHANNEL}`).catch(() => undefined);
      client.removeAllListeners('notification');
      client.release();
    }
  }
}
