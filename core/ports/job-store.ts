import type { JobRecord, JobStatus, TraceEntry, JobResult } from '../jobs.ts';
import type { WebhookDelivery } from '../webhooks.ts';

export interface NewJob {
  id: string;
  kind: string;
  ownerHash: string;
  accountId: string | null;
  credentialId: string;
  input: unknown;
  webhookUrl: string | null;
  baseUrl: string;
  /** Whether submitting it counted usage (so a failure can be refunded). */
  charged: boolean;
  /** The request that submitted it (its X-Request-Id), handed to the worker for its log lines. */
  requestId?: string | null;
}

export interface QueueOptions {
  queue?: string;
  priority?: number;
  maxAttempts: number;
}

export interface JobPatch {
  progress?: number | null;
  stage?: string | null;
  result?: unknown;
  results?: JobResult[] | null;
  error?: string | null;
  errorCode?: string | null;
}

/**
 * JobStore: the system of record for jobs, their trace and the work queue. `create` writes the job
 * and enqueues its task atomically; terminal transitions write the webhook delivery atomically.
 */
export interface JobStore {
  create(job: NewJob, queue: QueueOptions): Promise<JobRecord>;
  /** Records a job that is already completed (a cache hit): no task is queued; the delivery, if any, is written in the same transaction. */
  createCompleted(job: NewJob, outcome: { result: unknown; results: JobResult[] | null }, delivery: WebhookDelivery | null): Promise<JobRecord>;
  get(id: string): Promise<JobRecord | null>;
  /** A read for status polling: may come from a per-process cache that every job change invalidates. */
  read(id: string): Promise<JobRecord | null>;
  /** The record read would answer from this process's cache right now, or undefined (then call read). */
  cachedRead?(id: string): JobRecord | undefined;
  /**
   * Moves a job to `to` when its current status is one of `from`, applying the patch; numeric
   * progress never decreases. Returns the updated record, or null when the job was not in `from`.
   * A delivery, when given, is recorded and enqueued in the same transaction.
   */
  transition(id: string, to: JobStatus, from: readonly JobStatus[], patch: JobPatch, delivery?: WebhookDelivery | null): Promise<JobRecord | null>;
  mergeDiagnostics(id: string, patch: Record<string, unknown>): Promise<void>;
  startTrace(id: string, entry: Omit<TraceEntry, 'endedAt' | 'outcome' | 'durationMs'>): Promise<number>;
  endTrace(id: string, seq: number, outcome: TraceEntry['outcome'], detail?: Record<string, unknown>): Promise<void>;
  trace(id: string): Promise<TraceEntry[]>;
  /** Closes trace entries left open by an attempt that died (outcome `interrupted`). */
  interruptOpenTrace(id: string): Promise<void>;
  /** Tell running workers that a job was cancelled (cross-process). */
  signalCancel(id: string): Promise<void>;
  /** Subscribe to cancellations; returns an unsubscribe function. */
  onCancel(listener: (jobId: string) => void): Promise<() => Promise<void>>;
  /** Refund usage counted at submission (failed jobs are not charged). */
  markUncharged(id: string): Promise<boolean>;
}
