/**
 * Writes sample twin renders as PNGs for visual review (not part of the test run):
 *   npm exec -- node test/adapters/builtin/body/render-samples.ts [outDir]
 * Measurements mode for both genders and two poses, every pose once, photo mode on a plain and a
 * gradient background, direct mode from a depth-like silhouette, plus the inputs.
 */
import sharp from 'sharp';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RasterImage } from '../../../../core/images.ts';
import type { BodyProfile, PoseId } from '../../../../core/twins/body.ts';
import { POSE_IDS } from '../../../../core/twins/body.ts';
import { BuiltinTwinRenderer } from '../../../../adapters/builtin/body/twin-renderer.ts';
import { SharpImageCodec } from '../../../../adapters/sharp/image-codec.ts';
import { silhouetteImage, syntheticFace, syntheticPerson } from '../../../support/images.ts';

const out = process.argv[2] ?? path.join(tmpdir(), 'fitroom-twin-samples');
mkdirSync(out, { recursive: true });
const save = (img: RasterImage, name: string) =>
  sharp(img.data, { raw: { width: img.width, height: img.height, channels: 4 } }).png().toFile(path.join(out, `${name}.png`));

const profile = (gender: 'male' | 'female', m: BodyProfile['measurements']): BodyProfile => ({
  gender,
  measurements: m,
  supplied: { height: true, chest: true, waist: true, hip: true, inseam: true },
  source: 'measurements',
});
const female = profile('female', { height: 165, chest: 92, waist: 74, hip: 100, inseam: 77 });
const male = profile('male', { height: 180, chest: 104, waist: 90, hip: 101, inseam: 84 });
const renderer = new BuiltinTwinRenderer(new SharpImageCodec());
const signal = new AbortController().signal;
const face = syntheticFace(256, 320).image;
const darkFace = syntheticFace(256, 320, { skin: [120, 82, 60], seed: 5 }).image;
await save(face, 'input-face');

const timings: string[] = [];
const run = async (name: string, fn: () => Promise<{ image: RasterImage; notes: string[] }>) => {
  const t0 = performance.now();
  const r = await fn();
  timings.push(`${name}: ${(performance.now() - t0).toFixed(0)} ms${r.notes.length ? ` (${r.notes.join('; ')})` : ''}`);
  await save(r.image, name);
};
for (const [g, p] of [['female', female], ['male', male]] as const) {
  for (const pose of ['standing_arms_down', g === 'female' ? 'girl_pose' : 'man_pose'] as PoseId[]) {
    await run(`measurements-${g}-${pose}`, () => renderer.render({ kind: 'profile', profile: p, pose, face }, { signal }));
  }
}
for (const pose of POSE_IDS) await run(`pose-${pose}`, () => renderer.render({ kind: 'profile', profile: female, pose, face: darkFace }, { signal }));
for (const bg of ['plain', 'gradient'] as const) {
  const person = syntheticPerson({ background: bg, hipScale: bg === 'plain' ? 1 : 1.2 });
  await save(person.image, `input-photo-${bg}`);
  await run(`photo-${bg}`, () => renderer.render({ kind: 'photo', photo: person.image, face, pose: 'man_pose' }, { signal }));
}
const person = syntheticPerson({ armAngle: 12 });
const sil = silhouetteImage(person.mask, person.image.width, person.image.height, 'depth');
await save(sil, 'input-silhouette');
await run('direct-silhouette', () => renderer.render({ kind: 'silhouette', silhouette: sil, face }, { signal }));
console.log(timings.join('\n'));
console.log(`written to ${out}`);
