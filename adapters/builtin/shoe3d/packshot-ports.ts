import type { RasterImage } from '../../../core/images.ts';
import type { PackshotCleaner } from '../../../core/ports/packshot-cleaner.ts';
import type { PackshotCorrector } from '../../../core/ports/packshot-corrector.ts';
import type { ProductTypeClassifier } from '../../../core/ports/product-type-classifier.ts';
import type { SingleShoeGuard } from '../../../core/ports/single-shoe-guard.ts';
import { cleanupPackshot } from './packshot-cleanup.ts';
import { correctImage } from './packshot-correction.ts';
import { classifyProduct } from './product-type.ts';
import { guardSingleShoe } from './single-shoe-guard.ts';

/** The builtin (classical) adapters of the packshot ports, over this folder's functions. */

export class BuiltinPackshotCorrector implements PackshotCorrector {
  correct(image: RasterImage) {
    const r = correctImage(image);
    return { image: r.image, correction: { ...r.correction } as Record<string, unknown> };
  }
}

export class BuiltinPackshotCleaner implements PackshotCleaner {
  async clean(image: RasterImage) {
    const r = cleanupPackshot(image);
    return { image: r.cleanup.status === 'failed' ? image : r.image, cleanup: r.cleanup };
  }
}

export class BuiltinSingleShoeGuard implements SingleShoeGuard {
  guard(image: RasterImage, opts: { deadline?: number; signal?: AbortSignal }) {
    return guardSingleShoe(image, opts);
  }
}

export class BuiltinProductTypeClassifier implements ProductTypeClassifier {
  classify(images: RasterImage[]) {
    return classifyProduct(images);
  }
}
