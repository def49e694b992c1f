import type { RasterImage } from '../../../core/images.ts';
import type { ImageCodec } from '../../../core/ports/image-codec.ts';
import type { BodyLandmarks } from '../../../core/twins/body.ts';
import { fillHoles, labelComponents } from '../raster/components.ts';
import { close, open } from '../raster/morphology.ts';
import { PERSON_PART } from '../../../core/ports/person-analyzer.ts';
import { srgbToLab } from '../tryon/color.ts';

/** The face oval found in a face image, in that image's pixels. */
export interface FaceRegion {
  cx: number;
  cy: number;
  rx: number;
  ry: number;
  /** Mean RGB of the skin pixels inside the oval (what colour matching starts from). */
  skin: [number, number, number];
  detected: boolean;
  notes: string[];
}

/**
 * Skin likelihood in YCbCr (ITU-R BT.601): a Gaussian in the CbCr plane centred on typical skin
 * chroma (Cb 110, Cr 152; sigma 10 and 8), which holds from light to dark skin under neutral light
 * because skin differs mostly in luma. A pixel is skin within two sigmas, above a luma floor
 * that keeps dark brown hair and shadows out.
 */
export function isSkin(r: number, g: number, b: number): boolean {
  const y = 0.299 * r + 0.587 * g + 0.114 * b;
  if (y < 50) return false;
  const cb = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b;
  const cr = 128 + 0.5 * r - 0.418688 * g - 0.081312 * b;
  const d2 = ((cb - 110) / 10) ** 2 + ((cr - 152) / 8) ** 2;
  return d2 <= 4;
}

/**
 * The face's skin in Lab: the median of the face's skin-like pixels (the neck's when the face shows
 * too few), the reference for telling the person's skin from their clothes; null when none is found.
 */
export function faceSkinLab(body: { image: RasterImage; parts: Uint8Array }): number[] | null {
  const d = body.image.data;
  const lab = [0, 0, 0];
  for (const part of [PERSON_PART.face, PERSON_PART.neck]) {
    const v: number[][] = [[], [], []];
    for (let i = 0; i < body.parts.length; i += 2) {
      if (body.parts[i] !== part || !isSkin(d[i * 4], d[i * 4 + 1], d[i * 4 + 2])) continue;
      srgbToLab(d[i * 4], d[i * 4 + 1], d[i * 4 + 2], lab);
      for (let c = 0; c < 3; c++) v[c].push(lab[c]);
    }
    if (v[0].length >= 30) return v.map((c) => c.sort((x, y) => x - y)[c.length >> 1]);
  }
  return null;
}

/**
 * Finds the face in a face image: skin likelihood in YCbCr, morphological clean-up, the largest
 * skin component with its holes (eyes, mouth) filled, as an oval from its top down to the chin
 * (where the component narrows into the neck) across its full width.
 * Falls back to a centred oval when no plausible component exists (and says so in notes).
 */
export function detectFace(img: RasterImage): FaceRegion {
  const { width: w, height: h, data } = img;
  const skin = new Uint8Array(w * h);
  for (let i = 0, o = 0; i < w * h; i++, o += 4) {
    if (data[o + 3] >= 128 && isSkin(data[o], data[o + 1], data[o + 2])) skin[i] = 255;
  }
  const r = Math.max(1, Math.round(Math.min(w, h) * 0.01));
  const cleaned = fillHoles(close(open(skin, w, h, r), w, h, r * 2), w, h);
  const { labels, components } = labelComponents(cleaned, w, h, { connectivity: 4, order: 'area' });
  const face = components[0];
  const frac = face ? face.area / (w * h) : 0;
  const notes: string[] = [];
  let region: { cx: number; cy: number; rx: number; ry: number } | null = null;
  if (face && frac >= 0.02 && frac <= 0.85) {
    const { label: best, x0, y0, x1, y1 } = face;
    // The skin component runs from the hairline down into the neck: the chin is where the rows
    // narrow below 60% of the face's widest row; without a visible neck, assume a typical face
    // aspect (height 1.3 x width).
    const rowWidth = (y: number) => {
      let a = -1;
      let b = -1;
      for (let x = x0, i = y * w + x0; x <= x1; x++, i++) {
        if (labels[i] !== best) continue;
        if (a < 0) a = x;
        b = x;
      }
      return a < 0 ? 0 : b - a + 1;
    };
    let widest = y0;
    let widestW = 0;
    const search = Math.min(y1, Math.round(y0 + 1.2 * (x1 - x0 + 1)));
    for (let y = y0; y <= search; y++) {
      const rw = rowWidth(y);
      if (rw > widestW) {
        widestW = rw;
        widest = y;
      }
    }
    let chin = -1;
    for (let y = widest; y <= y1; y++) {
      if (rowWidth(y) < 0.6 * widestW) {
        chin = y;
        break;
      }
    }
    const bw = x1 - x0 + 1;
    const ry = chin > y0 ? Math.min((chin - y0) / 2, 0.8 * bw) : Math.min((y1 - y0 + 1) / 2, 0.65 * bw);
    if (bw >= 8 && ry >= 4) region = { cx: (x0 + x1 + 1) / 2, cy: y0 + ry, rx: bw / 2, ry };
  }
  if (!region) {
    notes.push(frac > 0.85 ? 'the face image is skin-coloured almost everywhere; a centred face oval was used' : 'no face-like skin region found in the face image; a centred face oval was used');
    const rx = Math.min(w, h / 1.3) * 0.36;
    region = { cx: w / 2, cy: h * 0.46, rx, ry: rx * 1.3 };
  }
  // mean colour of skin pixels within the oval (all oval pixels if none is skin)
  const sum = [0, 0, 0];
  const all = [0, 0, 0];
  let n = 0;
  let nAll = 0;
  const y0 = Math.max(0, Math.floor(region.cy - region.ry));
  const y1 = Math.min(h - 1, Math.ceil(region.cy + region.ry));
  for (let y = y0; y <= y1; y++) {
    for (let x = Math.max(0, Math.floor(region.cx - region.rx)); x <= Math.min(w - 1, Math.ceil(region.cx + region.rx)); x++) {
      const dx = (x + 0.5 - region.cx) / region.rx;
      const dy = (y + 0.5 - region.cy) / region.ry;
      if (dx * dx + dy * dy > 1) continue;
      const o = (y * w + x) * 4;
      for (let c = 0; c < 3; c++) all[c] += data[o + c];
      nAll++;
      if (!skin[y * w + x]) continue;
      for (let c = 0; c < 3; c++) sum[c] += data[o + c];
      n++;
    }
  }
  const mean = (n > 16 ? sum.map((v) => v / n) : all.map((v) => v / Math.max(1, nAll))) as [number, number, number];
  return { ...region, skin: mean, detected: notes.length === 0, notes };
}

export interface FaceTarget {
  image: RasterImage;
  mask: Uint8Array;
  /** Lambert shade per pixel (0 outside the body); the face takes on the head's shading. */
  shade: Float32Array;
}

/** Width of the feathered rim, as a fraction of the oval's radius. */
const FEATHER = 0.2;
/** Fraction of the detected oval that is sampled. */
const INSET = 0.92;

/**
 * Composites the face oval onto the rendered head, in place: the oval is resized by the codec
 * to landmarks.faceSize wide keeping its aspect, colour-matched by per-channel gains that map its
 * skin mean onto the head's mean colour under the oval, modulated by the head's own shading, and
 * blended with a smoothstep-feathered elliptical alpha clipped to the body mask.
 */
export async function compositeFace(target: FaceTarget, landmarks: BodyLandmarks, face: RasterImage, region: FaceRegion, codec: ImageCodec): Promise<void> {
  const { image, mask, shade } = target;
  const W = image.width;
  const H = image.height;
  const fw = Math.max(4, Math.round(landmarks.faceSize));
  const aspect = Math.min(1.5, Math.max(1.1, region.ry / region.rx));
  const fh = Math.max(4, Math.round(fw * aspect));
  // sample slightly inside the oval so the feathered rim shows skin rather than the backdrop
  const rx = region.rx * INSET;
  const ry = region.ry * INSET;
  const left = Math.max(0, Math.floor(region.cx - rx));
  const top = Math.max(0, Math.floor(region.cy - ry));
  const width = Math.min(face.width - left, Math.ceil(rx * 2));
  const height = Math.min(face.height - top, Math.ceil(ry * 2));
  const resized = (await codec.resize(crop(face, left, top, Math.max(1, width), Math.max(1, height)), fw, fh)).data;

  const ox = Math.round(landmarks.faceCenter.x - fw / 2);
  const oy = Math.round(landmarks.faceCenter.y - fh / 2);
  const alphaAt = (x: number, y: number) => {
    const dx = (x + 0.5 - fw / 2) / (fw / 2);
    const dy = (y + 0.5 - fh / 2) / (fh / 2);
    const rho = Math.sqrt(dx * dx + dy * dy);
    if (rho >= 1) return 0;
    if (rho <= 1 - FEATHER) return 1;
    const t = (1 - rho) / FEATHER;
    return t * t * (3 - 2 * t);
  };
  // the head's colour and shade under the oval
  const bodyMean = [0, 0, 0];
  let shadeMean = 0;
  let n = 0;
  for (let y = 0; y < fh; y++) {
    const ty = oy + y;
    if (ty < 0 || ty >= H) continue;
    for (let x = 0; x < fw; x++) {
      const tx = ox + x;
      if (tx < 0 || tx >= W || !mask[ty * W + tx] || alphaAt(x, y) <= 0) continue;
      const o = (ty * W + tx) * 4;
      for (let c = 0; c < 3; c++) bodyMean[c] += image.data[o + c];
      shadeMean += shade[ty * W + tx];
      n++;
    }
  }
  if (n === 0) return;
  shadeMean /= n;
  const gains = bodyMean.map((v, c) => {
    const g = v / n / shadeMean / Math.max(1, region.skin[c]);
    return Math.min(2.5, Math.max(0.4, g));
  });
  for (let y = 0; y < fh; y++) {
    const ty = oy + y;
    if (ty < 0 || ty >= H) continue;
    for (let x = 0; x < fw; x++) {
      const tx = ox + x;
      if (tx < 0 || tx >= W) continue;
      const ti = ty * W + tx;
      if (!mask[ti]) continue;
      const k = (y * fw + x) * 4;
      let a = alphaAt(x, y) * (resized[k + 3] / 255);
      // near the rim only skin is kept, so backdrop or hair beside the cheeks does not show
      if (a < 1 && !isSkin(resized[k], resized[k + 1], resized[k + 2])) a *= 0.15;
      if (a <= 0) continue;
      const s = shade[ti] || shadeMean;
      const o = ti * 4;
      for (let c = 0; c < 3; c++) {
        const v = Math.min(255, resized[(y * fw + x) * 4 + c] * gains[c] * s);
        image.data[o + c] = Math.round(v * a + image.data[o + c] * (1 - a));
      }
    }
  }
}

/** A person analysis of the face photo: its pixels and their PERSON_PART labels (face 1, hair 2). */
export interface HeadSource {
  image: RasterImage;
  parts: Uint8Array;
}

const FACE_LABEL = PERSON_PART.face;
const HAIR_LABEL = PERSON_PART.hair;
const NECK_LABEL = PERSON_PART.neck;
/** The photo's neck shows below the chin and fades into the body's over this share of the face height. */
const NECK_FADE = 0.4;
/** RGB distance from the hair's median colour within which hair below the chin is kept. */
const HAIR_RGB_DISTANCE = 70;

/**
 * Composites the head of the face photo, face and hair as the person analysis labelled them, onto
 * the rendered body, in place: scaled so the face is landmarks.faceSize wide, its centre on
 * landmarks.faceCenter, edges softened over one source pixel. Hair may reach beyond the rendered
 * head (it becomes part of the body mask, labelled `headPart`). Before that the body takes the face's
 * skin tone (per-channel gains from the body's mean colour to the face's skin mean). Returns false
 * (nothing drawn) when the photo has no usable face region.
 */
export function compositeHead(target: FaceTarget & { parts: Uint8Array }, landmarks: BodyLandmarks, src: HeadSource, headPart: number): boolean {
  const { image, mask, parts } = target;
  const W = image.width;
  const H = image.height;
  const { width: sw, height: sh, data: sd } = src.image;
  let fx0 = sw, fx1 = -1, fy0 = sh, fy1 = -1, cx = 0, cy = 0, nf = 0;
  let hx0 = sw, hx1 = -1, hy0 = sh, hy1 = -1;
  const skin = [0, 0, 0];
  let ns = 0;
  for (let y = 0; y < sh; y++) {
    for (let x = 0; x < sw; x++) {
      const p = src.parts[y * sw + x];
      if (p !== FACE_LABEL && p !== HAIR_LABEL) continue;
      hx0 = Math.min(hx0, x); hx1 = Math.max(hx1, x); hy0 = Math.min(hy0, y); hy1 = Math.max(hy1, y);
      if (p !== FACE_LABEL) continue;
      fx0 = Math.min(fx0, x); fx1 = Math.max(fx1, x); fy0 = Math.min(fy0, y); fy1 = Math.max(fy1, y);
      cx += x; cy += y; nf++;
      const o = (y * sw + x) * 4;
      if (isSkin(sd[o], sd[o + 1], sd[o + 2])) {
        for (let c = 0; c < 3; c++) skin[c] += sd[o + c];
        ns++;
      }
    }
  }
  if (nf < 100 || ns < 50) return false;
  cx /= nf;
  cy /= nf;
  for (let c = 0; c < 3; c++) skin[c] /= ns;

  // the body in the face's skin tone
  const bodyMean = [0, 0, 0];
  let nb = 0;
  for (let i = 0; i < W * H; i++) {
    if (!mask[i] || parts[i] === headPart) continue;
    for (let c = 0; c < 3; c++) bodyMean[c] += image.data[i * 4 + c];
    nb++;
  }
  if (nb > 0) {
    const gains = bodyMean.map((v, c) => Math.min(2, Math.max(0.5, skin[c] / (v / nb))));
    for (let i = 0; i < W * H; i++) {
      if (!mask[i]) continue;
      for (let c = 0; c < 3; c++) image.data[i * 4 + c] = Math.min(255, Math.round(image.data[i * 4 + c] * gains[c]));
    }
  }

  // the head: face and hair, sampled from the photo around the face centre
  const s = landmarks.faceSize / Math.max(1, fx1 - fx0 + 1);
  const tcx = landmarks.faceCenter.x;
  const tcy = landmarks.faceCenter.y;
  // the photo's neck just below the chin joins the face to the body's neck, fading out
  const fadeEnd = fy1 + NECK_FADE * (fy1 - fy0 + 1);
  const tx0 = Math.max(0, Math.floor(tcx + (hx0 - cx) * s) - 1);
  const tx1 = Math.min(W - 1, Math.ceil(tcx + (hx1 - cx) * s) + 1);
  const ty0 = Math.max(0, Math.floor(tcy + (hy0 - cy) * s) - 1);
  const ty1 = Math.min(H - 1, Math.ceil(tcy + (Math.max(hy1, fadeEnd) - cy) * s) + 1);
  const covered = new Uint8Array(W * H);
  const drawn = new Uint8Array(W * H);
  // hair below the eyes (beside the cheeks, over the shoulders) must have the colour of the hair on
  // top of the head:
  // the parsing grows hair by colour and can take a dark collar or backdrop along
  const hairTop: number[][] = [[], [], []];
  for (let y = hy0; y < fy0 + 0.3 * (fy1 - fy0); y++) {
    for (let x = hx0; x <= hx1; x++) {
      if (src.parts[y * sw + x] !== HAIR_LABEL) continue;
      for (let c = 0; c < 3; c++) hairTop[c].push(sd[(y * sw + x) * 4 + c]);
    }
  }
  const hairRgb = hairTop.map((v) => v.sort((a, b) => a - b)[v.length >> 1] ?? 0);
  const alpha = headAlpha(src, { cx, cy, fx0, fx1, fy0, fy1, fadeEnd, hairRgb: hairTop[0].length ? hairRgb : null, skin });
  const isHead = (x: number, y: number) => (x < 0 || y < 0 || x >= sw || y >= sh ? 0 : alpha[y * sw + x]);
  for (let ty = ty0; ty <= ty1; ty++) {
    for (let tx = tx0; tx <= tx1; tx++) {
      const sx = cx + (tx + 0.5 - tcx) / s - 0.5;
      const sy = cy + (ty + 0.5 - tcy) / s - 0.5;
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      const fx = sx - x0;
      const fy = sy - y0;
      // the share of head labels under the bilinear footprint: 1 inside, soft at the edge
      const a = isHead(x0, y0) * (1 - fx) * (1 - fy) + isHead(x0 + 1, y0) * fx * (1 - fy) + isHead(x0, y0 + 1) * (1 - fx) * fy + isHead(x0 + 1, y0 + 1) * fx * fy;
      if (a <= 0.02) continue;
      drawn[ty * W + tx] = 1;
      const o = (ty * W + tx) * 4;
      for (let c = 0; c < 3; c++) {
        let v = 0;
        let wsum = 0;
        for (const [dx, dy, wgt] of [[0, 0, (1 - fx) * (1 - fy)], [1, 0, fx * (1 - fy)], [0, 1, (1 - fx) * fy], [1, 1, fx * fy]] as const) {
          const k = isHead(x0 + dx, y0 + dy) * wgt;
          if (k === 0) continue;
          v += sd[((y0 + dy) * sw + x0 + dx) * 4 + c] * k;
          wsum += k;
        }
        if (wsum > 0) image.data[o + c] = Math.round((v / wsum) * a + image.data[o + c] * (1 - a));
      }
      if (a >= 0.5) {
        const nearest = src.parts[Math.min(sh - 1, Math.max(0, Math.round(sy))) * sw + Math.min(sw - 1, Math.max(0, Math.round(sx)))];
        mask[ty * W + tx] = 255;
        // the neck keeps the body's label where the body is (garment collars sit on it)
        if (nearest !== NECK_LABEL || !parts[ty * W + tx]) parts[ty * W + tx] = headPart;
        covered[ty * W + tx] = 1;
      }
    }
  }
  // the rendered head above the chin that the photo's head does not cover (a bald crown above short
  // hair, ears beside it) goes back to the backdrop of its row
  const chin = Math.min(H - 1, Math.round(tcy + (fy1 - cy) * s));
  const reach = Math.round(0.4 * landmarks.faceSize);
  /** The first body pixel of another part below (x, y) within reach, or -1. */
  const neckBelow = (x: number, y: number) => {
    for (let yy = y + 1; yy <= Math.min(H - 1, y + reach); yy++) {
      const j = yy * W + x;
      if (mask[j] && parts[j] !== headPart) return j;
    }
    return -1;
  };
  /**
   * The backdrop nearest to (x, y) in its row (the studio backdrop has a gradient; the row's edge
   * another tone), a few pixels clear of the body's anti-aliased outline.
   */
  const clear = (i: number) => !mask[i] && !drawn[i];
  const backdrop = (x: number, y: number) => {
    const row = y * W;
    for (let d = 1; d < W; d++) {
      for (const dir of [-1, 1]) {
        const xx = x + dir * d;
        if (xx < 0 || xx >= W || !clear(row + xx)) continue;
        const far = Math.min(W - 1, Math.max(0, xx + dir * BACKDROP_CLEARANCE));
        return (row + (clear(row + far) ? far : xx)) * 4;
      }
    }
    return row * 4;
  };
  for (let y = chin; y >= 0; y--) {
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      if (parts[i] !== headPart || covered[i]) continue;
      // under the jaw the neck continues up to the face; elsewhere the backdrop shows
      const neck = y > tcy ? neckBelow(x, y) : -1;
      if (neck >= 0) {
        for (let c = 0; c < 3; c++) image.data[i * 4 + c] = image.data[neck * 4 + c];
        continue;
      }
      const bg = backdrop(x, y);
      for (let c = 0; c < 3; c++) image.data[i * 4 + c] = image.data[bg + c];
      mask[i] = 0;
      parts[i] = 0;
    }
  }
  return true;
}

interface HeadFrame {
  /** The face label's centroid, its first and last columns and rows, in source pixels. */
  cx: number;
  cy: number;
  fx0: number;
  fx1: number;
  fy0: number;
  fy1: number;
  /** The row where the photo's neck has faded out. */
  fadeEnd: number;
  /** The median colour of the hair on top of the head, or null when the photo shows none. */
  hairRgb: number[] | null;
  /** The mean colour of the face's skin. */
  skin: number[];
}

/** A head pixel of another part than face, hair and neck is below this share of the skin's luma. */
const DARK_EDGE_LUMA = 0.55;
/** Pixels between the body's outline and the backdrop sample that fills an uncovered head. */
const BACKDROP_CLEARANCE = 4;
/** Head pieces apart from the one with the face are kept only from this share of its area (a lock of hair). */
const MIN_PIECE_SHARE = 0.1;

/**
 * The head of a face photo as a weight per source pixel (1 head, 0 not, fading along the neck):
 * face, hair (below the eyes only in the hair's own colour) and the neck's skin just under the chin.
 * Two clean-ups keep the photo's surroundings off the twin: pixels of the face label's lower border
 * far darker than its skin (a dark collar or the shadow under the jaw, which the parsing gives to the
 * face) are dropped, and so is every piece that does not touch the face (specks of a collar or
 * backdrop that passed the colour tests) unless it is a sizeable lock of hair. Holes inside the
 * head are filled.
 */
export function headAlpha(src: HeadSource, f: HeadFrame): Float32Array {
  const { width: sw, height: sh, data: sd } = src.image;
  const alpha = new Float32Array(sw * sh);
  const luma = (o: number) => 0.299 * sd[o] + 0.587 * sd[o + 1] + 0.114 * sd[o + 2];
  const skinLuma = 0.299 * f.skin[0] + 0.587 * f.skin[1] + 0.114 * f.skin[2];
  // below the mouth the face label's border may hold the collar: dark pixels there are not the chin
  const jaw = f.cy + 0.25 * (f.fy1 - f.fy0);
  for (let y = 0; y < sh; y++) {
    for (let x = 0; x < sw; x++) {
      const i = y * sw + x;
      const o = i * 4;
      const p = src.parts[i];
      if (p === FACE_LABEL) {
        alpha[i] = y > jaw && luma(o) < DARK_EDGE_LUMA * skinLuma ? 0 : 1;
      } else if (p === HAIR_LABEL) {
        if (y > jaw && x >= f.fx0 && x <= f.fx1) {
          // under the jaw, within the face's width, "hair" is the chin's skin or the collar below it
          alpha[i] = isSkin(sd[o], sd[o + 1], sd[o + 2]) ? 1 : 0;
        } else if (y <= f.fy1 && isSkin(sd[o], sd[o + 1], sd[o + 2])) {
          // the cheek where the parsing drew the hair's border through it
          alpha[i] = 1;
        } else {
          alpha[i] = y <= f.cy || (f.hairRgb && Math.hypot(sd[o] - f.hairRgb[0], sd[o + 1] - f.hairRgb[1], sd[o + 2] - f.hairRgb[2]) < HAIR_RGB_DISTANCE) ? 1 : 0;
        }
      } else if (p === NECK_LABEL && isSkin(sd[o], sd[o + 1], sd[o + 2])) {
        // only the neck's skin: a collar or the backdrop beside the neck stays out
        if (y <= f.fy1) alpha[i] = 1;
        else {
          const t = 1 - (y - f.fy1) / (f.fadeEnd - f.fy1);
          alpha[i] = t > 0 ? t * t * (3 - 2 * t) : 0;
        }
      }
    }
  }
  const on = new Uint8Array(sw * sh);
  for (let i = 0; i < on.length; i++) on[i] = alpha[i] > 0 ? 1 : 0;
  const { labels, components } = labelComponents(on, sw, sh);
  const centre = labels[Math.round(f.cy) * sw + Math.round(f.cx)];
  const main = centre ? components[centre - 1].area : Math.max(0, ...components.map((c) => c.area));
  const keep = new Uint8Array(components.length + 1);
  for (const c of components) keep[c.label] = c.label === centre || c.area >= MIN_PIECE_SHARE * main ? 1 : 0;
  for (let i = 0; i < alpha.length; i++) {
    if (alpha[i] > 0 && !keep[labels[i]]) alpha[i] = 0;
    on[i] = alpha[i] > 0 ? 1 : 0;
  }
  // specks the parsing left out inside the head (a tooth, a catchlight) belong to it
  const filled = fillHoles(on, sw, sh);
  for (let i = 0; i < alpha.length; i++) if (filled[i] && !on[i]) alpha[i] = 1;
  return alpha;
}

/** A rectangle of an RGBA raster, copied. */
function crop(img: RasterImage, left: number, top: number, width: number, height: number): RasterImage {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) data.set(img.data.subarray(((top + y) * img.width + left) * 4, ((top + y) * img.width + left + width) * 4), y * width * 4);
  return { width, height, data };
}
