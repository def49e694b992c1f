import type { RasterImage } from '../../../core/images.ts';
import type { ColourSurface } from '../raster/background-model.ts';
import { bandArea, fitBackground, quantile, sampleBorder, selected } from '../raster/background-model.ts';
import { fillHoles, largestComponent } from '../raster/components.ts';
import { countOn } from '../raster/mask.ts';
import { close, open } from '../raster/morphology.ts';

export interface Segmentation {
  /** 255 inside the person. */
  mask: Uint8Array;
  /** Colour distance from the background model per pixel (diagnostics and thresholds). */
  threshold: number;
  notes: string[];
}

/**
 * Background model: a quadratic surface per RGB channel fitted to a band along the image border
 * (robustly: refitted without samples far from the previous fit), so plain, gradient and lightly
 * vignetted studio backgrounds are all modelled. Returns the model and the robust centre and
 * spread (median + MAD) of the border residuals.
 */
function fitPersonBackground(img: RasterImage): { model: ColourSurface; center: number; spread: number } {
  const { width: w, height: h } = img;
  const band = Math.max(2, Math.round(Math.min(w, h) * 0.025));
  const step = Math.max(1, Math.ceil(Math.sqrt(bandArea(w, h, band) / 20000)));
  const samples = sampleBorder(img, { band, step });
  const { model, residuals, inliers } = fitBackground(samples, w, h, {
    kind: 'quadratic',
    rounds: 3,
    limit: (resid) => {
      const med = quantile(resid, 0.5);
      const mad = quantile(resid.map((r) => Math.abs(r - med)), 0.5) * 1.4826;
      return med + 3 * Math.max(mad, 2);
    },
  });
  const kept = selected(residuals, inliers);
  const center = quantile(kept, 0.5);
  const spread = quantile(kept.map((r) => Math.abs(r - center)), 0.5) * 1.4826;
  return { model, center, spread };
}

/**
 * Classical person segmentation for a full-body photo on a studio-like background:
 * foreground = pixels far (in RGB) from the fitted background model, with hysteresis (weakly
 * different pixels kept inside the closed strong core), then opening against noise specks, closing of small
 * gaps, the largest 4-connected component and hole filling.
 */
export function segmentPerson(img: RasterImage): Segmentation {
  const { width: w, height: h, data } = img;
  const notes: string[] = [];
  const bg = fitPersonBackground(img);
  const strong = Math.max(28, bg.center + 6 * bg.spread);
  const weak = Math.max(18, bg.center + 3.5 * bg.spread);
  const m = new Float64Array(3);
  const strongMask = new Uint8Array(w * h);
  const weakMask = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      bg.model.at(x, y, m);
      const dr = data[i * 4] - m[0], dg = data[i * 4 + 1] - m[1], db = data[i * 4 + 2] - m[2];
      const d = Math.sqrt(dr * dr + dg * dg + db * db);
      if (d > strong) strongMask[i] = 255;
      if (d > weak) weakMask[i] = 255;
    }
  }
  const size = Math.min(w, h);
  const rOpen = Math.max(1, Math.round(size * 0.002));
  const rClose = Math.max(1, Math.round(size * 0.006));
  let mask = open(strongMask, w, h, rOpen);
  // hysteresis: weak pixels within reach of the strong core
  const grown = close(mask, w, h, rClose);
  for (let i = 0; i < mask.length; i++) if (weakMask[i] && grown[i]) mask[i] = 255;
  mask = close(mask, w, h, rClose);
  mask = largestComponent(mask, w, h, { connectivity: 4 });
  mask = fillHoles(mask, w, h);
  const frac = countOn(mask) / (w * h);
  if (frac < 0.01) notes.push('segmentation found almost no foreground; the photo may not show a person on a plain background');
  if (frac > 0.8) notes.push('segmentation covers most of the photo; the background may be too similar to the person');
  return { mask, threshold: strong, notes };
}
