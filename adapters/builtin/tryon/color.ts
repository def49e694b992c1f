/**
 * sRGB <-> linear light and CIE L*a*b* (D65) conversions used for background distances,
 * shading in linear light and colour-fidelity checks.
 */

/** 8-bit sRGB value -> linear light 0..1. */
export const SRGB_TO_LINEAR: Float32Array = (() => {
  const t = new Float32Array(256);
  for (let i = 0; i < 256; i++) {
    const c = i / 255;
    t[i] = c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }
  return t;
})();

const LINEAR_STEPS = 4096;
const LINEAR_TO_SRGB_TABLE: Float32Array = (() => {
  const t = new Float32Array(LINEAR_STEPS + 1);
  for (let i = 0; i <= LINEAR_STEPS; i++) {
    const c = i / LINEAR_STEPS;
    t[i] = 255 * (c <= 0.0031308 ? c * 12.92 : 1.055 * c ** (1 / 2.4) - 0.055);
  }
  return t;
})();

/** Linear light 0..1 (clamped) -> sRGB 0..255 as a float (table lookup with interpolation). */
export function linearToSrgb(v: number): number {
  if (v <= 0) return 0;
  if (v >= 1) return 255;
  const f = v * LINEAR_STEPS;
  const i = f | 0;
  const t = f - i;
  return LINEAR_TO_SRGB_TABLE[i] * (1 - t) + LINEAR_TO_SRGB_TABLE[i + 1] * t;
}

function labF(t: number): number {
  return t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 * t + 16) / 116;
}

function lin(c: number): number {
  if (Number.isInteger(c) && c >= 0 && c <= 255) return SRGB_TO_LINEAR[c];
  const v = c / 255;
  return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
}

/** sRGB 0..255 (floats allowed; integers use a table) -> L*a*b*, written into `out`. */
export function srgbToLab(r: number, g: number, b: number, out: Float64Array | number[] = [0, 0, 0]): Float64Array | number[] {
  const R = lin(r);
  const G = lin(g);
  const B = lin(b);
  const X = (0.4124564 * R + 0.3575761 * G + 0.1804375 * B) / 0.95047;
  const Y = 0.2126729 * R + 0.7151522 * G + 0.072175 * B;
  const Z = (0.0193339 * R + 0.119192 * G + 0.9503041 * B) / 1.08883;
  const fx = labF(X);
  const fy = labF(Y);
  const fz = labF(Z);
  out[0] = 116 * fy - 16;
  out[1] = 500 * (fx - fy);
  out[2] = 200 * (fy - fz);
  return out;
}

/** CIE76 colour difference. */
export function deltaE76(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const d0 = a[0] - b[0];
  const d1 = a[1] - b[1];
  const d2 = a[2] - b[2];
  return Math.sqrt(d0 * d0 + d1 * d1 + d2 * d2);
}
