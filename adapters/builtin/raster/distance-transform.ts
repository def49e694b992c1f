/**
 * Exact Euclidean distance transform (Felzenszwalb and Huttenlocher, "Distance Transforms of
 * Sampled Functions"): lower envelopes of parabolas, one pass over the columns and one over the
 * rows, linear in the pixel count whatever the distances.
 *
 * Masks are one byte per pixel, row-major; any non-zero value is set. Pixels beyond the image edge
 * are never targets, so distances are measured inside the image only.
 */

/** Which pixels the distance is measured to. */
export type DistanceTarget = 'set' | 'unset';

/** A distance for a pixel that has no target in the image (no set pixel at all). */
const FAR = 1e20;

/**
 * For every pixel, the distance to the nearest `target` pixel of `mask` (0 on target pixels):
 * `'set'` measures how far a pixel is from the shape, `'unset'` how deep it lies inside it.
 * Without any target pixel every distance is 1e10 (the square root of the internal infinity).
 */
export function distanceTransform(mask: Uint8Array, width: number, height: number, target: DistanceTarget = 'set'): Float32Array {
  const n = Math.max(width, height);
  const f = new Float64Array(n);
  const d = new Float64Array(n);
  const v = new Int32Array(n);
  const z = new Float64Array(n + 1);
  const grid = new Float64Array(width * height);
  if (target === 'set') for (let i = 0; i < grid.length; i++) grid[i] = mask[i] ? 0 : FAR;
  else for (let i = 0; i < grid.length; i++) grid[i] = mask[i] ? FAR : 0;
  for (let x = 0; x < width; x++) {
    for (let y = 0, i = x; y < height; y++, i += width) f[y] = grid[i];
    envelope(f, height, d, v, z);
    for (let y = 0, i = x; y < height; y++, i += width) grid[i] = d[y];
  }
  const out = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) f[x] = grid[row + x];
    envelope(f, width, d, v, z);
    for (let x = 0; x < width; x++) out[row + x] = Math.sqrt(d[x]);
  }
  return out;
}

/**
 * One-dimensional squared distance of the sampled function `f` (n values) into `d`: the lower
 * envelope of the parabolas (q - p)^2 + f[p]; `v` holds the parabolas' apexes, `z` the envelope's
 * breakpoints.
 */
function envelope(f: Float64Array, n: number, d: Float64Array, v: Int32Array, z: Float64Array): void {
  let k = 0;
  v[0] = 0;
  z[0] = -Infinity;
  z[1] = Infinity;
  for (let q = 1; q < n; q++) {
    const fq = f[q] + q * q;
    let s = (fq - (f[v[k]] + v[k] * v[k])) / (2 * q - 2 * v[k]);
    while (s <= z[k]) {
      k--;
      s = (fq - (f[v[k]] + v[k] * v[k])) / (2 * q - 2 * v[k]);
    }
    k++;
    v[k] = q;
    z[k] = s;
    z[k + 1] = Infinity;
  }
  k = 0;
  for (let q = 0; q < n; q++) {
    while (z[k + 1] < q) k++;
    const dq = q - v[k];
    d[q] = dq * dq + f[v[k]];
  }
}

/**
 * Signed distance to a shape's outline in pixels: negative inside (set pixels), positive outside.
 * Pixel centres sit half a pixel from the outline, so both sides are offset by 0.5.
 */
export function signedDistance(mask: Uint8Array, width: number, height: number): Float32Array {
  const inside = distanceTransform(mask, width, height, 'unset');
  const outside = distanceTransform(mask, width, height, 'set');
  const out = new Float32Array(width * height);
  for (let i = 0; i < out.length; i++) out[i] = mask[i] ? -(inside[i] - 0.5) : outside[i] - 0.5;
  return out;
}
