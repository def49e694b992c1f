import type { BodyProfile } from '../../../core/twins/body.ts';
import type { SilhouetteAnalysis } from './silhouette-landmarks.ts';
import { circumferenceFromEllipseWidth, proportionsFor } from './proportions.ts';

/** Stature assumed for a photo: the silhouette gives proportions only, never an absolute size. */
export const ASSUMED_STATURE_CM = 170;

/** The spec's validation bounds (BodyMeasurements), used to keep estimates in range. */
const BOUNDS = { chest: [70, 160], waist: [55, 170], hip: [70, 170], inseam: [60, 100] } as const;
const clamp = (v: number, [lo, hi]: readonly [number, number]) => Math.min(hi, Math.max(lo, v));

/**
 * A body profile from a front-view silhouette: torso widths per body height, scaled to the assumed
 * stature, become girths through the same ellipse model the parametric body renders with (gender-
 * neutral depth/width ratios); the inseam is the crotch height. Nothing is marked as supplied.
 */
export function profileFromSilhouette(a: SilhouetteAnalysis): BodyProfile {
  const p = proportionsFor(null);
  const cm = ASSUMED_STATURE_CM / a.heightPx;
  return {
    gender: null,
    measurements: {
      height: ASSUMED_STATURE_CM,
      chest: clamp(circumferenceFromEllipseWidth(a.widths.chest * cm, p.chestDepthRatio), BOUNDS.chest),
      waist: clamp(circumferenceFromEllipseWidth(a.widths.waist * cm, p.waistDepthRatio), BOUNDS.waist),
      hip: clamp(circumferenceFromEllipseWidth(a.widths.hip * cm, p.hipDepthRatio), BOUNDS.hip),
      inseam: clamp((a.bottomY - a.crotchY) * cm, BOUNDS.inseam),
    },
    supplied: { height: false, chest: false, waist: false, hip: false, inseam: false },
    source: 'measurements',
  };
}
