import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The request an operation handler runs for, so that a job it submits carries the request id to
 * the worker (whose log lines then name it) without every plugin passing it along.
 */
const current = new AsyncLocalStorage<string>();

export function withRequestId<T>(requestId: string, fn: () => Promise<T>): Promise<T> {
  return current.run(requestId, fn);
}

export function currentRequestId(): string | null {
  return current.getStore() ?? null;
}
