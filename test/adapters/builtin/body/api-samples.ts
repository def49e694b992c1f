/**
 * Renders twins through the HTTP API of a real standalone service (embedded PostgreSQL, Koa,
 * graphile-worker) and writes the stored renders as PNGs for visual review (not part of the test run):
 *   npm exec -- node test/adapters/builtin/body/api-samples.ts [outDir]
 * Covers measurements (both genders), clothing size, photo and direct modes.
 */
import sharp from 'sharp';
import pg from 'pg';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RasterImage } from '../../../../core/images.ts';
import { loadConfig } from '../../../../core/config.ts';
import { TOKENS } from '../../../../core/tokens.ts';
import { TWINS } from '../../../../core/ports/twin-store.ts';
import { startEmbeddedPostgres } from '../../../../adapters/postgres/embedded.ts';
import { createFitroom } from '../../../../connectors/standalone/compose.ts';
import { standalonePlugins } from '../../../../connectors/standalone/plugins.ts';
import { silhouetteImage, syntheticFace, syntheticPerson } from '../../../support/images.ts';

const out = process.argv[2] ?? path.join(tmpdir(), 'fitroom-twin-api-samples');
mkdirSync(out, { recursive: true });
const work = mkdtempSync(path.join(tmpdir(), 'fitroom-twin-api-'));
chmodSync(work, 0o755);
const png = async (img: RasterImage) => sharp(img.data, { raw: { width: img.width, height: img.height, channels: 4 } }).png().toBuffer();
const dataUrl = (b: Buffer) => `data:image/png;base64,${b.toString('base64')}`;

const db = await startEmbeddedPostgres({ dir: path.join(work, 'db'), persistent: false });
try {
  const admin = new pg.Client(db.adminUrl);
  await admin.connect();
  await admin.query('create database samples');
  await admin.end();
  const config = loadConfig({ PORT: '0', AR_PORT: '0', HOST: '127.0.0.1', DATA_DIR: path.join(work, 'data'), ADMIN_KEY: 'samples-admin-key-0123456789', FITROOM_ENV: 'production' });
  const fitroom = await createFitroom(config, { databaseUrl: db.urlFor('samples'), plugins: standalonePlugins(), poolSize: 6 });
  const { apiUrl } = await fitroom.listen();
  await fitroom.startWorker({ concurrency: 1, pollInterval: 200 });
  const { key } = await fitroom.get(TOKENS.credentials).create({ name: 'samples', kind: 'user', accountId: null, expiresAt: null, monthlyQuota: null });
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${apiUrl}${p}`, { method, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
    return { status: res.status, body: (await res.json()) as any };
  };
  const face = dataUrl(await png(syntheticFace(256, 320).image));
  const person = syntheticPerson({ background: 'gradient', hipScale: 1.15 });
  const requests: Record<string, unknown> = {
    'measurements-female': { faceImage: face, gender: 'female', bodyMeasurements: { height: 163, chest: 90, waist: 72, hip: 99 } },
    'measurements-male': { faceImage: face, gender: 'male', bodyMeasurements: { height: 183, chest: 108, waist: 94 }, poseId: 'walking_pose' },
    'clothing-size-female-xl': { faceImage: face, gender: 'female', clothingSize: { height: 170, size: 'XL' }, poseId: 'shoe_girl_pose' },
    'clothing-size-male-s': { faceImage: face, gender: 'male', clothingSize: { height: 176, size: 'S' } },
    photo: { faceImage: face, bodyPhotoUrl: dataUrl(await png(person.image)), poseId: 'standing_arms_down' },
    direct: { faceImage: face, silhouetteImage: dataUrl(await png(silhouetteImage(person.mask, person.image.width, person.image.height, 'depth'))) },
  };
  for (const [name, body] of Object.entries(requests)) {
    const t0 = performance.now();
    const sub = await call('POST', '/api/v1/digital-twin', body);
    if (sub.status !== 200 && sub.status !== 202) throw new Error(`${name}: ${sub.status} ${JSON.stringify(sub.body)}`);
    let job = sub.body;
    while (job.status !== 'completed' && job.status !== 'failed') {
      await new Promise((r) => setTimeout(r, 200));
      job = (await call('GET', `/api/v1/jobs/${sub.body.jobId}`)).body;
    }
    if (job.status === 'failed') throw new Error(`${name}: ${JSON.stringify(job)}`);
    const id = job.result?.digitalTwinId ?? job.digitalTwinId;
    const scope = (await fitroom.pool.query<{ scope: string }>('select scope from twins where id = $1', [id])).rows[0]?.scope ?? '';
    const render = await fitroom.get(TWINS).loadRender(id, scope);
    if (!render) throw new Error(`${name}: twin ${id} not found`);
    await sharp(await png(render.image)).toFile(path.join(out, `${name}.png`));
    console.log(`${name}: ${render.image.width}x${render.image.height} pose=${render.pose} ppcm=${render.pixelsPerCm.toFixed(2)} ${(performance.now() - t0).toFixed(0)} ms`);
  }
  await fitroom.close();
} finally {
  await db.stop().catch(() => undefined);
  rmSync(work, { recursive: true, force: true });
}
console.log(`written to ${out}`);
