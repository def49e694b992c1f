/**
 * Input checks on person photos and garment packshots, before any model runs (vendor or builtin):
 * a job with an unusable photo fails at once with a code that says what to fix, instead of
 * spending a generation on a result that cannot be right.
 */
import { FitroomError } from '../errors.ts';
import type { Keypoint, KeypointName, PersonAnalysis } from '../ports/person-analyzer.ts';

/** What the garments of a request need to see of the person. */
export interface PersonNeeds {
  /** tops and full-body garments: shoulders to hips */
  torso: boolean;
  /** bottoms and full-body garments: hips to knees */
  legs: boolean;
  /** shoes: both ankles */
  feet: boolean;
}

const SEEN = 0.45;
/** Share of skin-coloured pixels in the person mask below which nobody's skin is showing. */
const MIN_SKIN = 0.05;

function scores(a: PersonAnalysis): Partial<Record<KeypointName, number>> {
  const out: Partial<Record<KeypointName, number>> = {};
  for (const k of a.keypoints as Keypoint[]) out[k.name] = k.score;
  return out;
}

/** A head (nose, or two of eyes and ears) above two shoulders: the pose model's sign of a person. */
function personSeen(a: PersonAnalysis): { head: boolean; shoulders: boolean } {
  const s = scores(a);
  const headPoints = (['nose', 'leftEye', 'rightEye', 'leftEar', 'rightEar'] as const).filter((n) => (s[n] ?? 0) >= 0.5).length;
  return { head: (s.nose ?? 0) >= 0.5 || headPoints >= 2, shoulders: (s.leftShoulder ?? 0) >= 0.5 && (s.rightShoulder ?? 0) >= 0.5 };
}

/** Faces large enough to be people in the photo (not a print on a shirt or a poster far behind). */
function peopleFaces(a: PersonAnalysis): number {
  const faces = a.faces.filter((f) => f.score >= 0.6);
  const largest = Math.max(0, ...faces.map((f) => f.width));
  return faces.filter((f) => f.width >= largest * 0.45).length;
}

export function checkPersonPhoto(a: PersonAnalysis, field: string, needs: PersonNeeds): void {
  // the classical engine sees no keypoints: only "nobody there" can be told
  if (a.engine === 'classical') {
    if (!a.body) throw new FitroomError('PERSON_NOT_FOUND', `No person could be separated from the background of ${field}`);
    return;
  }
  const faces = peopleFaces(a);
  if (faces >= 2) throw new FitroomError('MULTIPLE_PEOPLE', `${field} shows ${faces} people; send a photo of one person`);
  const seen = personSeen(a);
  // a face, or a head over shoulders with some skin showing: the pose model alone also "finds"
  // shoulders and a nose on a T-shirt laid flat
  const person = faces >= 1 || (seen.head && seen.shoulders && a.skinShare >= MIN_SKIN);
  if (!person) {
    throw new FitroomError('PERSON_NOT_FOUND', `No person found in ${field}; send a photo of one person there (a product photo belongs in a garment field)`);
  }
  if (!seen.shoulders) throw new FitroomError('PERSON_INCOMPLETE', `${field} shows only a head; send a photo from the head down to at least the hips`);
  const s = scores(a);
  const any = (...names: KeypointName[]) => names.some((n) => (s[n] ?? 0) >= SEEN);
  if ((needs.torso || needs.legs) && !any('leftHip', 'rightHip')) {
    throw new FitroomError('PERSON_INCOMPLETE', `The body in ${field} is cut off above the hips, where the garment goes; send a photo down to at least the hips`);
  }
  if (needs.legs && !any('leftKnee', 'rightKnee')) {
    throw new FitroomError('PERSON_INCOMPLETE', `The legs in ${field} are cut off above the knees, where the garment goes; send a photo down to at least the knees`);
  }
  if (needs.feet && !((s.leftAnkle ?? 0) >= SEEN && (s.rightAnkle ?? 0) >= SEEN)) {
    throw new FitroomError('PERSON_INCOMPLETE', `The feet are not visible in ${field}; send a full-length photo for shoes`);
  }
}

/** A garment slot's packshot must not be a photo of a person (a shopper's photo sent as the garment). */
export function checkGarmentPhoto(a: PersonAnalysis, field: string): void {
  if (a.engine === 'classical') return;
  const seen = personSeen(a);
  if (seen.head && seen.shoulders && peopleFaces(a) >= 1) {
    throw new FitroomError('PERSON_IN_GARMENT_SLOT', `${field} is a photo of a person, not of the garment; send the garment's product photo (packshot) there and the person in the person field`);
  }
}
