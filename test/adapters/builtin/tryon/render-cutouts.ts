/**
 * Writes the garment cut-out of every real packshot in test/fixtures/real-photos/garments as an
 * overlay for looking at: the packshot beside it with the backdrop tinted blue, the garment's
 * outline in red, the inside back of the neck (cut.insideBack) tinted magenta. Prints per garment
 * the cut-out's area share and time:
 *   npm exec -- node test/adapters/builtin/tryon/render-cutouts.ts [outDir] [garment,garment...]
 */
import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { segmentGarment } from '../../../../adapters/builtin/tryon/segment-garment.ts';
import { REAL_PHOTOS, loadPhoto } from '../../../support/tryon-metrics.ts';

const out = process.argv[2] ?? '/tmp/cutouts';
const only = process.argv[3]?.split(',');
mkdirSync(out, { recursive: true });
const files = readdirSync(path.join(REAL_PHOTOS, 'garments')).filter((f) => f.endsWith('.jpg') && (!only || only.some((o) => f.startsWith(o))));
for (const file of files) {
  const img = await loadPhoto(path.join(REAL_PHOTOS, 'garments', file));
  segmentGarment(img); // warm-up: the first call compiles
  const t0 = performance.now();
  const cut = segmentGarment(img, { keepRatio: file.startsWith('sneaker') ? 0.3 : 0.2, insideBack: true, flatBackdrop: true });
  const ms = performance.now() - t0;
  const { width: w, height: h, data } = img;
  const ov = new Uint8Array(w * h * 4);
  let area = 0;
  for (let p = 0; p < w * h; p++) {
    const m = cut.mask[p] !== 0;
    if (m) area++;
    const x = p % w;
    const edge = m && (x === 0 || x === w - 1 || p < w || p >= w * (h - 1) || !cut.mask[p - 1] || !cut.mask[p + 1] || !cut.mask[p - w] || !cut.mask[p + w]);
    const back = cut.insideBack?.[p] ? 1 : 0;
    for (let c = 0; c < 3; c++) {
      const v = data[p * 4 + c];
      const tint = edge ? [255, 0, 0][c] : back ? [230, 0, 230][c] : m ? v : [40, 90, 255][c];
      ov[p * 4 + c] = edge ? tint : Math.round(m && !back ? v : 0.45 * v + 0.55 * tint);
    }
    ov[p * 4 + 3] = 255;
  }
  const left = await sharp(Buffer.from(data), { raw: { width: w, height: h, channels: 4 } }).png().toBuffer();
  await sharp({ create: { width: 2 * w, height: h, channels: 4, background: '#fff' } })
    .composite([{ input: left, left: 0, top: 0 }, { input: Buffer.from(ov), raw: { width: w, height: h, channels: 4 }, left: w, top: 0 }])
    .png()
    .toFile(path.join(out, file.replace(/\.jpg$/, '.png')));
  console.log(`${file}\tarea ${(area / (w * h)).toFixed(3)}\tcomponents ${cut.components.length}\t${ms.toFixed(0)} ms`);
}
