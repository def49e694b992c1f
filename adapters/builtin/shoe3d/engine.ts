import type { EncodedImage, RasterImage } from '../../../core/images.ts';
import { inspectGlb } from '../../gltf/inspect-glb.ts';
import { compressGlb } from './compress-glb.ts';
import { encodeRaster } from './encode.ts';
import { cleanupPackshot } from './packshot-cleanup.ts';
import { correctImage } from './packshot-correction.ts';
import { previewGrid } from './preview-grid.ts';
import { classifyProduct } from './product-type.ts';
import { guardSingleShoe } from './single-shoe-guard.ts';
import { enhanceGlbTexture, refineLogos } from './texture-enhance.ts';
import { validateGlb } from './validate-glb.ts';

/**
 * The shoe-3d pipeline's builtin engine: the classical packshot stages and GLB tools of this
 * folder behind one object, bound in the composition root under the shoe-3d plugin's engine
 * token (the plugin itself depends on core only).
 */
export class BuiltinShoe3dEngine {
  correct(image: RasterImage) {
    const r = correctImage(image);
    return { image: r.image, correction: { ...r.correction } as Record<string, unknown> };
  }

  cleanup(image: RasterImage) {
    const r = cleanupPackshot(image);
    return { image: r.image, cleanup: r.cleanup, removed: { ...r.removed } as Record<string, number> };
  }

  guard(image: RasterImage, opts: { deadline?: number; signal?: AbortSignal }) {
    return guardSingleShoe(image, opts);
  }

  classify(images: RasterImage[]) {
    return classifyProduct(images);
  }

  encodePng(image: RasterImage): Promise<EncodedImage> {
    return encodeRaster(image, 'png');
  }

  /** Defensive container and JSON check of an untrusted GLB; throws an error with code `invalid_glb`. */
  inspectGlb(bytes: Uint8Array, maxBytes: number) {
    const s = inspectGlb(bytes, { maxBytes });
    return { bytes: s.byteLength, meshes: s.counts.meshes, primitives: s.counts.primitives, images: s.counts.images, nodes: s.counts.nodes };
  }

  validateGlb(glb: Uint8Array) {
    return validateGlb(glb);
  }

  compressGlb(glb: Uint8Array, maxBytes: number, signal?: AbortSignal) {
    return compressGlb(glb, { maxBytes, signal });
  }

  async enhanceTexture(glb: Uint8Array, views: 4 | 6, signal?: AbortSignal) {
    const r = await enhanceGlbTexture(glb, undefined, { views, signal, renderSize: views === 6 ? 1024 : 768 });
    return { glb: r.glb, texelsChanged: r.texelsChanged, views: r.views };
  }

  refineLogos(glb: Uint8Array, views: 4 | 6, signal?: AbortSignal) {
    return refineLogos(glb, undefined, { views, signal, renderSize: views === 6 ? 1024 : 768 });
  }

  previewGrid(glb: Uint8Array): Promise<EncodedImage> {
    return previewGrid(glb);
  }
}
