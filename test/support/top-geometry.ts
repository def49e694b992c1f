/**
 * Figures of a top's geometry on a person photo: how deep the shoulders show bare above it, and the
 * longest straight horizontal edge where a sleeve lies under the body panel (a box laid over it).
 */
import { PERSON_PART, type PersonBody } from '../../core/ports/person-analyzer.ts';
import { deltaE76, srgbToLab } from '../../adapters/builtin/tryon/color.ts';
import type { Layer } from '../../adapters/builtin/tryon/warp-piece.ts';

/**
 * How deep the shoulders show bare above the top: per column over each shoulder (from just outside
 * the shoulder keypoint to a sixth of the shoulders' width inwards, short of the neckline) the rows between the body's
 * top (the first torso or arm pixel, or a hair-labelled one that is not hair-coloured: within
 * ΔE76 20 of the head hair's median it is a strand in front) and the top's first drawn row; the
 * largest over the columns. A shoulder line that follows the body has none; a notch is as deep as
 * it is cut.
 */
export function shoulderGap(layer: Layer, body: PersonBody & { parts: Uint8Array }): number {
  const { width: w, height: h, data } = layer;
  const { parts, image } = body;
  const L = body.landmarks;
  const sw = Math.hypot(L.leftShoulder.x - L.rightShoulder.x, L.leftShoulder.y - L.rightShoulder.y);
  const labOf = (i: number) => srgbToLab(image.data[i * 4], image.data[i * 4 + 1], image.data[i * 4 + 2], [0, 0, 0]);
  const head: number[][] = [];
  const faceTop = Math.min(L.leftShoulder.y, L.rightShoulder.y) - 0.6 * sw;
  for (let i = 0; i < Math.max(0, faceTop) * w; i += 7) if (parts[i] === PERSON_PART.hair) head.push(Array.from(labOf(i)));
  const med = head.length ? [0, 1, 2].map((c) => head.map((p) => p[c]).sort((a, b) => a - b)[head.length >> 1]) : null;
  const isBody = (i: number) => parts[i] === PERSON_PART.torso || parts[i] === PERSON_PART.arm || (parts[i] === PERSON_PART.hair && (!med || deltaE76(labOf(i), med) > 20));
  let worst = 0;
  for (const [S, inward] of [[L.rightShoulder, 1], [L.leftShoulder, -1]] as const) {
    const xa = Math.round(S.x - inward * 0.05 * sw);
    const xb = Math.round(S.x + inward * 0.18 * sw);
    for (let x = Math.min(xa, xb); x <= Math.max(xa, xb); x++) {
      const from = Math.max(0, Math.round(S.y - 0.5 * sw));
      const to = Math.min(h, Math.round(S.y + 0.3 * sw));
      let top = from;
      while (top < to && !isBody(top * w + x)) top++;
      let g = from;
      while (g < to && !(data[(g * w + x) * 4 + 3] > 0.5)) g++;
      if (top < to) worst = Math.max(worst, g - top);
    }
  }
  return worst;
}

/** The longest straight horizontal run along which a sleeve lies directly below the panel (a box's top edge). */
export function boxEdge(piece: Uint8Array, w: number, h: number): number {
  let longest = 0;
  for (let y = 0; y < h - 1; y++) {
    let run = 0;
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      run = piece[i] === 1 && piece[i + w] >= 2 ? run + 1 : 0;
      longest = Math.max(longest, run);
    }
  }
  return longest;
}

