import type { RasterImage } from '../images.ts';
import { token } from '../plugin.ts';

/**
 * `blend`: keep the painted colours and give them the texture's grain (detail transfer from the
 * surroundings) with a soft seam; `inpaint`: replace the painted region by the texture around it.
 */
export type TexturePaintMode = 'blend' | 'inpaint';
/** Texture edges that continue on the opposite edge (tiling textures, cylindrical UV layouts). */
export type TextureWrap = 'none' | 'x' | 'y' | 'xy';

export interface TexturePaintInput {
  texture: RasterImage;
  /** One byte per pixel, non-zero = painted. Same size as the texture. */
  mask: Uint8Array;
  mode: TexturePaintMode;
  wrap: TextureWrap;
  /** Strength of the transferred detail, 0 (none) to 2; 1 matches the surroundings. */
  detail: number;
  signal?: AbortSignal;
}

export interface TexturePaintResult {
  texture: RasterImage;
  /** Painted regions processed (after joining strokes closer than a few pixels). */
  regions: number;
}

/**
 * TexturePainter: the classical engine behind the texture painter (adapters/builtin/texture-painter).
 * Deterministic: the same input gives the same bytes. Pixels outside the painted region and its
 * seam band are returned unchanged; transparent pixels are never used as a source.
 */
export interface TexturePainter {
  enhance(input: TexturePaintInput): Promise<TexturePaintResult>;
}

export const TEXTURE_PAINTER = token<TexturePainter>('TexturePainter');
