import type { RasterImage } from '../../../core/images.ts';
import type { PackshotAssessment } from '../../../core/ports/packshot-classifier.ts';
import { BuiltinPackshotClassifier } from './packshot-classifier.ts';

const classifier = new BuiltinPackshotClassifier();

/** Runs on a CPU pool thread (pooled-packshot-classifier.ts). */
export function assess(image: RasterImage): PackshotAssessment {
  return classifier.judge(image);
}
