/** UsageAttributionStore: counts of successful requests per usage-token account (postgres adapter). */
export interface UsageAttributionStore {
  /** Counts one successful request of `operationId` for the attributed account on the UTC day of `at`. */
  record(accountId: string, operationId: string, at: Date): Promise<void>;
  /** Counts from the UTC day `since` (YYYY-MM-DD), newest day first. */
  list(filter: { accountId?: string; since: string }): Promise<{ accountId: string; operationId: string; day: string; count: number }[]>;
}
