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
