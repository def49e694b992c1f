/**
 * Binary mask operations on one-byte-per-pixel masks (255 inside, 0 outside), row-major.
 * Morphology uses square structuring elements through separable running counts, so the cost
 * does not grow with the radius.
 */

/** Box erosion (all) or dilation (any) along one axis. */
function pass(src: Uint8Array, w: number, h: number, r: number, horizontal: boolean, erode: boolean): Uint8Array {
  const out = new Uint8Array(w * h);
  const lines = horizontal ? h : w;
  const len = horizontal ? w : h;
  const stride = horizontal ? 1 : w;
  for (let l = 0; l < lines; l++) {
    const base = horizontal ? l * w : l;
    let count = 0;
    // window [i - r, i + r]; outside the image counts as background for dilation, foreground
    // for erosion, so erosion does not eat objects touching the border.
    for (let i = -r; i <= r; i++) {
      if (i < 0 || i >= len) count += erode ? 1 : 0;
      else if (src[base + i * stride]) count++;
    }
    const full = 2 * r + 1;
    for (let i = 0; i < len; i++) {
      out[base + i * stride] = (erode ? count === full : count > 0) ? 255 : 0;
      const drop = i - r;
      const add = i + r + 1;
      count -= drop < 0 ? (erode ? 1 : 0) : src[base + drop * stride] ? 1 : 0;
      count += add >= len ? (erode ? 1 : 0) : src[base + add * stride] ? 1 : 0;
    }
  }
  return out;
}

export function erode(mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  if (r <= 0) return mask.slice();
  return pass(pass(mask, w, h, r, true, true), w, h, r, false, true);
}

export function dilate(mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  if (r <= 0) return mask.slice();
  return pass(pass(mask, w, h, r, true, false), w, h, r, false, false);
}

export function open(mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  return dilate(erode(mask, w, h, r), w, h, r);
}

export function close(mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  return erode(dilate(mask, w, h, r), w, h, r);
}

/** Labels 4-connected foreground components; returns labels (0 = background) and their sizes. */
export function labelComponents(mask: Uint8Array, w: number, h: number): { labels: Int32Array; sizes: number[] } {
  const labels = new Int32Array(w * h);
  const sizes = [0];
  const stack = new Int32Array(w * h);
  for (let start = 0; start < w * h; start++) {
    if (!mask[start] || labels[start]) continue;
    const label = sizes.length;
    let top = 0;
    let size = 0;
    stack[top++] = start;
    labels[start] = label;
    while (top > 0) {
      const i = stack[--top];
      size++;
      const x = i % w;
      if (x > 0 && mask[i - 1] && !labels[i - 1]) { labels[i - 1] = label; stack[top++] = i - 1; }
      if (x < w - 1 && mask[i + 1] && !labels[i + 1]) { labels[i + 1] = label; stack[top++] = i + 1; }
      if (i >= w && mask[i - w] && !labels[i - w]) { labels[i - w] = label; stack[top++] = i - w; }
      if (i < w * (h - 1) && mask[i + w] && !labels[i + w]) { labels[i + w] = label; stack[top++] = i + w; }
    }
    sizes.push(size);
  }
  return { labels, sizes };
}

/** The largest 4-connected component (empty mask if there is none). */
export function largestComponent(mask: Uint8Array, w: number, h: number): Uint8Array {
  const { labels, sizes } = labelComponents(mask, w, h);
  let best = 0;
  for (let l = 1; l < sizes.length; l++) if (sizes[l] > sizes[best]) best = l;
  const out = new Uint8Array(w * h);
  if (best === 0) return out;
  for (let i = 0; i < out.length; i++) if (labels[i] === best) out[i] = 255;
  return out;
}

/** Fills background regions not 4-connected to the image border. */
export function fillHoles(mask: Uint8Array, w: number, h: number): Uint8Array {
  const outside = new Uint8Array(w * h);
  const stack = new Int32Array(w * h);
  let top = 0;
  const seed = (i: number) => {
    if (!mask[i] && !outside[i]) {
      outside[i] = 1;
      stack[top++] = i;
    }
  };
  for (let x = 0; x < w; x++) {
    seed(x);
    seed((h - 1) * w + x);
  }
  for (let y = 0; y < h; y++) {
    seed(y * w);
    seed(y * w + w - 1);
  }
  while (top > 0) {
    const i = stack[--top];
    const x = i % w;
    if (x > 0) seed(i - 1);
    if (x < w - 1) seed(i + 1);
    if (i >= w) seed(i - w);
    if (i < w * (h - 1)) seed(i + w);
  }
  const out = new Uint8Array(w * h);
  for (let i = 0; i < out.length; i++) out[i] = outside[i] ? 0 : 255;
  return out;
}

export function countOn(mask: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < mask.length; i++) if (mask[i]) n++;
  return n;
}

/** Bounding box of the foreground, or null when empty. */
export function maskBounds(mask: Uint8Array, w: number, h: number): { x0: number; y0: number; x1: number; y1: number } | null {
  let x0 = w;
  let y0 = h;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < h; y++) {
    for (let x = 0, i = y * w; x < w; x++, i++) {
      if (!mask[i]) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      y1 = y;
    }
  }
  return x1 < 0 ? null : { x0, y0, x1, y1 };
}
