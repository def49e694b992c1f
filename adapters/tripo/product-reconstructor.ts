import { ProviderError, type VendorCheck } from '../../core/ports/image-model.ts';
import type { ProductReconstructor, ReconstructionRequest, ReconstructionResult, ReconstructionView } from '../../core/ports/product-reconstructor.ts';
import { INPUT_STATUSES, downloadCapped, httpError, pollUntil, positiveOption, requireGlb, vendorRequest, vendorSettings } from '../http/vendor.ts';
import type { ErrorReader, VendorOptions, VendorRequest, VendorSettings } from '../http/vendor.ts';

export interface TripoOptions extends VendorOptions {
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
  /** Give up on a task after this long. Default 15 min. */
  maxWaitMs?: number;
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
 * Tripo task API (v2 openapi): each view is uploaded (`POST /upload/sts` → image token), then one
 * `multiview_to_model` task gets the tokens in its [front, left, back, right] slots (a single view
 * becomes an `image_to_model` task); `GET /task/{id}` is polled until `success` and the PBR GLB
 * is downloaded.
 */
export class TripoProductReconstructor implements ProductReconstructor {
  readonly id = 'tripo' as const;
  readonly #http: VendorSettings;
  readonly #maxGlbBytes: number;
  readonly #modelVersion: string;
  readonly #maxWaitMs: number;

  constructor(options: TripoOptions) {
    this.#http = vendorSettings('tripo', 'TRIPO_API_KEY', options, { baseUrl: 'https://api.tripo3d.ai/v2/openapi', timeoutMs: 30_000, pollIntervalMs: 2_000, maxPollIntervalMs: 10_000 });
    this.#maxGlbBytes = positiveOption('tripo', 'maxGlbBytes', options.maxGlbBytes ?? 200 * 1024 * 1024);
    this.#modelVersion = options.modelVersion ?? 'v2.5-20250123';
    this.#maxWaitMs = positiveOption('tripo', 'maxWaitMs', options.maxWaitMs ?? 15 * 60_000);
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
    const created = await this.#call<{ task_id?: string }>('/task', { method: 'POST', json: task, signal: req.signal });
    const taskId = created.task_id;
    if (!taskId) throw new ProviderError('tripo', 'task creation returned no task_id', { retryable: true });
    note(`tripo: task ${taskId} (${task.type}, slots ${slots.map((v, i) => (v ? SLOTS[i] : '-')).join('/')})`);
    req.onProgress?.(0);

    const done = await this.#waitSuccess(taskId, req);
    const url = done.output?.pbr_model ?? done.output?.model ?? done.output?.base_model;
    if (!url) throw new ProviderError('tripo', `task ${taskId} succeeded without a model URL`, { retryable: false });
    const model = await downloadCapped('tripo', url, { signal: req.signal, timeoutMs: this.#http.timeoutMs * 4, maxBytes: this.#maxGlbBytes, what: 'model', badUrlRetryable: false });
    const glb = requireGlb('tripo', model.bytes);
    req.onProgress?.(1);
    return { glb, notes };
  }

  async #upload(view: ReconstructionView, signal: AbortSignal): Promise<string> {
    const form = new FormData();
    const ext = fileType(view.encoded.contentType);
    form.append('file', new Blob([Buffer.from(view.encoded.bytes)], { type: view.encoded.contentType }), `view.${ext}`);
    // The documented upload route (Tripo API docs, "Upload"): multipart `file` → `{image_token}`.
    const data = await this.#call<{ image_token?: string; file_token?: string }>('/upload/sts', { method: 'POST', form, signal });
    const token = data.image_token ?? data.file_token;
    if (!token) throw new ProviderError('tripo', 'upload returned no image token', { retryable: true });
    return token;
  }

  #waitSuccess(taskId: string, req: ReconstructionRequest): Promise<TripoTask> {
    return pollUntil<TripoTask>(this.#http, {
      signal: req.signal,
      growth: 1.5,
      // The task keeps running on Tripo's side; a flaky status read is no reason to abandon it.
      retries: POLL_RETRIES,
      maxWaitMs: this.#maxWaitMs,
      read: () => this.#call<TripoTask>(`/task/${encodeURIComponent(taskId)}`, { signal: req.signal }),
      done: (task) => {
        switch (task.status) {
          case 'success':
            return true;
          case 'failed':
          case 'cancelled':
          case 'banned':
          case 'expired':
          case 'unknown':
            throw new ProviderError('tripo', `task ${taskId} ${task.status}${task.error_msg ? `: ${task.error_msg}` : ''}`, { retryable: false });
          case 'queued':
          case 'running':
            if (typeof task.progress === 'number') req.onProgress?.(Math.min(Math.max(task.progress, 0), 100) / 100 * 0.9);
            return false;
          default:
            throw new ProviderError('tripo', `task ${taskId} has an unexpected status ${JSON.stringify(task.status)}`, { retryable: true });
        }
      },
    });
  }

  /** Live check: `GET /user/balance` (the SDK's get_balance) proves the key and reports the credits. */
  async check(signal: AbortSignal): Promise<VendorCheck> {
    try {
      const data = await this.#call<{ balance?: number; frozen?: number }>('/user/balance', { signal });
      return { provider: 'tripo', status: 'ok', models: [{ id: this.#modelVersion, available: true, detail: 'pinned model_version' }], ...(typeof data.balance === 'number' ? { balance: data.balance } : {}), ...(data.balance === 0 ? { message: 'no credits left: tasks will be refused (2010)' } : {}) };
    } catch (e) {
      if (signal.aborted) throw signal.reason;
      const err = e as ProviderError;
      return { provider: 'tripo', status: err.code === 'PROVIDER_ACCOUNT' ? 'account_refused' : err.status === undefined ? 'unreachable' : 'error', message: err.message };
    }
  }

  /** One authenticated call; unwraps Tripo's `{code, data, message, suggestion}` envelope. */
  async #call<T>(path: string, req: Omit<VendorRequest, 'headers' | 'timeoutMs'>): Promise<T> {
    const { baseUrl, apiKey, timeoutMs } = this.#http;
    const res = await vendorRequest('tripo', baseUrl + path, { ...req, headers: { authorization: `Bearer ${apiKey}` }, timeoutMs });
    let env: TripoEnvelope<T> | undefined;
    try {
      env = JSON.parse(res.text) as TripoEnvelope<T>;
    } catch {
      env = undefined;
    }
    // A non-zero code fails the call even under HTTP 200.
    if (res.status < 200 || res.status >= 300 || !env || (env.code !== undefined && env.code !== 0)) throw httpError('tripo', res, readError);
    return (env.data ?? {}) as T;
  }
}

/** Tripo's codes (API docs, "Errors"): 2010 needs credits (403); 2015 and 2017 a deprecated or invalid model_version. */
const NEEDS_CREDITS = 2010;
const VERSION_GONE = new Set([2015, 2017]);

/** Tripo errors: the envelope's code, message and suggestion; a refusal under HTTP 2xx is about the request. */
const readError: ErrorReader = (env: TripoEnvelope<unknown> | undefined, status) => {
  const ok = status >= 200 && status < 300;
  return {
    message: env?.message ? `${env.message}${env.suggestion ? ` (${env.suggestion})` : ''}` : undefined,
    tag: env?.code ? `code ${env.code}` : undefined,
    account: env?.code === NEEDS_CREDITS || status === 401 || status === 403,
    modelUnavailable: env?.code !== undefined && VERSION_GONE.has(env.code),
    inputProblem: INPUT_STATUSES.has(status) || (ok && env !== undefined),
  };
};

/**
 * Places views in Tripo's [front, left, back, right] slots. With angles on every view, each slot takes
 * the closest unused view within 45 degrees of 0/90/180/270 (closest pairs first); the view at angle 0,
 * the side view of a shoe, is the "front". The renderer's azimuth grows towards the subject's left
 * (camera at +x for 90 degrees while the subject faces +z), which is Tripo's slot order; a test renders
 * a cube with coloured sides and checks each slot's upload. Without angles the views fill the slots in
 * order. The front slot is never empty.
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
