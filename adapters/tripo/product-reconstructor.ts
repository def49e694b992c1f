import { ProviderError } from '../../core/ports/image-model.ts';
import type { ProductReconstructor, ReconstructionRequest, ReconstructionResult, ReconstructionView } from '../../core/ports/product-reconstructor.ts';

export interface TripoOptions {
  apiKey: string;
  /** Default https://api.tripo3d.ai/v2/openapi */
  baseUrl?: string;
  /** Timeout of each HTTP request. Default 30 s (downloads get four times that). */
  timeoutMs?: number;
  /** First wait between task polls, growing by half up to maxPollIntervalMs. Default 2 s (the SDK's cadence). */
  pollIntervalMs?: number;
  /** Default 10 s. */
  maxPollIntervalMs?: number;
  /** Largest GLB accepted. Default 200 MB. */
  maxGlbBytes?: number;
  /** `model_version`; default v2.5-20250123 (Tripo's documented default). */
  modelVersion?: string;
}

interface TripoEnvelope<T> {
  code?: number;
  message?: string;
  suggestion?: string;
  data?: T;
}

interface TripoTask {
  task_id?: string;
  status?: 'queued' | 'running' | 'success' | 'failed' | 'cancelled' | 'unknown' | 'banned' | 'expired' | string;
  progress?: number;
  output?: { model?: string; pbr_model?: string; base_model?: string };
  error_msg?: string;
}

/** Tripo's multiview slots, in request order, and the azimuth each stands for. */
const SLOTS = ['front', 'left', 'back', 'right'] as const;
const POLL_RETRIES = 4;

/**
 * Tripo task API (v2 openapi): each view is uploaded (`POST /upload` → image token), then one
 * `multiview_to_model` task gets the tokens in its [front, left, back, right] slots (a single view
 * becomes an `image_to_model` task); `GET /task/{id}` is polled until `success` and the PBR GLB
 * is downloaded.
 */
export class TripoProductReconstructor implements ProductReconstructor {
  readonly id = 'tripo' as const;
  readonly #apiKey: string;
  readonly #baseUrl: string;
  readonly #timeoutMs: number;
  readonly #pollMs: number;
  readonly #maxPollMs: number;
  readonly #maxGlbBytes: number;
  readonly #modelVersion: string;

  constructor(options: TripoOptions) {
    const key = options?.apiKey;
    if (typeof key !== 'string' || key.trim() === '') throw new TypeError('tripo: an API key is required (configure TRIPO_API_KEY)');
    this.#apiKey = key.trim();
    this.#baseUrl = httpBase(options.baseUrl ?? 'https://api.tripo3d.ai/v2/openapi');
    this.#timeoutMs = positive(options.timeoutMs ?? 30_000, 'timeoutMs');
    this.#pollMs = positive(options.pollIntervalMs ?? 2_000, 'pollIntervalMs');
    this.#maxPollMs = positive(options.maxPollIntervalMs ?? 10_000, 'maxPollIntervalMs');
    this.#maxGlbBytes = positive(options.maxGlbBytes ?? 200 * 1024 * 1024, 'maxGlbBytes');
    this.#modelVersion = options.modelVersion ?? 'v2.5-20250123';
  }

  async reconstruct(req: ReconstructionRequest): Promise<ReconstructionResult> {
    if (req.views.length === 0) throw new ProviderError('tripo', 'no views to reconstruct from', { retryable: false });
    const notes: string[] = [];
    const note = (m: string) => {
      notes.push(m);
      req.note?.(m);
    };
    const slots = assignSlots(req.views);
    const used = slots.filter((v): v is ReconstructionView => v !== undefined);
    if (used.length < req.views.length) note(`tripo: used ${used.length} of ${req.views.length} views (one per front/left/back/right slot)`);

    const tokens = new Map<ReconstructionView, string>();
    for (const view of used) tokens.set(view, await this.#upload(view, req.signal));
    const file = (v: ReconstructionView) => ({ type: fileType(v.encoded.contentType), file_token: tokens.get(v)! });

    const common = {
      model_version: this.#modelVersion,
      texture: true,
      pbr: true,
      texture_quality: req.quality === 'high' ? 'detailed' : 'standard',
    };
    const task =
      used.length >= 2
        ? { type: 'multiview_to_model', files: slots.map((v) => (v ? file(v) : {})), ...common }
        : { type: 'image_to_model', file: file(used[0]), ...common };
    if (used.length < 2) note('tripo: one view only, sent as image_to_model');
    const created = await this.#call<{ task_id?: string }>('POST', '/task', req.signal, JSON.stringify(task), 'application/json');
    const taskId = created.task_id;
    if (!taskId) throw new ProviderError('tripo', 'task creation returned no task_id', { retryable: true });
    note(`tripo: task ${taskId} (${task.type}, slots ${slots.map((v, i) => (v ? SLOTS[i] : '-')).join('/')})`);
    req.onProgress?.(0);

    const done = await this.#waitSuccess(taskId, req);
    const url = done.output?.pbr_model ?? done.output?.model ?? done.output?.base_model;
    if (!url) throw new ProviderError('tripo', `task ${taskId} succeeded without a model URL`, { retryable: false });
    const glb = await downloadGlb(url, req.signal, this.#timeoutMs * 4, this.#maxGlbBytes);
    req.onProgress?.(1);
    return { glb, notes };
  }

  async #upload(view: ReconstructionView, signal: AbortSignal): Promise<string> {
    const form = new FormData();
    const ext = fileType(view.encoded.contentType);
    form.append('file', new Blob([Buffer.from(view.encoded.bytes)], { type: view.encoded.contentType }), `view.${ext}`);
    const data = await this.#call<{ image_token?: string; file_token?: string }>('POST', '/upload', signal, form);
    const token = data.image_token ?? data.file_token;
    if (!token) throw new ProviderError('tripo', 'upload returned no image token', { retryable: true });
    return token;
  }

  async #waitSuccess(taskId: string, req: ReconstructionRequest): Promise<TripoTask> {
    let wait = this.#pollMs;
    let failures = 0;
    for (;;) {
      let task: TripoTask;
      try {
        task = await this.#call<TripoTask>('GET', `/task/${encodeURIComponent(taskId)}`, req.signal);
        failures = 0;
      } catch (err) {
        // The task keeps running on Tripo's side; a flaky status read is no reason to abandon it.
        if (!(err instanceof ProviderError) || !err.retryable || ++failures > POLL_RETRIES) throw err;
        await sleep(wait, req.signal);
        continue;
      }
      switch (task.status) {
        case 'success':
          return task;
        case 'failed':
        case 'cancelled':
        case 'banned':
        case 'expired':
        case 'unknown':
          throw new ProviderError('tripo', `task ${taskId} ${task.status}${task.error_msg ? `: ${task.error_msg}` : ''}`, { retryable: false });
        case 'queued':
        case 'running':
          if (typeof task.progress === 'number') req.onProgress?.(Math.min(Math.max(task.progress, 0), 100) / 100 * 0.9);
          break;
        default:
          throw new ProviderError('tripo', `task ${taskId} has an unexpected status ${JSON.stringify(task.status)}`, { retryable: true });
      }
      await sleep(wait, req.signal);
      wait = Math.min(Math.round(wait * 1.5), this.#maxPollMs);
    }
  }

  /** One authenticated call; unwraps Tripo's `{code, data, message, suggestion}` envelope. */
  async #call<T>(method: 'GET' | 'POST', path: string, signal: AbortSignal, body?: string | FormData, contentType?: string): Promise<T> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    let status: number;
    let text: string;
    try {
      const res = await fetch(this.#baseUrl + path, {
        method,
        headers: { authorization: `Bearer ${this.#apiKey}`, ...(contentType ? { 'content-type': contentType } : {}) },
        body,
        signal: AbortSignal.any([signal, timeout]),
      });
      status = res.status;
      text = await res.text();
    } catch (cause) {
      if (signal.aborted) throw signal.reason;
      if (timeout.aborted) throw new ProviderError('tripo', `request timed out after ${this.#timeoutMs} ms`, { retryable: true, cause });
      throw new ProviderError('tripo', `network error: ${(cause as Error)?.message ?? String(cause)}`, { retryable: true, cause });
    }
    let env: TripoEnvelope<T> | undefined;
    try {
      env = JSON.parse(text) as TripoEnvelope<T>;
    } catch {
      env = undefined;
    }
    const ok = status >= 200 && status < 300;
    if (!ok || !env || (env.code !== undefined && env.code !== 0)) {
      const what = env?.message ? `${env.message}${env.suggestion ? ` (${env.suggestion})` : ''}` : text.slice(0, 300);
      const inputProblem = status === 400 || status === 413 || status === 422 || (ok && env !== undefined);
      throw new ProviderError('tripo', `HTTP ${status}${env?.code ? ` code ${env.code}` : ''}: ${what}`, { retryable: !inputProblem, status });
    }
    return (env.data ?? {}) as T;
  }
}

/**
 * Places views in Tripo's [front, left, back, right] slots. With angles on every view, each slot takes
 * the closest unused view within 45 degrees of 0/90/180/270 (closest pairs first); the view at angle 0,
 * the side view of a shoe, is the "front". Assumes the azimuth grows in Tripo's slot order (front to
 * the subject's left). Without angles the views fill the slots in order. The front slot is never empty.
 */
export function assignSlots(views: readonly ReconstructionView[]): (ReconstructionView | undefined)[] {
  const slots: (ReconstructionView | undefined)[] = [undefined, undefined, undefined, undefined];
  if (!views.every((v) => typeof v.angleDeg === 'number')) {
    views.slice(0, 4).forEach((v, i) => (slots[i] = v));
    return slots;
  }
  const pairs: { slot: number; view: number; gap: number }[] = [];
  views.forEach((v, view) => {
    for (let slot = 0; slot < 4; slot++) {
      const gap = angleGap(v.angleDeg!, slot * 90);
      if (gap <= 45) pairs.push({ slot, view, gap });
    }
  });
  pairs.sort((a, b) => a.gap - b.gap || a.slot - b.slot || a.view - b.view);
  const taken = new Set<number>();
  for (const p of pairs) {
    if (slots[p.slot] || taken.has(p.view)) continue;
    slots[p.slot] = views[p.view];
    taken.add(p.view);
  }
  if (!slots[0]) {
    // Tripo requires a front view: promote the first filled slot's view.
    const i = slots.findIndex((s) => s !== undefined);
    slots[0] = slots[i];
    slots[i] = undefined;
  }
  return slots;
}

function angleGap(a: number, b: number): number {
  const d = Math.abs((((a - b) % 360) + 360) % 360);
  return Math.min(d, 360 - d);
}

function fileType(contentType: string): string {
  const sub = contentType.split('/')[1]?.split(';')[0]?.trim().toLowerCase() ?? 'png';
  return sub === 'jpg' ? 'jpeg' : sub;
}

/** GLBs live on the vendor's CDN: fetched without the key, https only, size-capped, magic checked. */
async function downloadGlb(url: string, signal: AbortSignal, timeoutMs: number, max: number): Promise<Uint8Array> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ProviderError('tripo', 'model URL is invalid', { retryable: false });
  }
  if (parsed.protocol !== 'https:') throw new ProviderError('tripo', 'model URL is not https', { retryable: false });
  const timeout = AbortSignal.timeout(timeoutMs);
  let bytes: Uint8Array;
  try {
    const res = await fetch(parsed, { signal: AbortSignal.any([signal, timeout]) });
    if (!res.ok) {
      await res.body?.cancel();
      throw new ProviderError('tripo', `model download failed: HTTP ${res.status}`, { retryable: true, status: res.status });
    }
    if (Number(res.headers.get('content-length') ?? 0) > max) {
      await res.body?.cancel();
      throw new ProviderError('tripo', `model is larger than ${max} bytes`, { retryable: false });
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
        throw new ProviderError('tripo', `model is larger than ${max} bytes`, { retryable: false });
      }
      chunks.push(value);
    }
    bytes = new Uint8Array(Buffer.concat(chunks));
  } catch (cause) {
    if (cause instanceof ProviderError) throw cause;
    if (signal.aborted) throw signal.reason;
    if (timeout.aborted) throw new ProviderError('tripo', `model download timed out after ${timeoutMs} ms`, { retryable: true, cause });
    throw new ProviderError('tripo', `model download failed: ${(cause as Error)?.message ?? String(cause)}`, { retryable: true, cause });
  }
  if (bytes.byteLength < 12 || Buffer.from(bytes.subarray(0, 4)).toString('latin1') !== 'glTF') {
    throw new ProviderError('tripo', 'the downloaded model is not a GLB', { retryable: false });
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
    throw new TypeError(`tripo: baseUrl is not a URL: ${value}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`tripo: baseUrl must be http(s): ${value}`);
  return value.replace(/\/+$/, '');
}

function positive(n: number, name: string): number {
  if (!Number.isFinite(n) || n <= 0) throw new TypeError(`tripo: ${name} must be a positive number`);
  return n;
}
