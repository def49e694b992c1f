/**
 * Exact Euclidean distance transform (Felzenszwalb and Huttenlocher, "Distance Transforms of
 * Sampled Functions"): for a binary mask the column pass reduces to the distance to the nearest
 * target in the column (two scans in memory order), the row pass is the lower envelope of the
 * finite parabolas; linear in the pixel count whatever the distances.
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
  const want = target === 'set';
  // Columns: for a binary mask the lower envelope is the squared distance to the nearest target in
  // the column (FAR when there is none); two running scans over whole rows find it, in memory order.
  const grid = new Float64Array(width * height);
  const last = new Int32Array(width).fill(-1);
  for (let y = 0, i = 0; y < height; y++) {
    for (let x = 0; x < width; x++, i++) {
      if ((mask[i] !== 0) === want) last[x] = y;
      grid[i] = last[x] < 0 ? FAR : (y - last[x]) * (y - last[x]);
    }
  }
  last.fill(-1);
  for (let y = height - 1, i = width * height - 1; y >= 0; y--) {
    for (let x = width - 1; x >= 0; x--, i--) {
      if ((mask[i] !== 0) === want) last[x] = y;
      if (last[x] >= 0) {
        const d = (last[x] - y) * (last[x] - y);
        if (d < grid[i]) grid[i] = d;
      }
    }
  }
  // Rows: the lower envelope of the finite parabolas only (a FAR one never wins against them).
  const f = new Float64Array(width);
  const p = new Int32Array(width);
  const d = new Float64Array(width);
  const v = new Int32Array(width);
  const z = new Float64Array(width + 1);
  const out = new Float32Array(width * height);
  const far = Math.sqrt(FAR);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let m = 0;
    for (let x = 0; x < width; x++) {
      const g = grid[row + x];
      if (g < FAR) {
        p[m] = x;
        f[m] = g;
        m++;
      }
    }
    if (m === 0) {
      out.fill(far, row, row + width);
      continue;
    }
    sparseEnvelope(p, f, m, width, d, v, z);
    for (let x = 0; x < width; x++) out[row + x] = Math.sqrt(d[x]);
  }
  return out;
}

/**
 * The lower envelope of the parabolas (q - p[k])^2 + f[k] (m of them, p increasing) sampled at
 * q = 0..n-1 into `d`; `v` holds the indices of the envelope's parabolas, `z` its breakpoints.
 */
function sparseEnvelope(p: Int32Array, f: Float64Array, m: number, n: number, d: Float64Array, v: Int32Array, z: Float64Array): void {
  let k = 0;
  v[0] = 0;
  z[0] = -Infinity;
  z[1] = Infinity;
  for (let j = 1; j < m; j++) {
    const q = p[j];
    const fq = f[j] + q * q;
    let a = p[v[k]];
    let s = (fq - (f[v[k]] + a * a)) / (2 * q - 2 * a);
    while (s <= z[k]) {
      k--;
      a = p[v[k]];
      s = (fq - (f[v[k]] + a * a)) / (2 * q - 2 * a);
    }
    k++;
    v[k] = j;
    z[k] = s;
    z[k + 1] = Infinity;
  }
  k = 0;
  for (let q = 0; q < n; q++) {
    while (z[k + 1] < q) k++;
    const dq = q - p[v[k]];
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
