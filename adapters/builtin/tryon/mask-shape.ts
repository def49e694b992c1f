/**
 * Shape measurements of a garment mask: bounding box, row runs, column profiles, contour, hull and
 * convexity defects, computed lazily and shared by the landmark detectors and the classifier.
 */
import type { Point } from '../../../core/twins/body.ts';
import { maskBounds } from '../raster/mask.ts';
import { convexHull, convexityDefects, traceContour, type Defect } from './contour.ts';

/** A mask holding only the pixels of one labelled component. */
export { componentMask } from '../raster/components.ts';

export type Span = [number, number];

export class MaskShape {
  readonly width: number;
  readonly height: number;
  readonly mask: Uint8Array;
  /** Inclusive bounding box. */
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
  readonly area: number;
  #runs = new Map<number, Span[]>();
  #contour: Point[] | undefined;
  #hull: number[] | undefined;

  constructor(mask: Uint8Array, width: number, height: number) {
    this.mask = mask;
    this.width = width;
    this.height = height;
    const box = maskBounds(mask, width, height);
    // an empty mask keeps the inverted box (x1 < x0) and area 0
    this.x0 = box?.x0 ?? width;
    this.y0 = box?.y0 ?? height;
    this.x1 = box?.x1 ?? -1;
    this.y1 = box?.y1 ?? -1;
    this.area = box?.area ?? 0;
  }

  get boxWidth(): number {
    return this.x1 - this.x0 + 1;
  }

  get boxHeight(): number {
    return this.y1 - this.y0 + 1;
  }

  get centreX(): number {
    return (this.x0 + this.x1) / 2;
  }

  /** Foreground runs of a row, left to right. */
  runs(y: number): Span[] {
    const yi = Math.round(Math.max(0, Math.min(this.height - 1, y)));
    let r = this.#runs.get(yi);
    if (r) return r;
    r = [];
    const row = yi * this.width;
    let start = -1;
    for (let x = 0; x <= this.width; x++) {
      const on = x < this.width && this.mask[row + x] !== 0;
      if (on && start < 0) start = x;
      if (!on && start >= 0) {
        r.push([start, x - 1]);
        start = -1;
      }
    }
    this.#runs.set(yi, r);
    return r;
  }

  /** The run of row y containing x, or the nearest run; null for an empty row. */
  spanAt(y: number, x: number): Span | null {
    let best: Span | null = null;
    let bestD = Infinity;
    for (const s of this.runs(y)) {
      const d = x < s[0] ? s[0] - x : x > s[1] ? x - s[1] : 0;
      if (d < bestD) {
        bestD = d;
        best = s;
      }
    }
    return best;
  }

  /** First foreground row of a column, or -1. */
  top(x: number): number {
    const xi = Math.round(Math.max(0, Math.min(this.width - 1, x)));
    for (let y = this.y0; y <= this.y1; y++) if (this.mask[y * this.width + xi]) return y;
    return -1;
  }

  /** Last foreground row of a column, or -1. */
  bottom(x: number): number {
    const xi = Math.round(Math.max(0, Math.min(this.width - 1, x)));
    for (let y = this.y1; y >= this.y0; y--) if (this.mask[y * this.width + xi]) return y;
    return -1;
  }

  get contour(): Point[] {
    this.#contour ??= traceContour(this.width, this.height, (p) => this.mask[p] !== 0);
    return this.#contour;
  }

  get hull(): number[] {
    this.#hull ??= convexHull(this.contour);
    return this.#hull;
  }

  defects(minDepth: number): Defect[] {
    return convexityDefects(this.contour, this.hull, minDepth);
  }
}

