import type { RasterImage } from '../images.ts';
import { token } from '../plugin.ts';
import type { BodyRender, Point } from '../twins/body.ts';

/** Labels of a person photo's approximate parsing, one byte per pixel. */
export const PERSON_PART = { background: 0, face: 1, hair: 2, neck: 3, arm: 4, torso: 5, legs: 6, feet: 7 } as const;

/** The 17 COCO body keypoints (subject's own left and right). */
export type KeypointName =
  | 'nose' | 'leftEye' | 'rightEye' | 'leftEar' | 'rightEar'
  | 'leftShoulder' | 'rightShoulder' | 'leftElbow' | 'rightElbow' | 'leftWrist' | 'rightWrist'
  | 'leftHip' | 'rightHip' | 'leftKnee' | 'rightKnee' | 'leftAnkle' | 'rightAnkle';

export interface Keypoint extends Point {
  name: KeypointName;
  /** 0..1; points below 0.3 are treated as not visible. */
  score: number;
}

export interface FaceBox {
  x: number;
  y: number;
  width: number;
  height: number;
  score: number;
}

/** A person photo as try-on draws on it: a BodyRender (pose 'photo') with its parsing (`parts`) when learned. */
export type PersonBody = BodyRender;

/**
 * What a person photo holds. `engine` names what produced it: `learned` (pose, person mask and
 * face models) or `classical` (colour segmentation and contour landmarks). `body` is null when no
 * person could be made out.
 */
export interface PersonAnalysis {
  engine: 'learned' | 'classical';
  width: number;
  height: number;
  /** All 17 keypoints with their scores (empty from the classical engine). */
  keypoints: Keypoint[];
  /** Faces found (their count says how many people face the camera). */
  faces: FaceBox[];
  /** Share of the photo's pixels inside the person mask. */
  personShare: number;
  /** Share of the person mask's pixels that look like skin. */
  skinShare: number;
  body: PersonBody | null;
  /**
   * When the photo shows one face but no body to draw on (a selfie cut above the shoulders): its
   * image with PERSON_PART labels of face, hair and neck, what a twin's head is made from. Learned only.
   */
  head?: { image: RasterImage; parts: Uint8Array } | null;
  /** Facts for the job's trace (fallbacks taken, what was assumed). */
  notes: string[];
}

/**
 * PersonAnalyzer: pose keypoints, person mask, faces and parsing of one photo. Heavy: called by
 * workers only. `ready` loads the models once per process and says what runs (for the start log).
 */
export interface PersonAnalyzer {
  analyze(photo: RasterImage, signal: AbortSignal): Promise<PersonAnalysis>;
  ready(): Promise<{ engine: 'learned' | 'classical'; message: string }>;
}

/** The PersonAnalyzer try-on and twins use for person photos, bound by the connector. */
export const PERSON_ANALYZER = token<PersonAnalyzer>('PersonAnalyzer');
