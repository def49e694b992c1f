/**
 * The quality gate: checks a try-on result on a person photo before anyone sees it. Per garment
 * layer: the warp's fold-over share and its distortion (from the renderer's diagnostics), how much
 * of the torso the new garment covers, how much of the person's old garment still shows its colours
 * outside the new one, and how much skin or background had to be synthesised (relative to the
 * torso). The renderer's diagnostics are used where it filled them; what it left out the gate
 * measures itself from the result, the photo and the photo's parsing, or reports as not measured.
 */
import type { RasterImage } from '../../../core/images.ts';
import { PERSON_PART, type PersonBody } from '../../../core/ports/person-analyzer.ts';
import { fillHoles, labelComponents } from '../raster/components.ts';
import { close, dilate, erode } from '../raster/morphology.ts';
import type { GarmentCategory } from './classify-garment.ts';
import { deltaE76, srgbToLab } from './color.ts';
import { boxBlur } from './box-blur.ts';
import { cutOut } from './garment-pieces.ts';
import type { LayerDiagnostics, TryOnDiagnostics, WarpDiagnostics } from './diagnostics.ts';

export interface GateBounds {
  /** Largest share of the garment's mapped pixels where the warp folds over. */
  folded: number;
  /** Largest local area ratio of the warp (relative to its median): a region stretched beyond it tears. */
  maxAreaRatio: number;
  /** Smallest local area ratio: a region squeezed below it crumples the print. */
  minAreaRatio: number;
  /** Smallest share of the torso (the layer's target) the new garment covers. */
  coverage: number;
  /** Largest share of the old garment still showing its colours outside the new one. */
  oldGarment: number;
  /** Largest synthesised area (skin and background fill) relative to the target. */
  fill: number;
  /**
   * Largest share of the torso, between the garment's sides on its own rows below the neckline,
   * left bare (a torn or bent panel: a wedge of skin at the belly with cloth on both sides).
   */
  gap: number;
  /**
   * Largest factor by which the garment's horizontal over vertical gradient energy may differ from
   * the packshot's own, either way (a smeared, shredded or squashed print moves it).
   */
  structure: number;
  /**
   * Largest share of the old top's cloth (the photo's torso, arm and neck pixels far from the
   * face's skin colour: sleeves and straps of any colour) left as it was outside the new garment.
   */
  oldCloth: number;
  /** Largest share of the person's own bare arm skin (hands, forearms) outside the new garment repainted. */
  limbRepainted: number;
  /**
   * Largest share of the arms showing outside the new garment that had to be synthesised (old
   * sleeves replaced by painted skin): a classical fill carries the skin's grain but not a real
   * forearm's shading, tendons and hands' joins, so a whole painted limb reads as a mannequin's.
   * Where every synthesised forearm was drawn from its own visible hand (the renderer's
   * diagnostics: the hand's wrist width and the light across it, no other arm skin filled) and
   * joins it (each wrist's colour step within `wristJoin`), the larger `limbSynthesisedFromHands`
   * holds instead: such arms read as arms continuous with the hands, not the flat bands this bound
   * was set for.
   */
  limbSynthesised: number;
  /** The limb-synthesised bound for forearms all drawn from their own hands and joining them (see limbSynthesised). */
  limbSynthesisedFromHands: number;
  /**
   * Largest area of skin painted beside the bare forearms and hands the photo shows (within a few
   * percent of the shoulders' width of them, below the elbows, where the photo had no skin),
   * relative to theirs: an arm widened by a flat slab of skin (a dress's skirt the parsing calls arm,
   * in the old top's colours, repainted along a bare forearm). Not measured where the renderer drew
   * the forearms from their hands (painting beside a hand is then the forearm itself).
   */
  armWidened: number;
  /**
   * Largest colour step (CIE76) across a drawn forearm's wrist, between the painted skin and the
   * hand's own pixels within a few px of where they meet: a forearm in its hand's light joins it
   * within about 1 (0.8-1.2 on the real pairs), a band in another tone steps.
   */
  wristJoin: number;
  /** Smallest share of the packshot's garment silhouette (faint edges included, holes filled) that its cut-out keeps. */
  garmentKept: number;
  /**
   * Largest area, relative to the torso, of changed pixels outside the new garment that are neither
   * skin nor backdrop (shreds of another garment), or that lie on the legs away from the old top.
   */
  fragments: number;
  /**
   * Largest area, relative to the neck's, of skin synthesised in a block between the chin and the
   * chest line (where a new neckline left the old one uncovered), off the arms: the fill continues
   * the neck's colour and shading from its edge, but has none of its collarbones and tendons, so a
   * large one reads as a smooth patch (see neckFillDrawn for one drawn as chest).
   */
  neckFill: number;
  /**
   * The neck-fill bound for a fill drawn as chest (the renderer's chestRelief: collarbones, notch,
   * roll-off) whose join with the neck is clean nearly everywhere (see neckSeamTail): a neckline
   * lower than the old one opens this much skin, up to about the neck's own area, without reading
   * as a patch.
   */
  neckFillDrawn: number;
  /**
   * Largest colour step (CIE76, the 90th percentile along the join) for the neckFillDrawn bound:
   * a large fill that steps anywhere along its join (a shadow or a tone of another part of the
   * neck carried across) shows its outline.
   */
  neckSeamTail: number;
  /**
   * Largest colour step (CIE76, the 75th percentile along the join) between that fill, 3 px in, and
   * the visible neck skin beside it, 3 px out: a fill of another tone reads as a pasted patch.
   */
  neckSeam: number;
  /**
   * Largest share of that fill's outline (off the new garment) against hair, backdrop or anything
   * not skin: skin that ends there keeps the old top's shape (a shoulder plate, a flag in the hair).
   */
  neckOutline: number;
  /**
   * Largest colour step (CIE76, the worst of a few bins across the arm) where skin painted on an
   * arm ends against the arm's own skin, measured along the arm: a fill that continues the arm
   * steps by little, a flat band of another tone or without the arm's shading steps.
   */
  armJoin: number;
}

/** The skin synthesised at the neck: its block's area relative to the neck's, its seam (75th and 90th percentile), its outline off the skin. */
interface NeckFill {
  area: number;
  seam: number | null;
  seamTail: number | null;
  loose: number | null;
}

/**
 * Calibrated on the 22 real top pairs of test/fixtures/real-photos (the bench prints the values):
 * coverage, old garment and fill measured from the images; the warp's fold-over share and its area
 * ratios at the 0.5th and 99.5th percentile of the garment's cells, relative to the median (a sleeve
 * laid along an arm is legitimately stretched several times; a degenerate mapping reaches thousands).
 */
export const GATE_BOUNDS: GateBounds = {
  folded: 0.025,
  maxAreaRatio: 40,
  minAreaRatio: 1 / 40,
  coverage: 0.6,
  oldGarment: 0.03,
  fill: 0.6,
  gap: 0.06,
  structure: 1.5,
  oldCloth: 0.005,
  limbRepainted: 0.1,
  limbSynthesised: 0.45,
  limbSynthesisedFromHands: 0.8,
  armWidened: 0.12,
  wristJoin: 3,
  garmentKept: 0.75,
  fragments: 0.01,
  neckFill: 0.285,
  neckFillDrawn: 0.75,
  neckSeamTail: 5,
  neckSeam: 6,
  neckOutline: 0.5,
  armJoin: 6,
};

export type GateCheckName =
  | 'warp-folded'
  | 'warp-stretch'
  | 'warp-squeeze'
  | 'coverage'
  | 'old-garment'
  | 'fill-area'
  | 'garment-gap'
  | 'print-structure'
  | 'old-cloth'
  | 'limb-repainted'
  | 'limb-synthesised'
  | 'arm-widened'
  | 'garment-lost'
  | 'foreign-fragments'
  | 'neck-fill'
  | 'neck-seam'
  | 'neck-outline'
  | 'arm-join';

export interface GateCheck {
  layer: GarmentCategory;
  check: GateCheckName;
  /** null: not measured (the renderer did not report it and the gate cannot tell it from the images). */
  value: number | null;
  bound: number;
  /** `max`: the value must not exceed the bound; `min`: it must reach it; `ratio`: within bound and 1/bound. */
  kind: 'max' | 'min' | 'ratio';
  passed: boolean;
  /** Who measured the value: the renderer's diagnostics or the gate from the images. */
  source: 'renderer' | 'gate' | null;
}

export interface GateVerdict {
  passed: boolean;
  checks: GateCheck[];
  /** The first failing check, in words a shop owner reads (the job's error message). */
  reason?: string;
}

export interface GateInput {
  /** The analysed person photo; its parsing (`parts`) lets the gate measure what the renderer did not report. */
  person: PersonBody;
  result: RasterImage;
  /** The packshots drawn, by category (their colours tell the new garment from the old). */
  garments?: Partial<Record<GarmentCategory, RasterImage>>;
  diagnostics?: TryOnDiagnostics;
  bounds?: Partial<GateBounds>;
}

/**
 * Lab colours of sRGB quantised to 6 bits a channel (the bin's centre; at most about 2 units of CIE76
 * off), built once: the gate looks colours up instead of converting each pixel twice.
 */
let LAB: Float32Array | undefined;
function labTable(): Float32Array {
  if (LAB) return LAB;
  const t = new Float32Array(64 * 64 * 64 * 3);
  const lab = [0, 0, 0];
  for (let r = 0; r < 64; r++) {
    for (let g = 0; g < 64; g++) {
      for (let b = 0; b < 64; b++) {
        srgbToLab(r * 4 + 1.5, g * 4 + 1.5, b * 4 + 1.5, lab);
        t.set(lab, ((r << 12) | (g << 6) | b) * 3);
      }
    }
  }
  return (LAB = t);
}
const labKey = (r: number, g: number, b: number) => ((r >> 2) << 12) | ((g >> 2) << 6) | (b >> 2);

/** A pixel counts as changed when its colour moved by more than this (CIE76). */
const CHANGED = 6;
/** A pixel is in the garment's colours within this distance of one of its palette colours. */
const IN_PALETTE = 20;

const NOUN: Record<GarmentCategory, string> = { top: 'top', bottom: 'bottom', 'full-body': 'dress', shoe: 'shoes' };
const pct = (v: number) => `${(v * 100).toFixed(1)} %`;
const pctBound = (v: number) => `${+(v * 100).toFixed(1)} %`;

export function checkTryOnResult(input: GateInput): GateVerdict {
  const bounds = { ...GATE_BOUNDS, ...input.bounds };
  const { result } = input;
  const layers: LayerDiagnostics[] = [...(input.diagnostics?.layers ?? [])];
  // layers drawn on the torso that the renderer did not report are still measured from the images
  for (const category of ['top', 'full-body'] as const) {
    if (input.garments?.[category] && !layers.some((l) => l.category === category)) layers.push({ category, width: result.width, height: result.height });
  }
  const view = new PhotoView(input.person, result);
  const checks: GateCheck[] = [];
  let reason: string | undefined;
  for (const layer of layers) {
    // what the other garments cover (trousers under a top) is theirs, not shreds around this one
    let others: Uint8Array | undefined;
    for (const o of layers) {
      if (o === layer || !o.alpha || o.alpha.length !== view.width * view.height) continue;
      others ??= new Uint8Array(o.alpha.length);
      for (let i = 0; i < others.length; i++) if (o.alpha[i] >= 0.5) others[i] = 1;
    }
    for (const c of checkLayer(layer, view, input.garments?.[layer.category], bounds, others)) {
      checks.push(c);
      if (!c.passed && !reason) reason = describe(c, input.person.parts ? 'torso' : 'target');
    }
  }
  return { passed: !reason, checks, ...(reason ? { reason } : {}) };
}

function describe(c: GateCheck, target: string): string {
  const g = NOUN[c.layer];
  const v = c.value ?? 0;
  switch (c.check) {
    case 'warp-folded':
      return `the ${g}'s warp folds over on ${pct(v)} of the garment (bound ${pctBound(c.bound)})`;
    case 'warp-stretch':
      return `the ${g}'s warp stretches a region to ${v.toFixed(1)}x its median area (bound ${c.bound.toFixed(1)}x)`;
    case 'warp-squeeze':
      return `the ${g}'s warp squeezes a region to ${v.toFixed(2)}x its median area (bound ${c.bound.toFixed(2)}x)`;
    case 'coverage':
      return `the new ${g} covers only ${pct(v)} of the ${target} (bound ${pctBound(c.bound)})`;
    case 'old-garment':
      return `old ${c.layer === 'full-body' ? 'top' : g} still showing on ${pct(v)} of where it was (bound ${pctBound(c.bound)})`;
    case 'fill-area':
      return `skin and background synthesised over ${pct(v)} of the ${target} (bound ${pctBound(c.bound)})`;
    case 'print-structure':
      return `the ${g}'s print is ${v > 1 ? 'smeared' : 'squashed'}: its horizontal over vertical detail is ${(v > 1 ? v : 1 / v).toFixed(2)}x ${v > 1 ? 'above' : 'below'} the packshot's (bound ${c.bound.toFixed(2)}x)`;
    case 'garment-gap':
      return `the ${g} is torn open over ${pct(v)} of the torso it spans (bound ${pctBound(c.bound)})`;
    case 'old-cloth':
      return `the old top's cloth (sleeves, straps, neckline) still showing on ${pct(v)} of it outside the new ${g} (bound ${pctBound(c.bound)})`;
    case 'limb-repainted':
      return `the person's own hands and arms repainted on ${pct(v)} of their bare skin outside the new ${g} (bound ${pctBound(c.bound)})`;
    case 'limb-synthesised':
      return `the arms outside the new ${g} had to be painted over ${pct(v)} of their visible length (old sleeves replaced by synthetic skin; bound ${pctBound(c.bound)})`;
    case 'arm-widened':
      return `skin was painted beside the bare forearms and hands over ${pct(v)} of their area (cloth beside an arm repainted as a slab of skin; bound ${pctBound(c.bound)})`;
    case 'garment-lost':
      return `the ${g} could be cut from its packshot only in part: ${pct(v)} of its outline kept (bound ${pctBound(c.bound)}); a light garment on a light backdrop needs a packshot on a contrasting one`;
    case 'foreign-fragments':
      return `fragments of other clothes or of the backdrop pasted outside the new ${g}, over ${pct(v)} of the torso's area (bound ${pctBound(c.bound)})`;
    case 'neck-seam':
      return `skin painted at the neck where the old neckline was does not join the neck's own: its colour steps by ${v.toFixed(1)} ΔE across the join (bound ${c.bound} ΔE)`;
    case 'neck-outline':
      return `skin painted at the neck where the old neckline was ends against hair or backdrop along ${pct(v)} of its outline (a patch the old top's shape cut; bound ${pctBound(c.bound)})`;
    case 'arm-join':
      return `skin painted on the arms where the old sleeves were does not continue the arm it ends on: across the arm, its colour steps by up to ${v.toFixed(1)} ΔE where it meets the arm's own skin (a flat band of another tone or shading; bound ${c.bound} ΔE)`;
    case 'neck-fill':
      return `skin had to be painted in a block at the neck where the old neckline was, over ${pct(v)} of the neck's area (too large to pass for the neck's own skin; bound ${pctBound(c.bound)})`;
  }
}

function check(layer: GarmentCategory, name: GateCheckName, value: number | null, bound: number, kind: GateCheck['kind'], source: GateCheck['source']): GateCheck {
  if (value === null || Number.isNaN(value)) return { layer, check: name, value: null, bound, kind, passed: true, source: null };
  const passed = kind === 'max' ? value <= bound : kind === 'min' ? value >= bound : value <= bound && value >= 1 / bound;
  // an unbounded stretch stays a number the trace can hold
  return { layer, check: name, value: Math.min(value, 1e6), bound, kind, passed, source };
}

function checkLayer(layer: LayerDiagnostics, view: PhotoView, packshot: RasterImage | undefined, b: GateBounds, others?: Uint8Array): GateCheck[] {
  const cat = layer.category;
  const warp = layer.warp;
  const out = [
    check(cat, 'warp-folded', warp ? warp.folded : null, b.folded, 'max', 'renderer'),
    check(cat, 'warp-stretch', warp ? warp.maxAreaRatio : null, b.maxAreaRatio, 'max', 'renderer'),
    check(cat, 'warp-squeeze', warp ? warp.minAreaRatio : null, b.minAreaRatio, 'min', 'renderer'),
  ];
  const n = view.width * view.height;
  const sized = <T extends { length: number }>(m: T | undefined) => (m && m.length === n && layer.width === view.width && layer.height === view.height ? m : undefined);
  const alpha = sized(layer.alpha);
  const fill = sized(layer.fill);
  // the gate's own estimates cover the torso (tops and dresses); other layers only what the renderer reports
  const onTorso = cat === 'top' || cat === 'full-body';
  const target = sized(layer.target) ?? (onTorso ? view.torso() : undefined);
  const old = sized(layer.oldGarment) ?? (onTorso ? view.oldTop() : undefined);
  const palette = packshot ? garmentPalette(packshot) : [];
  // 0: not yet known, 1: in the garment's colours, 2: not
  const known = new Uint8Array(n);
  const inPalette = (i: number) => {
    if (!palette.length) return false;
    if (!known[i]) known[i] = view.near(i, palette, IN_PALETTE) ? 1 : 2;
    return known[i] === 1;
  };
  // the new garment: its alpha when reported; else its colours, or any change the renderer does not call fill
  // (without a fill record, a change in other colours may be synthesised skin: not the garment)
  const garmentAt = (i: number) => (alpha ? alpha[i] >= 0.5 : fill ? inPalette(i) || (view.changed(i) && !fill[i]) : palette.length ? inPalette(i) : view.changed(i));

  let targetArea = 0;
  if (target) {
    let covered = 0;
    for (let i = 0; i < n; i++) {
      if (!target[i]) continue;
      targetArea++;
      if (garmentAt(i)) covered++;
    }
    out.push(check(cat, 'coverage', targetArea ? covered / targetArea : null, b.coverage, 'min', layer.alpha ? 'renderer' : 'gate'));
  } else {
    out.push(check(cat, 'coverage', null, b.coverage, 'min', null));
  }

  if (old) {
    // off the old garment's edge by 2 px: the parsing's border and anti-aliasing are not "old garment left"
    const core = erode(old, view.width, view.height, 2);
    let area = 0;
    let showing = 0;
    for (let i = 0; i < n; i++) {
      if (!core[i]) continue;
      area++;
      if ((alpha && alpha[i] >= 0.5) || (fill && fill[i])) continue;
      if (!view.changed(i) && !inPalette(i)) showing++;
    }
    out.push(check(cat, 'old-garment', area ? showing / area : null, b.oldGarment, 'max', 'gate'));
  } else {
    out.push(check(cat, 'old-garment', null, b.oldGarment, 'max', null));
  }

  let filled: number | null = null;
  let fillSource: GateCheck['source'] = null;
  if (targetArea) {
    let c = 0;
    if (fill) {
      for (let i = 0; i < n; i++) if (fill[i]) c++;
      fillSource = 'renderer';
    } else if (old) {
      // what replaced the old garment that is neither the new garment nor left as it was
      for (let i = 0; i < n; i++) if (old[i] && view.changed(i) && !(alpha ? alpha[i] >= 0.5 : inPalette(i))) c++;
      fillSource = 'gate';
    }
    if (fillSource) filled = c / targetArea;
  }
  out.push(check(cat, 'fill-area', filled, b.fill, 'max', fillSource));

  // a torn or bent panel: torso pixels left bare with the garment on their left, right and below
  // (a wedge cut into the cloth, not the waist below a hem between hanging sleeves), from below
  // the neckline (a quarter of the trunk under the shoulders) to the hips; calibrated on tops
  const torso = cat === 'top' ? view.torso() : undefined;
  const rows = torso ? view.trunkRows() : undefined;
  if (torso && rows) {
    const w = view.width;
    const yA = Math.max(0, Math.round(rows.chest));
    const yB = Math.min(view.height, Math.round(rows.hip));
    // per column, the lowest garment row down to the hips
    const lowest = new Int32Array(w).fill(-1);
    for (let y = yA; y < yB; y++) for (let x = 0; x < w; x++) if (garmentAt(y * w + x)) lowest[x] = y;
    let spanned = 0;
    let bare = 0;
    for (let y = yA; y < yB; y++) {
      let first = -1;
      let last = -1;
      for (let x = 0; x < w; x++) {
        if (!garmentAt(y * w + x)) continue;
        if (first < 0) first = x;
        last = x;
      }
      for (let x = first + 1; first >= 0 && x < last; x++) {
        const i = y * w + x;
        if (!torso[i]) continue;
        spanned++;
        if (!garmentAt(i) && lowest[x] > y) bare++;
      }
    }
    out.push(check(cat, 'garment-gap', spanned ? bare / spanned : null, b.gap, 'max', 'gate'));
  } else {
    out.push(check(cat, 'garment-gap', null, b.gap, 'max', null));
  }

  // the print's structure: the top's inside (coverage >= 0.99, as drawn by the renderer) against
  // the packshot's garment (plain cloth has none to keep: not measured)
  let structure: number | null = null;
  let cut: ReturnType<typeof cutOut> | undefined;
  if (cat === 'top' && alpha && packshot) {
    cut = cutOut(packshot, 'top');
    const inside = new Uint8Array(cut.labels.length);
    for (let i = 0; i < inside.length; i++) inside[i] = cut.labels[i] === 0 ? 1 : 0;
    // (the packshot's luminance once: at full size for the plain-cloth test, shrunk for the balance)
    const lum = luminance(packshot);
    const p = lumEnergy(lum, packshot.width, packshot.height, inside, 0.5);
    // against the packshot at the size the garment was drawn (a faithful smaller copy of a halftone
    // print loses its screen, and with it most of one direction's detail: not a smear)
    if (p.count && (p.gx + p.gy) / p.count >= PLAIN_CLOTH) structure = balance(gradientEnergy(view.result, alpha, 0.99), shrunk(warp?.scale) ? packshotEnergy(lum, packshot.width, packshot.height, inside, 0.5, warp.scale) : p);
  }
  out.push(check(cat, 'print-structure', structure, b.structure, 'ratio', structure === null ? null : 'gate'));

  // the person's own pixels around the new garment: old cloth left, own skin repainted, shreds
  let around: Around | null = null;
  if (onTorso && targetArea) {
    const garment = new Uint8Array(n);
    for (let i = 0; i < n; i++) if (garmentAt(i) || others?.[i]) garment[i] = 1;
    around = view.around(garment, old, fill, targetArea);
  }
  const by = around ? 'gate' : null;
  out.push(check(cat, 'old-cloth', around?.oldCloth ?? null, b.oldCloth, 'max', by));
  out.push(check(cat, 'limb-repainted', around?.limbRepainted ?? null, b.limbRepainted, 'max', by));
  const fromHands = drawnFromHands(layer, b);
  out.push(check(cat, 'limb-synthesised', around?.limbSynthesised ?? null, fromHands ? b.limbSynthesisedFromHands : b.limbSynthesised, 'max', by));
  const widened = fromHands ? null : (around?.widened ?? null);
  out.push(check(cat, 'arm-widened', widened, b.armWidened, 'max', widened === null ? null : 'gate'));
  out.push(check(cat, 'foreign-fragments', around?.fragments ?? null, b.fragments, 'max', by));
  const kept = onTorso && packshot ? garmentKept(packshot, cut ?? cutOut(packshot, cat)) : null;
  out.push(check(cat, 'garment-lost', kept, b.garmentKept, 'min', kept === null ? null : 'gate'));
  const neck = onTorso && targetArea ? view.neckFill(garmentAt, fill) : null;
  // a fill drawn as chest, joining the neck cleanly all along, may be as large as the neck
  const drawnChest = layer.chestRelief === true && neck?.seamTail != null && neck.seamTail <= b.neckSeamTail;
  out.push(check(cat, 'neck-fill', neck?.area ?? null, drawnChest ? b.neckFillDrawn : b.neckFill, 'max', neck ? 'gate' : null));
  out.push(check(cat, 'neck-seam', neck?.seam ?? null, b.neckSeam, 'max', neck?.seam != null ? 'gate' : null));
  out.push(check(cat, 'neck-outline', neck?.loose ?? null, b.neckOutline, 'max', neck?.loose != null ? 'gate' : null));
  const armJoin = onTorso && targetArea ? view.armJoin(garmentAt, fill) : null;
  out.push(check(cat, 'arm-join', armJoin, b.armJoin, 'max', armJoin === null ? null : 'gate'));
  return out;
}

/** Share of the arms' synthesised skin allowed outside the forearms drawn from hands (rims along the new sleeves). */
const OTHER_ARM_SKIN = 0.05;

/**
 * Whether the renderer drew every synthesised forearm from its own visible hand and each joins it
 * (see GateBounds.limbSynthesised): at least one forearm, each wrist's join measured and within the
 * bound, and next to no arm skin filled otherwise.
 */
function drawnFromHands(layer: LayerDiagnostics, b: GateBounds): boolean {
  const limbs = layer.limbs;
  if (!limbs?.forearms.length) return false;
  let painted = 0;
  for (const f of limbs.forearms) {
    if (f.wristJoin === null || !(f.wristJoin <= b.wristJoin)) return false;
    painted += f.painted;
  }
  return limbs.otherArmSkin <= OTHER_ARM_SKIN * (painted + limbs.otherArmSkin);
}

/** What the gate measures around the new garment (see GateBounds for each). */
interface Around {
  oldCloth: number | null;
  limbRepainted: number | null;
  limbSynthesised: number | null;
  widened: number | null;
  fragments: number;
}

/** Beyond this distance of the face's colour (skinDistance) a pixel is cloth (or anything else but skin). */
const SKIN_FAR = 22;
/** Skin painted this near the bare forearms (relative to the shoulders' width) widens them. */
const WIDENED_REACH = 0.06;
/** Repainted skin: its 5x5 luminance std below this share of the photo's own there ... */
const FLAT_SHARE = 0.5;
/** ... where the photo's is at least this (L* units; smoother skin has no texture to lose). */
const FLAT_NOISE = 1;
/** A region smaller than this share of the torso is too small for a share of it to mean anything. */
const MIN_REGION = 0.01;
/** Paint on the legs: changed by more than this (CIE76). */
const PAINTED = 18;
/** A changed pixel within this CIE76 distance of the backdrop's colour on its rows is backdrop. */
const BACKDROP_NEAR = 12;
/** Cloth patches wholly above the shoulders' line by this share of their width, touching the hair, are hair in shade. */
const HAIR_SHADE = 0.15;
/** Synthesised neck skin within this many pixels of the fill's edge is a rim that blends in, not a block. */
const NECK_RIM = 3;

/**
 * Distance of a Lab colour from the skin's, its lightness counted at half weight: the same skin
 * in shade or in light stays near, cloth of another hue or chroma does not.
 */
function skinDistance(t: Float32Array, k: number, skin: number[]): number {
  const dl = 0.5 * (t[k] - skin[0]);
  const da = t[k + 1] - skin[1];
  const db = t[k + 2] - skin[2];
  return Math.sqrt(dl * dl + da * da + db * db);
}

/** The median Lab of colours (offsets into the Lab table) in the middle half of their lightness (shadows and highlights left out). */
/** Lab colours skin takes in photos of any complexion: warm hue (red to yellow), some chroma, not black. */
function skinHued(L: number, a: number, b: number): boolean {
  const hue = (Math.atan2(b, a) * 180) / Math.PI;
  return L >= 15 && Math.hypot(a, b) >= 8 && hue >= 15 && hue <= 85;
}

function midLab(t: Float32Array, keys: number[]): number[] {
  const ls = Float32Array.from(keys, (k) => t[k]).sort();
  const lo = ls[ls.length >> 2];
  const hi = ls[(3 * ls.length) >> 2];
  const mid = keys.filter((k) => t[k] >= lo && t[k] <= hi);
  const median = (c: number) => Float32Array.from(mid, (k) => t[k + c]).sort()[mid.length >> 1];
  return [median(0), median(1), median(2)];
}

/** Cut-outs measured per packshot pixels (a shop's packshot is checked again and again). */
const KEPT = new WeakMap<Uint8Array, number | null>();

/**
 * The share of the packshot's garment silhouette that its cut-out keeps. The silhouette: on a
 * grid of cells about 1/256 of the long side, the cells whose mean colour differs from the
 * border's median (the backdrop) by more than FAINT (a white tee on a light grey card does), in
 * the components that meet the cut-out, holes filled. A backdrop too uneven to tell (the
 * silhouette reaching along the frame) is not measured.
 */
export function garmentKept(packshot: RasterImage, cut: { mask: Uint8Array }): number | null {
  const known = KEPT.get(packshot.data);
  if (known !== undefined) return known;
  const { width: W, height: H, data } = packshot;
  const s = Math.max(1, Math.ceil(Math.max(W, H) / 256));
  const w = Math.ceil(W / s);
  const h = Math.ceil(H / s);
  const n = w * h;
  const t = labTable();
  const lab = new Float32Array(n * 3);
  const inCut = new Uint8Array(n);
  const count = new Uint16Array(n);
  const cutCount = new Uint16Array(n);
  for (let y = 0; y < H; y++) {
    const row = ((y / s) | 0) * w;
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      const j = row + ((x / s) | 0);
      const k = labKey(data[i * 4], data[i * 4 + 1], data[i * 4 + 2]) * 3;
      lab[j * 3] += t[k];
      lab[j * 3 + 1] += t[k + 1];
      lab[j * 3 + 2] += t[k + 2];
      count[j]++;
      if (cut.mask[i]) cutCount[j]++;
    }
  }
  for (let j = 0; j < n; j++) {
    for (let c = 0; c < 3; c++) lab[j * 3 + c] /= count[j];
    inCut[j] = cutCount[j] * 2 > count[j] ? 1 : 0;
  }
  const border: number[][] = [];
  const cell = (j: number) => [lab[j * 3], lab[j * 3 + 1], lab[j * 3 + 2]];
  for (let x = 0; x < w; x++) border.push(cell(x), cell((h - 1) * w + x));
  for (let y = 0; y < h; y++) border.push(cell(y * w), cell(y * w + w - 1));
  const bg = [0, 1, 2].map((c) => border.map((p) => p[c]).sort((a, b) => a - b)[border.length >> 1]);
  const faint = new Uint8Array(n);
  for (let j = 0; j < n; j++) faint[j] = inCut[j] || deltaE76(cell(j), bg) > FAINT ? 1 : 0;
  const { labels } = labelComponents(faint, w, h, { connectivity: 8 });
  const meets = new Set<number>();
  for (let j = 0; j < n; j++) if (inCut[j]) meets.add(labels[j]);
  const reached = new Uint8Array(n);
  for (let j = 0; j < n; j++) if (meets.has(labels[j])) reached[j] = 1;
  const silhouette = fillHoles(reached, w, h);
  let frame = 0;
  for (let x = 0; x < w; x++) frame += (silhouette[x] ? 1 : 0) + (silhouette[(h - 1) * w + x] ? 1 : 0);
  for (let y = 0; y < h; y++) frame += (silhouette[y * w] ? 1 : 0) + (silhouette[y * w + w - 1] ? 1 : 0);
  let area = 0;
  let kept = 0;
  for (let j = 0; j < n; j++) {
    if (!silhouette[j]) continue;
    area++;
    if (inCut[j]) kept++;
  }
  const value = area && frame <= 0.05 * 2 * (w + h) ? kept / area : null;
  KEPT.set(packshot.data, value);
  return value;
}

/** A packshot's cell differing from the backdrop by more than this (CIE76) is part of the garment's silhouette. */
const FAINT = 3;

/** The photo and its parsing seen at the result's size (nearest pixel), colours looked up in the Lab table. */
class PhotoView {
  readonly width: number;
  readonly height: number;
  readonly result: RasterImage;
  readonly #person: PersonBody;
  readonly #src: Int32Array;
  /** Per pixel of the result's size: the photo's and the result's colour as an index into LAB. */
  readonly #keyP: Int32Array;
  readonly #keyR: Int32Array;

  constructor(person: PersonBody, result: RasterImage) {
    this.#person = person;
    this.result = result;
    const w = (this.width = result.width);
    const h = (this.height = result.height);
    const pw = person.image.width;
    const ph = person.image.height;
    const p = person.image.data;
    const r = result.data;
    this.#src = new Int32Array(w * h);
    this.#keyP = new Int32Array(w * h);
    this.#keyR = new Int32Array(w * h);
    for (let y = 0; y < h; y++) {
      const sy = Math.min(ph - 1, Math.floor(((y + 0.5) * ph) / h));
      for (let x = 0; x < w; x++) {
        const i = y * w + x;
        const s = sy * pw + Math.min(pw - 1, Math.floor(((x + 0.5) * pw) / w));
        this.#src[i] = s;
        this.#keyP[i] = labKey(p[s * 4], p[s * 4 + 1], p[s * 4 + 2]);
        this.#keyR[i] = labKey(r[i * 4], r[i * 4 + 1], r[i * 4 + 2]);
      }
    }
  }

  /** The photo's Lab colour at i (of the result's size). */
  photoLab(i: number): number[] {
    const k = this.#keyP[i] * 3;
    const t = labTable();
    return [t[k], t[k + 1], t[k + 2]];
  }

  changed(i: number, radius = CHANGED): boolean {
    const kp = this.#keyP[i];
    const kr = this.#keyR[i];
    if (kp === kr) return false;
    const t = labTable();
    const a = kp * 3;
    const b = kr * 3;
    const d0 = t[a] - t[b];
    const d1 = t[a + 1] - t[b + 1];
    const d2 = t[a + 2] - t[b + 2];
    return d0 * d0 + d1 * d1 + d2 * d2 > radius * radius;
  }

  /** Whether the result's (or the photo's) colour at i lies within `radius` of one of the colours. */
  near(i: number, colours: number[][], radius: number, photo = false): boolean {
    const lab = labTable();
    const j = (photo ? this.#keyP[i] : this.#keyR[i]) * 3;
    const r2 = radius * radius;
    for (const c of colours) {
      const d0 = lab[j] - c[0];
      const d1 = lab[j + 1] - c[1];
      const d2 = lab[j + 2] - c[2];
      if (d0 * d0 + d1 * d1 + d2 * d2 < r2) return true;
    }
    return false;
  }

  #part(label: number): Uint8Array | undefined {
    const parts = this.#person.parts;
    if (!parts) return undefined;
    const m = new Uint8Array(this.#src.length);
    for (let i = 0; i < m.length; i++) if (parts[this.#src[i]] === label) m[i] = 1;
    return m;
  }

  /** The rows a quarter of the trunk below the shoulders (under a neckline) and of the hips, at the result's size. */
  trunkRows(): { chest: number; hip: number } {
    const L = this.#person.landmarks;
    const ky = this.height / this.#person.image.height;
    const sy = ((L.leftShoulder.y + L.rightShoulder.y) / 2) * ky;
    const hy = ((L.hipLeft.y + L.hipRight.y) / 2) * ky;
    return { chest: sy + 0.25 * (hy - sy), hip: hy };
  }

  /**
   * The face's skin colour: the median Lab of the face's pixels in the middle half of their
   * lightness (eyes, brows, lips and highlights left out); null without a face in the parsing.
   */
  skinColour(): number[] | null {
    const parts = this.#person.parts;
    if (!parts) return null;
    const t = labTable();
    const keys: number[] = [];
    for (let i = 0; i < this.#src.length; i += 2) if (parts[this.#src[i]] === PERSON_PART.face) keys.push(this.#keyP[i] * 3);
    if (keys.length >= 50) return midLab(t, keys);
    // a shop photo cropped at the chin has no face: the skin-hued pixels of the neck and arms stand
    // in (the parsing's neck and arms hold collars and sleeves too, so their hue sorts them); without
    // a colour to tell skin from cloth, the checks around the garment would not be measured at all
    const bare: number[] = [];
    for (let i = 0; i < this.#src.length; i += 2) {
      const p = parts[this.#src[i]];
      if (p !== PERSON_PART.neck && p !== PERSON_PART.arm) continue;
      const k = this.#keyP[i] * 3;
      if (skinHued(t[k], t[k + 1], t[k + 2])) bare.push(k);
    }
    return bare.length >= 200 ? midLab(t, bare) : null;
  }

  /**
   * The person's own pixels around the new garment (`garment`: 1 where it is drawn): the old top's
   * cloth left as it was, the own bare skin of the arms repainted, and foreign pixels: backdrop
   * synthesised deep inside the person, paint on the legs away from the old top, and the photo's
   * own pixels amid a fill that are neither skin nor backdrop (shreds). Pixels within a few of the
   * garment's outline (its matte) are left out. Measured over the person's bounding box (the
   * morphology is most of the cost); null without parsing or bare skin (face, else neck and arms) to take the skin's colour from.
   */
  around(garment: Uint8Array, old: Uint8Array | undefined, fill: Uint8Array | undefined, torsoArea: number): Around | null {
    const parts = this.#person.parts;
    const skin = this.skinColour();
    if (!parts || !skin) return null;
    const { width: W, height: H } = this;
    const t = labTable();
    const L = this.#person.landmarks;
    const kx = W / this.#person.image.width;
    const sw = Math.hypot((L.leftShoulder.x - L.rightShoulder.x) * kx, (L.leftShoulder.y - L.rightShoulder.y) * kx);
    const { chest, hip } = this.trunkRows();
    const waist = (chest + hip) / 2;
    const bottoms = this.colours(PERSON_PART.legs);
    const hair = this.colours(PERSON_PART.hair);
    const pad = Math.max(3, Math.round(0.04 * sw));
    const mask = this.#person.mask;
    const src = this.#src;
    // the crop: the person and the garment, padded; and the backdrop's colour per row (the mean
    // of the photo's background pixels on it, whole rows)
    let x0 = W;
    let y0 = H;
    let x1 = -1;
    let y1 = -1;
    const bg = new Float32Array(H * 4);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const i = y * W + x;
        if (parts[src[i]] === PERSON_PART.background) {
          const k = this.#keyP[i] * 3;
          bg[y * 4] += t[k];
          bg[y * 4 + 1] += t[k + 1];
          bg[y * 4 + 2] += t[k + 2];
          bg[y * 4 + 3]++;
        }
        if (!mask[src[i]] && !garment[i] && !fill?.[i]) continue;
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        y1 = y;
      }
    }
    if (x1 < 0) return null;
    x0 = Math.max(0, x0 - pad - 3);
    y0 = Math.max(0, y0 - pad - 3);
    x1 = Math.min(W - 1, x1 + pad + 3);
    y1 = Math.min(H - 1, y1 + pad + 3);
    const w = x1 - x0 + 1;
    const h = y1 - y0 + 1;
    const n = w * h;
    const at = (j: number) => (y0 + ((j / w) | 0)) * W + x0 + (j % w);
    // hands and wrists (within 60 % of the forearm's length of a wrist): skin in shade, rings and
    // watches there read far from the face's colour, and no top's cloth reaches them
    const hands = [
      [L.leftWrist, L.leftElbow],
      [L.rightWrist, L.rightElbow],
    ].map(([wr, el]) => ({ x: wr.x * kx - x0, y: wr.y * kx - y0, r2: (0.6 * Math.hypot(wr.x - el.x, wr.y - el.y) * kx) ** 2 }));
    const atHand = (j: number) => {
      const x = j % w;
      const y = (j / w) | 0;
      return hands.some((q) => (x - q.x) ** 2 + (y - q.y) ** 2 < q.r2);
    };
    const cloth = new Uint8Array(n);
    const arm = new Uint8Array(n);
    // the arms' pixels that are not skin (old sleeves, and rings and watches), none left out
    const sleeve = new Uint8Array(n);
    const near0 = new Uint8Array(n);
    const filled = new Uint8Array(n);
    const person = new Uint8Array(n);
    const legs = new Uint8Array(n);
    // rows without background take the nearest row's backdrop
    let last = -1;
    for (let y = 0; y < H; y++) {
      if (bg[y * 4 + 3] > 0) {
        for (let c = 0; c < 3; c++) bg[y * 4 + c] /= bg[y * 4 + 3];
        for (let z = last + 1; z < y; z++) bg.copyWithin(z * 4, y * 4, y * 4 + 3);
        last = y;
      }
    }
    for (let z = last + 1; last >= 0 && z < H; z++) bg.copyWithin(z * 4, last * 4, last * 4 + 3);
    for (let j = 0; j < n; j++) {
      const i = at(j);
      near0[j] = garment[i];
      filled[j] = fill?.[i] ? 1 : 0;
      person[j] = mask[src[i]] ? 1 : 0;
      legs[j] = parts[src[i]] === PERSON_PART.legs ? 1 : 0;
      const p = parts[src[i]];
      if (p !== PERSON_PART.arm && p !== PERSON_PART.torso && p !== PERSON_PART.neck) continue;
      const k = this.#keyP[i] * 3;
      if (skinDistance(t, k, skin) <= SKIN_FAR) {
        if (p === PERSON_PART.arm) arm[j] = 1;
        continue;
      }
      if (p === PERSON_PART.arm) sleeve[j] = 1;
      // not cloth: hands; low on the trunk the trousers' or skirt's colours (the parsing's torso
      // reaches over their waistband); high on it the hair's (strands over the shoulders)
      const y = i / W;
      if (p === PERSON_PART.arm && atHand(j)) continue;
      if (y >= waist && this.near(i, bottoms, 16, true)) continue;
      if (y < chest && this.near(i, hair, 12, true)) continue;
      cloth[j] = 1;
    }
    this.#dropHairShade(cloth, x0, y0, w, h, sw);
    const near = dilate(near0, w, h, Math.max(2, Math.round(0.03 * sw)));
    // off each region's edge by 2 px: the parsing's border and anti-aliasing are not evidence
    const clothCore = erode(cloth, w, h, 2);
    const armCore = erode(arm, w, h, 2);
    const sleeveCore = erode(sleeve, w, h, 2);
    const flat = this.#flattened(armCore, x0, y0, w, h);
    // around the fill (closed over a few percent of the shoulders' width), and the person's inside
    const amid = fill ? close(filled, w, h, pad) : filled;
    const inside = erode(person, w, h, pad);
    // the legs' outline pixels mix the backdrop in and change with any resampling of a hard edge
    const legsCore = erode(legs, w, h, 2);
    // backdrop synthesised where the old top stood (and its rim) that opens onto the photo's
    // backdrop (an old sleeve or a wider old top beyond the body) moves the person's outline in:
    // it is no patch inside them
    const opened = new Uint8Array(n);
    if (fill && old) {
      const oldCrop = new Uint8Array(n);
      for (let j = 0; j < n; j++) oldCrop[j] = old[at(j)];
      const wasOld = dilate(oldCrop, w, h, 4);
      const queue: number[] = [];
      for (let j = 0; j < n; j++) {
        if (fill[at(j)] !== 2 || !person[j] || !wasOld[j]) continue;
        const x = j % w;
        const y = (j / w) | 0;
        if ((x > 0 && !person[j - 1]) || (x < w - 1 && !person[j + 1]) || (y > 0 && !person[j - w]) || (y < h - 1 && !person[j + w])) {
          opened[j] = 1;
          queue.push(j);
        }
      }
      for (let q = 0; q < queue.length; q++) {
        const j = queue[q];
        const x = j % w;
        const y = (j / w) | 0;
        for (const k of [x > 0 ? j - 1 : -1, x < w - 1 ? j + 1 : -1, y > 0 ? j - w : -1, y < h - 1 ? j + w : -1]) {
          if (k < 0 || opened[k] || fill[at(k)] !== 2 || !wasOld[k]) continue;
          opened[k] = 1;
          queue.push(k);
        }
      }
    }
    let clothArea = 0;
    let clothLeft = 0;
    let armArea = 0;
    let armChanged = 0;
    let sleeveArea = 0;
    let sleevePainted = 0;
    let shreds = 0;
    for (let j = 0; j < n; j++) {
      if (clothCore[j]) clothArea++;
      if (near[j]) continue;
      const i = at(j);
      const changed = this.changed(i);
      if (clothCore[j]) {
        if (!changed && !fill?.[i]) clothLeft++;
      } else if (armCore[j]) {
        armArea++;
        if (changed || flat[j]) armChanged++;
      }
      if (sleeveCore[j]) {
        // an old sleeve on the arm: painted over (synthesised) or left
        sleeveArea++;
        if (changed || fill?.[i]) sleevePainted++;
      }
      const p = parts[src[i]];
      if (p === PERSON_PART.face || p === PERSON_PART.hair) continue;
      let foreign = false;
      if (fill?.[i] === 2) {
        // backdrop synthesised deep inside the person (a patch of wall on the skirt)
        foreign = inside[j] > 0 && !opened[j];
      } else if (changed) {
        // the top's or the fill's paint on the legs, away from where the old top hung (changed
        // well beyond a textured cloth's resampling in a smaller result)
        foreign = legsCore[j] > 0 && !old?.[i] && this.changed(i, PAINTED);
      } else if (amid[j] && !fill?.[i]) {
        // the photo's own pixels left amid a fill: shreds of another garment or of the old top
        const k = this.#keyR[i] * 3;
        const r = ((i / W) | 0) * 4;
        const d0 = t[k] - bg[r];
        const d1 = t[k + 1] - bg[r + 1];
        const d2 = t[k + 2] - bg[r + 2];
        foreign = skinDistance(t, k, skin) > SKIN_FAR && !(last >= 0 && d0 * d0 + d1 * d1 + d2 * d2 < BACKDROP_NEAR * BACKDROP_NEAR);
      }
      if (foreign) shreds++;
    }
    // too few pixels to judge (a top that covers the arms): not measured
    const share = (a: number, b: number) => (b >= MIN_REGION * torsoArea ? a / b : null);
    // skin painted beside the bare forearms and hands (below the elbows, where the photo had none)
    const elbow = Math.min(L.leftElbow.y, L.rightElbow.y) * kx - y0;
    const forearm = new Uint8Array(n);
    let forearmArea = 0;
    for (let j = 0; j < n; j++) {
      if (!arm[j] || near0[j] || ((j / w) | 0) <= elbow) continue;
      forearm[j] = 1;
      forearmArea++;
    }
    const beside = dilate(forearm, w, h, Math.max(2, Math.round(WIDENED_REACH * sw)));
    let widened = 0;
    for (let j = 0; j < n; j++) {
      if (!beside[j] || forearm[j] || near0[j] || !person[j] || ((j / w) | 0) <= elbow) continue;
      const i = at(j);
      if (skinDistance(t, this.#keyP[i] * 3, skin) > SKIN_FAR && skinDistance(t, this.#keyR[i] * 3, skin) <= SKIN_FAR) widened++;
    }
    return { oldCloth: share(clothLeft, clothArea), limbRepainted: share(armChanged, armArea), limbSynthesised: share(sleevePainted, armArea + sleeveArea), widened: share(widened, forearmArea), fragments: shreds / torsoArea };
  }

  /**
   * Clears from `cloth` (a crop at x0, y0 of w x h) the hair in shade: the inside of a bob beside
   * the neck is darker than any colour the hair label holds, and the parsing labels it torso or
   * neck. A patch of it touches the hair and lies wholly above the shoulders' line by HAIR_SHADE
   * of their width, where no top's cloth reaches but as part of a piece that comes down to the
   * shoulders (a collar, a strap over the shoulder's round).
   */
  #dropHairShade(cloth: Uint8Array, x0: number, y0: number, w: number, h: number, sw: number): void {
    const parts = this.#person.parts!;
    const src = this.#src;
    const W = this.width;
    const L = this.#person.landmarks;
    const kx = W / this.#person.image.width;
    const ax = L.rightShoulder.x * kx;
    const ay = L.rightShoulder.y * kx;
    const slope = (L.leftShoulder.y - L.rightShoulder.y) / (L.leftShoulder.x - L.rightShoulder.x || 1);
    const margin = HAIR_SHADE * sw;
    const { labels, components } = labelComponents(cloth, w, h, { connectivity: 8 });
    const low = new Uint8Array(components.length + 1);
    const touches = new Uint8Array(components.length + 1);
    for (let j = 0; j < w * h; j++) {
      const l = labels[j];
      if (!l) continue;
      const x = x0 + (j % w);
      const y = y0 + ((j / w) | 0);
      if (y >= ay + slope * (x - ax) - margin) low[l] = 1;
      if (touches[l]) continue;
      for (const [dx, dy] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
        const xx = x + dx;
        const yy = y + dy;
        if (xx >= 0 && yy >= 0 && xx < W && yy < this.height && parts[src[yy * W + xx]] === PERSON_PART.hair) touches[l] = 1;
      }
    }
    for (let j = 0; j < w * h; j++) if (labels[j] && touches[labels[j]] && !low[labels[j]]) cloth[j] = 0;
  }

  /**
   * Over `region` (a crop at x0, y0 of w x h): where the result's luminance is flat (5x5 standard
   * deviation below FLAT_SHARE of the photo's own there, and the photo's above the noise): skin
   * repainted in its own colour without its texture.
   */
  #flattened(region: Uint8Array, x0: number, y0: number, w: number, h: number): Uint8Array {
    const W = this.width;
    const t = labTable();
    const n = w * h;
    const out = new Uint8Array(n);
    const lp = new Float32Array(n);
    const lr = new Float32Array(n);
    const lp2 = new Float32Array(n);
    const lr2 = new Float32Array(n);
    for (let j = 0; j < n; j++) {
      const i = (y0 + ((j / w) | 0)) * W + x0 + (j % w);
      const a = t[this.#keyP[i] * 3];
      const b = t[this.#keyR[i] * 3];
      lp[j] = a;
      lr[j] = b;
      lp2[j] = a * a;
      lr2[j] = b * b;
    }
    const [mp, mr, mp2, mr2] = [lp, lr, lp2, lr2].map((p) => boxBlur(p, w, h, 2, 1));
    for (let j = 0; j < n; j++) {
      if (!region[j]) continue;
      const sp = Math.sqrt(Math.max(0, mp2[j] - mp[j] * mp[j]));
      const sr = Math.sqrt(Math.max(0, mr2[j] - mr[j] * mr[j]));
      if (sp >= FLAT_NOISE && sr < FLAT_SHARE * sp) out[j] = 1;
    }
    return out;
  }

  /**
   * Skin synthesised at the neck (`fill` 1, or without a fill record the changed pixels outside the
   * garment on the neck and torso) between the chin and the chest line, within the shoulders, in
   * a block: more than NECK_RIM pixels from its edge (a rim along the new neckline blends into the
   * skin beside it; a block carries the skin's grain but none of the neck's shading, collarbones
   * and tendons, and reads as a patch). As an area relative to the neck's (the parsing's neck
   * label); null without parsing or a neck.
   */
  neckFill(garmentAt: (i: number) => boolean, fill: Uint8Array | undefined): NeckFill | null {
    const parts = this.#person.parts;
    if (!parts) return null;
    const { width: W, height: H } = this;
    const src = this.#src;
    const L = this.#person.landmarks;
    const kx = W / this.#person.image.width;
    const ky = H / this.#person.image.height;
    const { chest } = this.trunkRows();
    const y0 = Math.max(0, Math.floor(L.chin.y * ky));
    const y1 = Math.min(H - 1, Math.ceil(chest));
    const x0 = Math.max(0, Math.floor(Math.min(L.leftShoulder.x, L.rightShoulder.x) * kx));
    const x1 = Math.min(W - 1, Math.ceil(Math.max(L.leftShoulder.x, L.rightShoulder.x) * kx));
    if (y1 - y0 < 5 || x1 - x0 < 5) return null;
    const w = x1 - x0 + 1;
    const h = y1 - y0 + 1;
    const n = w * h;
    const painted = new Uint8Array(n);
    let neckArea = 0;
    let paintedArea = 0;
    for (let j = 0; j < n; j++) {
      const i = (y0 + ((j / w) | 0)) * W + x0 + (j % w);
      const p = parts[src[i]];
      if (p === PERSON_PART.neck) neckArea++;
      if (p !== PERSON_PART.arm && (fill ? fill[i] === 1 : (p === PERSON_PART.neck || p === PERSON_PART.torso) && this.changed(i) && !garmentAt(i))) {
        painted[j] = 1;
        paintedArea++;
      }
    }
    if (neckArea < 30) return null;
    const block = erode(painted, w, h, NECK_RIM);
    let area = 0;
    for (let j = 0; j < n; j++) if (block[j]) area++;
    // the fill's outline where it is not under the new garment: against skin the photo shows (a
    // seam when the colours step across it), or against backdrop, hair or cloth (a shape the old
    // top's outline gave)
    const t = labTable();
    const key = this.#keyR;
    // the skin the fill continues: the visible neck's own in the result (the middle half of its
    // lightness), else the face's (a beard or the lit face can be far from the neck's tone)
    const ls: number[] = [];
    for (let j = 0; j < n; j++) {
      const i = (y0 + ((j / w) | 0)) * W + x0 + (j % w);
      if (!painted[j] && !garmentAt(i) && parts[src[i]] === PERSON_PART.neck) ls.push(key[i] * 3);
    }
    const skin = ls.length >= 50 ? midLab(t, ls) : this.skinColour();
    // only the outline of a fill wider than a rim (a rim's own outline is mostly its two edges)
    const block2 = dilate(block, w, h, NECK_RIM + 1);
    const lab = (i: number) => [t[key[i] * 3], t[key[i] * 3 + 1], t[key[i] * 3 + 2]];
    // the result's mean Lab over the 3x3 window's pixels of one side
    const mean = (xc: number, yc: number, side: (j: number) => boolean): number[] | null => {
      const m = [0, 0, 0];
      let c = 0;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const xx = xc + dx;
          const yy = yc + dy;
          if (xx < 0 || yy < 0 || xx >= w || yy >= h || !side(yy * w + xx)) continue;
          const v = lab((yy + y0) * W + xx + x0);
          for (let k = 0; k < 3; k++) m[k] += v[k];
          c++;
        }
      }
      return c >= 5 ? m.map((v) => v / c) : null;
    };
    const cloth = new Uint8Array(n);
    for (let j = 0; j < n; j++) cloth[j] = garmentAt((y0 + ((j / w) | 0)) * W + x0 + (j % w)) ? 1 : 0;
    // the garment's soft edge mixes its colour into the pixels beside it: no sample there
    const nearCloth = dilate(cloth, w, h, 2);
    const free = (j: number) => !painted[j] && !cloth[j];
    // a light grey backdrop at the person's outline, which the parsing can call neck, is as far
    // from a light skin as its shade (within SKIN_FAR): only pixels in skin's hues are the skin
    // the fill must join (a step against the backdrop measured 17 ΔE on model_8's shoulder)
    const hued = (i: number) => skinHued(t[key[i] * 3], t[key[i] * 3 + 1], t[key[i] * 3 + 2]);
    const bare = (j: number) => {
      if (painted[j] || nearCloth[j]) return false;
      const i = (y0 + ((j / w) | 0)) * W + x0 + (j % w);
      const p = parts[src[i]];
      return (p === PERSON_PART.neck || p === PERSON_PART.torso || p === PERSON_PART.face) && hued(i) && skinDistance(t, key[i] * 3, skin!) <= SKIN_FAR;
    };
    const steps: number[] = [];
    let outline = 0;
    let loose = 0;
    if (skin && paintedArea) {
      for (let y = 1; y < h - 1; y++) {
        for (let x = 1; x < w - 1; x++) {
          const j = y * w + x;
          if (!painted[j] || !block2[j]) continue;
          for (const [dx, dy] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
            const q = j + dy * w + dx;
            if (!free(q)) continue;
            outline++;
            const i = (y + dy + y0) * W + x + dx + x0;
            if (parts[src[i]] === PERSON_PART.hair || parts[src[i]] === PERSON_PART.background || !this.#person.mask[src[i]] || skinDistance(t, key[i] * 3, skin) > SKIN_FAR) {
              loose++;
              continue;
            }
            // (a grey pixel near the skin's tone that the parsing calls skin: no step measured)
            if (!hued(i)) continue;
            // 3 px into the fill and 3 px out into the skin beside it
            const a = mean(x - 2 * dx, y - 2 * dy, (k) => painted[k] === 1 && !nearCloth[k]);
            const b = mean(x + 3 * dx, y + 3 * dy, bare);
            if (a && b) steps.push(deltaE76(a, b));
          }
        }
      }
    }
    steps.sort((a, b) => a - b);
    return {
      area: area / neckArea,
      seam: steps.length >= 20 ? steps[Math.floor(0.75 * steps.length)] : null,
      seamTail: steps.length >= 20 ? steps[Math.floor(0.9 * steps.length)] : null,
      loose: area && outline >= 20 ? loose / outline : null,
    };
  }

  /**
   * Skin painted on an arm where an old sleeve was, where it ends against the arm's own skin the
   * photo shows (a short sleeve's hem above the bare arm, a long one's cuff above the hand): along
   * the arm's axis (shoulder to elbow or elbow to wrist, whichever the join crosses), the painted
   * arm just before the join against the real arm just beyond it, bin by bin across the arm (each
   * side over its own width): the largest CIE76 step of a bin's median. A fill that continues the
   * arm (its tone, its lit and its shaded side) steps by little; a flat band of another tone, or
   * without the arm's shading across it, steps. Only joins that cross the arm count (a rim along
   * the arm's side is not one), and only a painted stretch longer than a rim. Null: no such join.
   */
  armJoin(garmentAt: (i: number) => boolean, fill: Uint8Array | undefined): number | null {
    const parts = this.#person.parts;
    const skin = this.skinColour();
    if (!parts || !skin) return null;
    const { width: W, height: H } = this;
    const src = this.#src;
    const L = this.#person.landmarks;
    const kx = W / this.#person.image.width;
    const ky = H / this.#person.image.height;
    const at = (p: { x: number; y: number }) => ({ x: p.x * kx, y: p.y * ky });
    const sw = Math.hypot((L.leftShoulder.x - L.rightShoulder.x) * kx, (L.leftShoulder.y - L.rightShoulder.y) * ky);
    if (!(sw > 10)) return null;
    const t = labTable();
    // 1 painted arm skin, 2 the arm's own skin left as the photo shows it
    const kind = new Uint8Array(W * H);
    let x0 = W;
    let y0 = H;
    let x1 = -1;
    let y1 = -1;
    let anyPainted = false;
    for (let i = 0; i < kind.length; i++) {
      if (parts[src[i]] !== PERSON_PART.arm || garmentAt(i)) continue;
      const painted = fill ? fill[i] === 1 : this.changed(i);
      if (painted ? skinDistance(t, this.#keyR[i] * 3, skin) > 1.5 * SKIN_FAR : (fill && fill[i]) || this.changed(i) || skinDistance(t, this.#keyP[i] * 3, skin) > SKIN_FAR) continue;
      kind[i] = painted ? 1 : 2;
      if (painted) anyPainted = true;
      const x = i % W;
      const y = (i / W) | 0;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
    if (!anyPainted) return null;
    const segments = [
      [at(L.leftShoulder), at(L.leftElbow)],
      [at(L.leftElbow), at(L.leftWrist)],
      [at(L.rightShoulder), at(L.rightElbow)],
      [at(L.rightElbow), at(L.rightWrist)],
    ].map(([a, b]) => {
      const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
      return { a, dx: (b.x - a.x) / len, dy: (b.y - a.y) / len, len };
    });
    const dist = (s: (typeof segments)[number], x: number, y: number) => {
      const along = Math.max(0, Math.min(s.len, (x - s.a.x) * s.dx + (y - s.a.y) * s.dy));
      return Math.hypot(x - s.a.x - along * s.dx, y - s.a.y - along * s.dy);
    };
    const nearestSegment = (x: number, y: number) => {
      let best = 0;
      for (let k = 1; k < 4; k++) if (dist(segments[k], x, y) < dist(segments[best], x, y)) best = k;
      return best;
    };
    // the join: painted pixels with the real arm 1-2 px beyond, the step along the nearest segment
    const joins: { x: number; y: number; e: number }[][] = [[], [], [], []];
    for (let y = Math.max(2, y0); y <= Math.min(H - 3, y1); y++) {
      for (let x = Math.max(2, x0); x <= Math.min(W - 3, x1); x++) {
        const i = y * W + x;
        if (kind[i] !== 1) continue;
        for (const [dx, dy] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
          if (kind[i + dy * W + dx] !== 2 && kind[i + 2 * (dy * W + dx)] !== 2) continue;
          const k = nearestSegment(x, y);
          const e = dx * segments[k].dx + dy * segments[k].dy;
          if (Math.abs(e) >= 0.7) joins[k].push({ x, y, e });
        }
      }
    }
    const reach = Math.max(6, 0.05 * sw);
    const bins = 5;
    const lab = (i: number) => [t[this.#keyR[i] * 3], t[this.#keyR[i] * 3 + 1], t[this.#keyR[i] * 3 + 2]];
    let worst: number | null = null;
    for (let k = 0; k < 4; k++) {
      const js = joins[k];
      if (js.length < 6) continue;
      const s = segments[k];
      // where the join lies along the segment, and which way the real arm lies from it
      const alongs = js.map((j) => (j.x - s.a.x) * s.dx + (j.y - s.a.y) * s.dy).sort((a, b) => a - b);
      const t0 = alongs[alongs.length >> 1];
      const dir = js.reduce((a, j) => a + j.e, 0) >= 0 ? 1 : -1;
      const sides: { v: number; i: number }[][] = [[], []];
      let deepest = 0;
      const bx0 = Math.max(0, Math.floor(Math.min(...js.map((j) => j.x)) - 0.3 * sw));
      const bx1 = Math.min(W - 1, Math.ceil(Math.max(...js.map((j) => j.x)) + 0.3 * sw));
      const by0 = Math.max(0, Math.floor(Math.min(...js.map((j) => j.y)) - 0.3 * sw));
      const by1 = Math.min(H - 1, Math.ceil(Math.max(...js.map((j) => j.y)) + 0.3 * sw));
      for (let y = by0; y <= by1; y++) {
        for (let x = bx0; x <= bx1; x++) {
          const i = y * W + x;
          if (!kind[i] || nearestSegment(x, y) !== k) continue;
          // depth from the join, positive into the painted side for painted pixels, the real side for real ones
          const off = ((x - s.a.x) * s.dx + (y - s.a.y) * s.dy - t0) * dir;
          const depth = kind[i] === 1 ? -off : off;
          if (depth < 2 || depth > reach) continue;
          if (kind[i] === 1) deepest = Math.max(deepest, depth);
          sides[kind[i] - 1].push({ v: s.dx * (y - s.a.y) - s.dy * (x - s.a.x), i });
        }
      }
      // a rim of a few px beside the real arm blends in: not a stretch of painted arm
      if (deepest < 0.6 * reach || sides[0].length < 20 || sides[1].length < 20) continue;
      // each side's extent across the arm: a join across the arm's whole width (the painted arm
      // as wide as the real one and on its line), not a painted rim beside it
      const extent = sides.map((side) => {
        const vs = side.map((p) => p.v).sort((a, b) => a - b);
        const lo = vs[Math.floor(0.05 * vs.length)];
        const hi = vs[Math.floor(0.95 * vs.length)];
        return { c: (lo + hi) / 2, r: Math.max(1, (hi - lo) / 2) };
      });
      if (extent[0].r < 0.7 * extent[1].r || Math.abs(extent[0].c - extent[1].c) > 0.5 * extent[1].r) continue;
      const medians = sides.map((side, q) => {
        const { c, r } = extent[q];
        const per: number[][][] = Array.from({ length: bins }, () => [[], [], []]);
        for (const p of side) {
          const u = (p.v - c) / r;
          if (Math.abs(u) > 0.8) continue;
          const b = Math.min(bins - 1, Math.floor(((u + 0.8) / 1.6) * bins));
          const v = lab(p.i);
          for (let q = 0; q < 3; q++) per[b][q].push(v[q]);
        }
        return per.map((ch) => (ch[0].length >= 3 ? ch.map((v) => v.sort((a, b) => a - b)[v.length >> 1]) : null));
      });
      let step = -1;
      let measured = 0;
      for (let b = 0; b < bins; b++) {
        const p = medians[0][b];
        const r = medians[1][b];
        if (!p || !r) continue;
        measured++;
        step = Math.max(step, deltaE76(p, r));
      }
      if (measured >= 3) worst = Math.max(worst ?? 0, step);
    }
    return worst;
  }

  /** The colours of one part of the parsing in the photo (the trousers or skirt, the hair): k-means, k = 3. */
  colours(label: number): number[][] {
    const parts = this.#person.parts;
    if (!parts) return [];
    const t = labTable();
    const px: number[][] = [];
    for (let i = 0; i < this.#src.length; i += 7) {
      if (parts[this.#src[i]] !== label) continue;
      const k = this.#keyP[i] * 3;
      px.push([t[k], t[k + 1], t[k + 2]]);
    }
    return px.length < 20 ? [] : kMeans(px, 3, 6).filter((c) => c.weight >= 0.1).map((c) => c.colour);
  }

  /** The torso of the parsing: what a top must cover. */
  torso(): Uint8Array | undefined {
    return this.#part(PERSON_PART.torso);
  }

  /**
   * The person's own top: torso pixels in the colours of the chest's middle (a palette of three),
   * as the renderer tells it; arms are left out, since a skin-coloured top would take bare arms for it.
   */
  oldTop(): Uint8Array | undefined {
    // a twin wears nothing that a garment replaces
    if (this.#person.pose !== 'photo') return undefined;
    const torso = this.torso();
    if (!torso) return undefined;
    const L = this.#person.landmarks;
    const kx = this.width / this.#person.image.width;
    const ky = this.height / this.#person.image.height;
    const sx = ((L.leftShoulder.x + L.rightShoulder.x) / 2) * kx;
    const sy = ((L.leftShoulder.y + L.rightShoulder.y) / 2) * ky;
    const hy = ((L.hipLeft.y + L.hipRight.y) / 2) * ky;
    const sw = Math.hypot((L.leftShoulder.x - L.rightShoulder.x) * kx, (L.leftShoulder.y - L.rightShoulder.y) * ky);
    const trunk = Math.max(1, hy - sy);
    const samples: number[][] = [];
    for (let y = Math.round(sy + 0.25 * trunk); y < sy + 0.6 * trunk; y += 2) {
      for (let x = Math.round(sx - 0.2 * sw); x < sx + 0.2 * sw; x += 2) {
        if (y < 0 || y >= this.height || x < 0 || x >= this.width) continue;
        const i = y * this.width + x;
        if (!torso[i]) continue;
        samples.push(this.photoLab(i));
      }
    }
    if (samples.length < 20) return undefined;
    const own = kMeans(samples, 3, 8).filter((c) => c.weight >= 0.1).map((c) => c.colour);
    const w = this.width;
    const old = new Uint8Array(torso.length);
    const isOld = (i: number) => this.near(i, own, 16, true);
    for (let i = 0; i < old.length; i++) if (torso[i] && isOld(i)) old[i] = 1;
    // a top longer than the torso of the parsing hangs over the hips, where the parsing says legs:
    // its hem counts too, unless the trousers below share its colours (then the two cannot be told apart)
    const legs = this.#part(PERSON_PART.legs)!;
    const below: number[][] = [];
    for (let y = Math.round(hy + 0.3 * trunk); y < Math.min(this.height, hy + 0.6 * trunk); y += 3) {
      for (let x = 0; x < w; x += 3) {
        const i = y * w + x;
        if (!legs[i]) continue;
        below.push(this.photoLab(i));
      }
    }
    const trousers = below.length ? [0, 1, 2].map((c) => below.map((p) => p[c]).sort((a, b) => a - b)[below.length >> 1]) : null;
    if (trousers && !own.some((c) => deltaE76(c, trousers) < 16)) {
      const band = Math.round(0.15 * trunk);
      for (let x = 0; x < w; x++) {
        let bottom = -1;
        for (let y = this.height - 1; y >= 0; y--) {
          if (torso[y * w + x]) {
            bottom = y;
            break;
          }
        }
        if (bottom < 0) continue;
        for (let y = bottom + 1; y <= Math.min(this.height - 1, bottom + band); y++) {
          const i = y * w + x;
          if (legs[i] && isOld(i)) old[i] = 1;
        }
      }
    }
    return old;
  }
}

function kMeans(points: number[][], k: number, iterations: number): { colour: number[]; weight: number }[] {
  let centres = Array.from({ length: k }, (_, j) => points[Math.floor(((j + 0.5) * points.length) / k)].slice());
  let weights = centres.map(() => 0);
  for (let it = 0; it < iterations; it++) {
    const sums = centres.map(() => [0, 0, 0, 0]);
    for (const p of points) {
      let best = 0;
      let bestD = Infinity;
      for (let j = 0; j < centres.length; j++) {
        const d = deltaE76(p, centres[j]);
        if (d < bestD) {
          bestD = d;
          best = j;
        }
      }
      const s = sums[best];
      s[0] += p[0];
      s[1] += p[1];
      s[2] += p[2];
      s[3]++;
    }
    centres = sums.map((s, j) => (s[3] ? [s[0] / s[3], s[1] / s[3], s[2] / s[3]] : centres[j]));
    weights = sums.map((s) => s[3] / points.length);
  }
  return centres.map((colour, j) => ({ colour, weight: weights[j] }));
}

/**
 * The packshot's colours: k-means (k = 6) in Lab over pixels unlike the border's median (the
 * backdrop) and over the middle of the frame, where the garment is whatever its colour.
 */
export function garmentPalette(img: RasterImage): number[][] {
  const { width: w, height: h, data } = img;
  const lab = [0, 0, 0];
  const at = (x: number, y: number) => {
    const i = (y * w + x) * 4;
    return Array.from(srgbToLab(data[i], data[i + 1], data[i + 2], lab));
  };
  const border: number[][] = [];
  const step = Math.max(1, Math.round(Math.max(w, h) / 200));
  for (let x = 0; x < w; x += step) border.push(at(x, 0), at(x, h - 1));
  for (let y = 0; y < h; y += step) border.push(at(0, y), at(w - 1, y));
  const bg = [0, 1, 2].map((c) => border.map((p) => p[c]).sort((a, b) => a - b)[border.length >> 1]);
  const stride = Math.max(1, Math.round(Math.sqrt((w * h) / 6000)));
  const pts: number[][] = [];
  for (let y = 0; y < h; y += stride) {
    for (let x = 0; x < w; x += stride) {
      const p = at(x, y);
      const middle = x > 0.35 * w && x < 0.65 * w && y > 0.3 * h && y < 0.8 * h;
      if (middle || deltaE76(p, bg) > 12) pts.push(p);
    }
  }
  if (pts.length < 6) return [];
  return kMeans(pts, 6, 8)
    .filter((c) => c.weight >= 0.03)
    .map((c) => c.colour);
}

/** Horizontal and vertical gradient energy of the luminance over pixels whose 5x5 cross is inside (`mask` >= level). */
function gradientEnergy(img: RasterImage, mask: ArrayLike<number>, level: number): { gx: number; gy: number; count: number } {
  return lumEnergy(luminance(img), img.width, img.height, mask, level);
}

/** The image's luminance plane (Rec. 601 weights on the sRGB levels). */
function luminance(img: RasterImage): Float32Array {
  const { data } = img;
  const lum = new Float32Array(img.width * img.height);
  for (let i = 0; i < lum.length; i++) lum[i] = 0.299 * data[i * 4] + 0.587 * data[i * 4 + 1] + 0.114 * data[i * 4 + 2];
  return lum;
}

function lumEnergy(lum: Float32Array, w: number, h: number, mask: ArrayLike<number>, level: number): { gx: number; gy: number; count: number } {
  const inside = (i: number) => mask[i] >= level;
  let gx = 0;
  let gy = 0;
  let count = 0;
  for (let y = 2; y < h - 2; y++) {
    for (let x = 2; x < w - 2; x++) {
      const i = y * w + x;
      if (!inside(i) || !inside(i - 2) || !inside(i + 2) || !inside(i - 2 * w) || !inside(i + 2 * w)) continue;
      const dx = lum[i + 1] - lum[i - 1];
      const dy = lum[i + w] - lum[i - w];
      gx += dx * dx;
      gy += dy * dy;
      count++;
    }
  }
  return { gx, gy, count };
}

/** `v` (w x h) shrunk by `scale` < 1, each output pixel the mean of the source area under it (an exact box filter). */
function shrinkArea(v: Float32Array, w: number, h: number, scale: number): { v: Float32Array; w: number; h: number } {
  const W = Math.max(5, Math.round(w * scale));
  const H = Math.max(5, Math.round(h * scale));
  const pass = (src: Float32Array, n: number, m: number, lines: number, stride: number, step: number, outStride: number, outStep: number, out: Float32Array) => {
    const f = n / m;
    for (let k = 0; k < m; k++) {
      const a = k * f;
      const b = a + f;
      const i1 = Math.min(n, Math.ceil(b));
      for (let line = 0; line < lines; line++) {
        let sum = 0;
        for (let i = Math.floor(a); i < i1; i++) sum += src[line * stride + i * step] * (Math.min(b, i + 1) - Math.max(a, i));
        out[line * outStride + k * outStep] = sum / f;
      }
    }
  };
  const rows = new Float32Array(W * h);
  pass(v, w, W, h, w, 1, W, 1, rows);
  const out = new Float32Array(W * H);
  pass(rows, h, H, W, 1, W, 1, W, out);
  return { v: out, w: W, h: H };
}

/** Whether a garment drawn at `scale` lost detail of its packshot (drawn at nearly full size or larger: none). */
const shrunk = (scale: number | undefined): scale is number => scale !== undefined && scale > 0 && scale < 0.95;

/**
 * The packshot garment's gradient energy as it would be drawn at `scale` output pixels per packshot
 * pixel without any distortion: below full size its luminance and mask are shrunk by area (a print's
 * finest detail, a halftone's screen or a knit's rows, is averaged away as it is on the result;
 * its gradients are mostly along one axis, so the balance of the full-size packshot would call a
 * faithful smaller copy smeared or squashed), and only pixels wholly inside the garment count.
 */
function packshotEnergy(lum: Float32Array, w: number, h: number, mask: ArrayLike<number>, level: number, scale?: number): { gx: number; gy: number; count: number } {
  if (!shrunk(scale)) return lumEnergy(lum, w, h, mask, level);
  const m = new Float32Array(w * h);
  for (let i = 0; i < m.length; i++) m[i] = mask[i] >= level ? 1 : 0;
  const l = shrinkArea(lum, w, h, scale);
  return lumEnergy(l.v, l.w, l.h, shrinkArea(m, w, h, scale).v, 0.999);
}

/**
 * Below this mean squared luminance gradient (per pixel, both directions) a packshot's garment has
 * no print whose structure could be kept (plain cloth; the 16 real packshots of the fixtures reach
 * 93 to 10 700, a drawn plain tee with soft folds 47 to 60): its result is not held to the
 * packshot's balance (a plain tee on a twin at draft size, its folds resampled, measured 1/1.52).
 */
const PLAIN_CLOTH = 80;

/** The result's horizontal over vertical gradient energy over the packshot's. */
function balance(r: { gx: number; gy: number }, p: { gx: number; gy: number }): number {
  const eps = 1e-6;
  return (r.gx + eps) / (r.gy + eps) / ((p.gx + eps) / (p.gy + eps));
}

/**
 * Horizontal over vertical gradient energy inside the garment on the result, divided by the same
 * ratio inside the packshot's garment (1 = the garment's own structure; vertical smears of a warp
 * drive it up, horizontal bands squashed down). Masks count where >= `level` (coverage 0..1 or
 * bytes). `scale`: the garment's size on the result (output pixels per packshot pixel, the warp's
 * median): the packshot is seen at that size (packshotEnergy), so resampling alone reads as 1.
 */
export function streakRatio(result: RasterImage, garmentMask: ArrayLike<number>, packshot: RasterImage, packshotMask: ArrayLike<number>, level = 0.5, scale?: number): number {
  return balance(gradientEnergy(result, garmentMask, level), packshotEnergy(luminance(packshot), packshot.width, packshot.height, packshotMask, level, scale));
}

/**
 * Fold-over share and area distortion of a mapping (garment to photo, e.g. a thin-plate spline)
 * over a source region: the Jacobian determinant on a grid of cells `step` pixels wide, by finite
 * differences. A determinant <= 0 is a fold-over; the area ratios are relative to the median of the
 * positive ones (so a uniform scale is no distortion).
 */
export function measureWarp(map: (x: number, y: number, out: Float64Array) => void, width: number, height: number, opts: { step?: number; inside?: (x: number, y: number) => boolean } = {}): WarpDiagnostics {
  const step = opts.step ?? 4;
  const a = new Float64Array(2);
  const b = new Float64Array(2);
  const c = new Float64Array(2);
  const dets: number[] = [];
  for (let y = 0; y + step < height; y += step) {
    for (let x = 0; x + step < width; x += step) {
      if (opts.inside && !opts.inside(x + step / 2, y + step / 2)) continue;
      map(x, y, a);
      map(x + step, y, b);
      map(x, y + step, c);
      dets.push(((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])) / (step * step));
    }
  }
  if (!dets.length) return { folded: 0, maxAreaRatio: 1, minAreaRatio: 1 };
  const positive = dets.filter((d) => d > 0).sort((p, q) => p - q);
  const folded = (dets.length - positive.length) / dets.length;
  if (!positive.length) return { folded, maxAreaRatio: Infinity, minAreaRatio: 0 };
  const median = positive[positive.length >> 1];
  return { folded, maxAreaRatio: positive[positive.length - 1] / median, minAreaRatio: positive[0] / median };
}
