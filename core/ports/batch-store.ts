import { token } from '../plugin.ts';
import type { JobRecord } from '../jobs.ts';
import type { WebhookDelivery } from '../webhooks.ts';
import type { NewJob, QueueOptions } from './job-store.ts';

export interface NewBatch {
  id: string;
  ownerHash: string;
  accountId: string | null;
  credentialId: string;
  webhookUrl: string | null;
  baseUrl: string;
}

export interface BatchRecord extends NewBatch {
  itemCount: number;
  deliveryId: string | null;
  createdAt: Date;
  completedAt: Date | null;
  expiresAt: Date | null;
}

/**
 * BatchStore: digitization batches. A batch's items are ordinary jobs (in the JobStore's table) that
 * carry the batch id and their index; the store writes them, their queue tasks and the batch in one
 * transaction, so a batch is never half submitted.
 */
export interface BatchStore {
  create(batch: NewBatch, items: NewJob[], queue: QueueOptions): Promise<BatchRecord>;
  get(id: string): Promise<BatchRecord | null>;
  /** The item jobs in index order. */
  items(id: string): Promise<JobRecord[]>;
  /**
   * Completes every open batch whose items are all terminal, each at most once: `completedAt` and
   * `expiresAt` (completion + ttl) are set, and the delivery `build` returns is written and queued in
   * the same transaction. Returns the batches it completed.
   */
  completeFinished(ttlSeconds: number, build: (batch: BatchRecord, items: JobRecord[]) => WebhookDelivery | null): Promise<BatchRecord[]>;
  /** Deletes batches (and their item jobs) whose expiry has passed; returns how many. */
  purgeExpired(now: Date): Promise<number>;
  /** The recorded batch.completed delivery, if any: state and attempts. */
  delivery(batch: BatchRecord): Promise<{ state: string; attempts: { attempt: number; at: Date; status: number | null; error: string | null }[] } | null>;
}

export const BATCH_STORE = token<BatchStore>('BatchStore');
