/**
 * The event-loop budget of every operation (issue 28): the API host runs as its own process (role
 * `api`) on a real PostgreSQL while `GET /api/v1/health` is asked every 50 ms from a thread of its own.
 * Every operation of the OpenAPI document gets its largest input (image fields as data URLs of 10.8 MB
 * images, uploads at their byte limit, product images at the pixel limit, the painter's texture at its
 * caps, six at once) and the issue's adversarial cases (a 2048² texture with a 1024² painted region; a
 * shop whose robots.txt holds 2000 wildcard rules, 1.9 MB, reached by a long path), and the AR host's
 * first, uncached bake and USDZ conversion of a stored model (anonymous get_gltf and get_usdz).
 *
 * What is asserted, and why not health's latency alone: on the CI machine (2 loaded cores) an HTTP
 * round trip to an idle service already takes 20 ms to over a second, depending on what else runs, and
 * the health check waits for the database too; a bound on its p99 would measure the machine, not the
 * service. The service process itself (LOOP_DELAY_PRELOAD) measures how long work held its event loop:
 * its main thread's own CPU time between two 10 ms ticks. Time the OS gave to other processes is not
 * CPU time of that thread, so the figure does not grow with the machine's load; work on the loop does
 * (before the CPU pool, one texture held it for 4.4 s; a parse of a 14.5 MB body on the loop, 100 ms).
 * Asserted for every operation: that figure's maximum within 100 ms (the issue's budget: no stretch of
 * work longer than that on the loop), and every health probe answered (10 s). Printed as well: health's
 * p99 and the loop's delay p99 (perf_hooks.monitorEventLoopDelay, wall time, which includes the wait
 * for a core), next to a baseline of health alone.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../support/database.ts';
import { FAULTS_ADMIN_KEY, startRoleProcess, type RoleProcess } from '../../support/service-process.ts';
import { LOOP_DELAY_PRELOAD, loopDelay, probeWhile, type ProbeWindow } from '../../support/event-loop.ts';
import { leather, paint } from '../../plugins/texture-painter/support.ts';

const BOUND_MS = 100;
const running = new Set<ChildProcess>();
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let api: RoleProcess;
let key: string;
let doc: any;
let shop: http.Server;
let shopBase: string;
const shopRoutes = new Map<string, { type: string; body: Buffer }>();
const rows: { operation: string; input: string; bound: number; p99: number; max: number; loopP99: number; loopMax: number; blockedP99: number; blockedMax: number; probes: number; unanswered: number; statuses: string }[] = [];

/** A PNG of noise (incompressible): `side`² pixels, RGB. */
async function noisePng(width: number, height: number): Promise<Buffer> {
  return sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } }).png({ compressionLevel: 1 }).toBuffer();
}

const dataUrl = (png: Buffer) => `data:image/png;base64,${png.toString('base64')}`;

interface Request {
  label: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer<ArrayBuffer>;
}

/** Sends requests (all at once) and reads each answer's bytes without parsing them (the test's loop stays free). */
async function sendAll(reqs: Request[]): Promise<{ status: number; code?: string }[]> {
  return Promise.all(
    reqs.map(async (r) => {
      try {
        const res = await fetch(r.url, { method: r.method, headers: r.headers, body: r.body as BodyInit | undefined, signal: AbortSignal.timeout(180_000) });
        const bytes = Buffer.from(await res.arrayBuffer());
        let code: string | undefined;
        if (res.status >= 400 && bytes.length < 4096) code = /"code":"([^"]+)"/.exec(bytes.toString())?.[1];
        return { status: res.status, code };
      } catch {
        return { status: 0 };
      }
    }),
  );
}

async function measure(operation: string, input: string, reqs: Request[], minProbes = 10, bound = BOUND_MS): Promise<{ statuses: { status: number; code?: string }[]; window: ProbeWindow }> {
  await loopDelay(api.proc);
  const { result, window } = await probeWhile(`${api.api}/api/v1/health`, () => sendAll(reqs), minProbes);
  const loop = await loopDelay(api.proc);
  const statuses = [...new Set(result.map((r) => `${r.status}${r.code ? ` ${r.code}` : ''}`))].join(', ');
  rows.push({ operation, input, bound, p99: window.p99, max: window.max, loopP99: loop.p99, loopMax: loop.max, blockedP99: loop.blockedP99, blockedMax: loop.blockedMax, probes: window.latencies.length + window.unanswered, unanswered: window.unanswered + result.filter((r) => r.status === 0).length, statuses });
  return { statuses: result, window };
}

beforeAll(async () => {
  db = await createTestDatabase();
  shop = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const r = shopRoutes.get(path) ?? (path.startsWith('/products/') ? shopRoutes.get('/products/*') : undefined);
    if (!r) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': r.type, 'content-length': String(r.body.length) }).end(r.body);
  });
  await new Promise<void>((r) => shop.listen(0, '127.0.0.1', r));
  shopBase = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
  api = await startRoleProcess(
    'api',
    {
      DATABASE_URL: db.url,
      ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128',
      BOT_VERIFIER: 'off',
      TRUST_PROXY: '1',
      MONITORING_ALLOWED_IPS: '127.0.0.1/32',
      FOOT_ADMIN_KEY: 'event-loop-foot-admin-key-0123456789',
      // a texture at the limit takes 4 s on a quiet machine; past 4 s its thread is stopped (422)
      CPU_BUDGET_MS: '4000',
      NODE_OPTIONS: `--import=${LOOP_DELAY_PRELOAD}${process.env.EVENT_LOOP_CPU_PROF ? ` --cpu-prof --cpu-prof-dir=${process.env.EVENT_LOOP_CPU_PROF}` : ''}`,
    },
    running,
  );
  const created = await fetch(`${api.api}/admin/v1/keys`, { method: 'POST', headers: { 'x-admin-key': FAULTS_ADMIN_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'event-loop', kind: 'development' }) });
  key = ((await created.json()) as { key: string }).key;
  doc = await (await fetch(`${api.api}/api/v1/openapi.json`)).json();
}, 180_000);

afterAll(async () => {
  for (const p of running) p.kill('SIGTERM');
  await Promise.all([...running].map((p) => new Promise((r) => p.once('exit', r))));
  shop?.close();
  await db?.drop();
  if (rows.length) {
    const w = Math.max(...rows.map((r) => r.operation.length));
    const n = (x: number, width: number) => x.toFixed(0).padStart(width);
    const lines = rows.map((r) => `${r.operation.padEnd(w)} | ${r.input.padEnd(50)} | ${n(r.p99, 10)} | ${n(r.loopP99, 14)} | ${n(r.blockedMax, 8)} | ${n(r.bound, 6)} | ${String(r.probes).padStart(6)} | ${String(r.unanswered).padStart(10)} | ${r.statuses}`);
    console.log(`\nThe event loop during each operation (ms). health p99: GET /api/v1/health every 50 ms, seen by the client; loop delay p99: monitorEventLoopDelay in the service (wall time); held max: longest stretch of work on the loop (main thread CPU between 10 ms ticks), asserted <= bound\n${'operation'.padEnd(w)} | ${'largest input'.padEnd(50)} | health p99 | loop delay p99 | held max |  bound | probes | unanswered | answers\n${lines.join('\n')}\n`);
  }
}, 60_000);

function credentials(op: any): Record<string, string> {
  const schemes = new Set((op.security ?? []).flatMap((s: Record<string, unknown>) => Object.keys(s)));
  const h: Record<string, string> = {};
  if (schemes.has('ApiKey')) h['x-api-key'] = key;
  if (schemes.has('Bearer')) h.authorization = `Bearer ${key}`;
  if (schemes.has('AdminKey')) h['x-admin-key'] = FAULTS_ADMIN_KEY;
  return h;
}

/** The example body with every image at the limit: up to three data URLs of ~11 MB (a 40 MB body allows it). */
function inflate(example: unknown, big: string, small: string): { body: unknown; images: number } {
  let images = 0;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string' && v.startsWith('data:image/')) return ++images <= 3 ? big : small;
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return { body: walk(example), images };
}

/** Inputs, built before any window opens (the test's own work never runs while health is probed). */
let textureReq: Request;
let discoverReq: Request;
async function textureRequest(url: string): Promise<Request> {
  const tex = leather(2048, 2048);
  const { painted, mask } = paint(tex, (x, y) => x >= 512 && x < 1536 && y >= 512 && y < 1536, [200, 30, 40]);
  const encode = (p: { width: number; height: number; data: Uint8Array }) => sharp(Buffer.from(p.data), { raw: { width: p.width, height: p.height, channels: 4 } }).png().toBuffer();
  const body = Buffer.from(JSON.stringify({ texture: dataUrl(await encode(painted)), mask: dataUrl(await encode(mask)), mode: 'inpaint', wrap: 'xy', detail: 2 }));
  return { label: 'POST /api/v1/texture-painter/enhance', method: 'POST', url, headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.1' }, body };
}

describe('the event-loop budget of every operation', () => {
  beforeAll(async () => {
    textureReq = await textureRequest(`${api.api}/api/v1/texture-painter/enhance`);
    // the hostile shop: 2000 wildcard rules (1.9 MB) and a long path
    const rule = `Disallow: /${'a*'.repeat(470)}b\n`;
    const robots = `User-agent: *\n${rule.repeat(2000)}`;
    expect(robots.length).toBeGreaterThan(1.85e6);
    shopRoutes.set('/robots.txt', { type: 'text/plain', body: Buffer.from(robots) });
    shopRoutes.set('/products/*', { type: 'text/html', body: Buffer.from('<!doctype html><title>Nothing</title><p>No products') });
    discoverReq = { label: 'POST /api/v1/products/discover', method: 'POST', url: `${api.api}/api/v1/products/discover`, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ url: `${shopBase}/products/${'a'.repeat(1900)}`, productType: 'shoe' })) };
    // a baseline first, health alone: what the machine's load alone does to the probe
    await measure('(baseline: health alone)', '-', [], 60);
  }, 120_000);

  /** The loop was never held more than BOUND_MS by work, and health answered every probe. */
  const within = (operation: string) => {
    const r = rows.find((x) => x.operation === operation)!;
    expect(r.unanswered, `${operation}: unanswered`).toBe(0);
    expect(r.blockedMax, `${operation}: the loop held ${r.blockedMax} ms by work`).toBeLessThanOrEqual(r.bound);
  };

  it('defect 1: one anonymous 2048² texture with a 1024² painted region, and six at once, leave health answering', async () => {
    // before the pool: 262 of 468 probes unanswered, the loop held for seconds; now the enhancement
    // runs whole on a pool thread, and what remains on the loop is taking the body's strings
    await measure('enhanceTexture', 'texture 2048², 1024² painted (10.6 MB body)', [textureReq]);
    within('enhanceTexture');
    await measure('enhanceTexture x6 at once', 'six textures 2048², 1024² painted', Array.from({ length: 6 }, (_, i) => ({ ...textureReq, headers: { ...textureReq.headers, 'x-forwarded-for': `198.51.100.${10 + i}` } })));
    within('enhanceTexture x6 at once');
  }, 300_000);

  it('defect 2: a shop with 2000 wildcard robots rules (1.9 MB) and a long URL path leaves health answering', async () => {
    const { statuses } = await measure('discoverProduct', 'robots.txt 2000 wildcard rules 1.9 MB, path 1.9k', [discoverReq]);
    expect(statuses[0].status).toBeGreaterThan(0);
    within('discoverProduct');
  }, 120_000);

  it('virtual fittings whose garment is a URL of a 23.5 MB image (fetched, hashed for the job key) leave health answering', async () => {
    const garment = await noisePng(2800, 2800);
    expect(garment.length).toBeGreaterThan(23e6);
    shopRoutes.set('/garment.png', { type: 'image/png', body: garment });
    shopRoutes.set('/person.jpg', { type: 'image/jpeg', body: readFileSync(fileURLToPath(new URL('../../fixtures/real-photos/persons/00034_00.jpg', import.meta.url))) });
    const fitting = (n: number): Request => ({
      label: 'POST /api/v1/virtual-fitting',
      method: 'POST',
      url: `${api.api}/api/v1/virtual-fitting`,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      // each its own URL: no fetch is answered from another's cache
      body: Buffer.from(JSON.stringify({ personImages: [`${shopBase}/person.jpg?n=${n}`], topGarment: `${shopBase}/garment.png?n=${n}` })),
    });
    const { statuses } = await measure('virtualFitting, URL garments x3 at once', 'three garment URLs of a 23.5 MB PNG', [fitting(1), fitting(2), fitting(3)]);
    expect(statuses.map((x) => x.status)).toEqual([202, 202, 202]);
    within('virtualFitting, URL garments x3 at once');
  }, 180_000);

  it('an anonymous first get_gltf and get_usdz of a stored model (bake, USDZ conversion) leave health answering', async () => {
    // a real textured shoe (test/support/objects.ts's Materials Variants Shoe), stored as an aligned
    // model; nothing is cached yet, so each request bakes (and converts) on the spot
    const shoe = readFileSync(fileURLToPath(new URL('../../fixtures/objects/materials-variants-shoe.glb', import.meta.url)));
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const form = new FormData();
      form.set('kind', 'shoe');
      form.set('file', new Blob([shoe], { type: 'model/gltf-binary' }), `shoe-${i}.glb`);
      const r = await fetch(`${api.ar}/api/upload_mesh`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
      expect(r.status).toBe(200);
      ids.push(((await r.json()) as { id: string }).id);
    }
    const get = (path: string): Request => ({ label: `GET ${path}`, method: 'GET', url: `${api.ar}${path}`, headers: {} });
    const size = `${(shoe.length / 1048576).toFixed(2)} MB textured GLB`;
    const gltf = await measure('arGetGltf, first bake', `${size}, uncached colour`, [get(`/api/get_gltf/${ids[0]}?color_id=default`)]);
    expect(gltf.statuses[0].status).toBe(200);
    within('arGetGltf, first bake');
    const usdz = await measure('arGetUsdz, first bake and conversion', `${size}, uncached colour`, [get(`/api/get_usdz/${ids[1]}?color_id=default`)]);
    expect(usdz.statuses[0].status).toBe(200);
    within('arGetUsdz, first bake and conversion');
  }, 180_000);

  it('sends every operation of the OpenAPI document its largest input; every request is answered', async () => {
    const big = dataUrl(await noisePng(1900, 1900)); // ~10.8 MB: 14.4 MB as a data URL
    const small = dataUrl(await noisePng(64, 64));
    const glb = Buffer.alloc(30 * 1024 * 1024 - 4096);
    const huge = await sharp({ create: { width: 6300, height: 6300, channels: 3, background: '#f4f4f4' } }).composite([{ input: await sharp({ create: { width: 3000, height: 2000, channels: 3, background: '#203040' } }).png().toBuffer(), left: 1600, top: 2100 }]).png().toBuffer();
    for (let i = 0; i < 4; i++) shopRoutes.set(`/img/${i}.png`, { type: 'image/png', body: huge });
    const productPage = `<!doctype html><html><head><title>Runner</title><script type="application/ld+json">${JSON.stringify({ '@type': 'Product', name: 'Runner shoe', category: 'Shoes', image: [0, 1, 2, 3].map((i) => `${shopBase}/img/${i}.png`) })}</script></head><body>${'<a href="/products/x">x</a>'.repeat(20000)}</body></html>`;
    shopRoutes.set('/products/*', { type: 'text/html', body: Buffer.from(productPage) });
    shopRoutes.set('/robots.txt', { type: 'text/plain', body: Buffer.from('User-agent: *\nAllow: /\n') });

    const singles: { op: string; input: string; req: Request }[] = [];
    const rest: Request[] = [];
    for (const [p, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const base = op['x-host'] === 'ar' ? api.ar : api.api;
        const path = p.replace(/\{(\w+)\}/g, () => '00000000-0000-4000-8000-000000000000');
        const query = (op.parameters ?? []).filter((x: any) => x.in === 'query' && x.required).map((x: any) => `${x.name}=${encodeURIComponent(x.name === 'glb' ? `${shopBase}/m.glb` : x.name === 'url' ? shopBase : 'x')}`).join('&');
        const url = `${base}${path}${query ? `?${query}` : ''}`;
        const headers = credentials(op);
        const content = op.requestBody?.content ?? {};
        const label = `${method.toUpperCase()} ${p}`;
        if (op.operationId === 'enhanceTexture') continue; // above, with its adversarial cases
        if (op.operationId === 'discoverProduct') {
          const body = Buffer.from(JSON.stringify({ url: `${shopBase}/products/runner`, productType: 'shoe' }));
          singles.push({ op: 'discoverProduct, images at the limit', input: '4 PNGs of 6300² (39.7 MP), 20k links page', req: { label, method: 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, body } });
        } else if (content['multipart/form-data']) {
          const boundary = 'eventloopboundary';
          const body = Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.glb"\r\nContent-Type: model/gltf-binary\r\n\r\n`), glb, Buffer.from(`\r\n--${boundary}--\r\n`)]);
          singles.push({ op: op.operationId, input: 'multipart file of 30 MB', req: { label, method: method.toUpperCase(), url, headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` }, body } });
        } else if (content['application/json']) {
          // shoe-3d's example names its photos by URL; its largest input is photos sent inline
          const { body, images } = op.operationId === 'submitShoe3d' ? { body: { images: [big, small, small, small] }, images: 1 } : inflate(content['application/json'].example ?? {}, big, small);
          const bytes = Buffer.from(JSON.stringify(body));
          const req = { label, method: method.toUpperCase(), url, headers: { ...headers, 'content-type': 'application/json' }, body: bytes };
          if (images) singles.push({ op: op.operationId, input: `${Math.min(images, 3)} data URL image(s) 10.8 MB, ${(bytes.length / 1048576).toFixed(1)} MB body`, req });
          else rest.push(req);
        } else rest.push({ label, method: method.toUpperCase(), url, headers });
      }
    }
    expect(singles.length + rest.length).toBeGreaterThan(40);
    let answers = 0;
    for (const s of singles) answers += (await measure(s.op, s.input, [s.req], 10)).statuses.filter((x) => x.status > 0).length;
    for (let i = 0; i < rest.length; i += 12) {
      const group = rest.slice(i, i + 12);
      answers += (await measure(group.map((r) => r.label.split(' ')[1].replace(/^\/(api|admin)\/v1/, '').slice(0, 28)).join(', ').slice(0, 60), `${group.length} operations at once, example inputs`, group)).statuses.filter((x) => x.status > 0).length;
    }
    expect(answers).toBe(singles.length + rest.length);
    for (const r of rows.filter((x) => x.operation !== '(baseline: health alone)')) within(r.operation);
  }, 400_000);
});
