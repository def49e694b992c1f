/** Small generated masks for the raster helper tests. */

/** A deterministic pseudo-random generator (LCG) in [0, 1). */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
}

/** Random overlapping ellipses plus a sprinkle of flipped pixels, set pixels = `value`. */
export function blobMask(width: number, height: number, seed: number, value = 255): Uint8Array {
  const r = lcg(seed);
  const m = new Uint8Array(width * height);
  const count = 2 + Math.floor(r() * 5);
  for (let b = 0; b < count; b++) {
    const cx = r() * width, cy = r() * height;
    const rx = 1 + r() * width * 0.3, ry = 1 + r() * height * 0.3;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) if (((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1) m[y * width + x] = value;
    }
  }
  for (let i = 0; i < m.length; i++) if (r() < 0.03) m[i] = m[i] ? 0 : value;
  return m;
}

/** A mask from rows of '#' (set) and '.' (unset). */
export function fromRows(rows: string[]): { mask: Uint8Array; width: number; height: number } {
  const width = rows[0].length;
  const height = rows.length;
  const mask = new Uint8Array(width * height);
  rows.forEach((row, y) => {
    for (let x = 0; x < width; x++) if (row[x] === '#') mask[y * width + x] = 255;
  });
  return { mask, width, height };
}

/** The mask as rows of '#' and '.'. */
export function toRows(mask: ArrayLike<number>, width: number): string[] {
  const rows: string[] = [];
  for (let i = 0; i < mask.length; i += width) rows.push(Array.from({ length: width }, (_, x) => (mask[i + x] ? '#' : '.')).join(''));
  return rows;
}
