/**
 * Writes the walkthrough's sample images (`npm run examples:assets`): a portrait, a top, trousers and
 * four photos of a shoe, all drawn by the same generators the tests use, so they are free of rights.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import type { RasterImage } from '../../core/images.ts';
import { syntheticFace } from '../../test/support/images.ts';
import { drawBottom, drawTop } from '../../test/support/garments.ts';
import { makeShoeMesh, renderProductViews } from '../../test/support/products.ts';

const DIR = path.dirname(fileURLToPath(import.meta.url));

async function write(name: string, img: RasterImage) {
  const png = await sharp(Buffer.from(img.data), { raw: { width: img.width, height: img.height, channels: 4 } }).png({ compressionLevel: 9 }).toBuffer();
  writeFileSync(path.join(DIR, name), png);
  console.log(`${name}  ${img.width}x${img.height}  ${png.length} bytes`);
}

await write('face.png', syntheticFace(256, 320).image);
await write('top.png', drawTop());
await write('trousers.png', drawBottom());
const angles = [0, 45, 90, 135];
const views = renderProductViews(makeShoeMesh(), angles, { size: 320 });
for (const [i, v] of views.entries()) await write(`shoe-${angles[i]}.png`, v.image);
