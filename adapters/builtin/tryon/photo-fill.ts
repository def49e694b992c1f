/**
 * Plausible fills for what a new garment leaves visible of the old one on a person photo: the
 * person's skin, synthesised from their own visible skin (its colour, texture and the limb's
 * shading), or the backdrop around the body (its gradient and grain).
 */
import { distanceTransform } from '../raster/distance-transform.ts';
import { grownBounds, maskBounds } from '../raster/mask.ts';
import { dilate, erode, maxFilter, open } from '../raster/morphology.ts';
import { labelComponents, largestComponent } from '../raster/components.ts';
import type { RasterImage } from '../../../core/images.ts';
import { PERSON_PART, type PersonBody } from '../../../core/ports/person-analyzer.ts';
import { faceSkinLab, isSkin } from '../body/face.ts';
import { boxBlur } from './box-blur.ts';
import { hipsMiddle } from './body-frame.ts';
import { deltaE76, SRGB_TO_LINEAR, srgbToLab } from './color.ts';
import type { Layer } from './warp-piece.ts';
import { finishForearms, forearmLight, planForearms, planUpperArms, wristJoin } from './limb-fill.ts';
import type { LayerDiagnostics } from './diagnostics.ts';
import { patchHoles } from './matte.ts';

const median = (v: number[]) => {
  const s = v.slice().sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : 0;
};
/** The per-channel median of colours (3 channels each). */
const medianColour = (pts: ArrayLike<number>[]) => [0, 1, 2].map((c) => median(pts.map((p) => p[c])));

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
  // 8-bit channels: the median from a histogram (no sort of a large array)
  const srgb = [0, 1, 2].map((c) => {
    const hist = new Uint32Array(256);
    for (const i of idx) hist[d[i * 4 + c]]++;
    let acc = 0;
    for (let v = 0; v < 256; v++) if ((acc += hist[v]) > idx.length >> 1) return v;
    return 255;
  });
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

/** A palette colour of the chest within this ΔE76 of a bare hand's skin is skin, not cloth. */
const HAND_NEAR = 8;
/** A hand reads as bare skin (no sleeve, no glove) within this ΔE76 of the face's skin, or when skinLike. */
const HAND_SKIN = 15;

/**
 * The skin of the bare hands in Lab: per hand, the median of the arm's pixels just beyond the
 * wrist (a disc a fifth of the forearm wide, a quarter of it further out), kept when it reads as
 * the face's skin (a cuff or glove there is not skin). The hands carry the body's own skin under
 * the photo's light on the limbs, where the face can be lit or made up differently.
 */
function handSkin(body: PersonBody & { parts: Uint8Array }, skin: number[]): number[][] {
  const { width: w, height: h, data } = body.image;
  const L = body.landmarks;
  const out: number[][] = [];
  const lab = [0, 0, 0];
  for (const [wr, el] of [[L.leftWrist, L.leftElbow], [L.rightWrist, L.rightElbow]]) {
    const fore = Math.hypot(wr.x - el.x, wr.y - el.y);
    const cx = wr.x + 0.25 * (wr.x - el.x);
    const cy = wr.y + 0.25 * (wr.y - el.y);
    const r = 0.2 * fore;
    const v: number[][] = [[], [], []];
    for (let y = Math.max(0, Math.round(cy - r)); y <= Math.min(h - 1, cy + r); y++) {
      for (let x = Math.max(0, Math.round(cx - r)); x <= Math.min(w - 1, cx + r); x++) {
        const i = y * w + x;
        if ((x - cx) ** 2 + (y - cy) ** 2 > r * r || body.parts[i] !== PERSON_PART.arm) continue;
        srgbToLab(data[i * 4], data[i * 4 + 1], data[i * 4 + 2], lab);
        for (let c = 0; c < 3; c++) v[c].push(lab[c]);
      }
    }
    if (v[0].length < 30) continue;
    const hand = v.map(median);
    if (deltaE76(hand, skin) < HAND_SKIN || skinLike(hand, skin)) out.push(hand);
  }
  return out;
}

/**
 * Whether a Lab colour is this skin, lit or shaded: near it with lightness counting for less (a
 * shadow darkens skin, it does not turn it purple or grey), or of its hue at a good part of its
 * chroma (a shaded hand); very dark or grey pixels (black straps, a grey backdrop) are not skin.
 */
export function skinLike(lab: ArrayLike<number>, skin: ArrayLike<number>): boolean {
  const dl = 0.4 * (lab[0] - skin[0]);
  const da = lab[1] - skin[1];
  const db = lab[2] - skin[2];
  if (dl * dl + da * da + db * db < 144) return true;
  if (lab[0] < 10 || lab[0] > skin[0] + 30) return false;
  const chroma = Math.hypot(lab[1], lab[2]);
  const skinChroma = Math.hypot(skin[1], skin[2]);
  if (chroma < 0.55 * skinChroma || chroma > 1.6 * skinChroma) return false;
  return hueGap(lab, skin) < 0.3;
}

/** The angle (radians, 0..pi) between two Lab colours' hues. */
function hueGap(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const d = Math.abs(Math.atan2(a[2], a[1]) - Math.atan2(b[2], b[1]));
  return d > Math.PI ? 2 * Math.PI - d : d;
}

/**
 * Distance of a Lab colour from the skin's with its lightness at half weight: the same skin lit or
 * in shade stays near, cloth of another hue or chroma does not.
 */
export function shadedSkinDistance(lab: ArrayLike<number>, skin: ArrayLike<number>): number {
  return Math.hypot(0.5 * (lab[0] - skin[0]), lab[1] - skin[1], lab[2] - skin[2]);
}

/**
 * Whether a Lab colour is this skin in shade: darker by 8 L* or more, of its hue, at its chroma or
 * up to 1.6 times it. `deep`: in deep shade too, its chroma falling with its lightness (at least 0.8
 * of the skin's scaled by the lightness ratio; an arm's inner rim against the body), and its hue
 * looser; grey and black cloth still have too little.
 */
function shadedSkin(lab: ArrayLike<number>, skin: ArrayLike<number>, deep = false): boolean {
  if (lab[0] > skin[0] - 8 || (deep && lab[0] < 5)) return false;
  const chroma = Math.hypot(lab[1], lab[2]);
  const skinChroma = Math.hypot(skin[1], skin[2]);
  const least = deep ? 0.8 * skinChroma * (lab[0] / skin[0]) : skinChroma;
  if (chroma < least || chroma > 1.6 * skinChroma) return false;
  return hueGap(lab, skin) < (deep ? 0.3 : 0.2);
}

/** Within this shadedSkinDistance a neck pixel is the neck's own skin (in shade), not a collar. */
const SHADED_SKIN = 20;

/** A small palette (k-means in Lab) of the Lab colours given. */
export function palette(pts: number[][], k: number): number[][] {
  if (!pts.length) return [];
  let centres = Array.from({ length: k }, (_, j) => pts[Math.floor(((j + 0.5) * pts.length) / k)].slice());
  for (let it = 0; it < 8; it++) {
    const sums = centres.map(() => [0, 0, 0, 0]);
    for (const p of pts) {
      let best = 0;
      for (let j = 1; j < k; j++) if (deltaE76(p, centres[j]) < deltaE76(p, centres[best])) best = j;
      const s = sums[best];
      s[0] += p[0]; s[1] += p[1]; s[2] += p[2]; s[3]++;
    }
    centres = sums.map((s, j) => (s[3] ? [s[0] / s[3], s[1] / s[3], s[2] / s[3]] : centres[j]));
  }
  return centres;
}

/**
 * The backdrop's colour per row and side of the person (left and right of the middle of the row's
 * mask: a backdrop lit from one side is lighter there, 225 beside one arm and 235 beside the
 * other): the median of (every 4th of) the side's pixels outside the person's mask (the whole
 * row's where a side has too few); `at(i)` tells whether pixel i shows it (within 24 levels summed
 * over channels).
 */
function backdropRows(img: RasterImage, mask: Uint8Array) {
  const { width: w, height: h, data } = img;
  // per row: the split column, then each side's reference (-1 not measured yet, -2 none)
  const split = new Int32Array(h).fill(-1);
  const rowRef = new Int16Array(h * 6).fill(-1);
  // per side and channel a histogram of the row's backdrop samples (medians without sorting)
  const hist = new Int32Array(2 * 3 * 256);
  const both = new Int32Array(3 * 256);
  const medianOf = (bins: Int32Array, at: number, count: number) => {
    const k = count >> 1;
    let cum = 0;
    for (let v = 0; v < 256; v++) if ((cum += bins[at + v]) > k) return v;
    return 255;
  };
  const measure = (y: number) => {
    let x0 = -1;
    let x1 = -1;
    for (let x = 0; x < w; x++) {
      if (!mask[y * w + x]) continue;
      if (x0 < 0) x0 = x;
      x1 = x;
    }
    split[y] = x0 < 0 ? w : (x0 + x1) >> 1;
    hist.fill(0);
    const count = [0, 0];
    for (let x = y & 3; x < w; x += 4) {
      if (mask[y * w + x]) continue;
      const s = x < split[y] ? 0 : 1;
      count[s]++;
      for (let c = 0; c < 3; c++) hist[s * 768 + c * 256 + data[(y * w + x) * 4 + c]]++;
    }
    for (let i = 0; i < 768; i++) both[i] = hist[i] + hist[768 + i];
    for (let s = 0; s < 2; s++) {
      // a side with too few samples takes the whole row's
      const own = count[s] >= 4;
      const n = own ? count[s] : count[0] + count[1];
      for (let c = 0; c < 3; c++) rowRef[y * 6 + s * 3 + c] = n >= 4 ? medianOf(own ? hist : both, (own ? s * 768 : 0) + c * 256, n) : -2;
    }
  };
  return (i: number) => {
    const y = Math.floor(i / w);
    if (split[y] < 0) measure(y);
    const r = y * 6 + (i % w < split[y] ? 0 : 3);
    if (rowRef[r] < 0) return false;
    return Math.abs(data[i * 4] - rowRef[r]) + Math.abs(data[i * 4 + 1] - rowRef[r + 1]) + Math.abs(data[i * 4 + 2] - rowRef[r + 2]) < 24;
  };
}

export interface OldTop {
  /** The person's own top (1), told by the colours of the chest's cloth, over torso, arms and neck. */
  oldTop: Uint8Array;
  /** Its hem: the lowest row where it fills most of the body's middle. */
  hem: number;
  /**
   * What of it a new top must repaint where it leaves it showing: `oldTop` and the cloth of other
   * colours joined to it above its hem (a T-shirt's sleeves or a strap in a colour of their own):
   * pixels of the arms, torso and neck that are neither the face's skin nor the backdrop.
   */
  repaint: Uint8Array;
  /** The chest cloth's palette (Lab), without the skin's colours; empty when the chest shows none. */
  own: number[][];
  /** Hair hanging below the face that the parsing gave the body (see hairOverBody). */
  hair: Uint8Array;
}

/**
 * The person's own top on a photo with parsing (which has no clothes label): the cloth is told
 * from skin by the face's skin colour in Lab and from the trousers or skirt by their colours and
 * by being one solid piece (a print of the skirt's that shares a colour is scattered, not solid).
 */
export function findOldTop(body: PersonBody & { parts: Uint8Array }): OldTop {
  const { width: w, height: h } = body.image;
  const img = body.image;
  const d = img.data;
  const parts = body.parts;
  const L = body.landmarks;
  const n = w * h;
  const shoulderMid = { x: (L.leftShoulder.x + L.rightShoulder.x) / 2, y: (L.leftShoulder.y + L.rightShoulder.y) / 2 };
  const hipMid = hipsMiddle(L);
  const sw = Math.hypot(L.leftShoulder.x - L.rightShoulder.x, L.leftShoulder.y - L.rightShoulder.y);
  const trunk = Math.max(1, hipMid.y - shoulderMid.y);
  // mid-trunk: the hem when no top is found
  const midTrunk = Math.round(shoulderMid.y + 0.5 * trunk);
  // a twin wears nothing for a new top to cover or repaint (its skin only differs from the face's
  // pasted skin by its shading)
  if (body.pose !== 'photo') return { oldTop: new Uint8Array(n), hem: midTrunk, repaint: new Uint8Array(n), own: [], hair: new Uint8Array(n) };
  const skin = faceSkinLab(body);
  // Lab of the pixels that can be the top (torso, arms, neck), once, through a table of colours
  // quantised to 6 bits a channel (within about 2 ΔE76, filled as colours are met)
  const labs = new Float32Array(n * 3);
  const lab = [0, 0, 0];
  const clothy = (p: number) => p === PERSON_PART.torso || p === PERSON_PART.arm || p === PERSON_PART.neck;
  const isSkinAt = new Uint8Array(n);
  const table = new Float32Array(64 * 64 * 64 * 3);
  const tableSkin = new Int8Array(64 * 64 * 64).fill(-1);
  for (let i = 0; i < n; i++) {
    if (!clothy(parts[i])) continue;
    const r = d[i * 4] >> 2;
    const g = d[i * 4 + 1] >> 2;
    const b = d[i * 4 + 2] >> 2;
    const q = (r << 12) | (g << 6) | b;
    if (tableSkin[q] < 0) {
      srgbToLab(r * 4 + 1.5, g * 4 + 1.5, b * 4 + 1.5, lab);
      table[q * 3] = lab[0];
      table[q * 3 + 1] = lab[1];
      table[q * 3 + 2] = lab[2];
      tableSkin[q] = (skin ? skinLike(lab, skin) : isSkin(r * 4 + 1.5, g * 4 + 1.5, b * 4 + 1.5)) ? 1 : 0;
    }
    labs[i * 3] = table[q * 3];
    labs[i * 3 + 1] = table[q * 3 + 1];
    labs[i * 3 + 2] = table[q * 3 + 2];
    isSkinAt[i] = tableSkin[q];
  }
  const labAt = (i: number) => [labs[i * 3], labs[i * 3 + 1], labs[i * 3 + 2]];
  // a palette of the chest's cloth: its colours less those of the face's skin (a crop top's bare
  // midriff; a pink or beige top, further from it, stays)
  const sample: number[][] = [];
  const chestTo = shoulderMid.y + 0.6 * trunk;
  const chestRow = Math.max(0, Math.min(h, Math.ceil(chestTo)));
  for (let y = Math.round(shoulderMid.y + 0.25 * trunk); y < chestTo; y += 2) {
    for (let x = Math.round(shoulderMid.x - 0.2 * sw); x < shoulderMid.x + 0.2 * sw; x += 2) {
      const i = y * w + x;
      if (y >= 0 && y < h && x >= 0 && x < w && parts[i] === PERSON_PART.torso) sample.push(labAt(i));
    }
  }
  const oldTop = new Uint8Array(n);
  const repaint = new Uint8Array(n);
  if (sample.length < 20) return { oldTop, hem: midTrunk, repaint, own: [], hair: new Uint8Array(n) };
  let own = palette(sample, 3).filter((c) => !skin || deltaE76(c, skin) >= 10);
  // a strappy or low-cut top's chest sample holds bare skin in shade too: a colour of the skin's
  // hue, darker and as saturated or more, beside cloth of another colour, is that skin (kept, it
  // made the neck's shadow under the jaw old cloth to repaint); a top all of such colours (camel)
  // keeps them
  if (skin && own.length > 1) {
    const cloth = own.filter((c) => !shadedSkin(c, skin));
    if (cloth.length) own = cloth;
  }
  // and a colour of the bare hands is the skin under the limbs' light (a dark-skinned midriff
  // under a crop top, lighter than the face by more than the bound: kept, the forearms were old
  // cloth and a patch of them painted over below a new long sleeve)
  if (skin && own.length > 1) {
    const hands = handSkin(body, skin);
    const cloth = own.filter((c) => hands.every((k) => deltaE76(c, k) >= HAND_NEAR));
    if (cloth.length) own = cloth;
  }
  if (!own.length) return { oldTop, hem: midTrunk, repaint, own, hair: new Uint8Array(n) };
  // the trousers' or skirt's colour, from the legs below the hips
  const below: number[][] = [];
  for (let y = Math.round(hipMid.y + 0.3 * trunk); y < Math.min(h, hipMid.y + 0.6 * trunk); y += 3) {
    for (let x = 0; x < w; x += 3) {
      const i = y * w + x;
      if (parts[i] === PERSON_PART.legs) below.push(Array.from(srgbToLab(d[i * 4], d[i * 4 + 1], d[i * 4 + 2], lab)));
    }
  }
  const trousers = below.length ? medianColour(below) : null;
  // a cloth colour unlike skin (black, purple) leaves out every pixel that looks like skin, lit or
  // shaded (a hand); one near it (a pink or beige top) only those nearer the skin than to it
  const skinCloth = own.map((o) => !!skin && (deltaE76(o, skin) < 25 || skinLike(o, skin)));
  let nearestSkinCloth = false;
  const nearest = (c: ArrayLike<number>) => {
    let best = Infinity;
    for (const [k, o] of own.entries()) {
      const e = (c[0] - o[0]) ** 2 + (c[1] - o[1]) ** 2 + (c[2] - o[2]) ** 2;
      if (e < best) {
        best = e;
        nearestSkinCloth = skinCloth[k];
      }
    }
    return Math.sqrt(best);
  };
  // below the chest an arm's pixel nearer the trousers' colour than the top's is the trousers
  // (the parsing calls a band of them arm where the arm hangs beside them)
  // (and a pixel nearer the face's skin than the cloth is skin: a hand, a bare arm)
  const isOld = (i: number, c: ArrayLike<number>) => {
    const near = nearest(c);
    // on the neck, the skin's own shadows (under the chin, beside the throat) are told by hue and
    // chroma, their lightness counting at half weight: a pale neck in shade is not a white top
    if (skin && parts[i] === PERSON_PART.neck && shadedSkinDistance(c, skin) <= near) return false;
    return near < 16 && (nearestSkinCloth || !isSkinAt[i]) && !(skin && deltaE76(c, skin) <= near) && !(trousers && i >= chestRow * w && parts[i] === PERSON_PART.arm && deltaE76(c, trousers) < 0.5 * near);
  };
  const c = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    if (!clothy(parts[i])) continue;
    c[0] = labs[i * 3];
    c[1] = labs[i * 3 + 1];
    c[2] = labs[i * 3 + 2];
    if (isOld(i, c)) oldTop[i] = 1;
  }
  // a top longer than the parsing's torso hangs over the hips, where the parsing says legs: its
  // hem counts too (as the gate counts it), unless the trousers share its colours
  if (trousers && !own.some((c) => deltaE76(c, trousers) < 16)) {
    const band = Math.round(0.15 * trunk);
    for (let x = 0; x < w; x++) {
      let bottom = -1;
      for (let y = h - 1; y >= 0; y--) if (parts[y * w + x] === PERSON_PART.torso) { bottom = y; break; }
      if (bottom < 0 || !oldTop[bottom * w + x]) continue;
      // only the run that continues the old top down from the torso (not a patterned skirt's
      // pixels that happen to share a colour)
      for (let y = bottom + 1; y <= Math.min(h - 1, bottom + band); y++) {
        const i = y * w + x;
        if (parts[i] !== PERSON_PART.legs) break;
        const c = srgbToLab(d[i * 4], d[i * 4 + 1], d[i * 4 + 2], lab);
        if (nearest(c) >= 16 || (skin && deltaE76(c, skin) <= nearest(c))) break;
        oldTop[i] = 1;
      }
    }
  }
  // below the chest the top is solid cloth: pixels of its colours scattered among others (a
  // patterned skirt's white beside a white top) drop out, the solid cloth's outline stays
  const r = Math.max(3, Math.round(0.03 * sw));
  const density = boxBlur(Float32Array.from(oldTop), w, h, r, 1);
  const solid = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (oldTop[i] && density[i] >= 0.6) solid[i] = 1;
  const nearSolid = dilate(solid, w, h, r + 1);
  for (let i = chestRow * w; i < n; i++) if (!nearSolid[i]) oldTop[i] = 0;
  // the top is one piece: shadows along the arms and dark hair that share a dark top's colours
  // are not part of it
  const piece = largestComponent(oldTop, w, h, { connectivity: 8 });
  for (let i = 0; i < n; i++) oldTop[i] = piece[i] ? 1 : 0;

  // the old top's hem: the lowest row in the middle of the body where it still fills most of the row
  let hem = midTrunk;
  for (let y = hem; y < Math.min(h, hipMid.y + 0.5 * trunk); y++) {
    let c = 0;
    let t = 0;
    for (let x = Math.round(hipMid.x - 0.25 * sw); x <= hipMid.x + 0.25 * sw; x++) {
      if (x < 0 || x >= w) continue;
      t++;
      if (oldTop[y * w + x]) c++;
    }
    if (t && c / t > 0.4) hem = y;
  }
  hem = trousersBelow(body, oldTop, (c) => nearest(c), isSkinAt, chestRow, hem, sw, hipMid.x);

  // hair hanging over the shoulders that the parsing gave the torso or the neck (a bob's ends
  // below the chin) is no cloth: no skin is painted into it
  const hair = hairOverBody(body, labs, hem, (c) => nearest(c));
  for (let i = 0; i < n; i++) if (hair[i]) oldTop[i] = 0;
  // cloth of other colours joined to it above its hem: sleeves, straps, a contrasting collar
  const backdropAt = backdropRows(img, body.mask);
  const other = new Uint8Array(n);
  for (let i = 0; i < Math.min(n, (hem + 1) * w); i++) {
    if (hair[i]) continue;
    if (oldTop[i]) other[i] = 1;
    else if (clothy(parts[i]) && !isSkinAt[i] && body.mask[i] && !backdropAt(i) && !(skin && parts[i] === PERSON_PART.neck && shadedSkinDistance(labAt(i), skin) <= SHADED_SKIN)) other[i] = 2;
  }
  // (joined across a few pixels: a strap's metal ring or buckle between it and the cup)
  const { labels, components } = labelComponents(other, w, h, { connectivity: 8 });
  const joined = new Uint8Array(components.length + 1);
  const reach = dilate(oldTop, w, h, Math.max(2, Math.round(0.03 * sw)));
  for (let i = 0; i < n; i++) if (reach[i] && labels[i]) joined[labels[i]] = 1;
  for (let i = 0; i < n; i++) repaint[i] = oldTop[i] || (other[i] === 2 && joined[labels[i]]) ? 1 : 0;
  return { oldTop, hem, repaint, own, hair };
}

/** A row of the body's middle with more than this share of cloth in none of the top's colours shows other cloth. */
const FOREIGN_ROW = 0.15;
/**
 * Other cloth below the top that tall (relative to the shoulders' width) is the trousers; a shorter
 * band is the top's own curved or uneven hem, the trousers showing beside it.
 */
const TROUSERS_BAND = 0.15;

/**
 * The trousers' or skirt's print can share the old top's colours (a black and white print under a
 * white tee with black lettering) where the parsing's torso reaches over their waistband, down to
 * the hips: the top's palette then runs on below its hem, and a hand in a pocket there became an
 * "old sleeve" painted over with skin. Below the chest line, the middle of the body showing cloth
 * of none of the top's colours row after row down to that hem (at least 3 rows in 4) is other
 * cloth: the top ends above it and nothing from there down is the top's. Returns the hem.
 */
function trousersBelow(body: PersonBody & { parts: Uint8Array }, oldTop: Uint8Array, clothDistance: (c: ArrayLike<number>) => number, isSkinAt: Uint8Array, chestRow: number, hem: number, sw: number, midX: number): number {
  const { width: w, height: h } = body.image;
  const d = body.image.data;
  const lab = [0, 0, 0];
  const foreign: boolean[] = [];
  for (let y = chestRow; y <= hem && y < h; y++) {
    let t = 0;
    let other = 0;
    for (let x = Math.max(0, Math.round(midX - 0.25 * sw)); x <= Math.min(w - 1, midX + 0.25 * sw); x++) {
      const i = y * w + x;
      const p = body.parts[i];
      if (!body.mask[i] || (p !== PERSON_PART.torso && p !== PERSON_PART.arm && p !== PERSON_PART.legs)) continue;
      t++;
      if (oldTop[i] || isSkinAt[i]) continue;
      if (clothDistance(srgbToLab(d[i * 4], d[i * 4 + 1], d[i * 4 + 2], lab)) >= 16) other++;
    }
    foreign.push(t > 0 && other / t > FOREIGN_ROW);
  }
  // the highest row from which, down to the hem, at least 3 rows in 4 show other cloth (which
  // must reach the hem: a band of a print with the top's plain cloth below it is the top's)
  const tail = foreign.slice(-8);
  if (tail.filter(Boolean).length < 0.75 * tail.length) return hem;
  let stop = -1;
  let run = 0;
  for (let k = foreign.length - 1; k >= 0; k--) {
    run += foreign[k] ? 1 : -3;
    if (run >= 0 && foreign[k]) stop = k;
  }
  if (stop < 0 || foreign.length - stop < TROUSERS_BAND * sw) return hem;
  const y0 = chestRow + stop;
  oldTop.fill(0, y0 * w);
  return y0 - 1;
}

/** Within this ΔE76 of the head's hair (and nearer it than the cloth and the skin) a body pixel is hair. */
const HAIR_NEAR = 12;
/** Where the parsing found no face, a hair-labelled pixel within this ΔE76 of the neck's skin is the face. */
const NECK_SKIN = 15;

/**
 * Hair below the face that the parsing labels torso, arm or neck: pixels of the colours of the
 * head's hair (the hair label above the face's middle), nearer them than the old top's cloth
 * (`clothDistance`; blonde hair can be as near the face's skin as to its own colour), joined to
 * the hair label through such pixels (8-connected, above the old top's hem). A strap or collar of
 * the hair's colour away from the hair stays cloth.
 */
function hairOverBody(body: PersonBody & { parts: Uint8Array }, labs: Float32Array, hem: number, clothDistance: (c: ArrayLike<number>) => number): Uint8Array {
  const { width: w, height: h, data } = body.image;
  const { parts } = body;
  const out = new Uint8Array(w * h);
  let faceTop = h;
  let faceBottom = -1;
  for (let i = 0; i < w * h; i++) {
    if (parts[i] !== PERSON_PART.face) continue;
    const y = (i / w) | 0;
    if (y < faceTop) faceTop = y;
    faceBottom = y;
  }
  // a parsing without a face (its face taken for hair): the hair label's own bottom row, and its
  // pixels that are not the neck's skin
  let hairBottom = -1;
  if (faceBottom < 0) for (let i = 0; i < w * h; i++) if (parts[i] === PERSON_PART.hair) hairBottom = (i / w) | 0;
  if (faceBottom < 0 && hairBottom < 0) return out;
  const faceMid = faceBottom < 0 ? hairBottom : (faceTop + faceBottom) >> 1;
  const lab = [0, 0, 0];
  let neck: number[] | null = null;
  if (faceBottom < 0) {
    const pts: number[][] = [];
    for (let i = 0; i < w * h; i += 2) if (parts[i] === PERSON_PART.neck) pts.push(Array.from(srgbToLab(data[i * 4], data[i * 4 + 1], data[i * 4 + 2], lab)));
    if (pts.length >= 50) neck = medianColour(pts);
  }
  const notSkin = (i: number) => {
    if (faceBottom >= 0) return true;
    if (!neck) return !isSkin(data[i * 4], data[i * 4 + 1], data[i * 4 + 2]);
    return deltaE76(srgbToLab(data[i * 4], data[i * 4 + 1], data[i * 4 + 2], lab), neck) >= NECK_SKIN;
  };
  const head: number[][] = [];
  for (let i = 0; i < faceMid * w; i += 3) if (parts[i] === PERSON_PART.hair && notSkin(i)) head.push(Array.from(srgbToLab(data[i * 4], data[i * 4 + 1], data[i * 4 + 2], lab)));
  if (head.length < 60) return out;
  const hair = palette(head.length > 1000 ? head.filter((_, k) => k % Math.ceil(head.length / 1000) === 0) : head, 3);
  const rows = Math.min(h, hem + 1);
  const c = [0, 0, 0];
  const like = (i: number) => {
    const p = parts[i];
    if (p !== PERSON_PART.torso && p !== PERSON_PART.neck && p !== PERSON_PART.arm) return false;
    c[0] = labs[i * 3];
    c[1] = labs[i * 3 + 1];
    c[2] = labs[i * 3 + 2];
    let d = Infinity;
    for (const k of hair) d = Math.min(d, deltaE76(c, k));
    return d < HAIR_NEAR && d + 4 < clothDistance(c);
  };
  // grown from the hair label below the face's middle through hair-like pixels
  const queue: number[] = [];
  const grow = (i: number) => {
    const x = i % w;
    for (const q of [i - 1, i + 1, i - w, i + w, i - w - 1, i - w + 1, i + w - 1, i + w + 1]) {
      if (q < 0 || q >= rows * w || out[q] || Math.abs((q % w) - x) > 1 || !like(q)) continue;
      out[q] = 1;
      queue.push(q);
    }
  };
  for (let i = faceMid * w; i < rows * w; i++) if (parts[i] === PERSON_PART.hair) grow(i);
  while (queue.length) grow(queue.pop()!);
  return out;
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

/**
 * Pull-push interpolation (a membrane fill): `values` (c channels per pixel) are known where
 * `weight` > 0; every other pixel gets a smooth blend of the known values around it, coarse levels
 * filling what fine ones cannot reach. Runs on the box [x0, y0, x1, y1) only. In place.
 */
export function pullPush(values: Float32Array, weight: Float32Array, width: number, c: number, box: [number, number, number, number]): void {
  const [x0, y0, x1, y1] = box;
  const bw = x1 - x0;
  const bh = y1 - y0;
  if (bw <= 0 || bh <= 0) return;
  // level 0: the box, weights clamped to 0..1, values premultiplied by weight
  const levels: { w: number; h: number; v: Float32Array; a: Float32Array }[] = [];
  let v = new Float32Array(bw * bh * c);
  let a = new Float32Array(bw * bh);
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      const i = (y + y0) * width + x + x0;
      const k = y * bw + x;
      const wt = Math.min(1, weight[i]);
      a[k] = wt;
      for (let ch = 0; ch < c; ch++) v[k * c + ch] = values[i * c + ch] * wt;
    }
  }
  levels.push({ w: bw, h: bh, v, a });
  let w = bw;
  let h = bh;
  while (w > 1 || h > 1) {
    const nw = Math.max(1, (w + 1) >> 1);
    const nh = Math.max(1, (h + 1) >> 1);
    const nv = new Float32Array(nw * nh * c);
    const na = new Float32Array(nw * nh);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const k = y * w + x;
        const q = (y >> 1) * nw + (x >> 1);
        na[q] += a[k];
        for (let ch = 0; ch < c; ch++) nv[q * c + ch] += v[k * c + ch];
      }
    }
    // saturate: a coarse pixel with enough support counts as known
    for (let q = 0; q < nw * nh; q++) {
      if (na[q] > 1) {
        const s = 1 / na[q];
        for (let ch = 0; ch < c; ch++) nv[q * c + ch] *= s;
        na[q] = 1;
      }
    }
    levels.push({ w: nw, h: nh, v: nv, a: na });
    v = nv;
    a = na;
    w = nw;
    h = nh;
  }
  // push: each level's missing weight is filled from the (bilinearly upsampled) coarser level
  for (let l = levels.length - 2; l >= 0; l--) {
    const fine = levels[l];
    const coarse = levels[l + 1];
    for (let y = 0; y < fine.h; y++) {
      const cy = Math.max(0, Math.min(coarse.h - 1, (y - 0.5) / 2));
      const j0 = Math.floor(cy);
      const j1 = Math.min(coarse.h - 1, j0 + 1);
      const ty = cy - j0;
      for (let x = 0; x < fine.w; x++) {
        const k = y * fine.w + x;
        const missing = 1 - fine.a[k];
        if (missing <= 0) continue;
        const cx = Math.max(0, Math.min(coarse.w - 1, (x - 0.5) / 2));
        const i0 = Math.floor(cx);
        const i1 = Math.min(coarse.w - 1, i0 + 1);
        const tx = cx - i0;
        const w00 = (1 - tx) * (1 - ty);
        const w01 = tx * (1 - ty);
        const w10 = (1 - tx) * ty;
        const w11 = tx * ty;
        const i00 = j0 * coarse.w + i0;
        const i01 = j0 * coarse.w + i1;
        const i10 = j1 * coarse.w + i0;
        const i11 = j1 * coarse.w + i1;
        const ca = w00 * coarse.a[i00] + w01 * coarse.a[i01] + w10 * coarse.a[i10] + w11 * coarse.a[i11];
        if (ca <= 0) continue;
        const f = missing / ca;
        for (let ch = 0; ch < c; ch++) {
          const cv = w00 * coarse.v[i00 * c + ch] + w01 * coarse.v[i01 * c + ch] + w10 * coarse.v[i10 * c + ch] + w11 * coarse.v[i11 * c + ch];
          fine.v[k * c + ch] += f * cv;
        }
        fine.a[k] = 1;
      }
    }
  }
  const top = levels[0];
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      const i = (y + y0) * width + x + x0;
      if (weight[i] >= 1) continue;
      const k = y * bw + x;
      const s = top.a[k] > 0 ? 1 / top.a[k] : 0;
      for (let ch = 0; ch < c; ch++) values[i * c + ch] = top.v[k * c + ch] * s;
    }
  }
}

type Box = [number, number, number, number];

/** A synthesised forearm's grain against the person's skin texture (face, neck, arms). */
const FOREARM_GRAIN = 0.6;

const lumOf = (img: Uint8Array, i: number) => 0.299 * img[i * 4] + 0.587 * img[i * 4 + 1] + 0.114 * img[i * 4 + 2];

/**
 * Median over `mask` pixels (every `step`-th row and column) of the 5x5 luminance std of an sRGB
 * image, each window counting mask pixels only: the strength of a surface's fine texture, as a
 * viewer (and the realism measure) sees it. With `detrend`, of what is left in each window once
 * the plane through it (least squares) is taken away: the grain without the shading's gradient
 * across it. NaN when too few pixels are found.
 */
export function localStd(img: Uint8Array, width: number, mask: Uint8Array, box: Box, step = 2, detrend = false): number {
  const height = mask.length / width;
  const stds: number[] = [];
  for (let y = Math.max(2, box[1]); y < Math.min(height - 2, box[3]); y += step) {
    for (let x = Math.max(2, box[0]); x < Math.min(width - 2, box[2]); x += step) {
      const i = y * width + x;
      if (!mask[i]) continue;
      // sums of v, v², and of the offsets and their products with v (for the plane)
      let c = 0;
      let s = 0;
      let s2 = 0;
      let sx = 0;
      let sy = 0;
      let sxx = 0;
      let syy = 0;
      let sxy = 0;
      let sxv = 0;
      let syv = 0;
      for (let dy = -2; dy <= 2; dy++) {
        for (let dx = -2; dx <= 2; dx++) {
          const j = i + dy * width + dx;
          if (!mask[j]) continue;
          const v = lumOf(img, j);
          c++;
          s += v;
          s2 += v * v;
          sx += dx;
          sy += dy;
          sxx += dx * dx;
          syy += dy * dy;
          sxy += dx * dy;
          sxv += dx * v;
          syv += dy * v;
        }
      }
      if (c < 12) continue;
      const mv = s / c;
      let variance = s2 / c - mv * mv;
      if (detrend) {
        // covariances about the window's mean; the plane's slopes explain b·cov(x,v) + d·cov(y,v)
        const mx = sx / c;
        const my = sy / c;
        const cxx = sxx / c - mx * mx;
        const cyy = syy / c - my * my;
        const cxy = sxy / c - mx * my;
        const cxv = sxv / c - mx * mv;
        const cyv = syv / c - my * mv;
        const det = cxx * cyy - cxy * cxy;
        if (det <= 1e-9) continue;
        variance -= ((cxv * cyy - cyv * cxy) * cxv + (cyv * cxx - cxv * cxy) * cyv) / det;
      }
      stds.push(Math.sqrt(Math.max(0, variance)));
    }
  }
  return stds.length >= 20 ? median(stds) : NaN;
}

/**
 * The photo's skin (`own`) has its grain on top of the shading's gradients, which give most of
 * its 5x5 std (2-6 levels against a grain of 1-2 once a plane is taken out of each window, on the
 * real photos); grain at the full std read as sand on a full-length photo's pale chest. A fill's
 * grain is this many times the skin's detrended std, standing in for the fine shading its smooth
 * membrane lacks (at 1x its 5x5 std fell under half the skin's on a full-length photo).
 */
const SKIN_GRAIN = 2;

/** The 5x5 std a skin fill's grain is given on this photo (NaN with too little skin to measure). */
export function skinGrainStd(img: Uint8Array, width: number, own: Uint8Array): number {
  return SKIN_GRAIN * localStd(img, width, own, [0, 0, width, own.length / width], 3, true);
}

/** A seeded hash of a position in -0.5..0.5 (the same inputs give the same pixels). */
function hash(x: number, y: number, seed: number): number {
  let t = Math.imul(x + 1, 0x27d4eb2d) ^ Math.imul(y + 1, 0x165667b1) ^ seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
}

/**
 * Grain for a synthesised surface: fine per-pixel noise plus a softer component interpolated from
 * a 3 px lattice (skin's pores and blotches, a backdrop's sensor grain and paper), about unit std.
 */
function grain(x: number, y: number, seed: number): number {
  const gx = x / 3;
  const gy = y / 3;
  const x0 = Math.floor(gx);
  const y0 = Math.floor(gy);
  const tx = gx - x0;
  const ty = gy - y0;
  const sx = tx * tx * (3 - 2 * tx);
  const sy = ty * ty * (3 - 2 * ty);
  const a = hash(x0, y0, seed + 1);
  const b = hash(x0 + 1, y0, seed + 1);
  const c = hash(x0, y0 + 1, seed + 1);
  const d = hash(x0 + 1, y0 + 1, seed + 1);
  const soft = (a + (b - a) * sx) * (1 - sy) + (c + (d - c) * sx) * sy;
  return 2.4 * hash(x, y, seed) + 3 * soft;
}

/** The 5x5 local std of `grain` itself over a patch, measured once: what scales it to a target std. */
const GRAIN_STD = (() => {
  const n = 64;
  const img = new Uint8Array(n * n * 4);
  const mask = new Uint8Array(n * n).fill(1);
  for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) img[(y * n + x) * 4] = img[(y * n + x) * 4 + 1] = img[(y * n + x) * 4 + 2] = Math.round(128 + 20 * grain(x, y, 0x5eed));
  return localStd(img, n, mask, [0, 0, n, n], 1) / 20;
})();

/** `region` cropped to `box`. */
function cropOf(region: Uint8Array, w: number, box: Box): Uint8Array {
  const [bx0, by0, bx1, by1] = box;
  const bw = bx1 - bx0;
  const bh = by1 - by0;
  const crop = new Uint8Array(bw * bh);
  for (let y = 0; y < bh; y++) for (let x = 0; x < bw; x++) crop[y * bw + x] = region[(y + by0) * w + x + bx0];
  return crop;
}

/** `region` cropped to `box`, and each of its pixels' distance to the crop's unset pixels. */
function depthInside(region: Uint8Array, w: number, box: Box) {
  const bw = box[2] - box[0];
  const bh = box[3] - box[1];
  const crop = cropOf(region, w, box);
  return { crop, depth: distanceTransform(crop, bw, bh, 'unset'), bw, bh };
}

/**
 * The membrane takes the colour of whatever skin borders the gap, which can be far from the
 * person's skin (a hand, the shaded rim of an arm). Inside a wide gap its colour moves towards the
 * person's own skin tone (the median of face, neck and arms, linear RGB, de-shaded like the
 * membrane), fully from about 4 px in, so the border still joins the skin around it; a narrow one
 * (under 24 px across, by fillSpan) moves less, none under 6 px: a strip of an old top's side
 * between the new top and an arm continues the arm's shaded side rather than the lit tone. With `from`
 * (a limb's light already shaded across it, per pixel) it moves there wholly, over 6 px from the
 * skin it grows from only: the limb's shaded outline against the backdrop keeps its light.
 */
function towardsTone(values: Float32Array, region: Uint8Array, w: number, box: Box, toneAt: (i: number) => readonly number[], from?: Uint8Array): void {
  const [bx0, by0, bx1, by1] = box;
  const bw = bx1 - bx0;
  const bh = by1 - by0;
  // (the depth inside the region only without `from`)
  const inside = from ? null : depthInside(region, w, box);
  const { crop, depth } = inside ?? { crop: cropOf(region, w, box), depth: null };
  const span = inside ? fillSpan(region, w, box, 3, 12, inside) : null;
  let near: Float32Array | null = null;
  if (from) {
    const src = new Uint8Array(bw * bh);
    for (let y = 0; y < bh; y++) for (let x = 0; x < bw; x++) src[y * bw + x] = from[(y + by0) * w + x + bx0];
    near = distanceTransform(src, bw, bh, 'set');
  }
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      const j = y * bw + x;
      if (!crop[j]) continue;
      const t = near ? Math.min(1, near[j] / 6) : 0.85 * Math.min(1, depth![j] / 4) * span![j];
      const i = (y + by0) * w + x + bx0;
      const tone = toneAt(i);
      for (let c = 0; c < 3; c++) values[i * 3 + c] = values[i * 3 + c] * (1 - t) + tone[c] * t;
    }
  }
}

/**
 * How far the fill spans, per pixel of `box`: 0 in a sliver (up to 2 * `from` px across), 1 where
 * the fill is 2 * `full` px across or more within 6 px (the depth inside it, as a distance
 * transform, and its local maximum).
 */
function fillSpan(region: Uint8Array, w: number, box: Box, from = 1.5, full = 6, inside = depthInside(region, w, box)): Float32Array {
  const { depth, bw, bh } = inside;
  const thick = maxFilter(depth, bw, bh, 6);
  for (let k = 0; k < thick.length; k++) thick[k] = Math.min(1, Math.max(0, (thick[k] - from) / (full - from)));
  return thick;
}

/** Linear light's luminance weights (Rec. 709), per channel. */
const REC709 = [0.2126, 0.7152, 0.0722];

/** Shading across a limb: 1 on its ridge, down to 0.68 (linear light) at the person's outline (a rounded profile). */
const limbShade = (edgeDistance: number, limbRadius: number) => {
  const t = Math.min(1, edgeDistance / Math.max(1, limbRadius));
  return 0.68 + 0.32 * Math.sqrt(t * (2 - t));
};

/**
 * The synthesised skin's outline against the backdrop is a per-pixel decision: pixels on either
 * side of it (skin fill beside backdrop, backdrop beside skin fill) take the mean of their 3x3
 * neighbourhood, a soft edge of about 2 px like the photo's own.
 */
function softenOutline(canvas: Float32Array, fill: Uint8Array, isBackdrop: (i: number) => boolean, w: number, h: number, box: Box): void {
  const edge: number[] = [];
  const marked = new Set<number>();
  for (let y = Math.max(2, box[1]); y < Math.min(h - 2, box[3]); y++) {
    for (let x = Math.max(2, box[0]); x < Math.min(w - 2, box[2]); x++) {
      const i = y * w + x;
      if (fill[i] !== 1) continue;
      for (const j of [i - 1, i + 1, i - w, i + w]) {
        if (!isBackdrop(j)) continue;
        for (const k of [i, j]) {
          if (marked.has(k)) continue;
          marked.add(k);
          edge.push(k);
        }
      }
    }
  }
  const mean = new Float32Array(edge.length * 3);
  edge.forEach((i, k) => {
    for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) for (let c = 0; c < 3; c++) mean[k * 3 + c] += canvas[(i + dy * w + dx) * 3 + c] / 9;
  });
  edge.forEach((i, k) => {
    for (let c = 0; c < 3; c++) canvas[i * 3 + c] = mean[k * 3 + c];
  });
}

/**
 * Repaints `fill` pixels of the canvas (linear RGB) with synthesised skin (1) or background (2).
 * Skin: a membrane (pull-push) of the person's own visible skin colours (`skinSource`), so it
 * joins the skin around it without a seam, shaded across the limb (darker towards the person's
 * outline, over `limbRadius` of the pixel's limb), with grain whose local 5x5 std matches that of the person's skin (`skinStd`, sRGB
 * levels). Background: a membrane of the backdrop around (`backdropSource`, else what lies outside
 * the person's mask: its gradient) with the backdrop's own grain. Seeded: the same inputs give the same pixels.
 */
export function synthesiseFill(canvas: Float32Array, fill: Uint8Array, body: PersonBody, skinSource: Uint8Array, edgeDistance: Float32Array, limbRadius: (i: number) => number, skinTone?: readonly number[] | ((i: number) => readonly number[]), skinStd?: number, backdropSource?: Uint8Array): void {
  const { width: w, height: h } = body.image;
  const img = body.image.data;
  const n = w * h;
  const values = new Float32Array(n * 3);
  const weight = new Float32Array(n);
  const region = new Uint8Array(n);
  const src = new Uint8Array(n);
  for (const kind of [1, 2] as const) {
    let any = false;
    for (let i = 0; i < n; i++) {
      region[i] = fill[i] === kind ? 1 : 0;
      if (region[i]) any = true;
    }
    if (!any) continue;
    const pad = Math.round(Math.max(w, h) * 0.06);
    const bounds = maskBounds(region, w, h);
    if (!bounds) continue;
    const box: Box = [Math.max(0, bounds.x0 - pad), Math.max(0, bounds.y0 - pad), Math.min(w, bounds.x1 + 1 + pad), Math.min(h, bounds.y1 + 1 + pad)];
    // the source: visible skin (de-shaded by the same limb profile), or the backdrop beside the body
    src.fill(0);
    const [bx0, by0, bx1, by1] = box;
    // a fill that spans the limb is shaded across it; a sliver beside skin the photo shows (the rim
    // of an old top between garment and arm) takes its shade from that skin, through the membrane
    const spanBox: Box = [Math.max(0, bounds.x0 - 6), Math.max(0, bounds.y0 - 6), Math.min(w, bounds.x1 + 7), Math.min(h, bounds.y1 + 7)];
    // (measured when first needed: a limb drawn in its own light is not shaded here)
    let span: Float32Array | undefined;
    const shadeAt = (i: number) => {
      if (kind !== 1) return 1;
      const s = limbShade(edgeDistance[i], limbRadius(i));
      if (!region[i] || s >= 1) return s;
      span ??= fillSpan(region, w, spanBox);
      const k = (Math.floor(i / w) - spanBox[1]) * (spanBox[2] - spanBox[0]) + (i % w) - spanBox[0];
      return 1 - (1 - s) * span[k];
    };
    for (let y = by0; y < by1; y++) {
      for (let x = bx0; x < bx1; x++) {
        const i = y * w + x;
        if (!region[i] && (kind === 1 ? skinSource[i] : backdropSource ? backdropSource[i] : !body.mask[i])) src[i] = 1;
      }
    }
    let known = 0;
    for (let y = by0; y < by1; y++) weight.fill(0, y * w + bx0, y * w + bx1);
    for (let y = by0; y < by1; y++) {
      for (let x = bx0; x < bx1; x++) {
        const i = y * w + x;
        if (!src[i]) continue;
        const s = 1 / shadeAt(i);
        for (let c = 0; c < 3; c++) values[i * 3 + c] = canvas[i * 3 + c] * s;
        weight[i] = 1;
        known++;
      }
    }
    if (known < 20) {
      // nothing of the source near: the source's median over the whole photo, then shaded below
      const idx: number[] = [];
      for (let i = 0; i < n; i += 3) if (kind === 1 ? skinSource[i] : !body.mask[i]) idx.push(i);
      if (!idx.length && !(kind === 1 && skinTone)) continue;
      const med = idx.length ? [0, 1, 2].map((c) => median(idx.map((i) => canvas[i * 3 + c]))) : null;
      for (let i = 0; i < n; i++) {
        if (!region[i]) continue;
        const v = med ?? (typeof skinTone === 'function' ? skinTone(i) : skinTone!);
        for (let c = 0; c < 3; c++) values[i * 3 + c] = v[c];
      }
    } else {
      pullPush(values, weight, w, 3, box);
      if (kind === 1 && skinTone) {
        const tone = skinTone;
        if (typeof tone === 'function') towardsTone(values, region, w, box, tone, skinSource);
        else towardsTone(values, region, w, box, () => tone);
      }
    }
    // the grain's strength: the person's skin texture, or the backdrop's own around the fill
    let std = kind === 1 ? (skinStd ?? NaN) : NaN;
    if (!Number.isFinite(std)) std = localStd(img, w, src, box);
    if (!Number.isFinite(std)) std = 1.5;
    const amp = std / GRAIN_STD;
    const seed = 0x5eed + kind * 7919;
    for (let y = by0; y < by1; y++) {
      for (let x = bx0; x < bx1; x++) {
        const i = y * w + x;
        if (!region[i]) continue;
        const sh = shadeAt(i);
        let lum = 0;
        for (let c = 0; c < 3; c++) lum += values[i * 3 + c] * sh * REC709[c];
        // the grain is in sRGB levels: converted to a relative change of linear light (gamma ~2.2)
        const srgbLum = 255 * Math.max(1e-4, lum) ** (1 / 2.2);
        const gain = (Math.max(0, srgbLum + amp * grain(x, y, seed)) / srgbLum) ** 2.2;
        for (let c = 0; c < 3; c++) canvas[i * 3 + c] = Math.max(0, values[i * 3 + c] * sh * gain);
      }
    }
  }
}

/**
 * An old sleeve stands out beyond the arm inside it: along each upper arm (shoulder to elbow) the
 * arm's outer edge is measured on the bare arm below the sleeve (its distance from the axis, the
 * median over a stretch, with a little more for the shoulder's muscle), and skin fill beyond that
 * edge under the sleeve becomes backdrop, so the repainted arm is as wide as the arm.
 */
function armOutline(fill: Uint8Array, oldTop: Uint8Array, body: PersonBody & { parts: Uint8Array }): void {
  const { width: w, height: h } = body.image;
  const { mask, parts } = body;
  const L = body.landmarks;
  const sw = Math.hypot(L.leftShoulder.x - L.rightShoulder.x, L.leftShoulder.y - L.rightShoulder.y);
  const midX = (L.leftShoulder.x + L.rightShoulder.x) / 2;
  for (const [S, E] of [[L.leftShoulder, L.leftElbow], [L.rightShoulder, L.rightElbow]]) {
    const len = Math.hypot(E.x - S.x, E.y - S.y);
    if (len < 0.3 * sw) continue;
    const d = { x: (E.x - S.x) / len, y: (E.y - S.y) / len };
    // the normal pointing away from the body's middle
    let nx = -d.y;
    let ny = d.x;
    if ((S.x - midX) * nx < 0) { nx = -nx; ny = -ny; }
    const at = (t: number, v: number) => {
      const x = Math.round(S.x + d.x * t + nx * v);
      const y = Math.round(S.y + d.y * t + ny * v);
      return x >= 0 && y >= 0 && x < w && y < h ? y * w + x : -1;
    };
    // how far down the arm the old sleeve reaches without a break (on the axis or on its outer
    // half: the torso's side lies on the inner one)
    let end = -1;
    for (let t = 0; t <= len && t - end <= 6; t++) {
      for (let v = 0; v <= 0.08 * sw; v += 2) {
        const i = at(t, v);
        if (i >= 0 && oldTop[i]) end = t;
      }
    }
    if (end < 0.1 * sw || end > len - 0.08 * sw) continue;
    // the bare arm's outer edge below it
    const edges: number[] = [];
    for (let t = end + 0.04 * sw; t <= Math.min(len, end + 0.3 * sw); t += 2) {
      const i0 = at(t, 0);
      if (i0 < 0 || !mask[i0] || parts[i0] !== PERSON_PART.arm) continue;
      let v = 0;
      for (;;) {
        const i = at(t, v + 1);
        if (i < 0 || !mask[i]) break;
        v++;
        if (v > 0.3 * sw) break;
      }
      if (v <= 0.3 * sw) edges.push(v);
    }
    if (edges.length < 4) continue;
    const edge = median(edges);
    // under the sleeve: wider towards the shoulder (its cap), no narrower than the arm below
    for (let t = 0; t <= end + 2; t++) {
      const limit = edge * (1 + 0.15 * (1 - t / Math.max(1, end))) + 2;
      for (let v = Math.floor(limit) + 1; v <= 0.4 * sw; v++) {
        const i = at(t, v);
        if (i < 0) break;
        if (fill[i] === 1) fill[i] = 2;
        // the neighbour across the rounding gap
        const j = at(t + 0.5, v);
        if (j >= 0 && fill[j] === 1) fill[j] = 2;
      }
    }
  }
}

/** Relaxation sweeps of the neck's membrane (over-relaxed Gauss-Seidel from a pull-push start). */
const MEMBRANE_SWEEPS = 160;
/** Within this shadedSkinDistance of the face's skin a pixel beside the neck fill is skin to continue. */
const BOUNDARY_SKIN = 16;
/** The new garment's contact shadow on the skin in its opening: darkest (linear light) at its edge, over a few pixels. */
const CONTACT_SHADE = 0.14;
const CONTACT_REACH = 3;
/**
 * The photo's pixels this close to the neck fill are filled too: the old neckline's outline and the
 * contact shadow it casts on the skin, 3-4 px wide under a shirt's collar. Read as the edge of the
 * skin to continue, that shadow made the whole fill a darker plate stepping against the lit neck.
 */
const RIM = 4;
/**
 * Skin fill this thin (px, backdrop to new garment) along the person's outline is backdrop: an old
 * strap's or collar's rim standing above the new top's shoulder seam reads as a ledge or a hook.
 */
const SLIVER = 9;
/** Islands up to this share of the neck fill's area, enclosed by it and the new garment, are filled too. */
const ISLAND = 0.05;
/**
 * The neck fill's grain against the person's skin texture (which the face's and a beard's detail
 * raise); the membrane from edge values further out is smoother than the skin beside it otherwise.
 */
const NECK_GRAIN = 0.8;

/** The chest's relief reaches full strength this far (px) from the photo's own skin at the fill's edge. */
const RELIEF_FADE = 8;

/**
 * The upper chest's relief that a membrane (smooth between its edges) lacks, as a gain on linear
 * light (1 = none) under a studio's light from the front and above: each collarbone a lit ridge
 * from the notch at the neck's base towards its shoulder, a hollow above its outer half and a soft
 * shade below it, the notch's small shadow between them, and the chest rolling off towards the
 * sides like the cylinder it is. Placed from the pose's neck and shoulders; null when they are
 * too close to place it.
 */
function chestRelief(L: PersonBody['landmarks']): ((x: number, y: number) => number) | null {
  const sw = Math.hypot(L.leftShoulder.x - L.rightShoulder.x, L.leftShoulder.y - L.rightShoulder.y);
  if (sw < 40) return null;
  const cx = L.neck.x;
  const ny = L.neck.y + 0.1 * sw;
  const bones = [L.leftShoulder, L.rightShoulder].map((s) => {
    const dir = Math.sign(s.x - cx) || 1;
    const ax = cx + dir * 0.04 * sw;
    const ay = ny - 0.01 * sw;
    const bx = s.x - dir * 0.06 * sw;
    const by = s.y - 0.03 * sw;
    const len = Math.hypot(bx - ax, by - ay);
    // unit direction along the bone, and its normal pointing down the body
    const ux = (bx - ax) / len;
    const uy = (by - ay) / len;
    const [vx, vy] = ux >= 0 ? [-uy, ux] : [uy, -ux];
    return { ax, ay, ux, uy, vx, vy, len };
  });
  const g = (d: number, s: number) => Math.exp(-(d * d) / (s * s));
  return (x, y) => {
    let gain = 1;
    for (const b of bones) {
      const t = ((x - b.ax) * b.ux + (y - b.ay) * b.uy) / b.len;
      if (t < -0.1 || t > 1.1) continue;
      // fades in and out at the bone's two ends
      const along = Math.min(1, (t + 0.1) / 0.2, (1.1 - t) / 0.2);
      const d = (x - b.ax) * b.vx + (y - b.ay) * b.vy;
      gain += along * (0.1 * g(d, 0.018 * sw) - 0.12 * Math.max(0, t) * g(d + 0.045 * sw, 0.03 * sw) - 0.05 * g(d - 0.045 * sw, 0.03 * sw));
    }
    gain -= 0.12 * g(Math.hypot(x - cx, y - (ny - 0.02 * sw)), 0.03 * sw);
    const side = (x - cx) / (0.5 * sw);
    return gain * (1 - 0.12 * Math.min(1, side * side));
  };
}

/**
 * Skin filled where a new neckline uncovers the old one (above the chest line, off the arms) is
 * the neck and chest continued: a harmonic membrane (the Laplace equation solved over the fill)
 * whose edge values are the photo's own skin right beside it, so the fill meets the neck, its
 * shading and its colour without a step anywhere and carries the light's gradient across from the
 * chin's shadow to the chest. Hair, backdrop and cloth beside the fill (which the parsing may call
 * neck) are no edge values: the membrane only flows along them. The fill gets the skin's grain
 * (`skinStd`, sRGB levels), the upper chest's relief (see chestRelief) and a soft contact shadow
 * under the new garment's edge. Returns whether it painted the fill with the relief.
 */
function neckMembrane(canvas: Float32Array, fill: Uint8Array, covered: (i: number) => boolean, grown: Uint8Array, body: PersonBody & { parts: Uint8Array }, chestY: number, skinStd: number): boolean {
  const { width: w, height: h } = body.image;
  const { parts } = body;
  const img = body.image.data;
  const faceLab = faceSkinLab(body);
  if (!faceLab) return false;
  const yEnd = Math.min(h, Math.ceil(chestY));
  let x0 = w;
  let y0 = h;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < yEnd; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (fill[i] !== 1 || parts[i] === PERSON_PART.arm) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  if (x1 < 0) return false;
  const pad = 6;
  const bx0 = Math.max(0, x0 - pad);
  const by0 = Math.max(0, y0 - pad);
  const bw = Math.min(w, x1 + 1 + pad) - bx0;
  const bh = Math.min(h, y1 + 1 + pad) - by0;
  const at = (k: number) => (by0 + Math.floor(k / bw)) * w + bx0 + (k % bw);
  const nb = bw * bh;
  const region = new Uint8Array(nb);
  for (let k = 0; k < nb; k++) {
    const i = at(k);
    region[k] = fill[i] === 1 && parts[i] !== PERSON_PART.arm && Math.floor(i / w) < yEnd ? 1 : 0;
  }
  // edge values: skin the photo shows RIM + 1 to RIM + 5 px from the fill (the rim holds the old
  // top's outline and its contact shadow), or skin already synthesised below the chest line
  // small islands the fill and the new garment enclose (light cloth of the old top taken for skin,
  // a gap in the fill's map) are filled with it, not continued as skin
  const open = new Uint8Array(nb);
  for (let k = 0; k < nb; k++) open[k] = region[k] || covered(at(k)) ? 0 : 1;
  const { labels, components } = labelComponents(open, bw, bh, { connectivity: 4 });
  let area = 0;
  for (let k = 0; k < nb; k++) area += region[k];
  const island = components.map((c) => c.x0 > 0 && c.y0 > 0 && c.x1 < bw - 1 && c.y1 < bh - 1 && c.area <= ISLAND * area);
  for (let k = 0; k < nb; k++) if (labels[k] && island[labels[k] - 1]) region[k] = 1;
  const near = dilate(region, bw, bh, RIM + 5);
  // the person's outline mixes skin with the backdrop: no edge values within 2 px of it
  const body1 = new Uint8Array(nb);
  for (let k = 0; k < nb; k++) body1[k] = body.mask[at(k)] ? 1 : 0;
  const inside = erode(body1, bw, bh, 2);
  const faceChroma = Math.hypot(faceLab[1], faceLab[2]);
  const touch = dilate(region, bw, bh, RIM);
  // the rim on the person's outline is the backdrop's mixed edge, not skin: painted, it left skin
  // specks in the backdrop beside the fill
  const outside = new Uint8Array(nb);
  for (let k = 0; k < nb; k++) outside[k] = fill[at(k)] === 2 || !body.mask[at(k)] ? 1 : 0;
  const byBackdrop = dilate(outside, bw, bh, 2);
  const state = new Uint8Array(nb); // 1 free, 2 known
  const lab = [0, 0, 0];
  const values = new Float32Array(nb * 3);
  const weight = new Float32Array(nb);
  let known = 0;
  for (let k = 0; k < nb; k++) {
    const i = at(k);
    if (!near[k] || covered(i)) continue;
    // the fill and its rim, where the photo shows the old neckline's outline and contact shadow
    if (region[k] || (touch[k] && !byBackdrop[k] && (fill[i] === 1 || !fill[i]) && parts[i] !== PERSON_PART.hair && parts[i] !== PERSON_PART.background && body.mask[i])) {
      state[k] = 1;
      continue;
    }
    let skin = fill[i] === 1;
    if (!skin && !grown[i] && !fill[i]) {
      const p = parts[i];
      if ((p === PERSON_PART.neck || p === PERSON_PART.face || p === PERSON_PART.torso || p === PERSON_PART.arm) && inside[k]) {
        srgbToLab(img[i * 4], img[i * 4 + 1], img[i * 4 + 2], lab);
        // the neck in the chin's shadow is skin of the face's hue, darker; a white top's cloth near
        // a pale face's colour is not (too little chroma)
        skin = skinLike(lab, faceLab) || (shadedSkinDistance(lab, faceLab) < BOUNDARY_SKIN && Math.hypot(lab[1], lab[2]) >= 0.6 * faceChroma);
      }
    }
    if (!skin) continue;
    state[k] = 2;
    weight[k] = 1;
    for (let c = 0; c < 3; c++) values[k * 3 + c] = canvas[i * 3 + c];
    known++;
  }
  if (known < 12) return false;
  // start from a pull-push of the edge values, then relax to the harmonic fill
  pullPush(values, weight, bw, 3, [0, 0, bw, bh]);
  const omega = 1.85;
  for (let sweep = 0; sweep < MEMBRANE_SWEEPS; sweep++) {
    for (let y = 0; y < bh; y++) {
      for (let x = 0; x < bw; x++) {
        const k = y * bw + x;
        if (state[k] !== 1) continue;
        let m = 0;
        let r = 0;
        let g = 0;
        let b = 0;
        for (const q of [x > 0 ? k - 1 : -1, x < bw - 1 ? k + 1 : -1, y > 0 ? k - bw : -1, y < bh - 1 ? k + bw : -1]) {
          if (q < 0 || !state[q]) continue;
          r += values[q * 3];
          g += values[q * 3 + 1];
          b += values[q * 3 + 2];
          m++;
        }
        if (!m) continue;
        values[k * 3] += omega * (r / m - values[k * 3]);
        values[k * 3 + 1] += omega * (g / m - values[k * 3 + 1]);
        values[k * 3 + 2] += omega * (b / m - values[k * 3 + 2]);
      }
    }
  }
  // the contact shadow: distance to the new garment's opaque pixels
  const cloth = new Uint8Array(nb);
  for (let k = 0; k < nb; k++) cloth[k] = covered(at(k)) ? 1 : 0;
  const toCloth = distanceTransform(cloth, bw, bh, 'set');
  // the chest's relief fades in away from the photo's own skin, which carries its own
  const edge = new Uint8Array(nb);
  for (let k = 0; k < nb; k++) edge[k] = state[k] === 2 ? 1 : 0;
  const toSkin = distanceTransform(edge, bw, bh, 'set');
  const relief = chestRelief(body.landmarks);
  const amp = (NECK_GRAIN * (Number.isFinite(skinStd) ? skinStd : 2)) / GRAIN_STD;
  const seed = 0x5eed + 7919;
  // the relief moves light within the fill (the collarbones' ridges up, the hollows below them
  // down) but keeps its mean: its shadows outweigh its ridges, and left as they were they darkened
  // the fill as a whole (by 2-5 % linear light: the fill darker than the skin it replaced on the
  // held-out bands, see heldOutSkin in the realism test). It still fades in from the photo's skin.
  const reliefAt = new Float32Array(relief ? nb : 0);
  const fadeAt = new Float32Array(relief ? nb : 0);
  let reliefSum = 0;
  let fadeSum = 0;
  for (let k = 0; relief && k < nb; k++) {
    if (state[k] !== 1) continue;
    const i = at(k);
    reliefAt[k] = relief(i % w, Math.floor(i / w));
    fadeAt[k] = Math.min(1, toSkin[k] / RELIEF_FADE);
    reliefSum += fadeAt[k] * reliefAt[k];
    fadeSum += fadeAt[k];
  }
  const reliefMean = fadeSum > 0 ? reliefSum / fadeSum : 1;
  for (let k = 0; k < nb; k++) {
    if (state[k] !== 1) continue;
    const i = at(k);
    const x = i % w;
    const y = Math.floor(i / w);
    const relief1 = relief ? 1 + (reliefAt[k] - reliefMean) * fadeAt[k] : 1;
    const shade = relief1 * (1 - CONTACT_SHADE * Math.exp(-Math.max(0, toCloth[k] - 1) / CONTACT_REACH));
    let lum = 0;
    for (let c = 0; c < 3; c++) lum += Math.max(0, values[k * 3 + c]) * shade * REC709[c];
    const srgbLum = 255 * Math.max(1e-4, lum) ** (1 / 2.2);
    const gain = (Math.max(0, srgbLum + amp * grain(x, y, seed)) / srgbLum) ** 2.2;
    for (let c = 0; c < 3; c++) canvas[i * 3 + c] = Math.max(0, values[k * 3 + c] * shade * gain);
  }
  return relief !== null;
}

/**
 * A light old top (white on a pale backdrop) has pixels in the backdrop's colour: left as backdrop
 * seen through the person, they stayed as white specks and strips beside the new top. Backdrop
 * seen inside the person's outline is a gap that opens onto the backdrop around the person; such
 * pixels that reach it through no other backdrop pixel (holes in the parsing's mask do not count)
 * are the old top's and take the fill.
 */
function enclosedBackdrop(fill: Uint8Array, backdrop: Uint8Array, mask: Uint8Array, w: number, h: number, kindAt: (i: number) => number): void {
  const box = maskBounds(backdrop, w, h);
  if (!box) return;
  // labelled in the backdrop pixels' box, a few pixels wider: what leaves the box is the backdrop around
  const { x0, y0, w: cw, h: ch } = grownBounds(box, 4, w, h);
  const open = new Uint8Array(cw * ch);
  for (let y = 0; y < ch; y++) {
    for (let x = 0; x < cw; x++) {
      const i = (y + y0) * w + x + x0;
      open[y * cw + x] = backdrop[i] || !mask[i] ? 1 : 0;
    }
  }
  const { labels, components } = labelComponents(open, cw, ch, { connectivity: 4 });
  const reaches = new Uint8Array(components.length + 1);
  for (let x = 0; x < cw; x++) reaches[labels[x]] = reaches[labels[(ch - 1) * cw + x]] = 1;
  for (let y = 0; y < ch; y++) reaches[labels[y * cw]] = reaches[labels[y * cw + cw - 1]] = 1;
  for (let y = 0; y < ch; y++) {
    for (let x = 0; x < cw; x++) {
      const i = (y + y0) * w + x + x0;
      if (!backdrop[i] || reaches[labels[y * cw + x]]) continue;
      backdrop[i] = 0;
      fill[i] = kindAt(i);
    }
  }
}

/** An arm's edge taken for old top is at most this thick (px). */
const ARM_EDGE = 4;

/**
 * The old top without the arms' own dark edges: below the chest line, old top in a band at most
 * 2 * ARM_EDGE px thick along the person's outline (nothing of the old top wider beside it) that
 * the parsing calls arm, or calls torso but has the colour of the skin in shade, is an arm's
 * shaded edge in a dark top's colour, not a sleeve, whose cloth is wide. Repainted, it was a ragged
 * line of skin and backdrop specks along the arm.
 */
function withoutArmEdges(oldTop: Uint8Array, body: PersonBody & { parts: Uint8Array }, chestY: number, face: number[] | null): Uint8Array {
  const { width: w, height: h, data } = body.image;
  const n = w * h;
  const y0 = Math.max(0, Math.ceil(chestY));
  const lab = [0, 0, 0];
  const edge = new Uint8Array(n);
  let any = false;
  for (let i = y0 * w; i < n; i++) {
    if (!oldTop[i]) continue;
    const p = body.parts[i];
    if (p === PERSON_PART.torso) {
      if (!face || shadedSkinDistance(srgbToLab(data[i * 4], data[i * 4 + 1], data[i * 4 + 2], lab), face) >= SHADED_SKIN) continue;
    } else if (p !== PERSON_PART.arm) continue;
    edge[i] = 1;
    any = true;
  }
  if (!any) return oldTop;
  // what of it is wide (a sleeve), and the person's outline, in the band's box (with room for the
  // morphology; the person's mask outside the image counts as outside)
  const box = maskBounds(edge, w, h)!;
  const { x0: bx0, y0: by0, w: bw, h: bh } = grownBounds(box, 2 * ARM_EDGE + 3, w, h);
  const at = (k: number) => (by0 + Math.floor(k / bw)) * w + bx0 + (k % bw);
  const band = new Uint8Array(bw * bh);
  const person = new Uint8Array(bw * bh);
  for (let k = 0; k < band.length; k++) {
    band[k] = edge[at(k)];
    person[k] = body.mask[at(k)] ? 1 : 0;
  }
  const wide = dilate(open(band, bw, bh, ARM_EDGE), bw, bh, 2);
  const inside = erode(person, bw, bh, 2 * ARM_EDGE + 1);
  const kept = oldTop.slice();
  for (let k = 0; k < band.length; k++) if (band[k] && !wide[k] && !inside[k]) kept[at(k)] = 0;
  return kept;
}

/** Within this ΔE76 of the skirt below the new top's hem an arm pixel there is the skirt. */
const SKIRT_NEAR = 10;

/**
 * The colour (Lab, median) of what the person wears below the new top's hem: the parsing's legs a
 * little below `hemRow`, when that is cloth rather than bare skin; null otherwise.
 */
function skirtBelow(body: PersonBody & { parts: Uint8Array }, hemRow: number, face: number[] | null): number[] | null {
  const { width: w, height: h, data } = body.image;
  if (hemRow < 0) return null;
  const pts: number[][] = [];
  const lab = [0, 0, 0];
  for (let y = hemRow + 1; y < Math.min(h, hemRow + 1 + Math.round(0.05 * h)); y++) {
    for (let x = 0; x < w; x += 2) {
      const i = y * w + x;
      if (body.parts[i] !== PERSON_PART.legs || !body.mask[i]) continue;
      srgbToLab(data[i * 4], data[i * 4 + 1], data[i * 4 + 2], lab);
      if (face && skinLike(lab, face)) continue;
      pts.push([lab[0], lab[1], lab[2]]);
    }
  }
  if (pts.length < 50) return null;
  return medianColour(pts);
}

/** Skin fill this thin (px) between the new top and the person's own pixels below the chest line is the top's. */
const CLOTH_GAP = 3;
/** A strip turned to cloth runs at least this many rows. */
const STRIP_ROWS = 3;

/**
 * Skin the fill would paint in a strip up to CLOTH_GAP px wide between the new top and the
 * person's own pixels, below the chest line (the old top's side showing a little beyond the new
 * one's, beside the inner arm), is drawn as the new top instead: it reaches the arm as cloth does.
 * Painted, such a strip read as a faint light line along the arm, its grain and colour those of
 * its 1-3 px of soft edge. `cloth` and `toCloth` (the new top at full coverage, and the distance
 * to it) cover `box`.
 */
function stripsToCloth(layer: Layer, fill: Uint8Array, cloth: Uint8Array, toCloth: Float32Array, mask: Uint8Array, box: Box, chestY: number): void {
  const [x0, y0, x1, y1] = box;
  const w = layer.width;
  const cw = x1 - x0;
  const ch = y1 - y0;
  const own = new Uint8Array(cw * ch);
  for (let y = 0; y < ch; y++) {
    for (let x = 0; x < cw; x++) {
      const i = (y + y0) * w + x + x0;
      own[y * cw + x] = mask[i] && !fill[i] && !cloth[y * cw + x] && layer.data[i * 4 + 3] < 0.05 ? 1 : 0;
    }
  }
  const toOwn = distanceTransform(own, cw, ch, 'set');
  const strip = new Uint8Array(fill.length);
  let any = false;
  for (let y = Math.max(y0, Math.ceil(chestY)); y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = y * w + x;
      const k = (y - y0) * cw + x - x0;
      if (fill[i] === 1 && toCloth[k] + toOwn[k] <= CLOTH_GAP + 1) {
        strip[i] = 1;
        any = true;
      }
    }
  }
  if (!any) return;
  // a strip a row or two tall (the gap narrowing to CLOTH_GAP at one row only) stays skin: as cloth
  // it was a dash sticking out of the new top's side
  const { labels, components } = labelComponents(strip, w, layer.height, { connectivity: 8 });
  for (let i = 0; i < strip.length; i++) if (labels[i] && components[labels[i] - 1].y1 - components[labels[i] - 1].y0 < STRIP_ROWS - 1) strip[i] = 0;
  patchHoles(layer, strip);
  for (let i = 0; i < fill.length; i++) if (strip[i] && layer.data[i * 4 + 3] >= 0.99) fill[i] = 0;
}

/**
 * Pixels the fill map leaves out amid the fill (the old top's dark outline, of neither its cloth's
 * colour nor the backdrop's) stayed as the photo shows them: dark specks in the backdrop painted
 * beside the new top. A pixel with most of its eight neighbours filled takes their fill.
 */
function fillSpecks(fill: Uint8Array, covered: (i: number) => boolean, backdropSource: Uint8Array, w: number, h: number, box: Box): void {
  const [x0, y0, x1, y1] = box;
  const ring = [-w - 1, -w, -w + 1, -1, 1, w - 1, w, w + 1];
  for (let pass = 0; pass < 2; pass++) {
    const flip: [number, number][] = [];
    for (let y = Math.max(1, y0); y < Math.min(h - 1, y1); y++) {
      for (let x = Math.max(1, x0); x < Math.min(w - 1, x1); x++) {
        const i = y * w + x;
        if (fill[i] || covered(i)) continue;
        let skin = 0;
        let backdrop = 0;
        for (const d of ring) {
          if (fill[i + d] === 1) skin++;
          else if (fill[i + d] === 2) backdrop++;
        }
        if (skin + backdrop >= 5) flip.push([i, backdrop >= skin ? 2 : 1]);
      }
    }
    // (a filled pixel is painted, not painted from)
    for (const [i, kind] of flip) {
      fill[i] = kind;
      backdropSource[i] = 0;
    }
  }
}

/**
 * What stays visible of the person's own top after the new one is laid (straps, armholes, a
 * higher neckline, a longer hem, the fringe under the new top's soft edge) is repainted: with the
 * person's skin on the arms, neck, shoulders and within the new top's width below it, elsewhere
 * (an old top wider than the new one, the person's outline) with the backdrop. Pixels of the
 * old top's rim that show the backdrop or skin already are left as they are. Returns the fill map
 * (1 skin, 2 background). `hair` (findOldTop's) is hair below the face that the parsing gave
 * the body: the old top's rim grows no skin into it.
 */
export function uncoverOldTop(canvas: Float32Array, layer: Layer, oldTop: Uint8Array, body: PersonBody & { parts: Uint8Array }, hair?: Uint8Array, record?: Pick<LayerDiagnostics, 'limbs' | 'chestRelief'>): Uint8Array {
  const { width: w, height: h, data } = layer;
  const n = w * h;
  const parts = body.parts;
  const img = body.image.data;
  const L = body.landmarks;
  const sw = Math.hypot(L.leftShoulder.x - L.rightShoulder.x, L.leftShoulder.y - L.rightShoulder.y);
  const covered = (i: number) => data[i * 4 + 3] >= 0.99;
  const faceLab = faceSkinLab(body);
  oldTop = withoutArmEdges(oldTop, body, L.chestLeft.y, faceLab);
  // the old top's own outline pixels (mixed colours) go too: the region grows by 3 px
  const grown = dilate(oldTop, w, h, 3);
  const outline = hair ? dilate(oldTop, w, h, 1) : grown;
  const fill = new Uint8Array(n);
  // the new top's extent per row, and at its lowest row (its hem)
  const left = new Int32Array(h).fill(-1);
  const right = new Int32Array(h).fill(-1);
  let hemRow = -1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (data[(y * w + x) * 4 + 3] < 0.5) continue;
      if (left[y] < 0) left[y] = x;
      right[y] = x;
    }
    if (left[y] >= 0) hemRow = y;
  }
  const chestY = L.chestLeft.y;
  let bx0 = w;
  let by0 = h;
  let bx1 = -1;
  let by1 = -1;
  const la = [0, 0, 0];
  const skirt = skirtBelow(body, hemRow, faceLab);
  const ofSkirt = new Uint8Array(skirt ? n : 0);
  const lb = [0, 0, 0];
  const skin = skinColour(body, SRGB_TO_LINEAR, oldTop);
  const backdropAt = backdropRows(body.image, body.mask);
  // skin on the arms, the neck, above the chest and across the new top's width; backdrop elsewhere
  const kindAt = (i: number) => {
    const x = i % w;
    const y = (i - x) / w;
    const p = parts[i];
    const row = left[y] >= 0 ? y : hemRow;
    const within = row >= 0 && x >= left[row] && x <= right[row];
    return !body.mask[i] || p === PERSON_PART.background ? 2 : p === PERSON_PART.arm || p === PERSON_PART.neck || y < chestY || within ? 1 : 2;
  };
  // pixels of the person that show the backdrop (only the old top's rim is asked)
  const backdrop = new Uint8Array(n);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (!grown[i] || covered(i)) continue;
      const p = parts[i];
      if (p === PERSON_PART.face || p === PERSON_PART.hair || p === PERSON_PART.legs || p === PERSON_PART.feet) continue;
      // below the new top's hem, an arm pixel in the colour of the skirt there is the skirt (a dress
      // is one garment: the parsing calls a band of it beside a hanging forearm arm)
      if (skirt && p === PERSON_PART.arm && y > hemRow) {
        srgbToLab(img[i * 4], img[i * 4 + 1], img[i * 4 + 2], la);
        if (deltaE76(la, skirt) < SKIRT_NEAR) {
          ofSkirt[i] = 1;
          continue;
        }
      }
      // a rim pixel that is not the old top counts only where it is neither the person's skin nor
      // backdrop already (the old top's rim outside a tight mask is repainted too)
      if (!oldTop[i]) {
        // hair hanging below the face (the parsing's torso): painted, the rim grew a square of skin
        // into it; the old top's own outline beside it (a dark strap's edge) still goes
        if (hair?.[i] && !outline[i]) continue;
        srgbToLab(img[i * 4], img[i * 4 + 1], img[i * 4 + 2], la);
        if (skin ? deltaE76(la, skin.lab) < 12 : isSkin(img[i * 4], img[i * 4 + 1], img[i * 4 + 2])) continue;
        // an arm's own skin in shade against the old top's side (its inner edge) stays the photo's:
        // repainted, it turned a lit strip between the arm and the new top
        if (p === PERSON_PART.arm && faceLab && skinLike(la, faceLab)) continue;
        if (backdropAt(i)) {
          if (body.mask[i]) backdrop[i] = 1;
          continue;
        }
      }
      if (x < bx0) bx0 = x;
      if (x > bx1) bx1 = x;
      if (y < by0) by0 = y;
      if (y > by1) by1 = y;
      fill[i] = kindAt(i);
    }
  }
  if (skirt) {
    // the skirt's outline against the arm (mixed pixels, neither its colour nor the skin's) stays
    // the photo's too: painted as skin it was a dotted line along the forearm
    const nearSkirt = dilate(ofSkirt, w, h, 2);
    for (let i = (hemRow + 1) * w; i < n; i++) {
      if (fill[i] !== 1 || !nearSkirt[i] || parts[i] !== PERSON_PART.arm) continue;
      srgbToLab(img[i * 4], img[i * 4 + 1], img[i * 4 + 2], la);
      if (!(skin ? deltaE76(la, skin.lab) < 12 : isSkin(img[i * 4], img[i * 4 + 1], img[i * 4 + 2]))) fill[i] = 0;
    }
  }
  if (bx1 < 0) return fill;
  enclosedBackdrop(fill, backdrop, body.mask, w, h, kindAt);
  armOutline(fill, oldTop, body);
  // how deep each pixel lies inside the person (for the limb's shading), in the fill's box only;
  // backdrop seen inside the mask counts as outside
  const pad = Math.round(Math.max(w, h) * 0.06);
  const cx0 = Math.max(0, bx0 - pad);
  const cy0 = Math.max(0, by0 - pad);
  const cx1 = Math.min(w, bx1 + 1 + pad);
  const cy1 = Math.min(h, by1 + 1 + pad);
  const cw = cx1 - cx0;
  const ch = cy1 - cy0;
  const crop = new Uint8Array(cw * ch);
  // the backdrop the fill grows from: not the old top's rim (its soft outline mixes the old
  // top's colour into the backdrop's, within the backdrop test's 24 levels: a dark purple sleeve
  // tinted the backdrop grown beside it)
  const backdropSource = new Uint8Array(n);
  for (let y = 0; y < ch; y++) {
    for (let x = 0; x < cw; x++) {
      const i = (y + cy0) * w + x + cx0;
      const seen = backdropAt(i);
      if (seen && body.mask[i] && !oldTop[i] && fill[i] !== 1) backdrop[i] = 1;
      if (seen && !fill[i] && !grown[i] && (!body.mask[i] || backdrop[i])) backdropSource[i] = 1;
      crop[y * cw + x] = body.mask[i] && !backdrop[i] ? 1 : 0;
    }
  }
  const dt = distanceTransform(crop, cw, ch, 'unset');
  const depth = new Float32Array(n);
  for (let y = 0; y < ch; y++) for (let x = 0; x < cw; x++) depth[(y + cy0) * w + x + cx0] = dt[y * cw + x];
  // a fill pixel on the person's outline (within 2.5 px of the backdrop) beside skin the photo
  // shows (the old top's rim along an arm or a shoulder) is backdrop: the skin's own outline
  // stays where it was rather than growing a rim of skin beside it
  const visibleSkin = (j: number) => {
    if (grown[j] || fill[j] || backdrop[j] || !body.mask[j]) return false;
    if (!skin) return isSkin(img[j * 4], img[j * 4 + 1], img[j * 4 + 2]);
    srgbToLab(img[j * 4], img[j * 4 + 1], img[j * 4 + 2], lb);
    return deltaE76(lb, skin.lab) < 20;
  };
  for (let y = cy0; y < cy1; y++) {
    for (let x = cx0; x < cx1; x++) {
      const i = y * w + x;
      if (fill[i] !== 1 || depth[i] > 2.5) continue;
      let beside = parts[i] !== PERSON_PART.arm;
      for (let dy = -4; dy <= 4 && !beside; dy++) {
        for (let dx = -4; dx <= 4 && !beside; dx++) {
          const xx = x + dx;
          const yy = y + dy;
          if (xx >= 0 && yy >= 0 && xx < w && yy < h && visibleSkin(yy * w + xx)) beside = true;
        }
      }
      if (beside) fill[i] = 2;
    }
  }
  // skin left in a sliver between the new garment and the backdrop around the person (the old
  // top's strap standing a few pixels above the new shoulder seam) is the backdrop: painted, it was
  // a pale ledge with a ragged top along the shoulder (light cloth that looks like the backdrop,
  // which `depth` counts as outside, does not count)
  const clothCrop = new Uint8Array(cw * ch);
  const outCrop = new Uint8Array(cw * ch);
  for (let y = 0; y < ch; y++) {
    for (let x = 0; x < cw; x++) {
      const i = (y + cy0) * w + x + cx0;
      clothCrop[y * cw + x] = covered(i) ? 1 : 0;
      outCrop[y * cw + x] = !body.mask[i] || fill[i] === 2 ? 1 : 0;
    }
  }
  const toCloth = distanceTransform(clothCrop, cw, ch, 'set');
  const toOutside = distanceTransform(outCrop, cw, ch, 'set');
  for (let y = cy0; y < cy1; y++) {
    for (let x = cx0; x < cx1; x++) {
      const i = y * w + x;
      const k = (y - cy0) * cw + x - cx0;
      if (fill[i] === 1 && parts[i] !== PERSON_PART.arm && toOutside[k] + toCloth[k] <= SLIVER) fill[i] = 2;
    }
  }
  stripsToCloth(layer, fill, clothCrop, toCloth, body.mask, [cx0, cy0, cx1, cy1], chestY);
  fillSpecks(fill, covered, backdropSource, w, h, [cx0, cy0, cx1, cy1]);
  // forearms under old long sleeves: drawn to the arm's outline from the hand they join
  const forearms = planForearms(fill, grown, oldTop, covered, body, skin?.lab ?? null);
  // upper arms under old short sleeves: drawn from the bare arm below the hem
  const taken = new Uint8Array(n);
  for (const f of forearms) for (let i = 0; i < n; i++) if (f.skin[i]) taken[i] = 1;
  const upperArms = planUpperArms(fill, grown, taken, covered, body, skin?.lab ?? null);
  const limbs = [...forearms, ...upperArms];
  for (const f of forearms) for (let i = 0; i < n; i++) backdropSource[i] = fill[i] ? 0 : backdropSource[i] | f.backdrop[i];
  // the person's visible skin the fill is grown from: skin of the arms, neck, face and torso near
  // the person's own tone (deep shadows, the outline's mixed pixels and backdrop left out)
  const skinSource = new Uint8Array(n);
  let sources = 0;
  for (const strict of [true, false]) {
    for (let y = cy0; y < cy1; y++) {
      for (let x = cx0; x < cx1; x++) {
        const i = y * w + x;
        const p = parts[i];
        if (!(p === PERSON_PART.arm || p === PERSON_PART.neck || p === PERSON_PART.face || p === PERSON_PART.torso) || grown[i] || fill[i] || backdrop[i]) continue;
        if (strict) {
          if (!skin || depth[i] < 2.5) continue;
          srgbToLab(img[i * 4], img[i * 4 + 1], img[i * 4 + 2], la);
          // (an arm's side in shade too: the fill beside it, an old top's rim, continues it)
          if (deltaE76(la, skin.lab) < 12 || (p === PERSON_PART.arm && shadedSkin(la, skin.lab, true))) {
            skinSource[i] = 1;
            sources++;
          }
        } else if (isSkin(img[i * 4], img[i * 4 + 1], img[i * 4 + 2])) skinSource[i] = 1;
      }
    }
    if (sources >= 200) break;
  }
  // the texture to match: the person's own visible skin (face, neck, arms outside the old top)
  const own = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const p = parts[i];
    if ((p === PERSON_PART.arm || p === PERSON_PART.neck || p === PERSON_PART.face) && !oldTop[i] && isSkin(img[i * 4], img[i * 4 + 1], img[i * 4 + 2])) own[i] = 1;
  }
  const skinStd = skinGrainStd(img, w, own);
  // an arm is a narrow cylinder, the torso a wide one: their shading falls off over different widths
  const radius = (i: number) => (parts[i] === PERSON_PART.arm ? 0.1 : 0.3) * sw;
  // everything but the drawn limbs first (their backdrop too), then each limb from the skin it
  // continues (a forearm from its hand, an upper arm from the arm below the old hem)
  const general = limbs.length ? fill.slice() : fill;
  for (const f of limbs) for (let i = 0; i < n; i++) if (f.skin[i]) general[i] = 0;
  synthesiseFill(canvas, general, body, skinSource, depth, radius, skin?.linear, skinStd, backdropSource);
  const relief = neckMembrane(canvas, general, covered, grown, body, chestY, skinStd);
  if (limbs.length) {
    // unshaded here (depth = radius): each in the light across it read off the skin it continues
    const flat = new Float32Array(n).fill(1);
    // an arm's skin is finer than the face's and neck's, whose texture sets skinStd
    for (const f of forearms) synthesiseFill(canvas, f.skin, body, f.source, flat, () => 1, (i) => forearmLight(f.profile, f.across[i]), skinStd * FOREARM_GRAIN);
    // the upper arms in one pass (each grows from its own arm below the hem, far from the other)
    if (upperArms.length) {
      const skinOf = upperArms.length === 1 ? upperArms[0].skin : new Uint8Array(n);
      const sourceOf = upperArms.length === 1 ? upperArms[0].source : new Uint8Array(n);
      const which = new Int8Array(n);
      upperArms.forEach((f, k) => {
        const [x0, y0, x1, y1] = f.box;
        for (let y = y0; y < y1; y++) {
          for (let x = x0; x < x1; x++) {
            const i = y * w + x;
            if (f.skin[i]) {
              skinOf[i] = 1;
              which[i] = k;
            }
          }
        }
        if (upperArms.length > 1) for (let i = 0; i < n; i++) if (f.source[i]) sourceOf[i] = 1;
      });
      synthesiseFill(canvas, skinOf, body, sourceOf, flat, () => 1, (i) => forearmLight(upperArms[which[i]].profile, upperArms[which[i]].across[i]), skinStd * FOREARM_GRAIN);
    }
    finishForearms(canvas, limbs, w, h, (j) => general[j] === 2);
  }
  if (record) {
    if (relief) record.chestRelief = true;
    let otherArmSkin = 0;
    for (let i = 0; i < n; i++) if (general[i] === 1 && parts[i] === PERSON_PART.arm) otherArmSkin++;
    record.limbs = {
      forearms: forearms.map((f) => ({ painted: f.skin.reduce((a, v) => a + v, 0), wristJoin: wristJoin(canvas, f, w, h) })),
      upperArms: upperArms.map((f) => ({ painted: f.skin.reduce((a, v) => a + v, 0), join: wristJoin(canvas, f, w, h) })),
      otherArmSkin,
    };
  }
  softenOutline(canvas, general, (i) => general[i] === 2 || (!general[i] && (!body.mask[i] || backdrop[i] === 1)), w, h, [cx0, cy0, cx1, cy1]);
  return fill;
}
