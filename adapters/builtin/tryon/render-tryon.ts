/**
 * The builtin try-on engine: garments are cut out of their packshots, warped onto the body with
 * thin-plate splines, shaded with the body's depth, given a soft contact shadow and composited
 * over the person (or over a clean studio backdrop when the background is not preserved).
 * Deterministic: the same inputs give the same pixels.
 */
import type { RasterImage } from '../../../core/images.ts';
import type { Quality } from '../../../core/ports/image-model.ts';
import type { PersonBody } from '../../../core/ports/person-analyzer.ts';
import { BodyFrame } from './body-frame.ts';
import { boxBlur } from './box-blur.ts';
import { classifyGarment, type GarmentCategory } from './classify-garment.ts';
import { linearToSrgb, SRGB_TO_LINEAR } from './color.ts';
import { reblendOutline } from './matte.ts';
import { cutOut, garmentPieces } from './garment-pieces.ts';
import { shadingMap } from './lighting.ts';
import { scaleBody } from './scale-body.ts';
import { studioBackdrop } from './studio-background.ts';
import { closePieceGaps, createLayer, drawPiece, type Layer } from './warp-piece.ts';
import { drawPhotoTop, transferShading } from './photo-top.ts';
import { uncoverOldTop } from './photo-fill.ts';
import { drawPhotoDress } from './photo-dress.ts';
import { drawPhotoShoes } from './photo-shoes.ts';
import { PERSON_PART } from '../../../core/ports/person-analyzer.ts';
import type { LayerDiagnostics, TryOnDiagnostics } from './diagnostics.ts';
import { warpStats } from './warp-quality.ts';

export interface TryOnGarments {
  top?: RasterImage;
  bottom?: RasterImage;
  fullBody?: RasterImage;
  shoes?: RasterImage;
}

export interface RenderTryOnInput {
  body: PersonBody;
  garments: TryOnGarments;
  /** A single product image (direct path); its category is decided from its shape for `auto`. */
  product?: { image: RasterImage; category: GarmentCategory | 'auto' };
  quality: Quality;
  /** Longer edge of the output in pixels; default OUTPUT_LONG_SIDE[quality]. */
  longSide?: number;
  preserveBackground: boolean;
  signal?: AbortSignal;
  /** Filled with what the renderer measured of each garment it laid on a person photo. */
  diagnostics?: TryOnDiagnostics;
}

/** The category of the layer drawn right after `category`'s, if any. */
function layersAbove(layers: { category: GarmentCategory }[], category: GarmentCategory): GarmentCategory | null {
  const k = layers.findIndex((l) => l.category === category);
  return k >= 0 && k + 1 < layers.length ? layers[k + 1].category : null;
}

/**
 * Clears what `under` shows beside `over` on the rows `over` covers (outside its leftmost and
 * rightmost cloth in the row): trousers cut a little wider than the top above them would otherwise
 * stick out at its sides.
 */
function hideBeside(under: Layer, over: Layer): void {
  const { width: w, height: h } = over;
  for (let y = 0; y < h; y++) {
    let x0 = -1;
    let x1 = -1;
    for (let x = 0; x < w; x++) {
      if (over.data[(y * w + x) * 4 + 3] < 0.5) continue;
      if (x0 < 0) x0 = x;
      x1 = x;
    }
    if (x0 < 0) continue;
    for (let x = 0; x < w; x++) if (x < x0 || x > x1) under.data.fill(0, (y * w + x) * 4, (y * w + x) * 4 + 4);
  }
}

/** The largest gap between a garment's pieces that is closed, as a share of the shoulders' width (squared). */
const GAP_SHARE = 0.12;

/** The output's longer edge per quality, as the model registry lists for `builtin-warp`. */
export const OUTPUT_LONG_SIDE: Record<Quality, number> = { draft: 768, standard: 1024, high: 1536 };

function checkAbort(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason ?? new Error('aborted');
}

/** Composites one garment layer: contact shadow on what lies below, then the shaded garment. */
function compositeLayer(canvas: Float32Array, layer: Layer, shade: Float32Array, frame: BodyFrame): void {
  const { width: w, height: h, data } = layer;
  const n = w * h;
  const alpha = new Float32Array(n);
  for (let i = 0; i < n; i++) alpha[i] = data[i * 4 + 3];
  const r = Math.max(1, Math.round(h * 0.004));
  const blurred = boxBlur(alpha, w, h, r);
  const drop = Math.max(1, Math.round(h * 0.002));
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const s = y >= drop ? blurred[i - drop * w] : 0;
      const a = data[i * 4 + 3];
      // the shadow falls only on the body (and on earlier garments), not on the backdrop
      const onBody = frame.body.mask[i] >= 128 ? 1 : 0.25;
      const dark = 1 - 0.35 * s * (1 - a) * onBody;
      const k = shade[i];
      for (let c = 0; c < 3; c++) canvas[i * 3 + c] = canvas[i * 3 + c] * dark * (1 - a) + data[i * 4 + c] * k;
    }
  }
}

/**
 * Fabric hanging below the hips (skirts, trouser legs) does not follow every dip of the body
 * (between the legs): there the shading is blurred strongly.
 */
function drapeShade(shade: Float32Array, frame: BodyFrame): Float32Array {
  const { width: w, height: h } = frame;
  const L = frame.landmarks;
  const blurred = boxBlur(shade, w, h, Math.round(h * 0.03));
  const from = (L.hipLeft.y + L.hipRight.y) / 2;
  const to = L.crotch.y + 0.1 * ((L.leftKnee.y + L.rightKnee.y) / 2 - L.crotch.y);
  const out = new Float32Array(shade.length);
  for (let y = 0; y < h; y++) {
    const t = Math.max(0, Math.min(1, (y - from) / Math.max(1, to - from)));
    const e = t * t * (3 - 2 * t);
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      out[i] = shade[i] * (1 - e) + blurred[i] * e;
    }
  }
  return out;
}

/**
 * Face and hair in front of the garment: their pixels clear it, and the garment fades over the
 * pixel beside them, so strands and the jaw line keep a soft edge.
 */
function occlude(layer: Layer, parts: Uint8Array, inFront?: Uint8Array): void {
  const { width: w, height: h, data } = layer;
  // only the garment's rows matter
  let y0 = h;
  let y1 = -1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (data[(y * w + x) * 4 + 3] <= 0) continue;
      if (y < y0) y0 = y;
      y1 = y;
      break;
    }
  }
  if (y1 < 0) return;
  y0 = Math.max(0, y0 - 1);
  y1 = Math.min(h - 1, y1 + 1);
  const rows = y1 - y0 + 1;
  const front = new Float32Array(rows * w);
  for (let k = 0; k < rows * w; k++) {
    const p = parts[y0 * w + k];
    if (inFront ? inFront[y0 * w + k] : p === PERSON_PART.face || p === PERSON_PART.hair) front[k] = 1;
  }
  const soft = boxBlur(front, w, rows, 1, 1);
  for (let k = 0; k < rows * w; k++) {
    const f = 1 - Math.max(front[k], soft[k]);
    if (f >= 1) continue;
    const i = y0 * w + k;
    for (let c = 0; c < 4; c++) data[i * 4 + c] *= f;
  }
}

export function renderTryOn(input: RenderTryOnInput): RasterImage {
  const { signal } = input;
  const src = input.body;
  const longSide = input.longSide ?? OUTPUT_LONG_SIDE[input.quality];
  const k = longSide / Math.max(src.image.width, src.image.height);
  const outW = Math.max(1, Math.round(src.image.width * k));
  const outH = Math.max(1, Math.round(src.image.height * k));
  const body = scaleBody(src, outW, outH);
  const frame = new BodyFrame(body);
  // bicubic sampling at high quality; draft and standard sample bilinearly
  const filter = input.quality === 'high' ? 'bicubic' : 'bilinear';
  checkAbort(signal);

  // base: the person, over a clean backdrop when the background is replaced
  const n = outW * outH;
  const canvas = new Float32Array(n * 3);
  const img = body.image.data;
  for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) canvas[i * 3 + c] = SRGB_TO_LINEAR[img[i * 4 + c]];
  if (!input.preserveBackground) {
    const L = body.landmarks;
    const feetY = Math.max(L.leftToe.y, L.rightToe.y);
    const backdrop = studioBackdrop(outW, outH, feetY, (L.leftToe.x + L.rightToe.x) / 2, frame.shoulderWidth * 0.9);
    const m = new Float32Array(n);
    for (let i = 0; i < n; i++) m[i] = body.mask[i] >= 128 ? 1 : 0;
    const soft = boxBlur(m, outW, outH, 1, 1);
    for (let i = 0; i < n; i++) {
      const a = Math.min(m[i], soft[i] * 1.5);
      for (let c = 0; c < 3; c++) canvas[i * 3 + c] = canvas[i * 3 + c] * a + backdrop[i * 3 + c] * (1 - a);
    }
  }

  // garments from the innermost layer out: shoes under trouser hems, tops over waistbands
  const layers: { image: RasterImage; category: GarmentCategory }[] = [];
  const g = input.garments;
  if (input.product) {
    const cat = input.product.category === 'auto' ? classifyGarment(cutOut(input.product.image, 'top')) : input.product.category;
    layers.push({ image: input.product.image, category: cat });
  }
  if (g.shoes) layers.push({ image: g.shoes, category: 'shoe' });
  if (g.bottom) layers.push({ image: g.bottom, category: 'bottom' });
  if (g.fullBody) layers.push({ image: g.fullBody, category: 'full-body' });
  if (g.top) layers.push({ image: g.top, category: 'top' });
  const rank: Record<GarmentCategory, number> = { shoe: 0, bottom: 1, 'full-body': 2, top: 3 };
  layers.sort((a, b) => rank[a.category] - rank[b.category]);

  if (layers.length) {
    const shade = shadingMap(body);
    let drape: Float32Array | undefined;
    let heldBottom: Layer | null = null;
    for (const { image, category } of layers) {
      checkAbort(signal);
      const cut = cutOut(image, category);
      const layer = createLayer(outW, outH);
      const parts = body.parts;
      let diag: LayerDiagnostics | undefined;
      let occluded = false;
      let outline: { oldTop: Uint8Array; fill: Uint8Array } | null = null;
      if (parts && category === 'top') {
        // a person photo with its parsing: the top is fitted to the torso and arms, carries the
        // old top's folds, and what stays of the old top is repainted
        const withParts = { ...body, parts };
        const fit = drawPhotoTop(layer, cut, image, withParts);
        const L = body.landmarks;
        transferShading(layer, fit.oldTop, body, Math.hypot(L.leftShoulder.x - L.rightShoulder.x, L.leftShoulder.y - L.rightShoulder.y));
        // the hair strands as told by their colour, not the parsing's coarse hair label
        occlude(layer, parts, fit.front);
        occluded = true;
        const record: Pick<LayerDiagnostics, 'limbs' | 'chestRelief'> = {};
        const fill = uncoverOldTop(canvas, layer, fit.repaint, withParts, fit.hair, record);
        outline = { oldTop: fit.repaint, fill };
        // measured only for a caller that reads them (the quality gate, the bench)
        if (input.diagnostics) diag = { category, width: outW, height: outH, oldGarment: fit.repaint, target: fit.target, fill, ...(record.limbs ? { limbs: record.limbs } : {}), ...(record.chestRelief ? { chestRelief: true } : {}), warp: { ...warpStats(fit.maps, outW, outH), ...(fit.fallback ? { fallback: fit.fallback } : {}) } };
      } else if (parts && category === 'full-body') {
        const fit = drawPhotoDress(layer, canvas, cut, image, { ...body, parts }, SRGB_TO_LINEAR);
        // the same records as a top's (the gate estimates the old clothes itself)
        if (input.diagnostics) diag = { category, width: outW, height: outH, target: fit.target, fill: fit.fill, warp: warpStats(fit.maps, outW, outH) };
      } else if (parts && category === 'shoe' && body.pose === 'photo') {
        // (a twin's feet are drawn, not photographed: its shoes are laid as pieces)
        drawPhotoShoes(layer, canvas, cut, { ...body, parts }, SRGB_TO_LINEAR);
      } else {
        for (const piece of garmentPieces(cut, category, frame)) drawPiece(layer, piece, frame, filter);
        // gaps up to a few percent of the shoulders' width squared: slivers between pieces, not openings
        closePieceGaps(layer, (GAP_SHARE * frame.shoulderWidth) ** 2);
      }
      if (parts) {
        // on a person photo the face and hair stay in front of every garment
        if (!occluded) occlude(layer, parts);
        if (input.diagnostics) {
          diag ??= { category, width: outW, height: outH };
          const alpha = new Float32Array(n);
          for (let i = 0; i < n; i++) alpha[i] = layer.data[i * 4 + 3];
          diag.alpha = alpha;
          input.diagnostics.layers.push(diag);
        }
      }
      const hangs = category === 'bottom' || category === 'full-body';
      if (hangs) drape ??= drapeShade(shade, frame);
      // on a twin an untucked top hangs over the trousers' waistband: the bottom waits for the top
      // and keeps nothing beside it on the rows it covers
      if (body.pose !== 'photo' && category === 'bottom' && layersAbove(layers, category) === 'top') {
        heldBottom = layer;
        continue;
      }
      if (heldBottom) {
        hideBeside(heldBottom, layer);
        compositeLayer(canvas, heldBottom, drape!, frame);
        heldBottom = null;
      }
      compositeLayer(canvas, layer, hangs ? drape! : shade, frame);
      if (outline) {
        // the person's outline against the old top, re-mixed with the new one
        const replaced = new Uint8Array(n);
        const kept = new Uint8Array(n);
        const photo = new Float32Array(n * 3);
        for (let i = 0; i < n; i++) {
          const a = layer.data[i * 4 + 3];
          replaced[i] = outline.oldTop[i] && (a >= 0.5 || outline.fill[i]) ? 1 : 0;
          kept[i] = body.mask[i] >= 128 && !outline.oldTop[i] && !outline.fill[i] && a < 0.05 ? 1 : 0;
          for (let c = 0; c < 3; c++) photo[i * 3 + c] = SRGB_TO_LINEAR[img[i * 4 + c]];
        }
        reblendOutline(canvas, photo, replaced, kept, outW, outH);
      }
    }
  }

  const out = new Uint8Array(n * 4);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < 3; c++) out[i * 4 + c] = Math.round(linearToSrgb(canvas[i * 3 + c]));
    out[i * 4 + 3] = 255;
  }
  return { width: outW, height: outH, data: out };
}
