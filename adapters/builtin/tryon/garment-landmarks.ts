/**
 * Garment landmarks found on a packshot's outline, in packshot pixels. "left" and "right" are the
 * image's sides here (a front packshot is worn facing the viewer, so image sides carry over to
 * the person image unchanged).
 */
import type { Point } from '../../../core/twins/body.ts';

export interface Sleeve {
  /** Sleeve root: the shoulder seam end and the armpit. */
  shoulder: Point;
  armpit: Point;
  /** Cuff corners: on the shoulder (outer) edge and on the underarm (inner) edge. */
  outerCuff: Point;
  innerCuff: Point;
  /** The sleeve's outline from the shoulder round the cuff to the armpit (contour arc). */
  outline: Point[];
}

export interface UpperLandmarks {
  neckline: Point;
  neckLeft: Point;
  neckRight: Point;
  shoulderLeft: Point;
  shoulderRight: Point;
  armpitLeft: Point;
  armpitRight: Point;
  hemLeft: Point;
  hemRight: Point;
  sleeveLeft: Sleeve | null;
  sleeveRight: Sleeve | null;
  /** x of the garment's vertical centre line. */
  centreX: number;
}

export interface TopLandmarks extends UpperLandmarks {
  kind: 'top';
}

export interface DressLandmarks extends UpperLandmarks {
  kind: 'full-body';
  /** Narrowest point of the bodice on each side. */
  waistLeft: Point;
  waistRight: Point;
}

export interface Leg {
  /** Leg opening corners at the hem. */
  hemOuter: Point;
  hemInner: Point;
}

export interface BottomLandmarks {
  kind: 'bottom';
  waistLeft: Point;
  waistRight: Point;
  hipLeft: Point;
  hipRight: Point;
  /** Top of the gap between the legs; null for a skirt. */
  crotch: Point | null;
  legLeft: Leg | null;
  legRight: Leg | null;
  /** For a skirt: hem corners. */
  hemLeft: Point;
  hemRight: Point;
  centreX: number;
}

export interface ShoeLandmarks {
  kind: 'shoe';
  /** +1 when the toe points to the image right, -1 to the left. */
  toeDirection: 1 | -1;
  toe: Point;
  heel: Point;
  /** Lowest row of the sole and the highest point of the upper (collar or tongue). */
  soleY: number;
  topY: number;
  /** Component index in the cutout this shoe came from. */
  component: number;
}

export type GarmentLandmarks = TopLandmarks | DressLandmarks | BottomLandmarks;
