/**
 * Exact Euclidean distance transform (Felzenszwalb & Huttenlocher, separable parabola envelopes).
 * `distanceToZero(mask)` gives, for each pixel, the distance to the nearest pixel where mask is 0
 * (0 on those pixels), so inside-distances of a silhouette come from its mask and outside-distances
 * from its complement.
 */
export function distanceToZero(mask: Uint8Array, width: number, height: number): Float32Array {
  const INF = 1e20;
  const f = new Float64Array(Math.max(width, height));
  const d = new Float64Array(Math.max(width, height));
  const v = new Int32Array(Math.max(width, height));
  const z = new Float64Array(Math.max(width, height) + 1);
  const grid = new Float64Array(width * height);
  for (let i = 0; i < width * height; i++) grid[i] = mask[i] ? INF : 0;
  // columns
  for (let x = 0; x < width; x++) {
    for (let y = 0; y < height; y++) f[y] = grid[y * width + x];
    envelope(f, height, d, v, z);
    for (let y = 0; y < height; y++) grid[y * width + x] = d[y];
  }
  // rows
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) f[x] = grid[y * width + x];
    envelope(f, width, d, v, z);
    for (let x = 0; x < width; x++) grid[y * width + x] = d[x];
  }
  const out = new Float32Array(width * height);
  for (let i = 0; i < width * height; i++) out[i] = Math.sqrt(grid[i]);
  return out;
}

function envelope(f: Float64Array, n: number, d: Float64Array, v: Int32Array, z: Float64Array): void {
  let k = 0;
  v[0] = 0;
  z[0] = -Infinity;
  z[1] = Infinity;
  for (let q = 1; q < n; q++) {
    let s = (f[q] + q * q - (f[v[k]] + v[k] * v[k])) / (2 * q - 2 * v[k]);
    while (s <= z[k]) {
      k--;
      s = (f[q] + q * q - (f[v[k]] + v[k] * v[k])) / (2 * q - 2 * v[k]);
    }
    k++;
    v[k] = q;
    z[k] = s;
    z[k + 1] = Infinity;
  }
  k = 0;
  for (let q = 0; q < n; q++) {
    while (z[k + 1] < q) k++;
    d[q] = (q - v[k]) * (q - v[k]) + f[v[k]];
  }
}

/**
 * Signed distance to a silhouette boundary in pixels: negative inside (mask 1), positive outside.
 * Pixel centres sit half a pixel from the boundary, so both sides are offset by 0.5.
 */
export function signedDistance(mask: Uint8Array, width: number, height: number): Float32Array {
  const inside = distanceToZero(mask, width, height);
  const inv = new Uint8Array(width * height);
  for (let i = 0; i < inv.length; i++) inv[i] = mask[i] ? 0 : 1;
  const outside = distanceToZero(inv, width, height);
  const out = new Float32Array(width * height);
  for (let i = 0; i < out.length; i++) out[i] = mask[i] ? -(inside[i] - 0.5) : outside[i] - 0.5;
  return out;
}
