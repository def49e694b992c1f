import type { Pool } from './db.ts';
import type { ChallengeReplayStore } from '../../core/ports/challenge-replay-store.ts';

export class PostgresChallengeReplayStore implements ChallengeReplayStore {
  private readonly pool: Pool;
  constructor(pool: Pool) {
    this.pool = pool;
  }

  async claim(id: string, expiresAt: Date): Promise<boolean> {
    const r = await this.pool.query('insert into used_challenges (id, expires_at) values ($1, $2) on conflict (id) do nothing', [id, expiresAt]);
    return r.rowCount === 1;
  }

  async purgeExpired(now: Date): Promise<number> {
    return (await this.pool.query('delete from used_challenges where expires_at < $1', [now])).rowCount ?? 0;
  }
}
