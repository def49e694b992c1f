import type { WebhookDelivery } from '../webhooks.ts';

export interface DeliveryAttempt {
  attempt: number;
  at: Date;
  status: number | null;
  error: string | null;
  durationMs: number;
  /** Not sent: the receiver was paused by its circuit breaker; the delivery was queued for `retryAt`. */
  paused?: boolean;
  retryAt?: Date;
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
  /** Queues the delivery's send task again at `at` with this many attempts left. */
  retryAt(id: string, at: Date, attemptsLeft: number): Promise<void>;
  /**
   * The circuit breaker of a receiver (`host:port`): null when a delivery may be sent now, else
   * the end of the receiver's pause. When a pause has ended, one caller gets null and holds the
   * receiver for `probeMs` (the probe); the others see the receiver paused until then.
   */
  receiverPausedUntil(receiver: string, probeMs: number): Promise<Date | null>;
  /**
   * Records how a receiver behaved: a timeout counts; `threshold` timeouts in a row pause it for
   * `pauseMs`. Any answer (whatever its status) clears the count.
   */
  recordReceiver(receiver: string, outcome: 'answered' | 'timeout', breaker: { threshold: number; pauseMs: number }): Promise<void>;
}
