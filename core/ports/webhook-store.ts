import type { WebhookDelivery } from '../webhooks.ts';

export interface DeliveryAttempt {
  attempt: number;
  at: Date;
  status: number | null;
  error: string | null;
  durationMs: number;
}

export interface StoredDelivery extends WebhookDelivery {
  state: 'pending' | 'delivered' | 'failed';
  attempts: DeliveryAttempt[];
}

/** WebhookStore: recorded deliveries and their attempts; `enqueue` also queues the send task. */
export interface WebhookStore {
  enqueue(delivery: WebhookDelivery): Promise<void>;
  get(id: string): Promise<StoredDelivery | null>;
  recordAttempt(id: string, attempt: DeliveryAttempt, state: StoredDelivery['state']): Promise<void>;
  listForJob(jobId: string): Promise<StoredDelivery[]>;
}
