/** Separable box blur of a float plane (edges clamped); two passes approximate a Gaussian. */
export function boxBlur(src: Float32Array, width: number, height: number, radius: number, passes = 2): Float32Array {
  let a = Float32Array.from(src);
  let b = new Float32Array(src.length);
  const r = Math.max(0, Math.round(radius));
  if (r === 0) return a;
  const norm = 1 / (2 * r + 1);
  for (let pass = 0; pass < passes; pass++) {
    for (let y = 0; y < height; y++) {
      const row = y * width;
      let acc = 0;
      for (let k = -r; k <= r; k++) acc += a[row + Math.min(width - 1, Math.max(0, k))];
      for (let x = 0; x < width; x++) {
        b[row + x] = acc * norm;
        acc += a[row + Math.min(width - 1, x + r + 1)] - a[row + Math.max(0, x - r)];
      }
    }
    [a, b] = [b, a];
    for (let x = 0; x < width; x++) {
      let acc = 0;
      for (let k = -r; k <= r; k++) acc += a[Math.min(height - 1, Math.max(0, k)) * width + x];
      for (let y = 0; y < height; y++) {
        b[y * width + x] = acc * norm;
        acc += a[Math.min(height - 1, y + r + 1) * width + x] - a[Math.max(0, y - r) * width + x];
      }
    }
    [a, b] = [b, a];
  }
  return a;
}
