/**
 * The per-process cache of garment cut-outs: a repeated packshot is segmented once, every render
 * is byte-identical with and without the cache (generated and real packshots, on a twin and on a
 * person photo's parsing), and no caller can change what the next one reads.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clearCutoutCache, cutoutCacheStats } from '../../../../adapters/builtin/tryon/cutout-cache.ts';
import { cutOut } from '../../../../adapters/builtin/tryon/garment-pieces.ts';
import { BuiltinTryOnProvider } from '../../../../adapters/builtin/tryon/provider.ts';
import { renderTryOn, type RenderTryOnInput } from '../../../../adapters/builtin/tryon/render-tryon.ts';
import { classicalAnalysis } from '../../../../adapters/human/person-analyzer.ts';
import { SharpImageCodec } from '../../../../adapters/sharp/image-codec.ts';
import type { RasterImage } from '../../../../core/images.ts';
import type { ModelCall } from '../../../../core/ports/image-model.ts';
import type { PersonBody } from '../../../../core/ports/person-analyzer.ts';
import type { BodyRender } from '../../../../core/twins/body.ts';
import { drawBottom, drawTop } from '../../../support/garments.ts';
import { REAL_PHOTOS, loadPhoto } from '../../../support/tryon-metrics.ts';
import { twinBody } from './twin-bodies.ts';

let twin: BodyRender;
let realTop: RasterImage;
let photoBody: PersonBody;

const sha = (img: RasterImage) => createHash('sha256').update(img.data).digest('hex');

/** The render with an empty cache (every garment segmented) and again from the cache. */
function uncachedThenCached(input: RenderTryOnInput): { fresh: string; cached: string; misses: number; hits: number } {
  clearCutoutCache();
  const fresh = sha(renderTryOn(input));
  const misses = cutoutCacheStats.misses;
  const cached = sha(renderTryOn(input));
  return { fresh, cached, misses: cutoutCacheStats.misses - misses, hits: cutoutCacheStats.hits };
}

beforeAll(async () => {
  twin = await twinBody('male', 'man_pose');
  realTop = await loadPhoto(path.join(REAL_PHOTOS, 'garments', '00055_00.jpg'));
  photoBody = classicalAnalysis(await loadPhoto(path.join(REAL_PHOTOS, 'persons', 'model_6.jpg')), []).body!;
}, 120_000);

beforeEach(() => clearCutoutCache());

describe('garment cut-out cache', () => {
  it('renders a twin in generated garments byte-identically from the cache, without segmenting again', () => {
    const r = uncachedThenCached({ body: twin, garments: { top: drawTop(), bottom: drawBottom() }, quality: 'standard', preserveBackground: false });
    expect(r.cached).toBe(r.fresh);
    expect(r.misses).toBe(0);
    expect(r.hits).toBe(2);
  });

  it('renders a twin in a real packshot byte-identically from the cache', () => {
    const r = uncachedThenCached({ body: twin, garments: { top: realTop }, quality: 'standard', preserveBackground: true });
    expect(r.cached).toBe(r.fresh);
    expect(r.misses).toBe(0);
    expect(r.hits).toBe(1);
  });

  it('renders a real packshot on a person photo byte-identically from the cache', () => {
    const r = uncachedThenCached({ body: photoBody, garments: { top: realTop }, quality: 'standard', preserveBackground: true });
    expect(r.cached).toBe(r.fresh);
    expect(r.misses).toBe(0);
  });

  it('segments the same packshot once across a twin and a photo fitting, and again for another category', () => {
    renderTryOn({ body: twin, garments: { top: realTop }, quality: 'draft', preserveBackground: true });
    renderTryOn({ body: photoBody, garments: { top: realTop }, quality: 'draft', preserveBackground: true });
    expect(cutoutCacheStats.misses).toBe(1);
    // shoes keep smaller parts: another segmentation
    cutOut(realTop, 'shoe');
    expect(cutoutCacheStats.misses).toBe(2);
  });

  it('keys on the pixels: a copy of the packshot hits, one changed pixel misses', () => {
    const top = drawTop();
    cutOut(top, 'top');
    cutOut({ ...top, data: top.data.slice() }, 'top');
    expect(cutoutCacheStats).toEqual({ hits: 1, misses: 1 });
    const changed = top.data.slice();
    changed[0] ^= 1;
    cutOut({ ...top, data: changed }, 'top');
    expect(cutoutCacheStats.misses).toBe(2);
  });

  it('hands every caller its own copy', () => {
    const top = drawTop();
    const first = cutOut(top, 'top');
    const image = first.image.data.slice();
    const labels = first.labels.slice();
    first.image.data.fill(7);
    first.labels.fill(3);
    first.mask.fill(0);
    first.components[0].box[0] = -1;
    const second = cutOut(top, 'top');
    expect(second.image.data).toEqual(image);
    expect(second.labels).toEqual(labels);
    expect(second.mask.some((v) => v !== 0)).toBe(true);
    expect(second.components[0].box[0]).toBeGreaterThanOrEqual(0);
    expect(cutoutCacheStats.misses).toBe(1);
  });

  it('a second fitting through the provider does not segment the garment again', async () => {
    const provider = new BuiltinTryOnProvider(new SharpImageCodec());
    const call = (): ModelCall => ({ task: 'tryon', model: 'builtin-warp', prompt: '', references: [], quality: 'draft', signal: new AbortController().signal, structured: { body: twin, garments: { topGarment: { packshot: realTop } }, preserveBackground: true } });
    const [a] = await provider.run(call());
    expect(cutoutCacheStats.misses).toBe(1);
    // (the quality gate reads the cut-out too, from the cache)
    const hits = cutoutCacheStats.hits;
    const [b] = await provider.run(call());
    expect(cutoutCacheStats.misses).toBe(1);
    expect(cutoutCacheStats.hits).toBeGreaterThan(hits);
    expect(Buffer.from(b.bytes).equals(Buffer.from(a.bytes))).toBe(true);
  });
});
