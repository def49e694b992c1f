/** QueueProbe: a real round trip through the job queue (enqueue a ping, wait for a worker to run it). */
export interface QueueProbe {
  ping(timeoutMs: number): Promise<{ warm: boolean; roundTripMs: number | null }>;
}
