/**
 * The builtin ImageModelProvider for try-on: runs the classical warp engine on the structured
 * input (a BodyRender and the decoded garments per slot) and returns one PNG. It ignores prompts
 * and encoded references; vendors ignore the structured input. A result on a person photo (or a
 * twin drawn on its parts) passes the quality gate first (quality-gate.ts): its checks go to the
 * attempt's trace, and a refused result is a RESULT_UNRELIABLE failure, so the chain moves on or
 * the job names the reason.
 */
import type { ImageCodec } from '../../../core/ports/image-codec.ts';
import { type ImageModelProvider, type ModelCall, type ModelSpec, ProviderError } from '../../../core/ports/image-model.ts';
import type { EncodedImage } from '../../../core/images.ts';
import { isFitroomError } from '../../../core/errors.ts';
import { modelsForProvider } from '../../../core/tryon/models.ts';
import { isTryOnStructuredInput, type TryOnStructuredInput } from '../../../core/tryon/tryon-input.ts';
import { classifyGarment, type GarmentCategory } from './classify-garment.ts';
import { cutOut } from './garment-pieces.ts';
import type { TryOnDiagnostics } from './diagnostics.ts';
import { checkTryOnResult, type GateBounds, type GateCheck } from './quality-gate.ts';
import { renderTryOn, type TryOnGarments } from './render-tryon.ts';

export const BUILTIN_TRYON_MODEL = 'builtin-warp';

function garmentsOf(input: TryOnStructuredInput): TryOnGarments {
  const g = input.garments;
  return { top: g.topGarment?.packshot, bottom: g.bottomGarment?.packshot, fullBody: g.fullBodyGarment?.packshot, shoes: g.shoes?.packshot };
}

export class BuiltinTryOnProvider implements ImageModelProvider {
  readonly id = 'builtin' as const;
  readonly #codec: Pick<ImageCodec, 'encode'>;
  readonly #models: readonly ModelSpec[];
  readonly #gate: Partial<GateBounds> | undefined;

  /** `gate`: bounds of the quality gate other than the calibrated GATE_BOUNDS (tests tighten one). */
  constructor(codec: Pick<ImageCodec, 'encode'>, opts: { gate?: Partial<GateBounds> } = {}) {
    this.#codec = codec;
    this.#gate = opts.gate;
    this.#models = modelsForProvider('builtin').filter((m) => m.id === BUILTIN_TRYON_MODEL);
  }

  models(): readonly ModelSpec[] {
    return this.#models;
  }

  async run(call: ModelCall): Promise<EncodedImage[]> {
    const spec = this.#models.find((m) => m.id === call.model);
    if (!spec) throw new ProviderError('builtin', `unknown model ${call.model}`, { retryable: false });
    if (!spec.tasks.includes(call.task)) throw new ProviderError('builtin', `${call.model} cannot run ${call.task}`, { retryable: false });
    const input = call.structured;
    if (!isTryOnStructuredInput(input)) throw new ProviderError('builtin', 'the try-on engine needs a body render and decoded garments', { retryable: false });
    call.signal.throwIfAborted();
    const longSide = Number(spec.params(call.quality).longSide) || undefined;
    const photo = input.body.pose === 'photo';
    // the renderer's measurements feed the quality gate, which judges person photos and twins drawn
    // on their parts the same way
    const gated = photo || !!input.body.parts;
    const diagnostics: TryOnDiagnostics | undefined = gated ? { layers: [] } : undefined;
    let image;
    try {
      // a product's category decided once from its shape when `auto` (the renderer takes it as given)
      const p = input.product;
      const product = p && { image: p.image, category: p.category === 'auto' ? classifyGarment(cutOut(p.image, 'top')) : (p.category as GarmentCategory) };
      // trousers and skirts are laid as flat pieces fitted to a twin's legs; over a person's own
      // trousers they would be a collage, so the engine does not offer them there
      if (photo && (input.garments.bottomGarment || product?.category === 'bottom')) {
        throw new ProviderError('builtin', "trousers or a skirt on a person photo would lie flat over the person's own clothes: this engine fits bottoms to digital twins only", { retryable: false, code: 'RESULT_UNRELIABLE' });
      }
      image = renderTryOn({
        body: input.body,
        garments: garmentsOf(input),
        product,
        quality: call.quality,
        longSide,
        preserveBackground: input.preserveBackground,
        signal: call.signal,
        diagnostics,
      });
    } catch (e) {
      if (call.signal.aborted) throw call.signal.reason ?? e;
      if (e instanceof ProviderError) throw e;
      // an unusable garment image is the input's fault: another attempt would fail the same way
      const reason = isFitroomError(e) ? e.message : (e as Error).message;
      throw new ProviderError('builtin', `try-on failed: ${reason}`, { retryable: false, cause: e });
    }
    call.signal.throwIfAborted();
    if (gated) {
      const garments = garmentsOf(input);
      const verdict = checkTryOnResult({
        person: input.body,
        result: image,
        garments: { top: garments.top, bottom: garments.bottom, 'full-body': garments.fullBody, shoe: garments.shoes, ...(input.product && input.product.category !== 'auto' ? { [input.product.category]: input.product.image } : {}) },
        diagnostics: diagnostics!,
        bounds: this.#gate,
      });
      call.report?.({ qualityGate: { passed: verdict.passed, ...(verdict.reason ? { reason: verdict.reason } : {}), checks: verdict.checks.map(traceCheck) } });
      if (!verdict.passed) throw new ProviderError('builtin', verdict.reason!, { retryable: false, code: 'RESULT_UNRELIABLE' });
    }
    return [await this.#codec.encode(image, 'png')];
  }
}

/** A check as the trace shows it: rounded, with "not measured" spelled out. */
function traceCheck(c: GateCheck): Record<string, unknown> {
  const round = (v: number) => Math.round(v * 10000) / 10000;
  const bound = c.kind === 'ratio' ? { min: round(1 / c.bound), max: round(c.bound) } : { [c.kind]: round(c.bound) };
  return { layer: c.layer, check: c.check, value: c.value === null ? 'not measured' : round(c.value), ...bound, passed: c.passed, ...(c.source ? { by: c.source } : {}) };
}
