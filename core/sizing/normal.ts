/**
 * Standard normal helpers in log space, so that probabilities of values many standard deviations
 * outside a range still compare (they decide which far-away size is the nearest).
 */

const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);

/** Complementary error function; Chebyshev fit with fractional error below 1.2e-7 (Numerical Recipes erfcc). */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/** log of the standard normal CDF. */
export function logPhi(z: number): number {
  if (z > -8) return Math.log(0.5 * erfc(-z / Math.SQRT2));
  // Asymptotic tail: phi(z)/|z| * (1 - 1/z^2 + 3/z^4).
  const z2 = z * z;
  return -0.5 * z2 - LOG_SQRT_2PI - Math.log(-z) + Math.log(1 - 1 / z2 + 3 / (z2 * z2));
}

/** log P(lo <= X <= hi) for X ~ N(mean, sd), lo <= hi. */
export function logProbInRange(mean: number, sd: number, lo: number, hi: number): number {
  let a = (lo - mean) / sd;
  let b = (hi - mean) / sd;
  if (a > 0) {
    // Both bounds above the mean: mirror into the lower tail, where logPhi is accurate.
    [a, b] = [-b, -a];
  }
  if (b <= 0) {
    const lb = logPhi(b);
    const la = logPhi(a);
    const diff = 1 - Math.exp(la - lb);
    return diff > 0 ? lb + Math.log(diff) : -Infinity;
  }
  // The range straddles the mean.
  const p = 1 - 0.5 * erfc(-a / Math.SQRT2) - 0.5 * erfc(b / Math.SQRT2);
  return Math.log(Math.max(p, Number.MIN_VALUE));
}

/** Standard normal CDF. */
export function phi(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

/**
 * Inverse of the standard normal CDF for 0 < p < 1: Acklam's rational approximation (relative
 * error below 1.2e-9), enough to place quadrature points.
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError('p must lie strictly between 0 and 1');
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  if (p < low || p > 1 - low) {
    const q = Math.sqrt(-2 * Math.log(p < low ? p : 1 - p));
    const x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    return p < low ? x : -x;
  }
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}
