/**
 * What the try-on renderer reports about each garment it laid on a person photo, so the result can
 * be checked before anyone sees it (the quality gate) and measured in tests and the bench.
 * The renderer fills what it knows; a missing field means "not measured" for that layer.
 */
import type { GarmentCategory } from './classify-garment.ts';

export interface WarpDiagnostics {
  /** Share (0..1) of the garment's mapped pixels where the mapping folds over (Jacobian determinant <= 0). */
  folded: number;
  /** Largest and smallest local area ratio of the mapping, relative to its median (1 = rigid). */
  maxAreaRatio: number;
  minAreaRatio: number;
  /** The garment's size on the output: median output pixels per packshot pixel (linear). */
  scale?: number;
  /** Set when the landmarks were unreliable and a simpler, stable fit was used instead; names why. */
  fallback?: string;
}

export interface LayerDiagnostics {
  category: GarmentCategory;
  /** Output size in pixels. */
  width: number;
  height: number;
  /** The garment's final coverage (0..1) on the output, after face, hair and arms in front. */
  alpha?: Float32Array;
  /** The person's own garment this layer replaces, from the parsing before the fit (1 = old garment). */
  oldGarment?: Uint8Array;
  /** The region this garment must cover (the torso for a top, chest to thigh for a dress). */
  target?: Uint8Array;
  /** Pixels synthesised where the old garment was uncovered: 1 = skin, 2 = background. */
  fill?: Uint8Array;
  warp?: WarpDiagnostics;
  /**
   * Set when the skin filled at the neck where the old neckline was carries the upper chest's
   * relief (collarbones, the notch between them, the chest's roll-off to the sides), not only the
   * neck's colour and light continued from its edge.
   */
  chestRelief?: boolean;
  /** How the arms' skin under the old top's sleeves was synthesised (a top on a person photo). */
  limbs?: LimbDiagnostics;
}

export interface LimbDiagnostics {
  /**
   * Each forearm drawn from its visible hand (the hand's wrist width and the light across it): the
   * skin it paints (px) and its wrist's join, the colour step (CIE76) across where the painted skin
   * meets the hand's own pixels (null: too little of either seen there).
   */
  forearms: { painted: number; wristJoin: number | null }[];
  /**
   * Each upper arm drawn from the bare arm the photo shows below an old short sleeve's hem (its
   * width and the light across it there): the skin it paints (px) and the colour step (CIE76)
   * where it meets that arm (null: too little seen). Absent: none drawn.
   */
  upperArms?: { painted: number; join: number | null }[];
  /** Arm skin synthesised otherwise (px): a fill of the sleeve's shape in the skin's tone, not drawn from a hand. */
  otherArmSkin: number;
}

export interface TryOnDiagnostics {
  layers: LayerDiagnostics[];
}
