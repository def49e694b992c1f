/**
 * Connected components of one-byte-per-pixel, row-major masks (any non-zero value is set; masks
 * made here are 0/255): labelling with 4- or 8-connectivity, the largest component, one
 * component's mask, and hole filling (unset regions that do not reach the image edge).
 */

/** One connected component: its label, pixel count, inclusive bounding box and centroid. */
export interface Component {
  label: number;
  area: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  cx: number;
  cy: number;
}

export interface Labelling {
  /** Label per pixel: 1, 2, ... in the order the components are first met (row-major); 0 = unset. */
  labels: Int32Array;
  /** The components, in label order (`components[l - 1]` has label l) or largest first. */
  components: Component[];
}

export interface LabelOptions {
  /** 4 (edge neighbours) or 8 (edge and corner neighbours; the default). */
  connectivity?: 4 | 8;
  /** `label` (default) or `area`: largest first, ties in label order. */
  order?: 'label' | 'area';
}

/** Labels the connected components of the set pixels (depth-first flood fill on a typed stack). */
export function labelComponents(mask: Uint8Array, width: number, height: number, opts: LabelOptions = {}): Labelling {
  const eight = (opts.connectivity ?? 8) === 8;
  const n = width * height;
  const labels = new Int32Array(n);
  const stack = new Int32Array(n);
  const components: Component[] = [];
  for (let start = 0; start < n; start++) {
    if (!mask[start] || labels[start]) continue;
    const label = components.length + 1;
    let top = 0;
    stack[top++] = start;
    labels[start] = label;
    let area = 0, sx = 0, sy = 0;
    let x0 = width, y0 = height, x1 = -1, y1 = -1;
    while (top > 0) {
      const p = stack[--top];
      const x = p % width;
      const y = (p - x) / width;
      area++;
      sx += x;
      sy += y;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      const left = x > 0, right = x < width - 1, up = y > 0, down = y < height - 1;
      if (left && mask[p - 1] && !labels[p - 1]) { labels[p - 1] = label; stack[top++] = p - 1; }
      if (right && mask[p + 1] && !labels[p + 1]) { labels[p + 1] = label; stack[top++] = p + 1; }
      if (up && mask[p - width] && !labels[p - width]) { labels[p - width] = label; stack[top++] = p - width; }
      if (down && mask[p + width] && !labels[p + width]) { labels[p + width] = label; stack[top++] = p + width; }
      if (!eight) continue;
      if (up && left && mask[p - width - 1] && !labels[p - width - 1]) { labels[p - width - 1] = label; stack[top++] = p - width - 1; }
      if (up && right && mask[p - width + 1] && !labels[p - width + 1]) { labels[p - width + 1] = label; stack[top++] = p - width + 1; }
      if (down && left && mask[p + width - 1] && !labels[p + width - 1]) { labels[p + width - 1] = label; stack[top++] = p + width - 1; }
      if (down && right && mask[p + width + 1] && !labels[p + width + 1]) { labels[p + width + 1] = label; stack[top++] = p + width + 1; }
    }
    components.push({ label, area, x0, y0, x1, y1, cx: sx / area, cy: sy / area });
  }
  if (opts.order === 'area') components.sort((a, b) => b.area - a.area || a.label - b.label);
  return { labels, components };
}

/** The mask (0/255) of the pixels whose label is `label`. */
export function componentMask(labels: Int32Array, label: number): Uint8Array {
  const out = new Uint8Array(labels.length);
  for (let i = 0; i < labels.length; i++) if (labels[i] === label) out[i] = 255;
  return out;
}

/** The largest component (the first met among equals) as a 0/255 mask; empty when nothing is set. */
export function largestComponent(mask: Uint8Array, width: number, height: number, opts: { connectivity?: 4 | 8 } = {}): Uint8Array {
  const { labels, components } = labelComponents(mask, width, height, opts);
  let best: Component | undefined;
  for (const c of components) if (!best || c.area > best.area) best = c;
  return best ? componentMask(labels, best.label) : new Uint8Array(width * height);
}

/**
 * Fills holes: unset regions that are not 4-connected to the image edge become set. Returns a
 * 0/255 mask (everything the outside flood does not reach).
 */
export function fillHoles(mask: Uint8Array, width: number, height: number): Uint8Array {
  const n = width * height;
  const outside = new Uint8Array(n);
  const stack = new Int32Array(n);
  let top = 0;
  const seed = (p: number) => {
    if (!mask[p] && !outside[p]) {
      outside[p] = 1;
      stack[top++] = p;
    }
  };
  for (let x = 0; x < width; x++) {
    seed(x);
    seed((height - 1) * width + x);
  }
  for (let y = 0; y < height; y++) {
    seed(y * width);
    seed(y * width + width - 1);
  }
  while (top > 0) {
    const p = stack[--top];
    const x = p % width;
    if (x > 0) seed(p - 1);
    if (x < width - 1) seed(p + 1);
    if (p >= width) seed(p - width);
    if (p < n - width) seed(p + width);
  }
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = outside[i] ? 0 : 255;
  return out;
}
