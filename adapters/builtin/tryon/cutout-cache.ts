/**
 * Garment cut-outs kept per process: a shop's packshot is fitted again and again (other twins, the
 * same twin without the result cache, a twin and a photo fitting), and segmenting it is most of a
 * twin fitting's time. Keyed by a hash of the decoded pixels and the segmentation options, so the
 * same garment sent in another encoding hits too. Bounded by entries and bytes, least recently
 * used first out. Every caller gets its own copy: no renderer can change what the next one reads.
 */
import { createHash } from 'node:crypto';
import type { RasterImage } from '../../../core/images.ts';
import { type GarmentCutout, segmentGarment, type SegmentOptions } from './segment-garment.ts';

const MAX_ENTRIES = 24;
/** A 1024x1024 cut-out holds about 9.4 MB (RGBA, mask, labels); 2048 px packshots about 38 MB. */
const MAX_BYTES = 192 * 1024 * 1024;

const entries = new Map<string, { cut: GarmentCutout; bytes: number }>();
let totalBytes = 0;
/** How often the cache answered and how often it segmented (read by tests and diagnostics). */
export const cutoutCacheStats = { hits: 0, misses: 0 };

function keyOf(img: RasterImage, keepRatio: number, insideBack: boolean, flat: boolean): string {
  const h = createHash('sha256');
  h.update(`${img.width}x${img.height}/${keepRatio}/${insideBack ? 'neck' : ''}/${flat ? 'flat' : ''}/`);
  h.update(img.data);
  return h.digest('hex');
}

function copy(cut: GarmentCutout): GarmentCutout {
  return {
    image: { width: cut.image.width, height: cut.image.height, data: cut.image.data.slice() },
    mask: cut.mask.slice(),
    labels: cut.labels.slice(),
    components: cut.components.map((c) => ({ area: c.area, box: [...c.box] as GarmentCutout['components'][number]['box'] })),
    insideBack: cut.insideBack?.slice() ?? null,
  };
}

/** segmentGarment, answered from the cache when the same pixels were cut with the same options. */
export function cachedSegmentGarment(img: RasterImage, opts: SegmentOptions): GarmentCutout {
  const keepRatio = opts.keepRatio ?? 0.2;
  const insideBack = opts.insideBack ?? false;
  const key = keyOf(img, keepRatio, insideBack, opts.flatBackdrop ?? false);
  const hit = entries.get(key);
  if (hit) {
    cutoutCacheStats.hits++;
    // most recently used last
    entries.delete(key);
    entries.set(key, hit);
    return copy(hit.cut);
  }
  cutoutCacheStats.misses++;
  const cut = segmentGarment(img, { ...opts, keepRatio, insideBack });
  const bytes = cut.image.data.byteLength + cut.mask.byteLength + cut.labels.byteLength + (cut.insideBack?.byteLength ?? 0);
  if (bytes <= MAX_BYTES) {
    const kept = copy(cut);
    entries.set(key, { cut: kept, bytes });
    totalBytes += bytes;
    for (const [k, e] of entries) {
      if (entries.size <= MAX_ENTRIES && totalBytes <= MAX_BYTES) break;
      entries.delete(k);
      totalBytes -= e.bytes;
    }
  }
  return cut;
}

/** Empties the cache and its counters (tests). */
export function clearCutoutCache(): void {
  entries.clear();
  totalBytes = 0;
  cutoutCacheStats.hits = 0;
  cutoutCacheStats.misses = 0;
}
