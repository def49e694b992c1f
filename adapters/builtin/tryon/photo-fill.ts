/**
 * Plausible fills for what a new garment leaves visible of the old one on a person photo: the
 * person's skin (measured on the photo) or the background beside the body in the same row.
 */
import { PERSON_PART, type PersonBody } from '../../../core/ports/person-analyzer.ts';
import { isSkin } from '../body/face.ts';
import { deltaE76, srgbToLab } from './color.ts';

const median = (v: number[]) => {
  const s = v.slice().sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : 0;
};

export interface Skin {
  /** sRGB median of the skin pixels found. */
  srgb: number[];
  lab: number[];
  /** Linear-light RGB of `srgb`. */
  linear: number[];
}

/**
 * The person's skin colour: the median of skin-like pixels of the neck, face and arms (pixels the
 * caller marks in `exclude`, such as the old garment, left out); null when none is found.
 */
export function skinColour(body: PersonBody & { parts: Uint8Array }, toLinear: ArrayLike<number>, exclude?: Uint8Array): Skin | null {
  const d = body.image.data;
  const parts = body.parts;
  const idx: number[] = [];
  for (let i = 0; i < parts.length; i += 2) {
    const p = parts[i];
    if ((p === PERSON_PART.neck || p === PERSON_PART.face || p === PERSON_PART.arm) && !exclude?.[i] && isSkin(d[i * 4], d[i * 4 + 1], d[i * 4 + 2])) idx.push(i);
  }
  if (idx.length < 30) return null;
  const srgb = [0, 1, 2].map((c) => median(idx.map((i) => d[i * 4 + c])));
  return { srgb, lab: Array.from(srgbToLab(srgb[0], srgb[1], srgb[2], [0, 0, 0])), linear: srgb.map((v) => toLinear[Math.round(v)] ?? 0.5) };
}

/** Whether pixel `i` of the photo looks like this skin (or like skin at all). */
export function looksLikeSkin(body: PersonBody, i: number, skin: Skin | null, lab = [0, 0, 0]): boolean {
  const d = body.image.data;
  if (skin) {
    srgbToLab(d[i * 4], d[i * 4 + 1], d[i * 4 + 2], lab);
    if (deltaE76(lab, skin.lab) < 14) return true;
  }
  return isSkin(d[i * 4], d[i * 4 + 1], d[i * 4 + 2]);
}

/**
 * The nearest pixel outside the person in row `y` from `x` (either side), as an index, or -1.
 * `avoid` marks further pixels not to take (e.g. ones already repainted).
 */
export function backgroundBeside(mask: Uint8Array, w: number, x: number, y: number, avoid?: Uint8Array): number {
  for (let d = 1; d < w; d++) {
    const xl = x - d;
    const xr = x + d;
    if (xl < 0 && xr >= w) break;
    if (xl >= 0 && !mask[y * w + xl] && !avoid?.[y * w + xl]) return y * w + xl;
    if (xr < w && !mask[y * w + xr] && !avoid?.[y * w + xr]) return y * w + xr;
  }
  return -1;
}
