/**
 * Size-fitting accuracy and speed on the held-out ANSUR II bodies (never used to build profiles).
 *
 *   npm run bench:sizing
 *
 * Last, the POST /api/v1/size-fitting endpoint is timed end to end (10 products per request)
 * against the real service on loopback with an embedded PostgreSQL (skip with SIZING_BENCH_HTTP=0).
 *
 * For each held-out body and input mode, a profile is built from part of the body, a size is
 * recommended from fixed charts, and compared with the size recommended for the full, true body.
 * Charts (all body measurements, cm; see /work/shared/data/anthropometry/size-charts.md):
 * - tops: EN 13402-3 letter codes by chest/bust (section 1);
 * - bottoms, women: H&M ladies EU 32-58 waist and hip (section 2, hm.com/ca size guide), as
 *   ranges between the midpoints of neighbouring sizes;
 * - bottoms, men: Fusalp men's bottoms waist and hip, XS to XXL/XXXL (section 2, fusalp.com).
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../adapters/postgres/embedded.ts';
import { SharpImageCodec } from '../../adapters/sharp/image-codec.ts';
import { createFitroom } from '../../connectors/standalone/compose.ts';
import { standalonePlugins } from '../../connectors/standalone/plugins.ts';
import { loadConfig } from '../../core/config.ts';
import { TOKENS } from '../../core/tokens.ts';
import { syntheticFace } from '../support/images.ts';
import { BodyProfiler } from '../../core/sizing/body-profile.ts';
import { EN13402_CHEST_BANDS, letterForChest } from '../../core/sizing/en13402.ts';
import type { EstimatedBodyProfile } from '../../core/sizing/estimated-profile.ts';
import { HELD_OUT_BODIES } from '../../core/sizing/reference/reference-bodies.ts';
import type { ReferenceBody } from '../../core/sizing/reference/reference-body.ts';
import type { SizeFittingProduct, SizeRow } from '../../core/sizing/size-chart.ts';
import { evaluateProducts } from '../../core/sizing/size-fitting.ts';
import { DIMENSIONS } from '../../core/twins/body.ts';
import type { Dimension, Gender } from '../../core/twins/body.ts';

function chart(id: string, category: SizeFittingProduct['category'], sizes: SizeRow[]): SizeFittingProduct {
  return { id, category, sizeChart: { version: 1, basis: 'body', unit: 'cm', sizes } };
}

const TOPS: Record<Gender, SizeFittingProduct> = {
  female: chart('en13402-women', 'top', Object.entries(EN13402_CHEST_BANDS.female).map(([label, [min, max]]) => ({ label, measurements: { chest: { min, max } } }))),
  male: chart('en13402-men', 'top', Object.entries(EN13402_CHEST_BANDS.male).map(([label, [min, max]]) => ({ label, measurements: { chest: { min, max } } }))),
};

/** Single-value chart columns to contiguous ranges: boundaries halfway between neighbours. */
function rangesFromPoints(values: number[]): { min: number; max: number }[] {
  return values.map((v, i) => {
    const lo = i > 0 ? (values[i - 1] + v) / 2 : v - (values[1] - v) / 2;
    const hi = i < values.length - 1 ? (v + values[i + 1]) / 2 : v + (v - values[i - 1]) / 2;
    return { min: lo, max: hi };
  });
}

const HM_EU = [32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58];
const HM_WAIST = rangesFromPoints([60, 64, 68, 72, 76, 80, 84, 88, 94, 100, 106, 112, 118, 124]);
const HM_HIP = rangesFromPoints([84, 88, 92, 96, 100, 104, 108, 112, 117, 122, 127, 132, 137, 142]);
const FUSALP = ['XS', 'S', 'S/M', 'M', 'L', 'L/XL', 'XL', 'XXL', 'XXL/XXXL'];

const BOTTOMS: Record<Gender, SizeFittingProduct> = {
  female: chart('hm-women-bottoms', 'bottom', HM_EU.map((eu, i) => ({ label: `EU ${eu}`, measurements: { waist: HM_WAIST[i], hip: HM_HIP[i] } }))),
  male: chart(
    'fusalp-men-bottoms',
    'bottom',
    FUSALP.map((label, i) => ({ label, measurements: { waist: { min: 70 + 4 * i, max: 74 + 4 * i }, hip: { min: 84 + 4 * i, max: 88 + 4 * i } } })),
  ),
};

interface Mode {
  name: string;
  profile: (p: BodyProfiler, b: ReferenceBody) => EstimatedBodyProfile;
}

const pick = (b: ReferenceBody, dims: Dimension[]) => Object.fromEntries(dims.map((d) => [d, b.measurements[d]]));
const MODES: Mode[] = [
  { name: 'height+chest', profile: (p, b) => p.fromMeasurements(pick(b, ['height', 'chest']), b.gender) },
  { name: 'height+waist', profile: (p, b) => p.fromMeasurements(pick(b, ['height', 'waist']), b.gender) },
  { name: 'waist+hip', profile: (p, b) => p.fromMeasurements(pick(b, ['waist', 'hip']), b.gender) },
  { name: 'height+chest+waist+hip', profile: (p, b) => p.fromMeasurements(pick(b, ['height', 'chest', 'waist', 'hip']), b.gender) },
  { name: 'clothing size (EN letter)', profile: (p, b) => p.fromClothingSize(b.measurements.height, letterForChest(b.measurements.chest, b.gender), b.gender) },
  { name: 'height+chest, no gender', profile: (p, b) => p.fromMeasurements(pick(b, ['height', 'chest']), null) },
];

function trueProfile(b: ReferenceBody): EstimatedBodyProfile {
  const supplied = Object.fromEntries(DIMENSIONS.map((d) => [d, true])) as Record<Dimension, boolean>;
  return { gender: b.gender, measurements: { ...b.measurements }, supplied, source: 'measurements' };
}

function labelIndex(product: SizeFittingProduct, label: string): number {
  return product.sizeChart.sizes.findIndex((s) => s.label === label);
}

function pad(s: string | number, n: number, right = false): string {
  const t = String(s);
  return right ? t.padEnd(n) : t.padStart(n);
}
const pct = (n: number, d: number) => `${((100 * n) / d).toFixed(1)}%`;

async function main(): Promise<void> {
  const profiler = new BodyProfiler();
  const bodies = HELD_OUT_BODIES;
  const truth = bodies.map((b) => {
    const [top, bottom] = evaluateProducts(trueProfile(b), [TOPS[b.gender], BOTTOMS[b.gender]]);
    return { top: top.recommendedSize, bottom: bottom.recommendedSize };
  });
  const women = bodies.filter((b) => b.gender === 'female').length;
  console.log(`Held-out ANSUR II bodies: ${bodies.length} (${women} women, ${bodies.length - women} men)`);
  const distribution = (key: 'top' | 'bottom', g: Gender, chartOf: Record<Gender, SizeFittingProduct>) =>
    chartOf[g].sizeChart.sizes
      .map((s) => `${s.label} ${truth.filter((t, i) => bodies[i].gender === g && t[key] === s.label).length}`)
      .join(', ');
  console.log(`True sizes, women tops: ${distribution('top', 'female', TOPS)}`);
  console.log(`True sizes, men tops:   ${distribution('top', 'male', TOPS)}`);
  console.log(`True sizes, women bottoms: ${distribution('bottom', 'female', BOTTOMS)}`);
  console.log(`True sizes, men bottoms:   ${distribution('bottom', 'male', BOTTOMS)} (waist at the navel: ANSUR reads larger than a chart's natural waist)\n`);

  console.log('Size accuracy against the size recommended for the full true body');
  const header = `${pad('mode', 27, true)} ${pad('tops exact', 11)} ${pad('tops ±1', 9)} ${pad('bottoms exact', 14)} ${pad('bottoms ±1', 11)} ${pad('conf. (tops)', 13)}`;
  console.log(header);
  console.log('-'.repeat(header.length));
  const maeRows: string[] = [];
  for (const mode of MODES) {
    let topExact = 0;
    let topNear = 0;
    let botExact = 0;
    let botNear = 0;
    let conf = 0;
    const err = Object.fromEntries(DIMENSIONS.map((d) => [d, { sum: 0, n: 0 }])) as Record<Dimension, { sum: number; n: number }>;
    bodies.forEach((b, i) => {
      const profile = mode.profile(profiler, b);
      const [top, bottom] = evaluateProducts(profile, [TOPS[b.gender], BOTTOMS[b.gender]]);
      const dt = Math.abs(labelIndex(TOPS[b.gender], top.recommendedSize) - labelIndex(TOPS[b.gender], truth[i].top));
      const db = Math.abs(labelIndex(BOTTOMS[b.gender], bottom.recommendedSize) - labelIndex(BOTTOMS[b.gender], truth[i].bottom));
      if (dt === 0) topExact++;
      if (dt <= 1) topNear++;
      if (db === 0) botExact++;
      if (db <= 1) botNear++;
      conf += top.confidence;
      for (const d of DIMENSIONS) {
        // Imputed values, and the size-derived chest, are estimates: their error is what this measures.
        const estimated = !profile.supplied[d] || (mode.name.startsWith('clothing') && d === 'chest');
        if (estimated) {
          err[d].sum += Math.abs(profile.measurements[d] - b.measurements[d]);
          err[d].n++;
        }
      }
    });
    const n = bodies.length;
    console.log(
      `${pad(mode.name, 27, true)} ${pad(pct(topExact, n), 11)} ${pad(pct(topNear, n), 9)} ${pad(pct(botExact, n), 14)} ${pad(pct(botNear, n), 11)} ${pad((conf / n).toFixed(2), 13)}`,
    );
    const cells = DIMENSIONS.map((d, j) => pad(err[d].n ? (err[d].sum / err[d].n).toFixed(2) : '—', j === 0 ? 7 : 8));
    maeRows.push(`${pad(mode.name, 27, true)} ${cells.join('')}`);
  }

  console.log('\nMAE (cm) of each estimated dimension (— = supplied)');
  console.log(`${pad('mode', 27, true)} ${DIMENSIONS.map((d, j) => pad(d, 7 + (j === 0 ? 0 : 1))).join('')}`);
  console.log('-'.repeat(27 + 1 + 7 * 5 + 4));
  for (const r of maeRows) console.log(r);

  // Speed: evaluating 10 products (5 top and 5 bottom charts) for one profile.
  const products = Array.from({ length: 10 }, (_, i) => {
    const g: Gender = i % 2 ? 'male' : 'female';
    const base = i < 5 ? TOPS[g] : BOTTOMS[g];
    return { ...base, id: `p${i}` };
  });
  const profiles = bodies.slice(0, 200).map((b) => profiler.fromMeasurements(pick(b, ['height', 'chest']), b.gender));
  const times = (fn: (i: number) => void, runs: number) => {
    for (let i = 0; i < 200; i++) fn(i); // warm-up
    const out: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      fn(i);
      out.push(performance.now() - t0);
    }
    out.sort((a, b) => a - b);
    return { p50: out[Math.floor(runs * 0.5)], p95: out[Math.floor(runs * 0.95)] };
  };
  const evalTimes = times((i) => evaluateProducts(profiles[i % profiles.length], products), 2000);
  const profileTimes = times((i) => profiler.fromMeasurements(pick(bodies[i % bodies.length], ['height', 'waist']), null), 2000);
  console.log('\nSpeed (in-process, this machine)');
  console.log(`evaluate 10 products:     p50 ${(evalTimes.p50 * 1000).toFixed(0)} µs, p95 ${(evalTimes.p95 * 1000).toFixed(0)} µs`);
  console.log(`build a profile (2 dims): p50 ${(profileTimes.p50 * 1000).toFixed(0)} µs, p95 ${(profileTimes.p95 * 1000).toFixed(0)} µs`);
  if (process.env.SIZING_BENCH_HTTP !== '0') await endpoint(products);
}

/** p50/p95 of POST /api/v1/size-fitting with 10 products, sequential requests on one keep-alive client. */
async function endpoint(products: SizeFittingProduct[]): Promise<void> {
  const REQUESTS = 300;
  const dir = mkdtempSync(path.join(tmpdir(), 'fitroom-sizing-bench-'));
  chmodSync(dir, 0o755); // the cluster runs as another user when this runs as root
  const db = await startEmbeddedPostgres({ dir: path.join(dir, 'db'), persistent: false });
  try {
    const admin = new pg.Client(db.adminUrl);
    await admin.connect();
    await admin.query('create database fitroom');
    await admin.end();
    const config = loadConfig({ FITROOM_ENV: 'development', PORT: '0', AR_PORT: '0', HOST: '127.0.0.1', DATA_DIR: path.join(dir, 'data') });
    const fitroom = await createFitroom(config, { databaseUrl: db.urlFor('fitroom'), plugins: standalonePlugins(), poolSize: 4 });
    try {
      const { apiUrl } = await fitroom.listen();
      await fitroom.startWorker({ concurrency: 1, pollInterval: 200 });
      const { key } = await fitroom.get(TOKENS.credentials).create({ name: 'bench', kind: 'development', accountId: null, expiresAt: null, monthlyQuota: null });
      const headers = { 'x-api-key': key, 'content-type': 'application/json' };
      const face = (await new SharpImageCodec().encode(syntheticFace().image, 'png')).bytes;
      const twin = await fetch(`${apiUrl}/api/v1/digital-twin`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ faceImage: `data:image/png;base64,${Buffer.from(face).toString('base64')}`, bodyMeasurements: { height: 176, chest: 99 }, gender: 'male' }),
      }).then((r) => r.json() as Promise<{ jobId: string }>);
      let digitalTwinId = '';
      for (let i = 0; i < 600 && !digitalTwinId; i++) {
        const job = (await fetch(`${apiUrl}/api/v1/jobs/${twin.jobId}`, { headers }).then((r) => r.json())) as { status: string; digitalTwinId?: string; error?: string };
        if (job.status === 'failed') throw new Error(`twin job failed: ${job.error}`);
        if (job.status === 'completed') digitalTwinId = job.digitalTwinId!;
        else await new Promise((r) => setTimeout(r, 100));
      }
      const body = JSON.stringify({ digitalTwinId, products });
      const times: number[] = [];
      for (let i = 0; i < REQUESTS + 20; i++) {
        const t0 = performance.now();
        const res = await fetch(`${apiUrl}/api/v1/size-fitting`, { method: 'POST', headers, body });
        const json = (await res.json()) as { available?: boolean; products?: unknown[] };
        if (res.status !== 200 || !json.available || json.products?.length !== 10) throw new Error(`size fitting answered ${res.status}: ${JSON.stringify(json)}`);
        if (i >= 20) times.push(performance.now() - t0); // the first requests warm up
      }
      times.sort((a, b) => a - b);
      const q = (p: number) => times[Math.min(times.length - 1, Math.floor(times.length * p))].toFixed(2);
      console.log(`POST /api/v1/size-fitting, 10 products (HTTP, ${REQUESTS} sequential requests): p50 ${q(0.5)} ms, p95 ${q(0.95)} ms`);
    } finally {
      await fitroom.close();
      // Let the pool's sockets finish closing before the cluster stops (else they log terminations).
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    await db.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
