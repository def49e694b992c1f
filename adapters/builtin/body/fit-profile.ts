import type { BodyProfile, BodyRender } from '../../../core/twins/body.ts';
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

/**
 * The silhouette facts of a person analysis (learned keypoints and person mask): head top from the
 * parsing, the lowest person pixel as the sole, the crotch between the hips and knees, and the torso
 * widths at the chest, waist and hip contour points (arms already left out by the parsing).
 */
export function silhouetteFromPerson(body: Pick<BodyRender, 'mask' | 'landmarks' | 'image'>): SilhouetteAnalysis {
  const { landmarks: l, mask } = body;
  const w = body.image.width;
  let bottomY = 0;
  for (let i = mask.length - 1; i >= 0; i--) {
    if (mask[i]) {
      bottomY = Math.floor(i / w);
      break;
    }
  }
  bottomY = Math.max(bottomY, l.leftAnkle.y, l.rightAnkle.y);
  const topY = l.headTop.y;
  return {
    landmarks: l,
    heightPx: bottomY - topY,
    topY,
    bottomY,
    crotchY: l.crotch.y,
    widths: {
      shoulder: Math.abs(l.rightShoulder.x - l.leftShoulder.x),
      chest: Math.abs(l.chestRight.x - l.chestLeft.x),
      waist: Math.abs(l.waistRight.x - l.waistLeft.x),
      hip: Math.abs(l.hipRight.x - l.hipLeft.x),
    },
    armsFree: true,
    notes: [],
  };
}
