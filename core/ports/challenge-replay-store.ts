/**
 * ChallengeReplayStore: remembers the ids of challenge tokens already used, until they expire, so a
 * token is accepted once across every process (postgres adapter: insert-or-conflict).
 */
export interface ChallengeReplayStore {
  /** True the first time an id is claimed, false for every later claim (any process). */
  claim(id: string, expiresAt: Date): Promise<boolean>;
  /** Forgets ids whose token can no longer be replayed anyway; answers how many. */
  purgeExpired(now: Date): Promise<number>;
}
