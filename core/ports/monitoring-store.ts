import { token } from '../plugin.ts';

/** Jobs waiting and running in one queue of the job queue (a named queue, or the task's own). */
export interface QueueDepth {
  queue: string;
  waiting: number;
  running: number;
  /** Queue entries that used up their attempts and stay until removed. */
  failed: number;
}

export interface JobCount {
  /** Start of the UTC hour the jobs were submitted in (ISO 8601). */
  hour: string;
  kind: string;
  status: string;
  count: number;
}

export interface StageDuration {
  stage: string;
  runs: number;
  p50Ms: number;
  p95Ms: number;
}

export interface FailureCount {
  kind: string;
  reason: string;
  count: number;
}

export interface WebhookCounts {
  delivered: number;
  failed: number;
  pending: number;
  /** Delivery attempts made (each retry counts). */
  attempts: number;
}

export interface RefusalCount {
  hour: string;
  category: string;
  count: number;
}

/** What the operator's monitoring reads: everything since `since`, queues as they are now. */
export interface MonitoringSnapshot {
  queues: QueueDepth[];
  jobs: JobCount[];
  stages: StageDuration[];
  failures: FailureCount[];
  webhooks: WebhookCounts;
  refusals: RefusalCount[];
}

/**
 * MonitoringStore: aggregates of the job, trace, webhook and queue tables for the monitoring routes,
 * and the rate-limit refusals every process records (postgres adapter).
 */
export interface MonitoringStore {
  snapshot(since: Date): Promise<MonitoringSnapshot>;
  /** Adds refusals counted by one process, per rate-limit category and minute. */
  recordRefusals(items: { category: string; minute: Date; count: number }[]): Promise<void>;
  /** Deletes refusal counts older than `before`. */
  purgeRefusals(before: Date): Promise<number>;
}

export const MONITORING_STORE = token<MonitoringStore>('MonitoringStore');
