import { ProviderError, type VendorCheck } from '../../core/ports/image-model.ts';
import type { ProductReconstructor, ReconstructionRequest, ReconstructionResult, ReconstructionView, VendorTask } from '../../core/ports/product-reconstructor.ts';
import { downloadCapped, httpError, pollUntil, positiveOption, requireGlb, vendorRequest, vendorSettings } from '../http/vendor.ts';
import type { ErrorReader, VendorOptions, VendorRequest, VendorSettings } from '../http/vendor.ts';

export interface TripoOptions extends VendorOptions {
  /** Default https://openapi.tripo3d.ai/v3 (global; https://openapi.tripo3d.com/v3 serves China). */
  baseUrl?: string;
  /** Timeout of each HTTP request. Default 30 s (downloads get four times that). */
  timeoutMs?: number;
  /** First wait between task polls, growing by half up to maxPollIntervalMs. Default 2 s (the SDKs' cadence). */
  pollIntervalMs?: number;
  /** Default 10 s. */
  maxPollIntervalMs?: number;
  /** Largest GLB accepted. Default 200 MB. */
  maxGlbBytes?: number;
  /** `model`: the model version. Default v3.1-20260211, the newest generation model the Go SDK lists. */
  modelVersion?: string;
  /** How long one task may take from its creation before the job gives up on it. Default 10 min. */
  taskTimeoutMs?: number;
}

/** The newest 3D generation model of the v3 API (Go SDK constants.go: ModelVersionH31). */
export const TRIPO_DEFAULT_MODEL = 'v3.1-20260211';

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
  output?: { model_url?: string; model?: string; pbr_model?: string; base_model?: string; model_urls?: string[] };
  error_code?: number;
  error_message?: string;
  /** The v2 name of error_message, still in Tripo's error guide example. */
  error_msg?: string;
}

/** Tripo's multiview slots, in request order, and the azimuth each stands for. */
const SLOTS = ['front', 'left', 'back', 'right'] as const;
const POLL_RETRIES = 4;

/**
 * Tripo v3 API (official Go SDK VAST-AI-Research/tripo-go-sdk): each view is uploaded
 * (`POST /files`, multipart `file` → `file_token`), then one `POST /generation/multiview-to-model`
 * gets the tokens in its `inputs` [front, left, back, right] (an empty string skips a slot; a single
 * view goes to `POST /generation/image-to-model` as `input`). `GET /tasks/{id}` is polled until
 * `success` (`unknown` keeps polling, as the SDKs do) and `output.model_url`, which expires about five
 * minutes after completion, is downloaded at once. Task creation is never retried here: a
 * retried job resumes the task it stored (`resume`), and Tripo documents no idempotency key.
 * Tripo documents no way to cancel a task, so this adapter has no `cancel`.
 */
export class TripoProductReconstructor implements ProductReconstructor {
  readonly id = 'tripo' as const;
  readonly taskTimeoutMs: number;
  readonly #http: VendorSettings;
  readonly #maxGlbBytes: number;
  readonly #modelVersion: string;

  constructor(options: TripoOptions) {
    this.#http = vendorSettings('tripo', 'TRIPO_API_KEY', options, { baseUrl: 'https://openapi.tripo3d.ai/v3', timeoutMs: 30_000, pollIntervalMs: 2_000, maxPollIntervalMs: 10_000 });
    this.#maxGlbBytes = positiveOption('tripo', 'maxGlbBytes', options.maxGlbBytes ?? 200 * 1024 * 1024);
    this.#modelVersion = options.modelVersion ?? TRIPO_DEFAULT_MODEL;
    this.taskTimeoutMs = positiveOption('tripo', 'taskTimeoutMs', options.taskTimeoutMs ?? 10 * 60_000);
  }

  async reconstruct(req: ReconstructionRequest): Promise<ReconstructionResult> {
    const notes: string[] = [];
    const note = (m: string) => {
      notes.push(m);
      req.note?.(m);
    };
    const task = req.resume ?? (await this.#create(req, note));
    if (req.resume) note(`tripo: resuming task ${task.id} (created ${task.createdAt})`);
    req.onProgress?.(0);

    const done = await this.#waitSuccess(task, req, note);
    const out = done.output ?? {};
    const url = out.model_url ?? out.pbr_model ?? out.model ?? out.base_model ?? out.model_urls?.[0];
    if (!url) throw new ProviderError('tripo', `task ${task.id} succeeded without a model URL`, { retryable: false });
    // the URL expires minutes after completion: fetched right away, never stored
    const model = await downloadCapped('tripo', url, { signal: req.signal, timeoutMs: this.#http.timeoutMs * 4, maxBytes: this.#maxGlbBytes, what: 'model', badUrlRetryable: false });
    const glb = requireGlb('tripo', model.bytes);
    req.onProgress?.(1);
    return { glb, notes };
  }

  /** Uploads the views and creates the task; the job stores it (onTask) before anything else. */
  async #create(req: ReconstructionRequest, note: (m: string) => void): Promise<VendorTask> {
    if (req.views.length === 0) throw new ProviderError('tripo', 'no views to reconstruct from', { retryable: false });
    const slots = assignSlots(req.views);
    const used = slots.filter((v): v is ReconstructionView => v !== undefined);
    if (used.length < req.views.length) note(`tripo: used ${used.length} of ${req.views.length} views (one per front/left/back/right slot)`);

    const tokens = new Map<ReconstructionView, string>();
    for (const view of used) tokens.set(view, await this.#upload(view, req.signal));

    const common = {
      model: this.#modelVersion,
      texture: true,
      pbr: true,
      texture_quality: req.quality === 'high' ? 'detailed' : 'standard',
    };
    const multiview = used.length >= 2;
    // v3 takes a bare file token per input; an empty string leaves a multiview slot out
    const [path, body] = multiview
      ? ['/generation/multiview-to-model', { inputs: slots.map((v) => (v ? tokens.get(v)! : '')), ...common }]
      : ['/generation/image-to-model', { input: tokens.get(used[0])!, ...common }];
    const created = await this.#call<{ task_id?: string }>(path, { method: 'POST', json: body, signal: req.signal });
    if (!created.task_id) throw new ProviderError('tripo', 'task creation returned no task_id', { retryable: false });
    const task = { id: created.task_id, createdAt: new Date().toISOString() };
    await req.onTask?.(task);
    note(multiview ? `tripo: task ${task.id} (multiview-to-model, slots ${slots.map((v, i) => (v ? SLOTS[i] : '-')).join('/')})` : `tripo: task ${task.id} (image-to-model, one view)`);
    return task;
  }

  async #upload(view: ReconstructionView, signal: AbortSignal): Promise<string> {
    const form = new FormData();
    const ext = fileType(view.encoded.contentType);
    form.append('file', new Blob([Buffer.from(view.encoded.bytes)], { type: view.encoded.contentType }), `view.${ext}`);
    const data = await this.#call<{ file_token?: string }>('/files', { method: 'POST', form, signal });
    if (!data.file_token) throw new ProviderError('tripo', 'upload returned no file_token', { retryable: true });
    return data.file_token;
  }

  #waitSuccess(task: VendorTask, req: ReconstructionRequest, note: (m: string) => void): Promise<TripoTask> {
    const elapsed = Date.now() - Date.parse(task.createdAt);
    let unknownSaid = false;
    return pollUntil<TripoTask>(this.#http, {
      signal: req.signal,
      growth: 1.5,
      // The task keeps running on Tripo's side; a flaky status read is no reason to abandon it.
      retries: POLL_RETRIES,
      maxWaitMs: Math.max(this.taskTimeoutMs - (Number.isFinite(elapsed) ? Math.max(elapsed, 0) : 0), 1),
      read: () => this.#call<TripoTask>(`/tasks/${encodeURIComponent(task.id)}`, { signal: req.signal }),
      done: (t) => {
        switch (t.status) {
          case 'success':
            return true;
          case 'failed':
          case 'cancelled':
          case 'banned':
          case 'expired': {
            const why = t.error_message ?? t.error_msg;
            const code = t.error_code ? ` (error_code ${t.error_code}${CONTENT_POLICY.has(t.error_code) ? ', content policy' : ''})` : t.status === 'banned' ? ' (content policy)' : '';
            throw new ProviderError('tripo', `task ${task.id} ${t.status}${why ? `: ${why}` : ''}${code}`, { retryable: false });
          }
          case 'queued':
          case 'running':
            if (typeof t.progress === 'number') req.onProgress?.(Math.min(Math.max(t.progress, 0), 100) / 100 * 0.9);
            return false;
          default:
            // `unknown` (or a status added later): the SDKs keep polling, and so does the job, within its timeout
            if (!unknownSaid) note(`tripo: task ${task.id} reported status ${JSON.stringify(t.status)}; still polling`);
            unknownSaid = true;
            return false;
        }
      },
    });
  }

  /** Live check: `GET /account/balance` proves the key and reports the credits. */
  async check(signal: AbortSignal): Promise<VendorCheck> {
    try {
      const data = await this.#call<{ balance?: number; frozen?: number }>('/account/balance', { signal });
      return { provider: 'tripo', status: 'ok', models: [{ id: this.#modelVersion, available: true, detail: 'pinned model' }], ...(typeof data.balance === 'number' ? { balance: data.balance } : {}), ...(data.balance === 0 ? { message: 'no credits left: tasks will be refused (2010)' } : {}) };
    } catch (e) {
      if (signal.aborted) throw signal.reason;
      const err = e as ProviderError;
      return { provider: 'tripo', status: err.code === 'PROVIDER_ACCOUNT' ? 'account_refused' : err.code === 'MODEL_UNAVAILABLE' ? 'model_missing' : err.status === undefined ? 'unreachable' : 'error', message: err.message };
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
    // A non-zero code fails the call even under HTTP 200 (the Go SDK's parseEnvelope).
    if (res.status < 200 || res.status >= 300 || !env || (env.code !== undefined && env.code !== 0)) throw httpError('tripo', res, readError);
    return (env.data ?? {}) as T;
  }
}

/*
 * Tripo's error codes (docs.tripo3d.ai, "Errors", error code list): 1000/1001 server (500); 1002
 * authentication (401); 1003/1004 malformed or invalid request (400); 1005 not allowed (403); 1007 and
 * 2000 rate or concurrency limit (429, with Retry-After); 2001 task not found and 2019 file not found
 * (404); 2002-2009 and 2011-2012 the input (400; 2008 the content policy); 2010 needs credits (403);
 * 2014 moderation service error (500); 2015 deprecated version, 2016 deprecated request type, 2017
 * invalid version (400).
 */
const ACCOUNT = new Set([1002, 1005, 2010]);
const VERSION_GONE = new Set([2015, 2016, 2017]);
const TRANSIENT = new Set([1000, 1001, 1007, 2000, 2014]);
const NOT_FOUND = new Set([2001, 2019]);
const CONTENT_POLICY = new Set([2008]);

/** Tripo errors: the envelope's code decides, whatever the HTTP status (a refusal may come under 200). */
const readError: ErrorReader = (env: TripoEnvelope<unknown> | undefined, status) => {
  const code = typeof env?.code === 'number' && env.code !== 0 ? env.code : undefined;
  const known = code !== undefined && (ACCOUNT.has(code) || VERSION_GONE.has(code) || TRANSIENT.has(code) || NOT_FOUND.has(code));
  return {
    message: env?.message ? `${env.message}${env.suggestion ? ` (${env.suggestion})` : ''}` : undefined,
    tag: code !== undefined ? `code ${code}${CONTENT_POLICY.has(code) ? ' (content policy)' : ''}` : undefined,
    account: (code !== undefined && ACCOUNT.has(code)) || status === 401 || status === 403,
    modelUnavailable: code !== undefined && VERSION_GONE.has(code),
    // any other code names a fault of the request: sending it again unchanged cannot succeed
    inputProblem: (code !== undefined && (NOT_FOUND.has(code) || !known)) || (code === undefined && (status === 400 || status === 404 || status === 413 || status === 422)),
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
