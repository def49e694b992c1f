import { Logger } from '@gltf-transform/core';
import { dedup, meshopt, prune, simplify, textureCompress, weld } from '@gltf-transform/functions';
import { MeshoptEncoder, MeshoptSimplifier } from 'meshoptimizer';
import sharp from 'sharp';
import { gltfIO } from './read-glb.ts';

export interface CompressOptions {
  /** Byte budget the result must fit. */
  maxBytes: number;
  /** Largest texture side to try first (smaller ones follow by halving down to 256). */
  maxTextureSize?: number;
  signal?: AbortSignal;
}

export interface CompressResult {
  glb: Uint8Array;
  bytes: number;
  withinBudget: boolean;
  /** What was tried, in order, with the size each attempt gave. */
  steps: string[];
}

/**
 * Shrinks a GLB until it fits `maxBytes`: textures re-encoded as WebP (EXT_texture_webp) at
 * falling quality and halving size, geometry welded and meshopt-compressed
 * (EXT_meshopt_compression); as a last resort the geometry is simplified by half. Textures are
 * about nine tenths of a textured product model's bytes, so they go first. A GLB already within
 * the budget is returned unchanged. Validate before compressing: the Khronos validator cannot
 * decode meshopt buffers.
 */
export async function compressGlb(glb: Uint8Array, opts: CompressOptions): Promise<CompressResult> {
  const steps: string[] = [];
  if (glb.byteLength <= opts.maxBytes) {
    steps.push(`within budget as is (${glb.byteLength} bytes)`);
    return { glb, bytes: glb.byteLength, withinBudget: true, steps };
  }
  await MeshoptEncoder.ready;
  await MeshoptSimplifier.ready;
  const io = await gltfIO();
  const largest = await largestTextureSide(glb);
  const size = Math.min(opts.maxTextureSize ?? 4096, Math.max(256, largest || 256));
  const attempts: { size: number; quality: number; simplifyRatio: number }[] = [];
  for (let s = size; s >= 256; s = Math.floor(s / 2)) {
    for (const quality of [90, 80, 70]) attempts.push({ size: s, quality, simplifyRatio: 1 });
    if (s <= 256) break;
  }
  attempts.push({ size: 256, quality: 60, simplifyRatio: 0.5 });
  let best: Uint8Array = glb;
  for (const a of attempts) {
    if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
    const doc = await io.readBinary(glb);
    doc.setLogger(new Logger(Logger.Verbosity.WARN));
    const transforms = [
      dedup(),
      prune(),
      weld(),
      ...(a.simplifyRatio < 1 ? [simplify({ simplifier: MeshoptSimplifier, ratio: a.simplifyRatio, error: 0.002 })] : []),
      textureCompress({ encoder: sharp, targetFormat: 'webp', resize: [a.size, a.size], quality: a.quality }),
      meshopt({ encoder: MeshoptEncoder, level: 'high' }),
    ];
    await doc.transform(...transforms);
    const out = await io.writeBinary(doc);
    steps.push(`webp q${a.quality} <= ${a.size}px${a.simplifyRatio < 1 ? `, geometry simplified to ${a.simplifyRatio * 100}%` : ''}, meshopt: ${out.byteLength} bytes`);
    if (out.byteLength < best.byteLength) best = out;
    if (out.byteLength <= opts.maxBytes) return { glb: out, bytes: out.byteLength, withinBudget: true, steps };
  }
  return { glb: best, bytes: best.byteLength, withinBudget: best.byteLength <= opts.maxBytes, steps };
}

async function largestTextureSide(glb: Uint8Array): Promise<number> {
  const doc = await (await gltfIO()).readBinary(glb);
  let max = 0;
  for (const t of doc.getRoot().listTextures()) {
    const img = t.getImage();
    if (!img) continue;
    try {
      const meta = await sharp(img).metadata();
      max = Math.max(max, meta.width ?? 0, meta.height ?? 0);
    } catch {
      // undecodable textures keep their size; textureCompress skips them
    }
  }
  return max;
}
