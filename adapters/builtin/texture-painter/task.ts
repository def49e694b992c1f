import type { TexturePaintInput, TexturePaintResult } from '../../../core/ports/texture-painter.ts';
import { BuiltinTexturePainter } from './engine.ts';

export type PaintTaskInput = Omit<TexturePaintInput, 'signal'>;

const engine = new BuiltinTexturePainter();

/** Runs on a CPU pool thread (adapters/builtin/texture-painter/pooled.ts). */
export function paint(input: PaintTaskInput): Promise<TexturePaintResult> {
  return engine.enhance(input);
}
