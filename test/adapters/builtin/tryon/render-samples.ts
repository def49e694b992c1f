/**
 * Writes try-on results of the generated garments on parametric twins (and the drawn fixture body)
 * to a folder, for looking at:
 *   npm exec -- node test/adapters/builtin/tryon/render-samples.ts [outDir] [case,case...]
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import type { RasterImage } from '../../../../core/images.ts';
import type { BodyRender } from '../../../../core/twins/body.ts';
import { renderTryOn, type RenderTryOnInput } from '../../../../adapters/builtin/tryon/render-tryon.ts';
import { composeGarmentGrid } from '../../../../core/tryon/garment-grid.ts';
import { drawBottom, drawDress, drawShoes, drawTop } from '../../../support/garments.ts';
import { fixtureBody } from './fixture-body.ts';
import { analyzePerson } from '../../../../adapters/builtin/body/twin-renderer.ts';
import { syntheticPerson } from '../../../support/images.ts';
import { twinBody } from './twin-bodies.ts';

const out = process.argv[2] ?? '/tmp/tryon-samples';
const only = process.argv[3]?.split(',');
mkdirSync(out, { recursive: true });

async function save(name: string, img: RasterImage) {
  await sharp(Buffer.from(img.data), { raw: { width: img.width, height: img.height, channels: 4 } }).png().toFile(path.join(out, `${name}.png`));
}

type Case = Omit<RenderTryOnInput, 'body'> & { body: () => Promise<BodyRender> | BodyRender };
const male = () => twinBody('male', 'man_pose');
const maleDown = () => twinBody('male', 'standing_arms_down');
const female = () => twinBody('female', 'girl_pose');
const femaleShoes = () => twinBody('female', 'shoe_girl_pose');
const cases: Record<string, Case> = {
  tshirt: { body: male, garments: { top: drawTop() }, quality: 'standard', preserveBackground: true },
  longsleeve: { body: maleDown, garments: { top: drawTop({ sleeves: 'long', stripes: [28, 40, 92] }) }, quality: 'standard', preserveBackground: true },
  trousers: { body: male, garments: { bottom: drawBottom() }, quality: 'standard', preserveBackground: true },
  shorts: { body: female, garments: { bottom: drawBottom({ length: 'shorts', colour: [190, 160, 110] }) }, quality: 'standard', preserveBackground: true },
  dress: { body: female, garments: { fullBody: drawDress({ dots: [250, 250, 250] }) }, quality: 'standard', preserveBackground: false },
  outfit: { body: male, garments: { top: drawTop({ colour: [236, 200, 60] }), bottom: drawBottom(), shoes: drawShoes({ layout: 'pair' }) }, quality: 'high', preserveBackground: false },
  shoes: { body: femaleShoes, garments: { shoes: drawShoes({ colour: [200, 40, 60] }) }, quality: 'standard', preserveBackground: true },
  product: { body: female, garments: {}, product: { image: drawDress(), category: 'auto' }, quality: 'draft', preserveBackground: true },
  photo: { body: () => analyzePerson(syntheticPerson().image), garments: { top: drawTop({ colour: [236, 200, 60] }), bottom: drawBottom({ colour: [190, 160, 110] }) }, quality: 'standard', preserveBackground: true },
  fixture: { body: () => fixtureBody(), garments: { top: drawTop(), bottom: drawBottom(), shoes: drawShoes() }, quality: 'standard', preserveBackground: true },
};
for (const [name, c] of Object.entries(cases)) {
  if (only && !only.includes(name)) continue;
  const body = await c.body();
  const t0 = performance.now();
  const img = renderTryOn({ ...c, body });
  console.log(name, `${img.width}x${img.height}`, Math.round(performance.now() - t0), 'ms');
  await save(name, img);
}
if (!only || only.includes('grid')) {
  const grid = composeGarmentGrid({ topGarment: { packshot: drawTop(), onModel: drawTop({ colour: [236, 200, 60] }) }, bottomGarment: { packshot: drawBottom() }, shoes: { packshot: drawShoes({ layout: 'pair' }) } }, 384);
  await save('garment-grid', grid.image);
}
console.log(`written to ${out}`);
