/**
 * Builtin shoe / bag reconstruction benchmark (`npm run bench:3d`): generated products rendered to
 * orthographic packshots, reconstructed by the builtin ProductReconstructor, compared with the
 * true surface. Prints Chamfer distance (mean of both point-to-surface directions) and F-score at
 * 1% of the object's length, wall time per run and peak memory. Nothing is asserted here.
 */
import { performance } from 'node:perf_hooks';
import { BuiltinProductReconstructor } from '../../adapters/builtin/shoe3d/builtin-reconstructor.ts';
import { encodeRaster } from '../../adapters/builtin/shoe3d/encode.ts';
import { readGlbMeshes } from '../../adapters/builtin/shoe3d/read-glb.ts';
import { BAG_WIDTH, makeBagMesh, makeShoeMesh, renderProductViews, SHOE_LENGTH, shapeMetrics, type ProductMesh } from '../support/products.ts';

const VIEW_SIZE = Number(process.env.VIEW_SIZE ?? 768);
const cases: { product: string; mesh: ProductMesh; type: 'shoe' | 'other'; length: number; angles: number[]; quality: 'default' | 'high' }[] = [];
const shoe = makeShoeMesh();
const bag = makeBagMesh();
for (const [product, mesh, type, length] of [['shoe', shoe, 'shoe', SHOE_LENGTH], ['bag', bag, 'other', BAG_WIDTH]] as const) {
  cases.push({ product, mesh, type, length, angles: [0, 45, 90, 135], quality: 'default' });
  cases.push({ product, mesh, type, length, angles: [0, 30, 60, 90, 120, 150], quality: 'default' });
  cases.push({ product, mesh, type, length, angles: [0, 30, 60, 90, 120, 150], quality: 'high' });
}

const reconstructor = new BuiltinProductReconstructor();
let peak = process.memoryUsage().rss;
const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 50);
console.log(`builtin reconstruction, ${VIEW_SIZE}px orthographic views on white, F-score at 1% of length`);
console.log('product  views  angles                 quality   chamfer(mm)  F@1%    P      R      time(s)  triangles  glb(KB)');
for (const c of cases) {
  const photos = renderProductViews(c.mesh, c.angles, { size: VIEW_SIZE });
  const views = await Promise.all(photos.map(async (p) => ({ image: p.cutout, encoded: await encodeRaster(p.cutout) })));
  const t0 = performance.now();
  const out = await reconstructor.reconstruct({ views, productType: c.type, quality: c.quality, signal: new AbortController().signal });
  const seconds = (performance.now() - t0) / 1000;
  const m = (await readGlbMeshes(out.glb))[0];
  const s = shapeMetrics(m, c.mesh, 0.01 * c.length, 30000);
  console.log([
    c.product.padEnd(8), String(c.angles.length).padEnd(6), c.angles.join('/').padEnd(22), c.quality.padEnd(9),
    (s.chamfer * 1000).toFixed(2).padEnd(12), s.fscore.toFixed(3).padEnd(7), s.precision.toFixed(3).padEnd(6), s.recall.toFixed(3).padEnd(6),
    seconds.toFixed(2).padEnd(8), String(m.indices.length / 3).padEnd(10), (out.glb.byteLength / 1024).toFixed(0),
  ].join(' '));
}
clearInterval(timer);
console.log(`peak RSS ${(peak / 1024 / 1024).toFixed(0)} MB; cores ${(await import('node:os')).availableParallelism()}, load ${(await import('node:os')).loadavg()[0].toFixed(1)}`);
