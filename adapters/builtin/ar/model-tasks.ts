import type { ColorPreset } from '../../../core/ports/ar-object-store.ts';
import type { EncodedImage } from '../../../core/images.ts';
import type { ErrorCode, ErrorDetail } from '../../../core/errors.ts';
import { SharpImageCodec } from '../../sharp/image-codec.ts';
import { BuiltinArModelProcessor } from './model-processor.ts';

/** A task's answer: the bytes, or the refusal as plain data (errors lose their fields across threads). */
export type ModelTaskResult = { ok: true; bytes: Uint8Array } | { ok: false; code?: ErrorCode; message: string; details?: ErrorDetail[] };

const processor = new BuiltinArModelProcessor(new SharpImageCodec());

async function settle(work: () => Promise<Uint8Array>): Promise<ModelTaskResult> {
  try {
    return { ok: true, bytes: await work() };
  } catch (e) {
    const err = e as { code?: ErrorCode; message?: string; details?: ErrorDetail[]; name?: string };
    return err?.name === 'FitroomError' ? { ok: false, code: err.code, message: err.message ?? '', details: err.details } : { ok: false, message: err?.message ?? String(e) };
  }
}

/** Runs on a CPU pool thread: bakes a colour preset, with the textures it names already read. */
export function bake(input: { glb: Uint8Array; preset: ColorPreset | undefined; textures: Record<string, EncodedImage>; label: string }): Promise<ModelTaskResult> {
  return settle(() => processor.bake(input.glb, input.preset, async (name) => input.textures[name] ?? null, input.label));
}

/** Runs on a CPU pool thread: a USDZ for AR Quick Look from a baked GLB. */
export function usdz(glb: Uint8Array): Promise<ModelTaskResult> {
  return settle(() => processor.usdz(glb));
}
