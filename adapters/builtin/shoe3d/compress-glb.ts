import { ImageUtils, type Document, type Texture } from '@gltf-transform/core';
import { EXTTextureWebP } from '@gltf-transform/extensions';
import { cloneDocument, dedup, meshopt, prune, simplify, weld } from '@gltf-transform/functions';
import { MeshoptEncoder, MeshoptSimplifier } from 'meshoptimizer';
import type { EncodedImage, RasterImage } from '../../../core/images.ts';
import type { ImageCodec } from '../../../core/ports/image-codec.ts';
import { quietLogger } from './read-glb.ts';

export interface CompressOptions {
  /** Byte budget the result must fit. */
  maxBytes: number;
  /** Largest texture side to try first (smaller ones follow by halving down to 256). */
  maxTextureSize?: number;
  signal?: AbortSignal;
}

export interface CompressResult {
  /** The smallest document tried (the one passed in when nothing was smaller), and its bytes. */
  doc: Document;
  glb: Uint8Array;
  bytes: number;
  withinBudget: boolean;
  /** What was tried, in order, with the size each attempt gave. */
  steps: string[];
}

/** Re-encodable texture formats (KTX2 and others are GPU formats: kept as they are). */
const DECODABLE = new Set(['image/png', 'image/jpeg', 'image/webp']);
/** Largest texture decoded for re-encoding (width * height). */
const TEXTURE_MAX_PIXELS = 8192 * 8192;

/**
 * Shrinks a document until its GLB fits `maxBytes`: textures re-encoded as WebP (EXT_texture_webp)
 * through the codec at falling quality and halving size, geometry welded and meshopt-compressed
 * (EXT_meshopt_compression); as a last resort the geometry is simplified by half. Textures are
 * about nine tenths of a textured product model's bytes, so they go first. Each attempt works on a
 * copy of `doc` and is written with `write` to measure it; `glb` is `doc`'s own bytes, returned as
 * they are when within the budget. Validate before compressing: the Khronos validator cannot decode
 * meshopt buffers.
 */
export async function compressDocument(doc: Document, glb: Uint8Array, codec: ImageCodec, write: (doc: Document) => Promise<Uint8Array>, opts: CompressOptions): Promise<CompressResult> {
  const steps: string[] = [];
  if (glb.byteLength <= opts.maxBytes) {
    steps.push(`within budget as is (${glb.byteLength} bytes)`);
    return { doc, glb, bytes: glb.byteLength, withinBudget: true, steps };
  }
  await MeshoptEncoder.ready;
  await MeshoptSimplifier.ready;
  const sources = doc.getRoot().listTextures();
  const largest = Math.max(0, ...sources.map((t) => textureSide(t)));
  const size = Math.min(opts.maxTextureSize ?? 4096, Math.max(256, largest || 256));
  const attempts: { size: number; quality: number; simplifyRatio: number }[] = [];
  for (let s = size; s >= 256; s = Math.floor(s / 2)) {
    for (const quality of [90, 80, 70]) attempts.push({ size: s, quality, simplifyRatio: 1 });
    if (s <= 256) break;
  }
  attempts.push({ size: 256, quality: 60, simplifyRatio: 0.5 });
  const textures = new TextureEncodings(sources, codec);
  let best: { doc: Document; glb: Uint8Array } = { doc, glb };
  for (const a of attempts) {
    if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
    const copy = cloneDocument(doc).setLogger(quietLogger);
    // textures first, while the copy's textures are still listed in the original's order
    const webp = await textures.apply(copy.getRoot().listTextures(), a.size, a.quality);
    if (webp) copy.createExtension(EXTTextureWebP).setRequired(true);
    await copy.transform(
      dedup(),
      prune(),
      weld(),
      ...(a.simplifyRatio < 1 ? [simplify({ simplifier: MeshoptSimplifier, ratio: a.simplifyRatio, error: 0.002 })] : []),
      meshopt({ encoder: MeshoptEncoder, level: 'high' }),
    );
    const out = await write(copy);
    steps.push(`webp q${a.quality} <= ${a.size}px${a.simplifyRatio < 1 ? `, geometry simplified to ${a.simplifyRatio * 100}%` : ''}, meshopt: ${out.byteLength} bytes`);
    if (out.byteLength < best.glb.byteLength) best = { doc: copy, glb: out };
    if (out.byteLength <= opts.maxBytes) break;
  }
  return { ...best, bytes: best.glb.byteLength, withinBudget: best.glb.byteLength <= opts.maxBytes, steps };
}

/** Largest side of a texture from its header (0 when unknown). */
function textureSide(t: Texture): number {
  const image = t.getImage();
  if (!image || !DECODABLE.has(t.getMimeType())) return 0;
  try {
    const s = ImageUtils.getSize(image, t.getMimeType());
    return s ? Math.max(s[0], s[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * The original textures re-encoded as WebP per (size, quality): each decoded once per size by the
 * codec (scaled down while decoding), each encoding made once. Undecodable textures stay as they are.
 */
class TextureEncodings {
  private readonly sources: Texture[];
  private readonly codec: ImageCodec;
  private decodedSize = 0;
  private decoded: (RasterImage | null)[] = [];
  private readonly encoded = new Map<string, EncodedImage | null>();

  constructor(sources: Texture[], codec: ImageCodec) {
    this.sources = sources;
    this.codec = codec;
  }

  /** Sets the copies' images; true when any became WebP. */
  async apply(copies: Texture[], size: number, quality: number): Promise<boolean> {
    if (size !== this.decodedSize) {
      this.decodedSize = size;
      this.decoded = await Promise.all(this.sources.map((t) => this.decode(t, size)));
    }
    let webp = false;
    for (let i = 0; i < copies.length; i++) {
      const key = `${i}:${size}:${quality}`;
      if (!this.encoded.has(key)) {
        const raster = this.decoded[i];
        this.encoded.set(key, raster ? await this.codec.encode(raster, 'webp', quality) : null);
      }
      const enc = this.encoded.get(key);
      if (!enc) continue;
      copies[i].setImage(enc.bytes).setMimeType(enc.contentType).setURI('');
      webp = true;
    }
    return webp;
  }

  private async decode(t: Texture, size: number): Promise<RasterImage | null> {
    const image = t.getImage();
    if (!image || !DECODABLE.has(t.getMimeType())) return null;
    try {
      return await this.codec.decode(image, { maxPixels: TEXTURE_MAX_PIXELS, maxSide: size });
    } catch {
      return null;
    }
  }
}
