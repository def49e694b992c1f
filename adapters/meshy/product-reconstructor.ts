import { ProviderError } from '../../core/ports/image-model.ts';
import type { ProductReconstructor, ReconstructionRequest, ReconstructionResult, ReconstructionView } from '../../core/ports/product-reconstructor.ts';

export interface MeshyOptions {
  apiKey: string;
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
  /** `ai_model`; default `latest`. */
  aiModel?: string;
}

interface MeshyTask {
  id?: string;
  status?: 'PENDING' | 'IN_PROGRESS' | 'SUCCEEDED' | 'FAILED' | 'CANCELED' | 'EXPIRED' | string;
  progress?: number;
  model_urls?: { glb?: string };
  task_error?: { message?: string };
}

/** An HTTP failure that told us when to come back (`Retry-After`). */
class MeshyHttpError extends ProviderError {
  readonly retryAfterMs: number | undefined;
  constructor(message: string, opts: { retryable: boolean; status: number; retryAfterMs?: number }) {
    super('meshy', message, opts);
    this.retryAfterMs = opts.retryAfterMs;
  }
}

/** Meshy takes 1 to 4 images of the same object. */
const MAX_VIEWS = 4;
/** Transient failures tolerated in a row while polling a task that keeps running on Meshy's side. */
const POLL_RETRIES = 4;

/**
 * Meshy multi-image-to-3D: the cleaned views go as data URIs to `POST /openapi/v1/multi-image-to-3d`,
 * the task is polled until SUCCEEDED (progress 0-100 reported as 0-0.9) and the GLB is downloaded.
 */
export class MeshyProductReconstructor implements ProductReconstructor {
  readonly id = 'meshy' as const;
  readonly #apiKey: string;
  readonly #baseUrl: string;
  readonly #timeoutMs: number;
  readonly #pollMs: number;
  readonly #maxPollMs: number;
  readonly #maxGlbBytes: number;
  readonly #aiModel: string;

  constructor(options: MeshyOptions) {
    const key = options?.apiKey;
    if (typeof key !== 'string' || key.trim() === '') throw new TypeError('meshy: an API key is required (configure MESHY_API_KEY)');
    this.#apiKey = key.trim();
    this.#baseUrl = httpBase(options.baseUrl ?? 'https://api.meshy.ai');
    this.#timeoutMs = positive(options.timeoutMs ?? 30_000, 'timeoutMs');
    this.#pollMs = positive(options.pollIntervalMs ?? 5_000, 'pollIntervalMs');
    this.#maxPollMs = positive(options.maxPollIntervalMs ?? 30_000, 'maxPollIntervalMs');
    this.#maxGlbBytes = positive(options.maxGlbBytes ?? 200 * 1024 * 1024, 'maxGlbBytes');
    this.#aiModel = options.aiModel ?? 'latest';
  }

  async reconstruct(req: ReconstructionRequest): Promise<ReconstructionResult> {
    if (req.views.length === 0) throw new ProviderError('meshy', 'no views to reconstruct from', { retryable: false });
    const notes: string[] = [];
    const note = (m: string) => {
      notes.push(m);
      req.note?.(m);
    };
    const views = pickSpread(req.views, MAX_VIEWS);
    if (views.length < req.views.length) note(`meshy: used ${views.length} of ${req.views.length} views (Meshy takes at most ${MAX_VIEWS})`);

    const body = {
      image_urls: views.map((v) => `data:${v.encoded.contentType};base64,${Buffer.from(v.encoded.bytes).toString('base64')}`),
      ai_model: this.#aiModel,
      should_texture: true,
      enable_pbr: true,
      should_remesh: true,
      topology: 'triangle',
      target_polycount: req.quality === 'high' ? 100_000 : 30_000,
      symmetry_mode: 'auto',
    };
    const created = (await this.#request('POST', '/openapi/v1/multi-image-to-3d', req.signal, body)).json as { result?: string };
    const taskId = created.result;
    if (!taskId) throw new ProviderError('meshy', 'task creation returned no id', { retryable: true });
    note(`meshy: task ${taskId}`);
    req.onProgress?.(0);

    const task = await this.#waitSucceeded(taskId, req);
    const glbUrl = task.model_urls?.glb;
    if (!glbUrl) throw new ProviderError('meshy', `task ${taskId} succeeded without a GLB`, { retryable: false });
    const glb = await downloadGlb(glbUrl, req.signal, this.#timeoutMs * 4, this.#maxGlbBytes);
    req.onProgress?.(1);
    return { glb, notes };
  }

  async #waitSucceeded(taskId: string, req: ReconstructionRequest): Promise<MeshyTask> {
    let wait = this.#pollMs;
    let failures = 0;
    for (;;) {
      let task: MeshyTask;
      try {
        task = (await this.#request('GET', `/openapi/v1/multi-image-to-3d/${encodeURIComponent(taskId)}`, req.signal)).json as MeshyTask;
        failures = 0;
      } catch (err) {
        // The task keeps running on Meshy's side; a flaky status read is no reason to abandon it.
        if (!(err instanceof ProviderError) || !err.retryable || ++failures > POLL_RETRIES) throw err;
        await sleep(Math.max(wait, err instanceof MeshyHttpError ? (err.retryAfterMs ?? 0) : 0), req.signal);
        continue;
      }
      switch (task.status) {
        case 'SUCCEEDED':
          return task;
        case 'FAILED':
        case 'CANCELED':
        case 'EXPIRED':
          throw new ProviderError('meshy', `task ${taskId} ${task.status.toLowerCase()}${task.task_error?.message ? `: ${task.task_error.message}` : ''}`, { retryable: false });
        case 'PENDING':
        case 'IN_PROGRESS':
          if (typeof task.progress === 'number') req.onProgress?.(Math.min(Math.max(task.progress, 0), 100) / 100 * 0.9);
          break;
        default:
          throw new ProviderError('meshy', `task ${taskId} has an unknown status ${JSON.stringify(task.status)}`, { retryable: true });
      }
      await sleep(wait, req.signal);
      wait = Math.min(Math.round(wait * 1.5), this.#maxPollMs);
    }
  }

  async #request(method: 'GET' | 'POST', path: string, signal: AbortSignal, body?: unknown): Promise<{ status: number; json: unknown }> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    let status: number;
    let text: string;
    let retryAfter: string | null;
    try {
      const res = await fetch(this.#baseUrl + path, {
        method,
        headers: { authorization: `Bearer ${this.#apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.any([signal, timeout]),
      });
      status = res.status;
      retryAfter = res.headers.get('retry-after');
      text = await res.text();
    } catch (cause) {
      if (signal.aborted) throw signal.reason;
      if (timeout.aborted) throw new ProviderError('meshy', `request timed out after ${this.#timeoutMs} ms`, { retryable: true, cause });
      throw new ProviderError('meshy', `network error: ${(cause as Error)?.message ?? String(cause)}`, { retryable: true, cause });
    }
    if (status < 200 || status >= 300) {
      // Meshy errors: `{message}`.
      let message = text.slice(0, 300);
      try {
        const parsed = JSON.parse(text) as { message?: string };
        if (parsed.message) message = parsed.message;
      } catch {
        // not JSON
      }
      const inputProblem = status === 400 || status === 413 || status === 422;
      const seconds = retryAfter === null ? NaN : Number(retryAfter);
      throw new MeshyHttpError(`HTTP ${status}: ${message}`, { retryable: !inputProblem, status, retryAfterMs: Number.isFinite(seconds) ? Math.min(seconds * 1000, 120_000) : undefined });
    }
    try {
      return { status, json: JSON.parse(text) };
    } catch (cause) {
      throw new ProviderError('meshy', `unreadable response (HTTP ${status})`, { retryable: true, status, cause });
    }
  }
}

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

/** GLBs live on the vendor's CDN: fetched without the key, https only, size-capped, magic checked. */
async function downloadGlb(url: string, signal: AbortSignal, timeoutMs: number, max: number): Promise<Uint8Array> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ProviderError('meshy', 'GLB URL is invalid', { retryable: false });
  }
  if (parsed.protocol !== 'https:') throw new ProviderError('meshy', 'GLB URL is not https', { retryable: false });
  const timeout = AbortSignal.timeout(timeoutMs);
  let bytes: Uint8Array;
  try {
    const res = await fetch(parsed, { signal: AbortSignal.any([signal, timeout]) });
    if (!res.ok) {
      await res.body?.cancel();
      throw new ProviderError('meshy', `GLB download failed: HTTP ${res.status}`, { retryable: true, status: res.status });
    }
    if (Number(res.headers.get('content-length') ?? 0) > max) {
      await res.body?.cancel();
      throw new ProviderError('meshy', `GLB is larger than ${max} bytes`, { retryable: false });
    }
    const chunks: Uint8Array[] = [];
    let total = 0;
    const reader = res.body?.getReader();
    while (reader) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > max) {
        await reader.cancel();
        throw new ProviderError('meshy', `GLB is larger than ${max} bytes`, { retryable: false });
      }
      chunks.push(value);
    }
    bytes = new Uint8Array(Buffer.concat(chunks));
  } catch (cause) {
    if (cause instanceof ProviderError) throw cause;
    if (signal.aborted) throw signal.reason;
    if (timeout.aborted) throw new ProviderError('meshy', `GLB download timed out after ${timeoutMs} ms`, { retryable: true, cause });
    throw new ProviderError('meshy', `GLB download failed: ${(cause as Error)?.message ?? String(cause)}`, { retryable: true, cause });
  }
  // A binary glTF starts with the ASCII magic "glTF".
  if (bytes.byteLength < 12 || Buffer.from(bytes.subarray(0, 4)).toString('latin1') !== 'glTF') {
    throw new ProviderError('meshy', 'the downloaded model is not a GLB', { retryable: false });
  }
  return bytes;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function httpBase(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`meshy: baseUrl is not a URL: ${value}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`meshy: baseUrl must be http(s): ${value}`);
  return value.replace(/\/+$/, '');
}

function positive(n: number, name: string): number {
  if (!Number.isFinite(n) || n <= 0) throw new TypeError(`meshy: ${name} must be a positive number`);
  return n;
}
