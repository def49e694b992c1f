import type { RasterImage } from '../../../core/images.ts';
import type { PackshotAssessment, PackshotClassifier } from '../../../core/ports/packshot-classifier.ts';
import { labelComponents } from '../raster/components.ts';
import { backgroundDifference, estimateBackground } from '../raster/backdrop.ts';

/**
 * A packshot has a backdrop that one smooth colour surface explains along the whole border, little
 * noise in it, one significant object covering a moderate share of the frame, and that object inside
 * the frame. Each feature multiplies the score by a factor in 0..1; a lifestyle photo fails several
 * at once (the border is a room or a street, many objects, the product cut by the frame).
 */
export class BuiltinPackshotClassifier implements PackshotClassifier {
  async assess(image: RasterImage): Promise<PackshotAssessment> {
    return this.judge(image);
  }

  /** The assessment itself, synchronous: 0.3 to 1.4 s of pixel work for a 384² photo. */
  judge(image: RasterImage): PackshotAssessment {
    const { width, height } = image;
    const model = estimateBackground(image);
    const diff = backgroundDifference(image, model);
    const threshold = Math.max(24, 4 * model.noise);
    const mask = new Uint8Array(width * height);
    let fg = 0;
    for (let i = 0; i < mask.length; i++) {
      const opaque = image.data[i * 4 + 3] >= 128;
      if (opaque && diff.delta[i] > threshold) {
        mask[i] = 1;
        fg++;
      }
    }
    const { components } = labelComponents(mask, width, height, { order: 'area' });
    const largest = components[0];
    const significant = components.filter((c) => c.area >= Math.max(16, (largest?.area ?? 0) * 0.2)).length;
    const touchesFrame = !!largest && (largest.x0 <= 0 || largest.y0 <= 0 || largest.x1 >= width - 1 || largest.y1 >= height - 1);
    const productShare = fg / (width * height);

    const reasons: string[] = [];
    let score = 1;
    const factor = (f: number, reason: string) => {
      if (f < 0.999) reasons.push(reason);
      score *= f;
    };
    factor(clamp((model.inlierRatio - 0.5) / 0.35), `the border is not one plain backdrop (${Math.round(model.inlierRatio * 100)}% fits)`);
    factor(clamp(1 - (model.noise - 6) / 14), `the backdrop is textured (noise ${model.noise.toFixed(1)})`);
    factor(productShare < 0.03 ? productShare / 0.03 : productShare > 0.8 ? clamp((0.95 - productShare) / 0.15) : 1, productShare < 0.03 ? 'the product is tiny in the frame' : 'the product fills the frame');
    factor(significant <= 1 ? 1 : significant === 2 ? 0.6 : 0.25, `${significant} separate objects`);
    factor(touchesFrame ? 0.55 : 1, 'the product is cut off by the frame');
    return {
      score: round(score),
      packshot: score >= 0.5,
      reasons,
      features: { plainBorder: round(model.inlierRatio), backdropNoise: round(model.noise), productShare: round(productShare), objects: significant, touchesFrame },
    };
  }
}

const clamp = (v: number) => Math.max(0, Math.min(1, v));
const round = (v: number) => Math.round(v * 1000) / 1000;
