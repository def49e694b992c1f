/**
 * Separable box blur of a float plane (edges clamped); two passes approximate a Gaussian.
 * The vertical pass walks rows with one running sum per column (a Float64Array, the same arithmetic
 * as a per-column scalar) so it reads memory in order instead of striding a column at a time.
 */
export function boxBlur(src: Float32Array, width: number, height: number, radius: number, passes = 2): Float32Array {
  let a = Float32Array.from(src);
  let b = new Float32Array(src.length);
  const r = Math.max(0, Math.round(radius));
  if (r === 0) return a;
  const norm = 1 / (2 * r + 1);
  const acc = new Float64Array(width);
  for (let pass = 0; pass < passes; pass++) {
    for (let y = 0; y < height; y++) {
      const row = y * width;
      let s = 0;
      for (let k = -r; k <= r; k++) s += a[row + Math.min(width - 1, Math.max(0, k))];
      for (let x = 0; x < width; x++) {
        b[row + x] = s * norm;
        s += a[row + Math.min(width - 1, x + r + 1)] - a[row + Math.max(0, x - r)];
      }
    }
    [a, b] = [b, a];
    acc.fill(0);
    for (let k = -r; k <= r; k++) {
      const row = Math.min(height - 1, Math.max(0, k)) * width;
      for (let x = 0; x < width; x++) acc[x] += a[row + x];
    }
    for (let y = 0; y < height; y++) {
      const row = y * width;
      const add = Math.min(height - 1, y + r + 1) * width;
      const drop = Math.max(0, y - r) * width;
      for (let x = 0; x < width; x++) {
        b[row + x] = acc[x] * norm;
        acc[x] += a[add + x] - a[drop + x];
      }
    }
    [a, b] = [b, a];
  }
  return a;
}
