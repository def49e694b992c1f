/**
 * Speed and memory of the builtin twin renderer, per mode and output size (prints figures only):
 *   npm exec -- node test/adapters/builtin/body/render.bench.ts [runs]
 * Median wall time of `runs` renders, the per-megapixel cost, and the process's peak RSS.
 */
import type { BodyProfile } from '../../../../core/twins/body.ts';
import type { TwinInput } from '../../../../core/ports/twin-renderer.ts';
import { BuiltinTwinRenderer } from '../../../../adapters/builtin/body/twin-renderer.ts';
import { SharpImageCodec } from '../../../../adapters/sharp/image-codec.ts';
import { silhouetteImage, syntheticFace, syntheticPerson } from '../../../support/images.ts';

const runs = Number(process.argv[2] ?? 5);
const renderer = new BuiltinTwinRenderer(new SharpImageCodec());
const signal = new AbortController().signal;
const face = syntheticFace(256, 320).image;
const profile: BodyProfile = {
  gender: 'female',
  measurements: { height: 166, chest: 93, waist: 76, hip: 101, inseam: 77 },
  supplied: { height: true, chest: true, waist: true, hip: true, inseam: true },
  source: 'measurements',
};
const person = syntheticPerson({ width: 720, height: 1080, background: 'noisy' });
const inputs: Record<string, TwinInput> = {
  profile: { kind: 'profile', profile, pose: 'girl_pose', face },
  photo: { kind: 'photo', photo: person.image, face, pose: 'man_pose' },
  silhouette: { kind: 'silhouette', silhouette: silhouetteImage(person.mask, 720, 1080, 'depth'), face },
};
const sizes = [
  { width: 384, height: 512 },
  { width: 768, height: 1024 },
  { width: 1536, height: 2048 },
];
const rows: string[][] = [['mode', 'size', 'median ms', 'ms / output MP', 'min ms']];
for (const [mode, input] of Object.entries(inputs)) {
  for (const size of sizes) {
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      await renderer.render(input, { signal, size });
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const med = times[times.length >> 1];
    rows.push([mode, `${size.width}x${size.height}`, med.toFixed(0), (med / ((size.width * size.height) / 1e6)).toFixed(0), times[0].toFixed(0)]);
  }
}
const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
for (const r of rows) console.log(r.map((v, c) => v.padStart(widths[c])).join('  '));
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB over ${runs} runs per row`);
