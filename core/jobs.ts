import { randomUUID } from 'node:crypto';
import { raceAbort } from './abort.ts';
import { FitroomError, isFitroomError, jobErrorCode, notFound, type JobErrorCode } from './errors.ts';
import type { Caller } from './credentials.ts';
import type { JobStore, NewJob, QueueOptions } from './ports/job-store.ts';
import { buildJobDelivery } from './webhooks.ts';
import type { Links } from './links.ts';
import type { OperationResult } from './plugin.ts';
import { currentRequestId } from './request-context.ts';

/**
 * Terminology
 * - job: one unit of asynchronous work a caller submitted (try-on, twin, shoe-3d, ...), a row in the
 *   job store, visible only to the credential hash that submitted it.
 * - job kind: the registered handler and stage list for one type of job.
 * - stage: a named step of a job kind's pipeline; the job's `progress.stage` and its trace come from it.
 * - task: the queue entry (graphile-worker) that makes a worker run a job.
 */

export type JobStatus = 'queued' | 'validating' | 'processing' | 'uploading' | 'completed' | 'failed' | 'cancelled';
export const RUNNING_STATUSES: readonly JobStatus[] = ['queued', 'validating', 'processing', 'uploading'];
export const TERMINAL_STATUSES: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];

export function isTerminal(s: JobStatus): boolean {
  return TERMINAL_STATUSES.includes(s);
}

export interface JobResult {
  url: string;
  expiresAt: string;
  digitalTwinId?: string;
}

export interface JobRecord {
  id: string;
  kind: string;
  ownerHash: string;
  accountId: string | null;
  credentialId: string;
  status: JobStatus;
  progress: number | null;
  stage: string | null;
  input: unknown;
  result: Record<string, unknown> | null;
  results: JobResult[] | null;
  error: string | null;
  errorCode: string | null;
  webhookUrl: string | null;
  baseUrl: string;
  diagnostics: Record<string, unknown>;
  charged: boolean;
  createdAt: Date;
  updatedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

export interface TraceEntry {
  seq: number;
  stage: string;
  status: JobStatus;
  attempt: number;
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  outcome: 'running' | 'ok' | 'failed' | 'cancelled' | 'interrupted';
  detail?: Record<string, unknown>;
}

export interface StageDef {
  name: string;
  status: 'validating' | 'processing' | 'uploading';
  /** Numeric progress (0-100) reached when the stage starts, for kinds with numeric progress. */
  progress?: number;
}

export interface JobOutcome {
  result?: Record<string, unknown>;
  results?: JobResult[];
}

export interface StageOptions {
  /** The stage fails with a timeout error after this many milliseconds; its signal is aborted. */
  timeoutMs?: number;
}

/** What a job kind's `run` sees: its input, a cancellation signal and the stage recorder. */
export interface RunningJob<I> {
  readonly id: string;
  readonly input: I;
  readonly record: JobRecord;
  readonly attempt: number;
  /** Aborted when the job is cancelled or the worker shuts down. */
  readonly signal: AbortSignal;
  /** Runs one named stage: status and progress move, the trace records start, end and outcome. */
  stage<T>(name: string, fn: (signal: AbortSignal) => Promise<T>, opts?: StageOptions): Promise<T>;
  /** Numeric progress inside a stage (never decreases). */
  progress(pct: number): Promise<void>;
  /** Adds facts to the current stage's trace entry. */
  note(detail: Record<string, unknown>): void;
  /** Stores diagnostics on the job record (shown in the trace response). */
  diagnostics(patch: Record<string, unknown>): Promise<void>;
}

export interface JobKind<I = unknown> {
  name: string;
  /** `number`: progress is 0-100 (shoe-3d). `stage`: progress is {stage, percentage at completion}. */
  progress: 'number' | 'stage';
  stages: readonly StageDef[];
  /** graphile-worker queue name (jobs in one queue run one at a time); default none (parallel). */
  queue?: string;
  /** Lower runs first; batch work uses a higher number than real-time traffic. */
  priority?: number;
  maxAttempts?: number;
  /** Diagnostics shown on the job record itself (GET /api/v1/jobs/{id}), not only in the trace. */
  recordDiagnostics?: readonly string[];
  /** Shown to clients as estimatedProcessingTime. */
  estimatedSeconds: number;
  run(job: RunningJob<I>): Promise<JobOutcome>;
  /**
   * Clean-up after a cancellation, called once the job is marked cancelled, whether a worker runs it
   * or not: stopping work the job started elsewhere (a vendor task). Not awaited by the cancel
   * request; its failures are ignored.
   */
  cancelled?(job: JobRecord): Promise<void>;
}

/** Thrown inside a running job when it was cancelled; never turns into a failure. */
export class JobCancelled extends Error {
  override name = 'JobCancelled';
}

/** The Job resource as the API returns it. */
export function jobView(job: JobRecord, kind: Pick<JobKind, 'progress' | 'recordDiagnostics'> | undefined) {
  const status = job.status === 'cancelled' ? 'failed' : job.status;
  const progress =
    kind?.progress === 'number'
      ? (job.status === 'completed' ? 100 : (job.progress ?? 0))
      : { stage: job.status === 'completed' ? 'completed' : (job.stage ?? job.status), ...(job.status === 'completed' ? { percentage: 100 } : {}) };
  const view: Record<string, unknown> = {
    jobId: job.id,
    status,
    progress,
    createdAt: job.createdAt.toISOString(),
    updatedAt: job.updatedAt.toISOString(),
  };
  // e.g. shoe-3d's packshot diagnostics (spec: on the job record; absent means unknown)
  for (const key of kind?.recordDiagnostics ?? []) if (job.diagnostics?.[key] !== undefined) view[key] = job.diagnostics[key];
  if (job.status === 'completed') {
    if (job.result) view.result = job.result;
    if (job.results) view.results = job.results;
    const twin = job.results?.[0]?.digitalTwinId ?? (job.result?.digitalTwinId as string | undefined);
    if (twin) view.digitalTwinId = twin;
  }
  if (job.status === 'failed') {
    view.error = job.error ?? 'The job failed';
    // a row written before the runner kept to JOB_ERROR_CODES may hold another code: shown as the runner would now
    view.errorCode = jobErrorCode({ code: job.errorCode });
  }
  if (job.status === 'cancelled') {
    view.error = 'The job was cancelled';
    view.errorCode = 'CANCELLED';
    view.cancelled = true;
  }
  return view;
}

export interface SubmitInput {
  kind: string;
  input: unknown;
  caller: Caller;
  webhookUrl?: string | null;
  /** Links of the connector that received the submission; the job keeps their API origin for result URLs. */
  links: Links;
  charged?: boolean;
}

/**
 * The answer to a submission (spec, Submission responses): 202 with the job queued, or 200 when a
 * cache answered at once. Every submitting operation builds it here.
 */
export function submissionAnswer(jobId: string, links: Links, o: { status?: 'queued' | 'completed'; estimatedProcessingTime: number; extra?: Record<string, unknown> }): OperationResult {
  const status = o.status ?? 'queued';
  return {
    status: status === 'queued' ? 202 : 200,
    body: { success: true, jobId, status, estimatedProcessingTime: status === 'completed' ? 0 : o.estimatedProcessingTime, statusUrl: links.job(jobId), ...o.extra },
    headers: { 'Cache-Control': 'no-store' },
  };
}

function newJob(s: SubmitInput): NewJob {
  return {
    id: randomUUID(),
    kind: s.kind,
    ownerHash: s.caller.ownerHash,
    accountId: s.caller.accountId,
    credentialId: s.caller.credentialId,
    input: s.input,
    webhookUrl: s.webhookUrl ?? null,
    baseUrl: s.links.api,
    charged: s.charged ?? false,
    requestId: currentRequestId(),
  };
}

/** What a worker's log sees of a job: its start, each stage's end, and how it finished. */
export interface JobObserver {
  started?(e: { jobId: string; kind: string; attempt: number; requestId?: string | null }): void;
  stage?(e: { jobId: string; kind: string; requestId?: string | null; stage: string; outcome: 'ok' | 'failed' | 'cancelled' | 'interrupted'; ms: number; error?: string }): void;
  finished?(e: { jobId: string; kind: string; requestId?: string | null; status: 'completed' | 'failed' | 'retrying'; ms: number; error?: string; errorCode?: string }): void;
}

/** Owns every job transition: submission, reads with the ownership rule, cancellation, running. */
export class JobService {
  private readonly store: JobStore;
  private readonly kinds: ReadonlyMap<string, JobKind<any>>;
  private readonly observer: JobObserver;
  /**
   * Views and their JSON text by record: records are never changed in place (a change is a new
   * record from the store), so a view built once is answered as it is to every poll of that record.
   */
  readonly #views = new WeakMap<JobRecord, { body: ReturnType<typeof jobView>; json: string }>();
  constructor(store: JobStore, kinds: ReadonlyMap<string, JobKind<any>>, observer: JobObserver = {}) {
    this.store = store;
    this.kinds = kinds;
    this.observer = observer;
  }

  kind(name: string): JobKind<any> {
    const k = this.kinds.get(name);
    if (!k) throw new FitroomError('INTERNAL_ERROR', `Unknown job kind ${name}`);
    return k;
  }

  /** Records the job and enqueues its task in one transaction. */
  async submit(s: SubmitInput): Promise<JobRecord> {
    const { job, queue } = this.prepare(s);
    return this.store.create(job, queue);
  }

  /**
   * The job row and queue options a submission writes, for stores that write many jobs in one
   * transaction (batches). `priority` overrides the kind's (higher numbers run after real-time work),
   * `queue` names a serial queue (jobs in one named queue run one at a time across all workers).
   */
  prepare(s: SubmitInput, override: { priority?: number; queue?: string } = {}): { job: NewJob; queue: QueueOptions } {
    const kind = this.kind(s.kind);
    // Queue attempts exceed the kind's own retries so worker shutdowns (which release a job for
    // another worker) do not use them up.
    return { job: newJob(s), queue: { queue: override.queue ?? kind.queue, priority: override.priority ?? kind.priority, maxAttempts: (kind.maxAttempts ?? 3) + INTERRUPTION_SLACK } };
  }

  /**
   * Records a submission answered from a cache: the job exists (its id and status URL work, its
   * webhook is enqueued in the same transaction) but no work runs. Throws when the record or the
   * webhook cannot be written, so the caller can answer 500 without charging usage.
   */
  async recordCompleted(s: SubmitInput & { outcome: JobOutcome }): Promise<JobRecord> {
    const kind = this.kind(s.kind);
    const base = newJob(s);
    const now = new Date();
    const record: JobRecord = { ...base, status: 'completed', progress: 100, stage: 'completed', result: s.outcome.result ?? null, results: s.outcome.results ?? null, error: null, errorCode: null, diagnostics: {}, createdAt: now, updatedAt: now, startedAt: now, finishedAt: now };
    const delivery = base.webhookUrl ? buildJobDelivery(record, 'job.completed', { ...s.outcome }, kind) : null;
    return this.store.createCompleted(base, { result: s.outcome.result ?? null, results: s.outcome.results ?? null }, delivery);
  }

  /** The ownership rule: anyone but the submitter gets the same 404 as for a missing job. */
  async getOwned(id: string, caller: Caller): Promise<JobRecord> {
    const job = UUID.test(id) ? await this.store.read(id) : null;
    if (!job || job.ownerHash !== caller.ownerHash) throw notFound('Job not found');
    return job;
  }

  /** The Job resource of the caller's job, with its JSON text (built once per record). */
  async view(id: string, caller: Caller): Promise<{ body: ReturnType<typeof jobView>; json: string }> {
    // a poll of a job this process holds (and that has not changed) needs no further await
    const cached = UUID.test(id) ? this.store.cachedRead?.(id) : undefined;
    const job = cached && cached.ownerHash === caller.ownerHash ? cached : await this.getOwned(id, caller);
    // a poll of an unchanged job gets the same cached record: its view is built and serialised once
    let view = this.#views.get(job);
    if (!view) {
      const body = jobView(job, this.kinds.get(job.kind));
      this.#views.set(job, (view = { body, json: JSON.stringify(body) }));
    }
    return view;
  }

  async cancel(id: string, caller: Caller): Promise<void> {
    const job = await this.getOwned(id, caller);
    if (isTerminal(job.status)) throw new FitroomError('JOB_NOT_CANCELLABLE', `The job is already ${job.status === 'cancelled' ? 'cancelled' : job.status} and cannot be cancelled`);
    const delivery = job.webhookUrl ? buildJobDelivery(job, 'job.failed', { error: 'The job was cancelled', errorCode: 'CANCELLED', cancelled: true }, this.kinds.get(job.kind)) : null;
    const updated = await this.store.transition(id, 'cancelled', RUNNING_STATUSES, { error: 'The job was cancelled', errorCode: 'CANCELLED' }, delivery);
    if (!updated) {
      const now = await this.store.get(id);
      throw new FitroomError('JOB_NOT_CANCELLABLE', `The job is already ${now?.status === 'cancelled' ? 'cancelled' : now?.status} and cannot be cancelled`);
    }
    if (updated.charged) await this.store.markUncharged(id);
    await this.store.signalCancel(id);
    const kind = this.kinds.get(job.kind);
    if (kind?.cancelled) void kind.cancelled(updated).catch(() => undefined);
  }

  async trace(id: string, caller: Caller) {
    const job = await this.getOwned(id, caller);
    const kind = this.kinds.get(job.kind);
    return {
      jobId: job.id,
      kind: job.kind,
      status: job.status === 'cancelled' ? 'failed' : job.status,
      cancelled: job.status === 'cancelled',
      stages: kind?.stages.map((s) => s.name) ?? [],
      diagnostics: job.diagnostics,
      timeline: await this.store.trace(id),
    };
  }

  /**
   * Runs a job's handler (called by the queue's worker). Idempotent: a job already terminal is left
   * alone. Returns normally when the job reached a terminal state or was cancelled; throws to ask the
   * queue for a retry (retryable failure with attempts left, or worker shutdown).
   */
  async run(jobId: string, attempt: number, workerSignal: AbortSignal, onAbortRegister?: (jobId: string, abort: () => void) => () => void, requestId: string | null = null): Promise<void> {
    // every line of this run names the request that submitted the job
    const obs: JobObserver = requestId
      ? { started: (e) => this.observer.started?.({ ...e, requestId }), stage: (e) => this.observer.stage?.({ ...e, requestId }), finished: (e) => this.observer.finished?.({ ...e, requestId }) }
      : this.observer;
    const job = await this.store.get(jobId);
    if (!job || isTerminal(job.status)) return;
    const kind = this.kinds.get(job.kind);
    if (!kind) {
      await this.finishFailed(job, `No handler for job kind ${job.kind}`, 'INTERNAL_ERROR');
      return;
    }
    // The kind's own retries; the queue allows a few more for interruptions (see submit).
    const maxAttempts = kind.maxAttempts ?? 3;
    await this.store.interruptOpenTrace(jobId);
    const controller = new AbortController();
    const onWorkerAbort = () => controller.abort(new Error('worker shutting down'));
    workerSignal.addEventListener('abort', onWorkerAbort, { once: true });
    const unregister = onAbortRegister?.(jobId, () => controller.abort(new JobCancelled('cancelled')));
    const running = new RunningJobImpl(this.store, job, kind, attempt, controller.signal, obs);
    const t0 = performance.now();
    const ms = () => Math.round(performance.now() - t0);
    obs.started?.({ jobId, kind: job.kind, attempt });
    try {
      const outcome = await kind.run(running);
      running.throwIfCancelled();
      const delivery = job.webhookUrl ? buildJobDelivery(job, 'job.completed', { ...outcome }, kind) : null;
      await this.store.transition(jobId, 'completed', RUNNING_STATUSES, { progress: 100, stage: 'completed', result: outcome.result ?? null, results: outcome.results ?? null }, delivery);
      obs.finished?.({ jobId, kind: job.kind, status: 'completed', ms: ms() });
    } catch (err) {
      await running.closeOpenStage(err);
      const current = await this.store.get(jobId);
      if (!current || isTerminal(current.status)) return; // cancelled (or finished elsewhere): never completed later
      if (workerSignal.aborted) throw new Error(`Job ${jobId} interrupted by worker shutdown; released for retry`, { cause: err });
      const retryable = isFitroomError(err) ? err.retryable : !(err instanceof JobCancelled) && (err as { retryable?: boolean })?.retryable !== false;
      if (retryable && attempt < maxAttempts) {
        obs.finished?.({ jobId, kind: job.kind, status: 'retrying', ms: ms(), error: (err as Error)?.message });
        throw err;
      }
      const code = jobErrorCode(err);
      await this.finishFailed(current, publicMessage(err), code);
      // the log keeps the real cause (and a code the client is not given) even when the client is told only "internal error"
      const own = (err as { code?: unknown } | null)?.code;
      const cause = `${(err as Error)?.message ?? String(err)}${own !== undefined && own !== code ? ` (code ${String(own)})` : ''}`;
      obs.finished?.({ jobId, kind: job.kind, status: 'failed', ms: ms(), error: cause, errorCode: code });
    } finally {
      workerSignal.removeEventListener('abort', onWorkerAbort);
      unregister?.();
    }
  }

  /** Fails a job whose queue entry is gone or exhausted (its workers kept dying). */
  async failOrphan(id: string): Promise<void> {
    const job = await this.store.get(id);
    if (job && !isTerminal(job.status)) await this.finishFailed(job, 'The job could not be completed because its worker stopped; please resubmit', 'INTERNAL_ERROR');
  }

  private async finishFailed(job: JobRecord, message: string, code: JobErrorCode) {
    const kind = this.kinds.get(job.kind);
    const delivery = job.webhookUrl ? buildJobDelivery(job, 'job.failed', { error: message, errorCode: code }, kind) : null;
    // Refund first (idempotent: only a charged job is refunded, once): a client that sees `failed`
    // must also see the usage given back.
    if (job.charged) await this.store.markUncharged(job.id);
    await this.store.transition(job.id, 'failed', RUNNING_STATUSES, { error: message, errorCode: code }, delivery);
  }
}

const INTERRUPTION_SLACK = 5;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Error text safe to show a client: domain messages as they are, anything else generic. */
function publicMessage(err: unknown): string {
  if (isFitroomError(err)) return err.message;
  const e = err as { name?: string; message?: string };
  if (e?.name === 'ProviderError' && e.message) return e.message;
  if (e?.name === 'TimeoutError') return 'A processing stage timed out';
  return 'Processing failed because of an internal error';
}

class RunningJobImpl<I> implements RunningJob<I> {
  readonly id: string;
  readonly input: I;
  readonly record: JobRecord;
  readonly attempt: number;
  readonly signal: AbortSignal;
  private readonly store: JobStore;
  private readonly kind: JobKind<I>;
  private current: { seq: number; detail: Record<string, unknown> } | null = null;
  private currentStatus: StageDef['status'] = 'processing';

  private readonly observer: JobObserver;
  private stageStarted = 0;
  private stageName = '';
  constructor(store: JobStore, record: JobRecord, kind: JobKind<I>, attempt: number, signal: AbortSignal, observer: JobObserver = {}) {
    this.observer = observer;
    this.store = store;
    this.record = record;
    this.kind = kind;
    this.id = record.id;
    this.input = record.input as I;
    this.attempt = attempt;
    this.signal = signal;
  }

  throwIfCancelled() {
    if (this.signal.aborted) throw this.signal.reason instanceof Error ? this.signal.reason : new JobCancelled('cancelled');
  }

  async stage<T>(name: string, fn: (signal: AbortSignal) => Promise<T>, opts: StageOptions = {}): Promise<T> {
    this.throwIfCancelled();
    const def = this.kind.stages.find((s) => s.name === name);
    if (!def) throw new FitroomError('INTERNAL_ERROR', `Stage "${name}" is not declared by job kind ${this.kind.name}`);
    const moved = await this.store.transition(this.id, def.status, RUNNING_STATUSES, { stage: name, ...(def.progress !== undefined ? { progress: def.progress } : {}) });
    if (!moved) throw new JobCancelled('cancelled');
    const seq = await this.store.startTrace(this.id, { seq: 0, stage: name, status: def.status, attempt: this.attempt, startedAt: new Date().toISOString() });
    this.current = { seq, detail: {} };
    this.currentStatus = def.status;
    this.stageStarted = performance.now();
    this.stageName = name;
    const signal = opts.timeoutMs ? AbortSignal.any([this.signal, AbortSignal.timeout(opts.timeoutMs)]) : this.signal;
    try {
      const value = await abortable(fn(signal), signal, name, opts.timeoutMs);
      this.throwIfCancelled();
      await this.store.endTrace(this.id, seq, 'ok', this.current.detail);
      this.current = null;
      this.observer.stage?.({ jobId: this.id, kind: this.kind.name, stage: name, outcome: 'ok', ms: Math.round(performance.now() - this.stageStarted) });
      return value;
    } catch (err) {
      await this.closeOpenStage(err);
      throw err;
    }
  }

  async closeOpenStage(err: unknown) {
    if (!this.current) return;
    const { seq, detail } = this.current;
    this.current = null;
    const outcome = this.signal.aborted ? (this.signal.reason instanceof JobCancelled ? 'cancelled' : 'interrupted') : 'failed';
    const message = isFitroomError(err) ? err.message : publicMessage(err);
    await this.store.endTrace(this.id, seq, outcome, { ...detail, ...(outcome === 'failed' ? { error: message } : {}) }).catch(() => undefined);
    this.observer.stage?.({ jobId: this.id, kind: this.kind.name, stage: this.stageName, outcome, ms: Math.round(performance.now() - this.stageStarted), error: (err as Error)?.message });
  }

  async progress(pct: number) {
    const moved = await this.store.transition(this.id, this.currentStatus, RUNNING_STATUSES, { progress: Math.max(0, Math.min(99, Math.round(pct))) });
    if (!moved) throw new JobCancelled('cancelled');
  }

  note(detail: Record<string, unknown>) {
    if (this.current) Object.assign(this.current.detail, detail);
  }

  diagnostics(patch: Record<string, unknown>) {
    return this.store.mergeDiagnostics(this.id, patch);
  }
}

/** Races a stage against its signal so a stage that ignores the signal still stops on time. */
function abortable<T>(p: Promise<T>, signal: AbortSignal, stage: string, timeoutMs?: number): Promise<T> {
  return raceAbort(p, signal, (s) => reasonOf(s, stage, timeoutMs));
}

function reasonOf(signal: AbortSignal, stage: string, timeoutMs?: number): Error {
  const r = signal.reason as Error | undefined;
  if (r?.name === 'TimeoutError') return new FitroomError('SERVICE_UNAVAILABLE', `Stage "${stage}" timed out after ${Math.round((timeoutMs ?? 0) / 1000)} s`, { retryable: false });
  return r instanceof Error ? r : new JobCancelled('cancelled');
}
