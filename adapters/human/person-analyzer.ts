/**
 * The PersonAnalyzer with learned models (PersonModels) and the classical engine as its fallback:
 * when the models cannot load, the worker says so once at start and person photos are analysed
 * classically, named as such in every job's trace.
 */
import type { RasterImage } from '../../core/images.ts';
import type { PersonAnalysis, PersonAnalyzer } from '../../core/ports/person-analyzer.ts';
import { isFitroomError } from '../../core/errors.ts';
import { isSkin } from '../builtin/body/face.ts';
import { parsePerson, visibleKeypoints } from '../builtin/body/person-parsing.ts';
import { analyzePerson } from '../builtin/body/twin-renderer.ts';
import { PersonModels } from './person-models.ts';

function skinShareOf(img: RasterImage, mask: Uint8Array): number {
  let on = 0;
  let skin = 0;
  for (let i = 0; i < mask.length; i += 3) {
    if (mask[i] < 128) continue;
    on++;
    if (isSkin(img.data[i * 4], img.data[i * 4 + 1], img.data[i * 4 + 2])) skin++;
  }
  return on ? skin / on : 0;
}

function share(mask: Uint8Array): number {
  let on = 0;
  for (let i = 0; i < mask.length; i++) if (mask[i] >= 128) on++;
  return on / Math.max(1, mask.length);
}

/** The classical analysis: colour segmentation and contour landmarks (no keypoints, no faces). */
export function classicalAnalysis(photo: RasterImage, notes: string[]): PersonAnalysis {
  const base = { engine: 'classical' as const, width: photo.width, height: photo.height, keypoints: [], faces: [] };
  try {
    const body = analyzePerson(photo);
    return { ...base, personShare: share(body.mask), skinShare: skinShareOf(photo, body.mask), body, notes: [...notes, 'person photo analysed by the classical engine (colour segmentation, contour landmarks)'] };
  } catch (e) {
    if (!isFitroomError(e)) throw e;
    return { ...base, personShare: 0, skinShare: 0, body: null, notes: [...notes, `classical engine: ${e.message}`] };
  }
}

/** Where the shoulders of a frontal head sit, in face-box widths beside its centre and heights below its top. */
const SHOULDER_SPREAD = 1.25;
const SHOULDER_DROP = 1.9;

/**
 * The parsing of a photo that shows a face but not the shoulders (out of frame or hidden): the
 * shoulders are placed from the face box so the neck and the hair falling beside it are labelled as
 * on a full photo. Only face, hair and neck are used from it.
 */
function headParsing(photo: RasterImage, inf: Awaited<ReturnType<PersonModels['infer']>>): { image: RasterImage; parts: Uint8Array } {
  const f = inf.faces[0];
  const cx = f.x + f.width / 2;
  const y = f.y + SHOULDER_DROP * f.height;
  // the subject's left is on the image's right
  const placed = { leftShoulder: { x: cx + SHOULDER_SPREAD * f.width, y }, rightShoulder: { x: cx - SHOULDER_SPREAD * f.width, y } };
  const keypoints = [
    ...inf.keypoints.filter((k) => k.name !== 'leftShoulder' && k.name !== 'rightShoulder'),
    { name: 'leftShoulder' as const, ...placed.leftShoulder, score: 1 },
    { name: 'rightShoulder' as const, ...placed.rightShoulder, score: 1 },
  ];
  return { image: photo, parts: parsePerson(photo, inf.mask, keypoints, inf.faces).parts };
}

export class LearnedPersonAnalyzer implements PersonAnalyzer {
  readonly #models: PersonModels;
  #state: Promise<{ engine: 'learned' | 'classical'; message: string }> | null = null;

  constructor(models = new PersonModels()) {
    this.#models = models;
  }

  ready(): Promise<{ engine: 'learned' | 'classical'; message: string }> {
    this.#state ??= this.#models.load().then(
      () => ({ engine: 'learned' as const, message: 'person models loaded (MoveNet Thunder pose, MediaPipe selfie segmentation, BlazeFace and FaceMesh on tfjs wasm)' }),
      (e: Error) => ({ engine: 'classical' as const, message: `person models could not load (${e.message}); person photos are analysed by the classical engine` }),
    );
    return this.#state;
  }

  async analyze(photo: RasterImage, signal: AbortSignal): Promise<PersonAnalysis> {
    const state = await this.ready();
    signal.throwIfAborted();
    if (state.engine === 'classical') return classicalAnalysis(photo, [state.message]);
    const started = Date.now();
    const inf = await this.#models.infer(photo);
    signal.throwIfAborted();
    const kp = visibleKeypoints(inf.keypoints);
    const faces = inf.faces.map(({ outline: _outline, ...box }) => box);
    const base = { engine: 'learned' as const, width: photo.width, height: photo.height, keypoints: inf.keypoints, faces, personShare: share(inf.mask), skinShare: skinShareOf(photo, inf.mask) };
    const notes = [`person models: ${faces.length} face(s), ${Object.keys(kp).length} of 17 keypoints visible, person ${(base.personShare * 100).toFixed(0)} % of the photo (${Date.now() - started} ms)`];
    if (!kp.leftShoulder || !kp.rightShoulder) {
      const head = inf.faces.length === 1 ? headParsing(photo, inf) : null;
      return { ...base, body: null, head, notes: [...notes, `no shoulders found: no body to draw on${head ? '; face, hair and neck parsed, shoulders placed from the face' : ''}`] };
    }
    const parsed = parsePerson(photo, inf.mask, inf.keypoints, inf.faces);
    const body = { image: photo, mask: parsed.mask, depth: parsed.depth, landmarks: parsed.landmarks, pixelsPerCm: parsed.pixelsPerCm, pose: 'photo' as const, parts: parsed.parts };
    return { ...base, body, notes: [...notes, ...parsed.notes] };
  }
}
