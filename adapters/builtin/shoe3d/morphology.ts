/** Binary and grey-level morphology on row-major masks (square structuring elements). */

/** Square max filter of radius r (separable). */
export function maxFilter(src: Float32Array, width: number, height: number, r: number): Float32Array {
  const tmp = new Float32Array(width * height);
  const out = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let m = -Infinity;
      for (let i = Math.max(0, x - r); i <= Math.min(width - 1, x + r); i++) m = Math.max(m, src[y * width + i]);
      tmp[y * width + x] = m;
    }
  }
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let m = -Infinity;
      for (let i = Math.max(0, y - r); i <= Math.min(height - 1, y + r); i++) m = Math.max(m, tmp[i * width + x]);
      out[y * width + x] = m;
    }
  }
  return out;
}

/** Binary dilation with a (2r+1)^2 square. */
export function dilate(mask: Uint8Array, width: number, height: number, r = 1): Uint8Array {
  const f = new Float32Array(mask.length);
  for (let i = 0; i < mask.length; i++) f[i] = mask[i];
  const m = maxFilter(f, width, height, r);
  const out = new Uint8Array(mask.length);
  for (let i = 0; i < mask.length; i++) out[i] = m[i] > 0 ? 1 : 0;
  return out;
}

/** Binary erosion with a (2r+1)^2 square; pixels outside the image count as `outside`. */
export function erode(mask: Uint8Array, width: number, height: number, r = 1, outside = 0): Uint8Array {
  const inv = new Uint8Array(mask.length);
  for (let i = 0; i < mask.length; i++) inv[i] = mask[i] ? 0 : 1;
  const grown = dilate(inv, width, height, r);
  const out = new Uint8Array(mask.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      let v = grown[i] ? 0 : 1;
      if (v && !outside && (x < r || y < r || x >= width - r || y >= height - r)) v = 0;
      out[i] = v;
    }
  }
  return out;
}

/** Fills holes: background pixels not connected to the image border become foreground. */
export function fillHoles(mask: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(mask);
  const seen = new Uint8Array(mask.length);
  const stack: number[] = [];
  const push = (i: number) => {
    if (!mask[i] && !seen[i]) { seen[i] = 1; stack.push(i); }
  };
  for (let x = 0; x < width; x++) { push(x); push((height - 1) * width + x); }
  for (let y = 0; y < height; y++) { push(y * width); push(y * width + width - 1); }
  while (stack.length) {
    const p = stack.pop()!;
    const x = p % width, y = (p - x) / width;
    if (x > 0) push(p - 1);
    if (x < width - 1) push(p + 1);
    if (y > 0) push(p - width);
    if (y < height - 1) push(p + width);
  }
  for (let i = 0; i < mask.length; i++) if (!mask[i] && !seen[i]) out[i] = 1;
  return out;
}
