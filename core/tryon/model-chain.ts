import { raceAbort } from '../abort.ts';
import { FitroomError } from '../errors.ts';
import type { EncodedImage } from '../images.ts';
import { ProviderError } from '../ports/image-model.ts';
import type { ImageModelProvider, ModelCall, ModelSpec, ModelTask, ProviderId, Quality } from '../ports/image-model.ts';
import { DEFAULT_MODEL_CHAIN, modelRegistry, type ModelRegistry } from './models.ts';

/** One model tried (or passed over) by the chain, for the job's trace. */
export interface ModelAttempt {
  model: string;
  provider: ProviderId;
  /** skipped: not run (no credentials, too few slots, quality); cancelled: the caller's signal fired. */
  outcome: 'succeeded' | 'failed' | 'timeout' | 'skipped' | 'cancelled';
  durationMs: number;
  error?: string;
  /** What the provider reported about this attempt (the builtin engine's quality checks). */
  facts?: Record<string, unknown>;
}

export interface ModelChainOptions {
  /** The call without a model; the chain fills `model` for each attempt. */
  call: Omit<ModelCall, 'model'>;
  /** The configured providers. A provider without credentials is simply absent. */
  providers: ReadonlyMap<ProviderId, ImageModelProvider> | readonly ImageModelProvider[];
  /** Model ids in fallback order (from configuration); default DEFAULT_MODEL_CHAIN. */
  chain?: readonly string[];
  registry?: ModelRegistry;
  /** `options.model`: run exactly this model, bypassing the chain. */
  pinnedModel?: string;
  /** `options.provider`: only this provider's models. */
  provider?: ProviderId;
  /** Per-attempt limit; on expiry the attempt's signal aborts and the chain moves on. Default 120 s. */
  attemptTimeoutMs?: number;
  onAttempt?: (attempt: ModelAttempt) => void;
}

export interface ModelChainResult {
  images: EncodedImage[];
  model: string;
  provider: ProviderId;
  attempts: ModelAttempt[];
}

const DEFAULT_ATTEMPT_TIMEOUT_MS = 120_000;
const defaultRegistry = modelRegistry;

export interface PinnedModelCheck {
  model: string;
  task: ModelTask;
  quality: Quality;
  referenceCount: number;
  provider?: ProviderId;
  registry?: ModelRegistry;
  /** When given, a model whose provider is not configured is refused too. */
  providers?: ModelChainOptions['providers'];
}

/**
 * Validates `options.model` without calling anything: known, serves the task and quality, belongs to
 * `options.provider` when both are given, and has at least as many input slots as the call sends
 * (else INPUT_REFERENCE_LIMIT). Operations call it at submission so a bad pin never becomes a job.
 */
export function checkPinnedModel(check: PinnedModelCheck): ModelSpec {
  const providers = check.providers ? providerMap(check.providers) : undefined;
  const spec = findSpec(check.model, check.registry ?? defaultRegistry, providers);
  if (!spec) {
    throw new FitroomError('VALIDATION_ERROR', `Unknown model "${check.model}"`, { details: [{ field: 'options.model', message: 'is not a known model' }] });
  }
  if (check.referenceCount > spec.maxReferences) {
    throw new FitroomError(
      'INPUT_REFERENCE_LIMIT',
      `Model ${spec.id} accepts at most ${spec.maxReferences} input reference${spec.maxReferences === 1 ? '' : 's'}; this call sends ${check.referenceCount}`,
    );
  }
  if (!spec.tasks.includes(check.task)) {
    throw new FitroomError('VALIDATION_ERROR', `Model ${spec.id} cannot run ${check.task}`, { details: [{ field: 'options.model', message: `does not support ${check.task}` }] });
  }
  if (!spec.qualities.includes(check.quality)) {
    throw new FitroomError('VALIDATION_ERROR', `Model ${spec.id} has no ${check.quality} quality`, { details: [{ field: 'options.quality', message: `is not offered by ${spec.id}` }] });
  }
  if (check.provider && check.provider !== spec.provider) {
    throw new FitroomError('VALIDATION_ERROR', `Model ${spec.id} belongs to provider ${spec.provider}, not ${check.provider}`, {
      details: [{ field: 'options.provider', message: `does not match the provider of options.model (${spec.provider})` }],
    });
  }
  if (providers && !providers.has(spec.provider)) {
    throw new FitroomError('SERVICE_UNAVAILABLE', `Model ${spec.id} is not available: provider ${spec.provider} is not configured on this deployment`);
  }
  return spec;
}

/**
 * Runs an image call through the fallback chain. Each eligible model is tried in order with its own
 * timeout; a retryable ProviderError or a timeout moves on to the next model, a non-retryable error stops.
 * A pinned model bypasses the chain and is checked against the reference count before any call.
 */
export async function runModelChain(opts: ModelChainOptions): Promise<ModelChainResult> {
  const registry = opts.registry ?? defaultRegistry;
  const providers = providerMap(opts.providers);
  const { call } = opts;
  const attempts: ModelAttempt[] = [];
  const record = (a: ModelAttempt) => {
    attempts.push(a);
    opts.onAttempt?.(a);
  };

  let candidates: ModelSpec[];
  if (opts.pinnedModel !== undefined) {
    const pinned = checkPinnedModel({ model: opts.pinnedModel, task: call.task, quality: call.quality, referenceCount: call.references.length, provider: opts.provider, registry, providers });
    const unfit = dedicatedUnfit(pinned, call);
    if (unfit) throw new FitroomError('VALIDATION_ERROR', `Model ${pinned.id} cannot take this request: ${unfit}`, { details: [{ field: 'options.model', message: unfit }] });
    candidates = [pinned];
  } else {
    candidates = [];
    for (const id of opts.chain ?? DEFAULT_MODEL_CHAIN) {
      const spec = findSpec(id, registry, providers);
      if (!spec) throw new FitroomError('SERVICE_UNAVAILABLE', `The model chain names an unknown model "${id}"`);
      // A dedicated try-on model that cannot take this call (no garment photos, a slot it does not
      // dress, several garments) is passed over like a model of another task.
      if (spec.tasks.includes(call.task) && (!opts.provider || spec.provider === opts.provider) && !dedicatedUnfit(spec, call) && !candidates.includes(spec)) candidates.push(spec);
    }
  }

  const timeoutMs = opts.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  let lastFailure: unknown;
  // the engine's own refusal of its result, kept so the job can name it when no later model succeeds
  let unreliable: { model: string; error: ProviderError } | undefined;
  // providers whose key or credits failed in this call: their other models would fail the same way
  const refused = new Map<ProviderId, string>();
  for (const spec of candidates) {
    const skip = (error: string) => record({ model: spec.id, provider: spec.provider, outcome: 'skipped', durationMs: 0, error });
    const provider = providers.get(spec.provider);
    if (!provider) {
      skip(`provider ${spec.provider} is not configured`);
      continue;
    }
    // A family entry calls its current member (discovery keeps it current); a pinned id calls itself.
    const model = registry.target(spec.id);
    if (model === undefined) {
      skip(`follows the family ${registry.families().find((f) => f.id === spec.id)?.follow}: no active model of it is known yet`);
      continue;
    }
    const retired = registry.retiredReason(model);
    if (retired) {
      skip(`retired: ${retired}`);
      continue;
    }
    // The vendor announced its end: passed over before any job tries it (an explicit options.model still runs).
    const deprecated = opts.pinnedModel === undefined ? registry.deprecation(model) : undefined;
    if (deprecated) {
      skip(`deprecated by ${deprecated.provider}${deprecated.successor ? ` (successor: ${deprecated.successor})` : ''}`);
      continue;
    }
    if (refused.has(spec.provider)) {
      skip(`provider ${spec.provider} refused this deployment's account: ${refused.get(spec.provider)}`);
      continue;
    }
    if (spec.kind !== 'tryon' && call.references.length > spec.maxReferences) {
      skip(`accepts at most ${spec.maxReferences} references; the call has ${call.references.length}`);
      continue;
    }
    // what the model is sent: a dedicated model gets the person and the garment photos, not the grid
    const sent = spec.kind === 'tryon' ? [...call.references.filter((r) => r.role === 'person').map((r) => r.image), ...(call.garments ?? []).flatMap((g) => (g.onModel ? [g.image, g.onModel] : [g.image]))] : call.references.map((r) => r.image);
    const largest = Math.max(0, ...sent.map((i) => i.bytes.byteLength));
    if (spec.maxImageBytes !== undefined && largest > spec.maxImageBytes) {
      skip(`accepts images up to ${spec.maxImageBytes} bytes; the call has one of ${largest}`);
      continue;
    }
    if (!spec.qualities.includes(call.quality)) {
      skip(`no ${call.quality} quality`);
      continue;
    }
    if (call.signal.aborted) throw call.signal.reason;

    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([call.signal, timeout]);
    let facts: Record<string, unknown> | undefined;
    const report = (f: Record<string, unknown>) => {
      facts = { ...facts, ...f };
    };
    const withFacts = (a: ModelAttempt): ModelAttempt => (facts ? { ...a, facts } : a);
    try {
      const images = await raceAbort(provider.run({ ...call, model, signal, report }), signal);
      if (images.length === 0) throw new ProviderError(spec.provider, `${model} returned no image`, { retryable: true });
      record(withFacts({ model, provider: spec.provider, outcome: 'succeeded', durationMs: elapsed() }));
      return { images, model, provider: spec.provider, attempts };
    } catch (err) {
      if (call.signal.aborted) {
        record(withFacts({ model, provider: spec.provider, outcome: 'cancelled', durationMs: elapsed(), error: 'cancelled' }));
        throw call.signal.reason;
      }
      if (timeout.aborted) {
        record(withFacts({ model, provider: spec.provider, outcome: 'timeout', durationMs: elapsed(), error: `no answer within ${timeoutMs} ms` }));
        lastFailure = err;
        continue;
      }
      const message = err instanceof Error ? err.message : String(err);
      record(withFacts({ model, provider: spec.provider, outcome: 'failed', durationMs: elapsed(), error: message }));
      // The engine refused its own result: a later model may do better; none left, the job names the reason.
      if (err instanceof ProviderError && err.code === 'RESULT_UNRELIABLE') {
        unreliable ??= { model, error: err };
        lastFailure = err;
        continue;
      }
      // The model is gone (retired, renamed): out of every chain of this process, reported once.
      if (err instanceof ProviderError && err.code === 'MODEL_UNAVAILABLE') {
        registry.retire(model, message);
        lastFailure = err;
        continue;
      }
      if (err instanceof ProviderError && err.code === 'PROVIDER_ACCOUNT') {
        refused.set(spec.provider, message);
        lastFailure = err;
        continue;
      }
      if (err instanceof ProviderError && err.retryable) {
        lastFailure = err;
        continue;
      }
      if (err instanceof ProviderError) {
        throw new FitroomError('IMAGE_INVALID', `The model ${model} refused the input: ${message}`, { cause: err, retryable: false });
      }
      throw err;
    }
  }

  if (unreliable) {
    const { model, error } = unreliable;
    const reason = error.message.startsWith(`${error.provider}: `) ? error.message.slice(error.provider.length + 2) : error.message;
    throw new FitroomError('RESULT_UNRELIABLE', `${model} refused its own result: ${reason}`, { cause: error, retryable: false });
  }
  const tried = attempts.filter((a) => a.outcome !== 'skipped');
  if (tried.length === 0) {
    const why = attempts.map((a) => `${a.model}: ${a.error}`).join('; ');
    throw new FitroomError(
      'SERVICE_UNAVAILABLE',
      `No configured model can run ${call.task}${opts.provider ? ` on provider ${opts.provider}` : ''} with ${call.references.length} reference${call.references.length === 1 ? '' : 's'}${why ? ` (${why})` : ''}`,
    );
  }
  throw new FitroomError('SERVICE_UNAVAILABLE', `Every model in the chain failed: ${tried.map((a) => `${a.model} ${a.outcome}${a.error ? ` (${a.error})` : ''}`).join('; ')}`, {
    cause: lastFailure,
    retryable: true,
  });
}

/**
 * Why a dedicated try-on model cannot take a call (undefined when it can): it needs the person and
 * the garment photos as they are, one garment per call, in a slot it dresses. Other models always fit.
 */
export function dedicatedUnfit(spec: ModelSpec, call: Pick<ModelCall, 'references' | 'garments'>): string | undefined {
  if (spec.kind !== 'tryon') return undefined;
  if (!call.references.some((r) => r.role === 'person')) return 'it needs a person image';
  const garments = call.garments ?? [];
  if (garments.length === 0) return 'it needs the garment photos';
  if (1 + garments.length > spec.maxReferences) return `it dresses ${spec.maxReferences - 1} garment${spec.maxReferences === 2 ? '' : 's'} a call; this request has ${garments.length}`;
  const other = garments.find((g) => !(spec.slots ?? []).includes(g.slot));
  if (other) return `it does not dress ${other.slot} (only ${(spec.slots ?? []).join(', ')})`;
  return undefined;
}

function providerMap(p: ModelChainOptions['providers']): ReadonlyMap<ProviderId, ImageModelProvider> {
  if (p instanceof Map) return p;
  return new Map((p as readonly ImageModelProvider[]).map((x) => [x.id, x]));
}

/** The registry first; a provider may also declare models of its own (e.g. a plugin's builtin engine). */
function findSpec(id: string, registry: ModelRegistry, providers?: ReadonlyMap<ProviderId, ImageModelProvider>): ModelSpec | undefined {
  const known = registry.get(id);
  if (known) return known;
  for (const provider of providers?.values() ?? []) {
    const spec = provider.models().find((m) => m.id === id);
    if (spec) return spec;
  }
  return undefined;
}
