/**
 * Builtin shoe / bag reconstruction benchmark (`npm run bench:3d`): textured test objects that the
 * reconstruction code did not make (a real sneaker model, a modelled ankle boot and tote bag:
 * test/support/objects.ts) photographed with a perspective camera 8 object lengths away (a long
 * lens) and 4 lengths away (a close camera; DISTANCE=8 or DISTANCE=4 runs one of them), each photo
 * framed on the object, at 0 and 10 degrees elevation, with 4 views (0/45/90/135) and 6 views
 * (every 30 degrees), sent in turning order and shuffled. The cutouts are what a perfect cleanup
 * gives (the cleanup is measured by its own tests). Each result is aligned to the truth (scale,
 * then ICP with scale) and compared: Chamfer distance (mean of both point-to-surface directions)
 * and F-score at 1 % of the object's length, plus how far the shuffled order's result is from the
 * ordered one, wall time and peak memory. Nothing is asserted here.
 */
import { performance } from 'node:perf_hooks';
import { availableParallelism, loadavg } from 'node:os';
import { BuiltinProductReconstructor } from '../../adapters/builtin/shoe3d/builtin-reconstructor.ts';
import { encodeRaster } from '../../adapters/builtin/shoe3d/encode.ts';
import { readGlbMeshes } from '../../adapters/builtin/shoe3d/read-glb.ts';
import { SharpImageCodec } from '../../adapters/sharp/image-codec.ts';
import { loadTestObjects, measureShape, photographObject } from '../support/objects.ts';
import { startBenchDatabase, startBenchService } from './lib.ts';

const VIEW_SIZE = Number(process.env.VIEW_SIZE ?? 768);
const DISTANCES = (process.env.DISTANCE ?? '8,4').split(',').map(Number);
const LAYOUTS = [
  { angles: [0, 45, 90, 135], shuffled: [2, 0, 3, 1] },
  { angles: [0, 30, 60, 90, 120, 150], shuffled: [3, 5, 0, 4, 1, 2] },
];

const reconstructor = new BuiltinProductReconstructor();
const codec = new SharpImageCodec();
let peak = process.memoryUsage().rss;
const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 50);
for (const DISTANCE of DISTANCES) {
  console.log(`\nbuiltin reconstruction of textured test objects: ${VIEW_SIZE}px photos, perspective camera ${DISTANCE} lengths away; F-score at 1% of length`);
  console.log('object      views elev order     chamfer(mm)  F@1%   P      R      angles found           camera found         time(s)  triangles');
  for (const obj of await loadTestObjects()) {
    for (const elevationDeg of [0, 10]) {
      for (const layout of LAYOUTS) {
        let ordered: number | null = null;
        for (const order of ['turning', 'shuffled'] as const) {
          const azimuths = order === 'turning' ? layout.angles : layout.shuffled.map((i) => layout.angles[i]);
          const photos = photographObject(obj, azimuths, { size: VIEW_SIZE, elevationDeg, distance: DISTANCE });
          const views = await Promise.all(photos.map(async (p) => ({ image: p.cutout, encoded: await encodeRaster(p.cutout) })));
          const t0 = performance.now();
          const out = await reconstructor.reconstruct({ views, productType: obj.productType, quality: 'default', signal: new AbortController().signal });
          const seconds = (performance.now() - t0) / 1000;
          const m = (await readGlbMeshes(out.glb, codec))[0];
          const s = measureShape(m, obj.surface, 0.01 * obj.length);
          const found = /angles ([\d/]+) deg/.exec(out.notes.find((n) => n.startsWith('views')) ?? '')?.[1] ?? '?';
          const cameraNote = out.notes.find((n) => n.startsWith('camera elevation')) ?? '';
          const camera = `${/elevation ([\d.]+) deg/.exec(cameraNote)?.[1] ?? '?'} deg, ${/about ([\d.]+) object lengths/.exec(cameraNote)?.[1] ?? 'ortho'}`;
          const diff = ordered === null ? '' : `  (shuffled vs turning: chamfer ${(((s.chamfer - ordered) / ordered) * 100).toFixed(1)}%)`;
          if (ordered === null) ordered = s.chamfer;
          console.log([
            obj.name.padEnd(11), String(azimuths.length).padEnd(5), String(elevationDeg).padEnd(4), order.padEnd(9),
            (s.chamfer * 1000).toFixed(2).padEnd(12), s.fscore.toFixed(3).padEnd(6), s.precision.toFixed(3).padEnd(6), s.recall.toFixed(3).padEnd(6),
            found.padEnd(22), camera.padEnd(20), seconds.toFixed(2).padEnd(8), String(m.indices.length / 3),
          ].join(' ') + diff);
        }
      }
    }
  }
}
clearInterval(timer);
console.log(`peak RSS ${(peak / 1024 / 1024).toFixed(0)} MB; cores ${availableParallelism()}, load ${loadavg()[0].toFixed(1)}`);

// The whole job through the API: 4 photos of 1024 px of the real sneaker (10 degrees above, on white),
// submission to completed, with packshot cleanup, reconstruction, preview, validation and storage.
const db = await startBenchDatabase();
const svc = await startBenchService({ databaseUrl: db.url });
try {
  await svc.fitroom.startWorker({ concurrency: 1, pollInterval: 200 });
  const key = await svc.createKey('development');
  const sneaker = (await loadTestObjects())[0];
  const photos = await Promise.all(photographObject(sneaker, [0, 45, 90, 135], { size: 1024, elevationDeg: 10, distance: DISTANCES[DISTANCES.length - 1] }).map(async (p) => `data:image/png;base64,${Buffer.from((await encodeRaster(p.image)).bytes).toString('base64')}`));
  const call = async (method: string, path: string, body?: unknown) => (await fetch(`${svc.api}${path}`, { method, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined })).json() as Promise<Record<string, any>>;
  const seconds: number[] = [];
  const notes: string[] = [];
  for (let run = 0; run < 3; run++) {
    const t0 = performance.now();
    const { jobId } = await call('POST', '/api/v1/shoe-3d', { images: photos, options: { productType: 'shoe' } });
    let job: Record<string, any> = {};
    for (;;) {
      job = await call('GET', `/api/v1/jobs/${jobId}`);
      if (job.status === 'completed' || job.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    seconds.push((performance.now() - t0) / 1000);
    const trace = await call('GET', `/api/v1/jobs/${jobId}/trace`);
    notes.push(`${job.status}, validator errors ${trace.diagnostics?.validation?.errors ?? '?'}`);
  }
  console.log(`\nshoe-3d job, 4 photos of 1024 px (real sneaker model, 10 degrees above, ${DISTANCES[DISTANCES.length - 1]} lengths away), submission to completed: ${seconds.map((x) => x.toFixed(1)).join(' / ')} s (${notes.join('; ')})`);
} finally {
  await svc.close();
  await db.stop();
}
