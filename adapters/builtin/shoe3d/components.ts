/** One 8-connected component of a binary mask. */
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

/** Labels 8-connected components (labels start at 1; 0 is background), largest first. */
export function connectedComponents(mask: Uint8Array, width: number, height: number): { labels: Int32Array; components: Component[] } {
  const labels = new Int32Array(width * height);
  const stack = new Int32Array(width * height);
  const components: Component[] = [];
  let next = 0;
  for (let start = 0; start < width * height; start++) {
    if (!mask[start] || labels[start]) continue;
    next++;
    let sp = 0;
    stack[sp++] = start;
    labels[start] = next;
    const c: Component = { label: next, area: 0, x0: width, y0: height, x1: -1, y1: -1, cx: 0, cy: 0 };
    while (sp > 0) {
      const p = stack[--sp];
      const x = p % width, y = (p - x) / width;
      c.area++;
      c.cx += x;
      c.cy += y;
      if (x < c.x0) c.x0 = x;
      if (x > c.x1) c.x1 = x;
      if (y < c.y0) c.y0 = y;
      if (y > c.y1) c.y1 = y;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= width) continue;
          const q = yy * width + xx;
          if (mask[q] && !labels[q]) {
            labels[q] = next;
            stack[sp++] = q;
          }
        }
      }
    }
    c.cx /= c.area;
    c.cy /= c.area;
    components.push(c);
  }
  components.sort((a, b) => b.area - a.area || a.label - b.label);
  return { labels, components };
}
