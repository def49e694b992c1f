import type { RasterImage } from '../../../core/images.ts';
import type { BodyRender, PoseId } from '../../../core/twins/body.ts';
import type { RenderSize, TwinInput, TwinRender, TwinRenderOptions, TwinRenderer } from '../../../core/ports/twin-renderer.ts';
import { FitroomError } from '../../../core/errors.ts';
import { buildBodyModel } from './body-model.ts';
import { compositeFace, compositeHead, detectFace, isSkin, type HeadSource } from './face.ts';
import { PART } from './body-model.ts';
import { PERSON_PART, type PersonAnalyzer } from '../../../core/ports/person-analyzer.ts';
import type { ImageCodec } from '../../../core/ports/image-codec.ts';
import { VISIBLE } from './person-parsing.ts';
import { ASSUMED_STATURE_CM, profileFromSilhouette, silhouetteFromPerson } from './fit-profile.ts';
import { POSES } from './poses.ts';
import type { BodyRaster } from './rasterize-body.ts';
import { rasterizeBody } from './rasterize-body.ts';
import { renderSilhouetteBody, silhouetteMask } from './render-silhouette.ts';
import { segmentPerson } from './segment-person.ts';
import { analyzeSilhouette, type SilhouetteAnalysis } from './silhouette-landmarks.ts';
import { inflateDepth } from './inflate-depth.ts';
import { countOn } from '../raster/mask.ts';
import type { BodyProfile } from '../../../core/twins/body.ts';

export const STANDARD_SIZE: RenderSize = { width: 768, height: 1024 };

/** A twin render with the parametric body's part labels when there is a parametric body. */
export interface BuiltinTwinRender extends TwinRender {
  /** PART label per pixel; empty for direct-mode silhouettes. */
  bodyParts: Uint8Array;
}

/**
 * The body's PART labels as PERSON_PART, what try-on reads on a twin as on a parsed person photo:
 * the hands belong to the arms (as in a photo's parsing), and on the head, skin is face and the rest
 * (the face photo's hair, brows, beard) hair, so both stay in front of a garment.
 */
export function personParts(raster: { image: RasterImage; parts: Uint8Array }): Uint8Array {
  const { parts, image } = raster;
  const out = new Uint8Array(parts.length);
  const d = image.data;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (p === PART.background) continue;
    if (p === PART.head) out[i] = isSkin(d[i * 4], d[i * 4 + 1], d[i * 4 + 2]) ? PERSON_PART.face : PERSON_PART.hair;
    else out[i] = TO_PERSON_PART[p] ?? PERSON_PART.torso;
  }
  return out;
}

const TO_PERSON_PART: Record<number, number> = {
  [PART.neck]: PERSON_PART.neck,
  [PART.torso]: PERSON_PART.torso,
  [PART.leftArm]: PERSON_PART.arm,
  [PART.rightArm]: PERSON_PART.arm,
  [PART.leftHand]: PERSON_PART.arm,
  [PART.rightHand]: PERSON_PART.arm,
  [PART.leftLeg]: PERSON_PART.legs,
  [PART.rightLeg]: PERSON_PART.legs,
  [PART.leftFoot]: PERSON_PART.feet,
  [PART.rightFoot]: PERSON_PART.feet,
};

function renderProfile(profile: BodyProfile, pose: PoseId, size: RenderSize): BodyRaster {
  const spec = POSES[pose];
  return rasterizeBody(buildBodyModel(profile, spec), size, spec);
}

/** The person's share of the photo below which segmentation is treated as having found nobody. */
const MIN_PERSON_FRACTION = 0.02;

/**
 * PersonAnalyzer of the builtin engines: segments a full-body photo (segmentPerson), estimates
 * landmarks from the silhouette and returns the photo itself with the mask, a rounded depth proxy
 * in cm and a scale that assumes the standard stature (170 cm).
 */
export function analyzePerson(photo: RasterImage): BodyRender {
  const { width: w, height: h } = photo;
  const seg = segmentPerson(photo);
  if (countOn(seg.mask) < w * h * MIN_PERSON_FRACTION) throw new FitroomError('IMAGE_INVALID', 'No person could be separated from the background of the photo');
  const analysis = analyzeSilhouette(seg.mask, w, h);
  const ppcm = analysis.heightPx / ASSUMED_STATURE_CM;
  const dome = inflateDepth(seg.mask, w, h);
  const depth = new Float32Array(w * h);
  for (let i = 0; i < depth.length; i++) if (seg.mask[i]) depth[i] = dome[i] / ppcm + 1;
  return { image: photo, mask: seg.mask, depth, landmarks: analysis.landmarks, pixelsPerCm: ppcm, pose: 'photo' };
}

/**
 * The builtin TwinRenderer: a parametric body from the profile (measurements, clothing size), the
 * same parametric body fitted to a photo's silhouette proportions and re-posed (photo mode), or the
 * supplied silhouette shaded as the body (direct mode). With a person analyzer that finds the face
 * and hair in the face image (learned models), the head is the photo's face with its hair and the
 * body takes its skin tone; otherwise (direct mode, or no analysis) the face oval is composited onto
 * the rendered head.
 */
export class BuiltinTwinRenderer implements TwinRenderer {
  readonly #codec: ImageCodec;
  readonly #analyzer: PersonAnalyzer | null;

  /** The codec resamples the face oval and direct-mode silhouettes. */
  constructor(codec: ImageCodec, analyzer: PersonAnalyzer | null = null) {
    this.#codec = codec;
    this.#analyzer = analyzer;
  }

  async render(input: TwinInput, options: TwinRenderOptions): Promise<BuiltinTwinRender> {
    const { signal } = options;
    const size = options.size ?? STANDARD_SIZE;
    signal.throwIfAborted();
    const notes: string[] = [];
    let body: BodyRaster;
    let pose: BuiltinTwinRender['pose'];
    if (input.kind === 'profile') {
      body = renderProfile(input.profile, input.pose, size);
      pose = input.pose;
    } else if (input.kind === 'photo') {
      const analysis = (await this.#photoSilhouette(input.photo, signal, notes)) ?? this.#classicalSilhouette(input.photo, notes);
      const profile = profileFromSilhouette(analysis);
      const m = profile.measurements;
      notes.push(`body proportions estimated from the photo, assuming a ${ASSUMED_STATURE_CM} cm stature: chest ${m.chest.toFixed(0)}, waist ${m.waist.toFixed(0)}, hip ${m.hip.toFixed(0)}, inseam ${m.inseam.toFixed(0)} cm`);
      signal.throwIfAborted();
      body = renderProfile(profile, input.pose, size);
      pose = input.pose;
    } else {
      const sil = silhouetteMask(input.silhouette);
      notes.push(...sil.notes);
      const { width: w, height: h } = input.silhouette;
      if (countOn(sil.mask) < w * h * MIN_PERSON_FRACTION) throw new FitroomError('IMAGE_INVALID', 'The silhouette image holds no body shape');
      const rendered = await renderSilhouetteBody(sil.mask, w, h, size, this.#codec);
      notes.push(...rendered.notes);
      body = rendered;
      pose = 'silhouette';
    }
    signal.throwIfAborted();
    const head = body.parts.length ? await this.#head(input.face, signal, notes) : null;
    if (head && compositeHead(body, body.landmarks, head, PART.head)) {
      notes.push('head: the face with its hair from the face image; body in its skin tone');
    } else {
      const face = detectFace(input.face);
      notes.push(...face.notes);
      await compositeFace(body, body.landmarks, input.face, face, this.#codec);
    }
    signal.throwIfAborted();
    const render: BuiltinTwinRender = { image: body.image, mask: body.mask, depth: body.depth, landmarks: body.landmarks, pixelsPerCm: body.pixelsPerCm, pose, bodyParts: body.parts, notes };
    if (body.parts.length) render.parts = personParts(body);
    return render;
  }

  readonly analyzePerson = analyzePerson;

  /**
   * Photo mode with the learned analysis: proportions from the keypoints and the person mask. A photo
   * that does not show the person from head to feet is refused (its proportions would be guesses);
   * without the learned models the classical segmentation is used.
   */
  async #photoSilhouette(photo: RasterImage, signal: AbortSignal, notes: string[]): Promise<SilhouetteAnalysis | null> {
    if (!this.#analyzer) return null;
    let a;
    try {
      a = await this.#analyzer.analyze(photo, signal);
    } catch (e) {
      if (signal.aborted) throw e;
      notes.push(`the body photo could not be analysed (${(e as Error).message}); classical segmentation used`);
      return null;
    }
    if (a.engine !== 'learned') {
      notes.push('the learned person models are not available; classical segmentation used');
      return null;
    }
    if (!a.body) throw new FitroomError('PERSON_NOT_FOUND', `No person was found in the body photo (${a.notes[0] ?? 'no shoulders'})`);
    const score = (name: string) => a.keypoints.find((k) => k.name === name)?.score ?? 0;
    const unseen = ['leftKnee', 'rightKnee', 'leftAnkle', 'rightAnkle'].filter((n) => score(n) < VISIBLE);
    if (unseen.length) throw new FitroomError('PERSON_INCOMPLETE', `The body photo must show the whole person, head to feet, standing: not visible: ${unseen.map((n) => n.replace(/([A-Z])/g, ' $1').toLowerCase()).join(', ')}`);
    notes.push('proportions from the learned keypoints and person mask of the body photo');
    return silhouetteFromPerson(a.body);
  }

  /** Photo mode without the learned analysis: the classical segmentation and silhouette landmarks. */
  #classicalSilhouette(photo: RasterImage, notes: string[]): SilhouetteAnalysis {
    const { width: w, height: h } = photo;
    const seg = segmentPerson(photo);
    notes.push(...seg.notes);
    if (countOn(seg.mask) < w * h * MIN_PERSON_FRACTION) throw new FitroomError('IMAGE_INVALID', 'No person could be separated from the background of the body photo');
    const analysis = analyzeSilhouette(seg.mask, w, h);
    notes.push(...analysis.notes);
    return analysis;
  }

  /** Face and hair of the face image from the person analysis, or null (with the reason noted). */
  async #head(face: RasterImage, signal: AbortSignal, notes: string[]): Promise<HeadSource | null> {
    if (!this.#analyzer) return null;
    try {
      const a = await this.#analyzer.analyze(face, signal);
      if (a.engine === 'learned' && a.faces.length === 1 && a.body?.parts) return { image: a.body.image, parts: a.body.parts };
      if (a.engine === 'learned' && a.faces.length === 1 && a.head) return a.head;
      notes.push(`head: no face and hair parsing of the face image (${a.engine} engine, ${a.faces.length} face(s)); the face oval is used`);
    } catch (e) {
      if (signal.aborted) throw e;
      notes.push(`head: the face image could not be analysed (${(e as Error).message}); the face oval is used`);
    }
    return null;
  }
}
