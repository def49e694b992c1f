import { ProviderError, type VendorCheck } from '../../core/ports/image-model.ts';
import type { ProductReconstructor, ReconstructionRequest, ReconstructionResult, ReconstructionView, VendorTask } from '../../core/ports/product-reconstructor.ts';
import { checkRequest, dataUri, downloadCapped, pollUntil, positiveOption, requestJson, requireGlb, vendorRequest, vendorSettings } from '../http/vendor.ts';
import type { ErrorReader, VendorOptions, VendorSettings } from '../http/vendor.ts';

export interface MeshyOptions extends VendorOptions {
  /** Default https://api.meshy.ai */
  baseUrl?: string;
  /** Timeout of each HTTP request. Default 30 s (downloads get four times that). */
  timeoutMs?: number;
  /** First wait between task polls, growing by half up to maxPollIntervalMs. Default 5 s. */
  pollIntervalMs?: number;
  /** Default 30 s (Meshy's own client polls every 5 to 30 s). */
  maxPollIntervalMs?: number;
  /** Largest GLB accepted. Default 200 MB. */
  maxGlbBytes?: number;
  /** `ai_model`, pinned: `latest` changes which model runs without notice. Default `meshy-6`. */
  aiModel?: string;
  /** How long one task may take from its creation before the job gives up on it. Default 10 min (Meshy documents 1-5 min). */
  taskTimeoutMs?: number;
}

interface MeshyTask {
  id?: string;
  status?: 'PENDING' | 'IN_PROGRESS' | 'SUCCEEDED' | 'FAILED' | 'CANCELED' | 'EXPIRED' | string;
  progress?: number;
  model_urls?: { glb?: string };
  task_error?: { message?: string };
}

/** Meshy takes 1 to 4 images of the same object. */
const MAX_VIEWS = 4;
/** Transient failures tolerated in a row while polling a task that keeps running on Meshy's side. */
const POLL_RETRIES = 4;

/**
 * Meshy multi-image-to-3D: the cleaned views go as data URIs to `POST /openapi/v1/multi-image-to-3d`,
 * the task is polled until SUCCEEDED (progress 0-100 reported as 0-0.9) and the GLB is downloaded.
 * Creation is never retried here: Meshy documents no idempotency key, so a retried job resumes the
 * task it stored (`resume`). `cancel` deletes the task (`DELETE .../{id}`, the only stop Meshy documents).
 */
export class MeshyProductReconstructor implements ProductReconstructor {
  readonly id = 'meshy' as const;
  readonly #http: VendorSettings;
  readonly #maxGlbBytes: number;
  readonly #aiModel: string;
  readonly taskTimeoutMs: number;

  constructor(options: MeshyOptions) {
    this.#http = vendorSettings('meshy', 'MESHY_API_KEY', options, { baseUrl: 'https://api.meshy.ai', timeoutMs: 30_000, pollIntervalMs: 5_000, maxPollIntervalMs: 30_000 });
    this.#maxGlbBytes = positiveOption('meshy', 'maxGlbBytes', options.maxGlbBytes ?? 200 * 1024 * 1024);
    this.#aiModel = options.aiModel ?? 'meshy-6';
    this.taskTimeoutMs = positiveOption('meshy', 'taskTimeoutMs', options.taskTimeoutMs ?? 10 * 60_000);
  }

  async reconstruct(req: ReconstructionRequest): Promise<ReconstructionResult> {
    const notes: string[] = [];
    const note = (m: string) => {
      notes.push(m);
      req.note?.(m);
    };
    const task = req.resume ?? (await this.#create(req, note));
    if (req.resume) note(`meshy: resuming task ${task.id} (created ${task.createdAt})`);
    req.onProgress?.(0);

    const done = await this.#waitSucceeded(task, req);
    const glbUrl = done.model_urls?.glb;
    if (!glbUrl) throw new ProviderError('meshy', `task ${task.id} succeeded without a GLB`, { retryable: false });
    const file = await downloadCapped('meshy', glbUrl, { signal: req.signal, timeoutMs: this.#http.timeoutMs * 4, maxBytes: this.#maxGlbBytes, what: 'GLB', badUrlRetryable: false });
    const glb = requireGlb('meshy', file.bytes);
    req.onProgress?.(1);
    return { glb, notes };
  }

  /** Creates the task; the job stores it (onTask) before the first status read. */
  async #create(req: ReconstructionRequest, note: (m: string) => void): Promise<VendorTask> {
    if (req.views.length === 0) throw new ProviderError('meshy', 'no views to reconstruct from', { retryable: false });
    const views = pickSpread(req.views, MAX_VIEWS);
    if (views.length < req.views.length) note(`meshy: used ${views.length} of ${req.views.length} views (Meshy takes at most ${MAX_VIEWS})`);
    const body = {
      image_urls: views.map((v) => dataUri(v.encoded)),
      ai_model: this.#aiModel,
      should_texture: true,
      enable_pbr: true,
      should_remesh: true,
      topology: 'triangle',
      target_polycount: req.quality === 'high' ? 100_000 : 30_000,
      symmetry_mode: 'auto',
    };
    const created = (await this.#request('POST', '/openapi/v1/multi-image-to-3d', req.signal, body)) as { result?: string };
    if (!created.result) throw new ProviderError('meshy', 'task creation returned no id', { retryable: false });
    const task = { id: created.result, createdAt: new Date().toISOString() };
    await req.onTask?.(task);
    note(`meshy: task ${task.id}`);
    return task;
  }

  /** Deletes the task: Meshy documents no cancel, only `DELETE /openapi/v1/multi-image-to-3d/{id}`. */
  async cancel(task: VendorTask, signal: AbortSignal): Promise<boolean> {
    const { baseUrl, apiKey, timeoutMs } = this.#http;
    try {
      const res = await vendorRequest('meshy', `${baseUrl}/openapi/v1/multi-image-to-3d/${encodeURIComponent(task.id)}`, { method: 'DELETE', headers: { authorization: `Bearer ${apiKey}` }, signal, timeoutMs: Math.min(timeoutMs, 10_000) });
      // 404: already gone
      return (res.status >= 200 && res.status < 300) || res.status === 404;
    } catch {
      return false;
    }
  }

  #waitSucceeded(task: VendorTask, req: ReconstructionRequest): Promise<MeshyTask> {
    const taskId = task.id;
    const elapsed = Date.now() - Date.parse(task.createdAt);
    return pollUntil<MeshyTask>(this.#http, {
      signal: req.signal,
      growth: 1.5,
      // The task keeps running on Meshy's side; a flaky status read is no reason to abandon it.
      retries: POLL_RETRIES,
      maxWaitMs: Math.max(this.taskTimeoutMs - (Number.isFinite(elapsed) ? Math.max(elapsed, 0) : 0), 1),
      read: async () => (await this.#request('GET', `/openapi/v1/multi-image-to-3d/${encodeURIComponent(taskId)}`, req.signal)) as MeshyTask,
      done: (task) => {
        switch (task.status) {
          case 'SUCCEEDED':
            return true;
          case 'FAILED':
          case 'CANCELED':
          case 'EXPIRED':
            throw new ProviderError('meshy', `task ${taskId} ${task.status.toLowerCase()}${task.task_error?.message ? `: ${task.task_error.message}` : ''}`, { retryable: false });
          case 'PENDING':
          case 'IN_PROGRESS':
            if (typeof task.progress === 'number') req.onProgress?.(Math.min(Math.max(task.progress, 0), 100) / 100 * 0.9);
            return false;
          default:
            throw new ProviderError('meshy', `task ${taskId} has an unknown status ${JSON.stringify(task.status)}`, { retryable: true });
        }
      },
    });
  }

  /** Live check: `GET /openapi/v1/balance` answers the credits of a working key. */
  async check(signal: AbortSignal): Promise<VendorCheck> {
    const { baseUrl, apiKey, timeoutMs } = this.#http;
    const r = await checkRequest('meshy', `${baseUrl}/openapi/v1/balance`, { headers: { authorization: `Bearer ${apiKey}` }, signal, timeoutMs: Math.min(timeoutMs, 10_000) }, readError);
    if (!r.ok) return r.check;
    const balance = typeof r.body?.balance === 'number' ? r.body.balance : undefined;
    return { provider: 'meshy', status: 'ok', models: [{ id: this.#aiModel, available: true, detail: 'pinned ai_model' }], ...(balance !== undefined ? { balance } : {}), ...(balance === 0 ? { message: 'no credits left: tasks will be refused (402)' } : {}) };
  }

  #request(method: 'GET' | 'POST', path: string, signal: AbortSignal, body?: unknown): Promise<unknown> {
    const { baseUrl, apiKey, timeoutMs } = this.#http;
    return requestJson('meshy', baseUrl + path, { method, headers: { authorization: `Bearer ${apiKey}` }, json: body, signal, timeoutMs }, readError);
  }
}

/**
 * Meshy errors: `{message}`. 401 (key), 402 (no credits) and 403 are the deployment's account and
 * never retried (vendor.ts ACCOUNT_STATUSES); 400 and 422 describe the request, and so does 404 (the
 * task does not exist: asking again cannot find it); 429 and 5xx are retried.
 */
const readError: ErrorReader = (body: { message?: string } | undefined, status) => ({ message: body?.message, ...(status === 404 ? { inputProblem: true } : {}) });

/**
 * Up to `max` views covering the object best: with known angles, greedily the view farthest (in azimuth)
 * from those already chosen, starting with the first; otherwise evenly spaced through the list.
 */
export function pickSpread(views: readonly ReconstructionView[], max: number): ReconstructionView[] {
  if (views.length <= max) return [...views];
  if (views.every((v) => typeof v.angleDeg === 'number')) {
    const chosen = [0];
    while (chosen.length < max) {
      let best = -1;
      let bestGaps: number[] = [];
      views.forEach((v, i) => {
        if (chosen.includes(i)) return;
        // Compare the sorted gaps to the chosen views: the largest smallest gap wins, ties go to the next gap.
        const gaps = chosen.map((c) => angleGap(v.angleDeg!, views[c].angleDeg!)).sort((a, b) => a - b);
        if (best < 0 || compareGaps(gaps, bestGaps) > 0) {
          best = i;
          bestGaps = gaps;
        }
      });
      chosen.push(best);
    }
    return chosen.sort((a, b) => a - b).map((i) => views[i]);
  }
  return Array.from({ length: max }, (_, i) => views[Math.floor((i * views.length) / max)]);
}

function compareGaps(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

function angleGap(a: number, b: number): number {
  const d = Math.abs((((a - b) % 360) + 360) % 360);
  return Math.min(d, 360 - d);
}
