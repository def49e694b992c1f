import type { RasterImage } from '../../../core/images.ts';
import { ColourSurface, fitBackground, fitColourSurface, median, sampleBorder } from '../raster/background-model.ts';
import { luminance } from './raster.ts';

/**
 * Background model of a packshot: per-channel plane a + b*x + c*y fitted robustly to the border
 * band (studio backgrounds are nearly flat but often carry a light gradient), with a noise level.
 */
export interface BackgroundModel {
  /** The backdrop's colour per pixel. */
  surface: ColourSurface;
  /** Robust standard deviation of the border residuals (8-bit levels). */
  noise: number;
  /** Share of border pixels that fit the model; low values mean the object touches the frame a lot. */
  inlierRatio: number;
  /** Colour at the image centre. */
  mean: [number, number, number];
}

export function estimateBackground(img: RasterImage): BackgroundModel {
  const { width, height } = img;
  const band = Math.max(2, Math.round(Math.min(width, height) * 0.02));
  const step = Math.max(1, Math.floor((width + height) / 1500));
  const samples = sampleBorder(img, { band, step, opaqueOnly: true });
  const n = samples.count;
  if (n < 8) {
    // transparent packshot: the background is whatever the alpha removed; treat it as white
    return { surface: ColourSurface.constant('plane', width, height, [255, 255, 255]), noise: 1.5, inlierRatio: 1, mean: [255, 255, 255] };
  }
  // start from the per-channel median, trim on residuals, refit on the inliers; the noise is the
  // median residual's robust sigma, and the plane is refitted once more on the last inliers
  let noise = 2;
  const fit = fitBackground(samples, width, height, {
    kind: 'plane',
    start: 'median',
    rounds: 3,
    minInliers: 8,
    limit: (res) => {
      noise = Math.max(1.5, 1.4826 * median(res));
      return Math.max(6, 3 * noise);
    },
  });
  const surface = fitColourSurface(samples, width, height, 'plane', fit.inliers, 8) ?? fit.model;
  let count = 0;
  for (let i = 0; i < n; i++) count += fit.inliers[i];
  return { surface, noise, inlierRatio: count / n, mean: surface.centre() };
}

/** Per-pixel departure from the background: colour distance, luminance ratio and chroma shift. */
export interface BackgroundDifference {
  /** Euclidean RGB distance to the background colour (8-bit levels). */
  delta: Float32Array;
  /** Pixel luminance / background luminance. */
  ratio: Float32Array;
  /** Distance between normalised chromaticities (0 = same hue and saturation as the background). */
  chroma: Float32Array;
  /** Luminance (8-bit levels). */
  lum: Float32Array;
}

export function backgroundDifference(img: RasterImage, model: BackgroundModel): BackgroundDifference {
  const { width, height, data } = img;
  const n = width * height;
  const delta = new Float32Array(n), ratio = new Float32Array(n), chroma = new Float32Array(n), lum = new Float32Array(n);
  const bg = [0, 0, 0];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const k = y * width + x, i = k * 4;
      model.surface.at(x, y, bg);
      const r = data[i], g = data[i + 1], b = data[i + 2];
      delta[k] = Math.hypot(r - bg[0], g - bg[1], b - bg[2]);
      const l = luminance(r, g, b);
      const lb = Math.max(1, luminance(bg[0], bg[1], bg[2]));
      lum[k] = l;
      ratio[k] = l / lb;
      const s = r + g + b + 1e-3, sb = bg[0] + bg[1] + bg[2] + 1e-3;
      chroma[k] = Math.hypot(r / s - bg[0] / sb, g / s - bg[1] / sb, b / s - bg[2] / sb);
    }
  }
  return { delta, ratio, chroma, lum };
}
