/**
 * AR model work at growing model sizes: autofit (alignment, mirror, GLB writing), preset baking
 * and USDZ export. Prints figures; asserts nothing. Run: npm exec -- node test/adapters/builtin/ar/ar.bench.ts
 */
import { autofitShoe } from '../../../../adapters/builtin/ar/autofit.ts';
import { bakePreset } from '../../../../adapters/builtin/ar/bake.ts';
import { glbToUsdz } from '../../../../adapters/builtin/ar/usdz.ts';
import { NodeIO } from '@gltf-transform/core';
import { makeShoeGlb } from '../../../support/shoes.ts';

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; rssMb: number }> {
  const before = process.memoryUsage().rss;
  const t0 = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - t0, rssMb: (process.memoryUsage().rss - before) / 1048576 };
}

const rows: string[][] = [['segments', 'triangles', 'GLB MB', 'autofit ms', 'bake ms', 'USDZ ms', 'USDZ MB', 'RSS growth MB']];
for (const segments of [64, 256, 1024, 2048]) {
  const c = Math.cos(0.7), s = Math.sin(0.7);
  const glb = await makeShoeGlb({ segments, rootMatrix: [100 * c, 0, -100 * s, 0, 0, 100, 0, 0, 100 * s, 0, 100 * c, 0, 3, 4, 5, 1] });
  const fit = await timed(() => autofitShoe(glb));
  const bake = await timed(() => bakePreset(fit.value.glb, { parts: { sole: { material: { baseColor: '#202020' } }, suelo: { material: { baseColor: '#cccccc' } } } }, async () => null));
  const usdz = await timed(() => glbToUsdz(bake.value.glb));
  const doc = await new NodeIO().readBinary(glb);
  const triangles = doc.getRoot().listMeshes().flatMap((m) => m.listPrimitives()).reduce((n, p) => n + p.getIndices()!.getCount() / 3, 0);
  rows.push([
    String(segments),
    String(triangles),
    (glb.length / 1048576).toFixed(2),
    fit.ms.toFixed(0),
    bake.ms.toFixed(0),
    usdz.ms.toFixed(0),
    (usdz.value.length / 1048576).toFixed(2),
    Math.max(fit.rssMb, bake.rssMb, usdz.rssMb).toFixed(0),
  ]);
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
for (const r of rows) console.log(r.map((c, i) => c.padStart(widths[i])).join('  '));
