import sharp from 'sharp';

export interface Picture {
  width: number;
  height: number;
  data: Uint8Array;
}

/** A leather-like texture: a woven checker of 8 px cells with deterministic grain. */
export function leather(width: number, height: number): Picture {
  const data = new Uint8Array(width * height * 4);
  let seed = 11;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const weave = ((Math.floor(x / 8) + Math.floor(y / 8)) % 2) * 24;
      const grain = (rnd() - 0.5) * 40;
      data[i] = 120 + weave + grain;
      data[i + 1] = 80 + weave * 0.6 + grain;
      data[i + 2] = 50 + grain;
      data[i + 3] = 255;
    }
  }
  return { width, height, data };
}

/** Paints `colour` where `inside(x, y)` holds; returns the painted texture and the white-on-black mask. */
export function paint(tex: Picture, inside: (x: number, y: number) => boolean, colour: [number, number, number]): { painted: Picture; mask: Picture } {
  const painted = { ...tex, data: Uint8Array.from(tex.data) };
  const mask = { width: tex.width, height: tex.height, data: new Uint8Array(tex.width * tex.height * 4) };
  for (let y = 0; y < tex.height; y++) {
    for (let x = 0; x < tex.width; x++) {
      const i = (y * tex.width + x) * 4;
      mask.data[i + 3] = 255;
      if (!inside(x, y)) continue;
      painted.data.set(colour, i);
      mask.data.set([255, 255, 255], i);
    }
  }
  return { painted, mask };
}

export async function dataUrl(p: Picture): Promise<string> {
  const png = await sharp(Buffer.from(p.data), { raw: { width: p.width, height: p.height, channels: 4 } }).png().toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}

export async function fromDataUrl(url: string): Promise<Picture> {
  const bytes = Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data) };
}

/** Mean and standard deviation of luminance, and the mean colour, over the pixels where `where` holds. */
export function stats(p: Picture, where: (x: number, y: number) => boolean) {
  let n = 0, s = 0, s2 = 0;
  const rgb = [0, 0, 0];
  for (let y = 0; y < p.height; y++) {
    for (let x = 0; x < p.width; x++) {
      if (!where(x, y)) continue;
      const i = (y * p.width + x) * 4;
      const l = 0.299 * p.data[i] + 0.587 * p.data[i + 1] + 0.114 * p.data[i + 2];
      n++; s += l; s2 += l * l;
      for (let c = 0; c < 3; c++) rgb[c] += p.data[i + c];
    }
  }
  const mean = s / n;
  return { n, mean, std: Math.sqrt(Math.max(0, s2 / n - mean * mean)), rgb: rgb.map((v) => v / n) };
}
