/**
 * The backdrop of a product photo (a shoe packshot, a garment packshot): which colour surface
 * explains the border best, how noisy it is, and how far each pixel departs from it. Used by the
 * shoe-3d packshot cleanup, correction and classifier and by the try-on garment segmentation.
 */
import type { RasterImage } from '../../../core/images.ts';
import { ColourSurface, fitBackground, fitColourSurface, median, sampleBorder, selected, type BorderSamples, type SurfaceKind } from './background-model.ts';

/** Rec. 709 luminance of 8-bit sRGB values (no linearisation). */
export function luminance(r: number, g: number, b: number): number {
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/**
 * Background model of a packshot: a per-channel colour surface fitted robustly to the border band,
 * with a noise level. A plane (nearly flat backdrops with a light gradient), or a quadratic (a
 * vignette) or a sweep (light to grey towards the floor) when the plane leaves the border's
 * residuals clearly larger.
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
  // median residual's robust sigma, and the surface is refitted once more on the last inliers. A
  // plane first; a quadratic (a vignette), then a sweep (light to grey towards the floor) when each
  // explains the border clearly better than the simpler one
  let best = fitSurface(samples, width, height, 'plane');
  for (const kind of ['quadratic', 'sweep'] as const) {
    if (best.noise <= 2.5) break;
    const next = fitSurface(samples, width, height, kind);
    if (next.noise < 0.8 * best.noise && next.inliers >= 0.9 * best.inliers) best = next;
  }
  return { surface: best.surface, noise: best.noise, inlierRatio: best.inliers / n, mean: best.surface.centre() };
}

function fitSurface(samples: BorderSamples, width: number, height: number, kind: SurfaceKind): { surface: ColourSurface; noise: number; inliers: number } {
  // the first round keeps at most the better half of the samples (a second shoe cut by the frame,
  // a reflection reaching the bottom edge and a steep sweep can put most of the border off a flat
  // colour); later rounds measure the noise on the inliers they refit
  let noise = 2;
  let round = 0;
  const fit = fitBackground(samples, width, height, {
    kind,
    start: 'median',
    rounds: 4,
    minInliers: 8,
    limit: (res, inliers) => {
      const first = round++ === 0;
      noise = Math.max(1.5, 1.4826 * median(first ? res : selected(res, inliers)));
      return first ? Math.max(6, Math.min(3 * noise, median(res))) : Math.max(6, 3 * noise);
    },
  });
  const surface = fitColourSurface(samples, width, height, kind, fit.inliers, 8) ?? fit.model;
  let count = 0;
  for (let i = 0; i < samples.count; i++) count += fit.inliers[i];
  return { surface, noise, inliers: count };
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
