import type { RasterImage } from '../images.ts';

/** The five body dimensions of the spec's BodyMeasurements, all in centimetres. */
export type Dimension = 'height' | 'chest' | 'waist' | 'hip' | 'inseam';
export const DIMENSIONS: readonly Dimension[] = ['height', 'chest', 'waist', 'hip', 'inseam'];

export type Gender = 'male' | 'female';

/** Resolved pose ids (`default` is resolved before anything renders). */
export type PoseId = 'standing_arms_down' | 'man_pose' | 'girl_pose' | 'shoe_girl_pose' | 'walking_pose';
export const POSE_IDS: readonly PoseId[] = ['standing_arms_down', 'man_pose', 'girl_pose', 'shoe_girl_pose', 'walking_pose'];

/**
 * A complete body profile: every dimension filled, with a record of which values the
 * caller supplied and which were imputed from the reference bodies.
 */
export interface BodyProfile {
  gender: Gender | null;
  measurements: Record<Dimension, number>;
  /** true where the value came from the request (or the clothing size's primary girth). */
  supplied: Record<Dimension, boolean>;
  source: 'measurements' | 'clothing_size';
}

export interface Point {
  x: number;
  y: number;
}

/**
 * Named body points in image pixel coordinates. "left" and "right" are the subject's own sides
 * (a front view shows the subject's left on the image's right).
 */
export interface BodyLandmarks {
  headTop: Point;
  chin: Point;
  /** Centre and size (width in px) of the face region used for compositing. */
  faceCenter: Point;
  faceSize: number;
  neck: Point;
  leftShoulder: Point;
  rightShoulder: Point;
  leftElbow: Point;
  rightElbow: Point;
  leftWrist: Point;
  rightWrist: Point;
  /** Outer body contour at chest, waist and hip height. */
  chestLeft: Point;
  chestRight: Point;
  waistLeft: Point;
  waistRight: Point;
  hipLeft: Point;
  hipRight: Point;
  crotch: Point;
  leftKnee: Point;
  rightKnee: Point;
  leftAnkle: Point;
  rightAnkle: Point;
  leftToe: Point;
  rightToe: Point;
}

/**
 * A rendered body: what the twin renderer produces and what try-on engines draw garments onto.
 * mask: one byte per pixel, 255 inside the person. depth: one float per pixel, 0 outside the body,
 * growing towards the viewer (used for shading). pixelsPerCm relates the image to the profile.
 * parts: PERSON_PART labels (core/ports/person-analyzer.ts) per pixel when known: a person photo's
 * learned parsing, or a twin's own body parts; try-on fits garments to them.
 */
export interface BodyRender {
  image: RasterImage;
  mask: Uint8Array;
  depth: Float32Array;
  landmarks: BodyLandmarks;
  pixelsPerCm: number;
  pose: PoseId | 'photo' | 'silhouette';
  parts?: Uint8Array;
}
