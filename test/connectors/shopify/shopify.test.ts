/**
 * The Shopify app through real HTTP on loopback, with nock only for Shopify's own hosts (OAuth token,
 * Admin GraphQL, staged-upload storage): install (OAuth begin to callback), sessions in PostgreSQL,
 * webhooks and redactions, app proxy signatures, the 3D media flow and its failure paths.
 * Fixture shapes follow shopify.dev's Admin GraphQL reference (stagedUploadsCreate, productUpdate with
 * media, Model3d status) and @shopify/shopify-api 15's own test helpers (getJwt).
 */
import nock from 'nock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { getJwt } from '@shopify/shopify-api/test-helpers';
import { type TestService } from '../../support/harness.ts';
import { shoePhotos } from '../../plugins/shoe3d/helpers.ts';
import { images as tryOnImages } from '../../plugins/tryon/helpers.ts';
import { loadShopifySettings } from '../../../connectors/shopify/settings.ts';
import { PLATFORM, shopperOwner, merchantOwner, type ShopifyConnector } from '../../../connectors/shopify/shopify.ts';
import { ConfigError } from '../../../core/config.ts';
import { signProxyQuery as signShopifyProxy, TEST_TOKEN_KEYS, startShopifyService } from './support.ts';

const SHOP = 'test-shop.myshopify.com';
const API_KEY = 'testApiKey';
const SECRET = 'testApiSecretKey';
const APP_URL = 'https://my-test-app.myshopify.io';
const ADMIN = `https://${SHOP}`;
const GRAPHQL = '/admin/api/2026-10/graphql.json';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

let svc: TestService;
let c: ShopifyConnector;
let imageServer: http.Server;
let imageBase: string;

beforeAll(async () => {
  ({ svc, c } = await startShopifyService({ env: { BOT_VERIFIER: 'off' } }));
  // product images on a loopback "CDN"
  const photos = await shoePhotos([0, 90, 180, 270]);
  const bytes = photos.map((d) => Buffer.from(d.slice(d.indexOf(',') + 1), 'base64'));
  imageServer = http.createServer((req, res) => {
    const i = Number(/\/(\d)\.png$/.exec(req.url ?? '')?.[1] ?? -1);
    if (!bytes[i]) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'image/png' }).end(bytes[i]);
  });
  await new Promise<void>((r) => imageServer.listen(0, '127.0.0.1', r));
  imageBase = `http://127.0.0.1:${(imageServer.address() as AddressInfo).port}`;
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
}, 120_000);

afterAll(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  imageServer?.close();
  await svc?.close();
});

beforeEach(() => nock.cleanAll());

/** The OAuth callback's query as Shopify signs it: sorted `k=v` pairs joined with `&`, hex HMAC-SHA256. */
function signOAuthQuery(params: Record<string, string>): string {
  const message = Object.keys(params).sort().map((k) => `${k}=${params[k]}`).join('&');
  return new URLSearchParams({ ...params, hmac: createHmac('sha256', SECRET).update(message).digest('hex') }).toString();
}

function signProxyQuery(pairs: [string, string][]): string {
  return signShopifyProxy(SECRET, pairs);
}

function proxyParams(customer: string | null, at = Math.floor(Date.now() / 1000)): [string, string][] {
  return [['shop', SHOP], ['path_prefix', '/apps/fitroom'], ['timestamp', String(at)], ...(customer ? [['logged_in_customer_id', customer] as [string, string]] : [['logged_in_customer_id', ''] as [string, string]])];
}

async function webhook(topic: string, body: unknown, opts: { id?: string; hmac?: string | null } = {}) {
  const raw = JSON.stringify(body);
  const hmac = opts.hmac === undefined ? createHmac('sha256', SECRET).update(raw).digest('base64') : opts.hmac;
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-shopify-topic': topic, 'x-shopify-shop-domain': SHOP, 'x-shopify-webhook-id': opts.id ?? crypto.randomUUID(), 'x-shopify-api-version': '2026-10', 'x-shopify-event-id': crypto.randomUUID(), 'x-shopify-triggered-at': new Date().toISOString() };
  if (hmac !== null) headers['x-shopify-hmac-sha256'] = hmac;
  const res = await fetch(`${svc.api}/shopify/webhooks`, { method: 'POST', headers, body: raw });
  return { status: res.status, body: await res.json() };
}

async function install() {
  const begin = await fetch(`${svc.api}/shopify/auth?shop=${SHOP}`, { redirect: 'manual', headers: { 'user-agent': BROWSER } });
  expect(begin.status).toBe(302);
  const location = new URL(begin.headers.get('location')!);
  expect(location.origin).toBe(ADMIN);
  expect(location.pathname).toBe('/admin/oauth/authorize');
  expect(location.searchParams.get('client_id')).toBe(API_KEY);
  const state = location.searchParams.get('state')!;
  const cookies = begin.headers.getSetCookie().map((x) => x.split(';')[0]).join('; ');
  nock(ADMIN).post('/admin/oauth/access_token').reply(200, { access_token: 'shpat_offline_token', scope: 'read_products,write_products,write_app_proxy', expires_in: 3600, refresh_token: 'shprt_offline_refresh', refresh_token_expires_in: 7_776_000 });
  const query = signOAuthQuery({ code: 'auth-code', shop: SHOP, state, timestamp: String(Math.floor(Date.now() / 1000)), host: Buffer.from(`admin.shopify.com/store/test-shop`).toString('base64url') });
  const cb = await fetch(`${svc.api}/shopify/auth/callback?${query}`, { redirect: 'manual', headers: { 'user-agent': BROWSER, cookie: cookies } });
  return cb;
}

describe('settings', () => {
  it('are all or nothing, and malformed ones fail at start with what to fix', () => {
    expect(loadShopifySettings({})).toBeNull();
    expect(() => loadShopifySettings({ SHOPIFY_API_KEY: API_KEY })).toThrow(/missing: SHOPIFY_API_SECRET, SHOPIFY_APP_URL/);
    expect(() => loadShopifySettings({ SHOPIFY_API_KEY: API_KEY, SHOPIFY_API_SECRET: SECRET, SHOPIFY_APP_URL: 'http://example.com', SHOPIFY_TOKEN_KEYS: TEST_TOKEN_KEYS })).toThrow(/https/);
    expect(() => loadShopifySettings({ SHOPIFY_API_KEY: API_KEY, SHOPIFY_API_SECRET: SECRET, SHOPIFY_APP_URL: APP_URL, SHOPIFY_SCOPES: 'read_products', SHOPIFY_TOKEN_KEYS: TEST_TOKEN_KEYS })).toThrow(ConfigError);
    expect(loadShopifySettings({ SHOPIFY_API_KEY: API_KEY, SHOPIFY_API_SECRET: SECRET, SHOPIFY_APP_URL: APP_URL, SHOPIFY_TOKEN_KEYS: TEST_TOKEN_KEYS })!.scopes).toContain('write_app_proxy');
  });
});

describe('install', () => {
  it('runs OAuth from begin to callback, stores the offline session in PostgreSQL and creates the shop account', async () => {
    const cb = await install();
    expect(cb.status).toBe(302);
    expect(cb.headers.get('location')).toBe(`${ADMIN}/admin/apps/${API_KEY}`);
    const stored = await svc.fitroom.pool.query('select data from platform_sessions where platform = $1 and shop = $2', [PLATFORM, SHOP]);
    expect(stored.rows).toHaveLength(1);
    const session = await c.offlineSession(SHOP);
    expect(session.accessToken).toBe('shpat_offline_token');
    expect(session.isOnline).toBe(false);
    const inst = await c.store.getInstall(PLATFORM, SHOP);
    expect(inst).toMatchObject({ status: 'installed', accountId: `shopify:${SHOP}` });
    expect(await c.credentials.active(inst!.keyId!)).not.toBeNull();
  });

  it('refuses bad shops, bots and forged callbacks', async () => {
    expect((await fetch(`${svc.api}/shopify/auth?shop=evil.example.com`, { redirect: 'manual', headers: { 'user-agent': BROWSER } })).status).toBe(400);
    const bot = await fetch(`${svc.api}/shopify/auth?shop=${SHOP}`, { redirect: 'manual' });
    expect(bot.status).toBe(410);
    const forged = await fetch(`${svc.api}/shopify/auth/callback?code=x&shop=${SHOP}&state=y&timestamp=1&hmac=00`, { redirect: 'manual', headers: { 'user-agent': BROWSER } });
    expect(forged.status).toBe(401);
  });
});

describe('webhooks', () => {
  it('answer 401 to a missing or bad HMAC and handle each delivery once', async () => {
    expect((await webhook('customers/data_request', { customer: { id: 1 } }, { hmac: null })).status).toBe(401);
    expect((await webhook('customers/data_request', { customer: { id: 1 } }, { hmac: 'AAAA' })).status).toBe(401);
    const id = crypto.randomUUID();
    const first = await webhook('customers/data_request', { shop_domain: SHOP, customer: { id: 1 }, data_request: { id: 77 } }, { id });
    expect(first.status).toBe(200);
    expect(first.body.duplicate).toBeUndefined();
    const again = await webhook('customers/data_request', { shop_domain: SHOP, customer: { id: 1 }, data_request: { id: 77 } }, { id });
    expect(again.body.duplicate).toBe(true);
  });
});

describe('the app proxy', () => {
  it('answers signed requests through the core pipeline as the shop, and refuses missing, tampered, stale and duplicated signatures', async () => {
    if (!(await c.store.getInstall(PLATFORM, SHOP))) await install();
    const img = await tryOnImages();
    const body = JSON.stringify({ personImages: [img.face], topGarment: img.top, options: { quality: 'draft' } });
    // the page sends the consent header once the shopper accepted the photo notice
    const post = (q: string) => fetch(`${svc.api}/shopify/proxy/api/v1/virtual-fitting?${q}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-fitroom-consent': '1' }, body });
    const ok = await post(signProxyQuery(proxyParams('1001')));
    const okBody = await ok.json();
    expect(ok.status, JSON.stringify(okBody)).toBe(202);
    expect(okBody.statusUrl).toBe(`/apps/fitroom/api/v1/jobs/${okBody.jobId}`);
    const row = await svc.fitroom.pool.query<{ owner_hash: string }>('select owner_hash from jobs where id = $1', [okBody.jobId]);
    expect(row.rows[0].owner_hash).toBe(shopperOwner(SHOP, '1001'));
    const poll = await fetch(`${svc.api}/shopify/proxy/api/v1/jobs/${okBody.jobId}?${signProxyQuery(proxyParams('1001'))}`);
    expect(poll.status).toBe(200);
    // another customer of the same shop does not see it
    expect((await fetch(`${svc.api}/shopify/proxy/api/v1/jobs/${okBody.jobId}?${signProxyQuery(proxyParams('1002'))}`)).status).toBe(404);

    const signed = signProxyQuery(proxyParams('1001'));
    const tampered = signed.replace('logged_in_customer_id=1001', 'logged_in_customer_id=1002');
    const stale = signProxyQuery(proxyParams('1001', Math.floor(Date.now() / 1000) - 120));
    const duplicated = signProxyQuery([...proxyParams('1001'), ['shop', 'other-shop.myshopify.com']]);
    for (const q of ['', tampered, stale, duplicated]) {
      const r = await post(q);
      expect(r.status, q).toBe(401);
      expect((await r.json()).success).toBe(false);
    }
  });
});

/** Replies to Admin GraphQL calls by the operation name in the query. */
function graphql(handlers: Record<string, ((vars: any) => unknown)[]>) {
  return nock(ADMIN)
    .persist()
    .post(GRAPHQL)
    // nock 15 hands a reply function the request itself
    .reply(200, async (req: Request) => {
      const body = (await req.json()) as { query: string; variables: any };
      const name = /(query|mutation) (\w+)/.exec(body.query)?.[2] ?? '';
      const queue = handlers[name];
      if (!queue?.length) return { errors: [{ message: `unexpected ${name}` }] };
      const h = queue.length > 1 ? queue.shift()! : queue[0];
      return h(body.variables);
    });
}

async function sessionToken() {
  return (await getJwt('test-shop', API_KEY, SECRET)).token;
}

async function waitFor<T>(fn: () => Promise<T | null | undefined | false>, ms = 60_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 150));
  }
}

describe('3D models to product media', () => {
  const productImages = (vars: any) => ({ data: { product: { id: vars.id, title: 'Runner', images: { nodes: [0, 1, 2, 3].map((i) => ({ url: `${imageBase}/${i}.png` })) } } } });
  const staged = () => ({ data: { stagedUploadsCreate: { stagedTargets: [{ url: 'https://shopify-staged-uploads.storage.googleapis.com/', resourceUrl: 'https://shopify-staged-uploads.storage.googleapis.com/tmp/1/model.glb', parameters: [{ name: 'key', value: 'tmp/1/model.glb' }, { name: 'policy', value: 'p' }] }], userErrors: [] } } });
  const attached = (vars: any) => ({ data: { productUpdate: { product: { id: vars.product.id, media: { nodes: [{ id: 'gid://shopify/Model3d/555', mediaContentType: 'MODEL_3D', status: 'UPLOADED', alt: vars.media[0].alt }] } }, userErrors: [] } } });
  const status = (s: string) => () => ({ data: { node: { id: 'gid://shopify/Model3d/555', status: s, mediaErrors: s === 'FAILED' ? [{ code: 'MODEL3D_PROCESSING_FAILURE', message: 'The model could not be processed' }] : [], sources: [] } } });

  async function generate(productId: string) {
    const r = await fetch(`${svc.api}/shopify/api/products/${productId}/3d`, { method: 'POST', headers: { authorization: `Bearer ${await sessionToken()}` } });
    const body = await r.json();
    expect(r.status, JSON.stringify(body)).toBe(200);
    return body.generation as { id: string; jobId: string };
  }
  async function settle(id: string) {
    return waitFor(async () => {
      await c.sweepMedia();
      const m = (await c.store.media({ platform: PLATFORM, shop: SHOP })).find((x) => x.id === id)!;
      return m.status === 'ready' || m.status === 'failed' ? m : null;
    }, 90_000);
  }

  it('runs shoe-3d on the product images, uploads the GLB with its size, attaches it as MODEL_3D and follows it to READY', async () => {
    if (!(await c.store.getInstall(PLATFORM, SHOP))) await install();
    let uploadedBytes = 0;
    const storage = nock('https://shopify-staged-uploads.storage.googleapis.com').post('/').reply(201, async (req: Request) => {
      uploadedBytes = (await req.arrayBuffer()).byteLength;
      return '';
    });
    let stagedVars: any;
    graphql({
      FitroomProductImages: [productImages],
      FitroomStagedUpload: [(v) => ((stagedVars = v), staged())],
      FitroomAttachModel: [attached],
      FitroomMediaStatus: [status('PROCESSING'), status('READY')],
    });
    const g = await generate('111');
    const done = await settle(g.id);
    expect(done).toMatchObject({ status: 'ready', mediaId: 'gid://shopify/Model3d/555', productId: 'gid://shopify/Product/111' });
    expect(storage.isDone()).toBe(true);
    expect(stagedVars.input[0]).toMatchObject({ resource: 'MODEL_3D', mimeType: 'model/gltf-binary', httpMethod: 'POST' });
    expect(Number(stagedVars.input[0].fileSize)).toBeGreaterThan(1000);
    expect(uploadedBytes).toBeGreaterThan(Number(stagedVars.input[0].fileSize));
  }, 120_000);

  it('turns userErrors, media FAILED, throttling, a revoked token and an uninstall into clear outcomes', async () => {
    if (!(await c.store.getInstall(PLATFORM, SHOP))) await install();
    nock('https://shopify-staged-uploads.storage.googleapis.com').persist().post('/').reply(201, '');
    // one real model, reused by the rows below
    graphql({ FitroomProductImages: [productImages], FitroomStagedUpload: [() => ({ data: { stagedUploadsCreate: { stagedTargets: [], userErrors: [{ field: ['input', '0', 'fileSize'], message: 'File size is too large' }] } } })] });
    const g1 = await generate('201');
    const f1 = await settle(g1.id);
    expect(f1.status).toBe('failed');
    expect(f1.error).toMatch(/Shopify refused the upload: input\.0\.fileSize: File size is too large/);

    const reuse = async (productId: string) => {
      const row = { id: crypto.randomUUID(), platform: PLATFORM, shop: SHOP, productId, jobId: g1.jobId };
      await c.store.addMedia(row);
      return row.id;
    };
    nock.cleanAll();
    nock('https://shopify-staged-uploads.storage.googleapis.com').persist().post('/').reply(201, '');
    let throttled = 0;
    graphql({
      FitroomStagedUpload: [() => (throttled++ === 0 ? { errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED' } }], extensions: { cost: { requestedQueryCost: 10, throttleStatus: { currentlyAvailable: 0, restoreRate: 100 } } } } : staged())],
      FitroomAttachModel: [attached],
      FitroomMediaStatus: [status('FAILED')],
    });
    const f2 = await settle(await reuse('gid://shopify/Product/202'));
    expect(throttled).toBeGreaterThanOrEqual(2);
    expect(f2.status).toBe('failed');
    expect(f2.error).toMatch(/could not process the 3D model: MODEL3D_PROCESSING_FAILURE/);

    nock.cleanAll();
    nock(ADMIN).persist().post(GRAPHQL).reply(401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
    // the one renewal after a 401 is refused too: the token was revoked
    nock(ADMIN).persist().post('/admin/oauth/access_token').reply(400, { error: 'invalid_grant', error_description: 'The refresh token is invalid' });
    const f3 = await settle(await reuse('gid://shopify/Product/203'));
    expect(f3.status).toBe('failed');
    expect(f3.error).toMatch(/re-authorize/);
    expect((await c.store.getInstall(PLATFORM, SHOP))!.status).toBe('needs_reauth');

    // uninstalled while the model was generating
    nock.cleanAll();
    const id4 = await reuse('gid://shopify/Product/204');
    const inst = (await c.store.getInstall(PLATFORM, SHOP))!;
    await c.store.saveInstall({ ...inst, status: 'uninstalled', uninstalledAt: new Date() });
    const f4 = await settle(id4);
    expect(f4.status).toBe('failed');
    expect(f4.error).toMatch(/uninstalled Fitroom before the model could be attached/);
    await install();
  }, 150_000);
});

describe('uninstall and redaction', () => {
  async function shopperJob(customer: string, garment: 'top' | 'top2' = 'top') {
    const img = await tryOnImages();
    const r = await fetch(`${svc.api}/shopify/proxy/api/v1/virtual-fitting?${signProxyQuery(proxyParams(customer))}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-fitroom-consent': '1' }, body: JSON.stringify({ personImages: [img.face], topGarment: img[garment], options: { quality: 'draft' } }) });
    expect(r.status).toBe(202);
    return (await r.json()).jobId as string;
  }
  const count = async (owner: string) => Number((await svc.fitroom.pool.query<{ n: string }>('select (select count(*) from jobs where owner_hash = $1) + (select count(*) from files where owner_hash = $1) as n', [owner])).rows[0].n);

  it('customers/redact erases exactly that customer; data_request reports what is held; uninstall revokes and stops; shop/redact erases the shop', async () => {
    if (!(await c.store.getInstall(PLATFORM, SHOP))) await install();
    const a = await shopperJob('3001');
    const b = await shopperJob('3002');
    await waitFor(async () => (await svc.fitroom.pool.query(`select 1 from jobs where id = any($1::uuid[]) and status in ('completed', 'failed')`, [[a, b]])).rowCount === 2);
    const before = { a: await count(shopperOwner(SHOP, '3001')), b: await count(shopperOwner(SHOP, '3002')) };
    expect(before.a).toBeGreaterThan(1);
    expect(before.b).toBeGreaterThan(0);

    const report = await webhook('customers/data_request', { shop_domain: SHOP, customer: { id: 3001 }, data_request: { id: 9001 } });
    expect(report.body).toMatchObject({ topic: 'CUSTOMERS_DATA_REQUEST' });
    expect(report.body.jobs).toBeGreaterThan(0);
    const exported = await c.files.get(report.body.exportFileId);
    const doc = JSON.parse(new TextDecoder().decode((await c.files.read(exported!))!));
    expect(doc.holds.jobs.map((j: { id: string }) => j.id)).toContain(a);
    expect(exported!.ownerHash).toBe(merchantOwner(SHOP));

    const redact = await webhook('customers/redact', { shop_domain: SHOP, customer: { id: 3001 }, orders_to_redact: [] });
    expect(redact.status).toBe(200);
    expect(await count(shopperOwner(SHOP, '3001'))).toBe(0);
    expect(await count(shopperOwner(SHOP, '3002'))).toBe(before.b);

    const inst = (await c.store.getInstall(PLATFORM, SHOP))!;
    const pending = await shopperJob('3002', 'top2');
    const gone = await webhook('app/uninstalled', { id: 1, name: 'Test shop', domain: SHOP, myshopify_domain: SHOP });
    expect(gone.status).toBe(200);
    expect(await c.credentials.active(inst.keyId!)).toBeNull();
    expect((await c.store.getInstall(PLATFORM, SHOP))!.status).toBe('uninstalled');
    const state = await svc.fitroom.pool.query<{ status: string }>('select status from jobs where id = $1', [pending]);
    expect(['cancelled', 'completed', 'failed']).toContain(state.rows[0].status);
    // the storefront is closed, data kept until shop/redact
    expect((await fetch(`${svc.api}/shopify/proxy/api/v1/jobs/${pending}?${signProxyQuery(proxyParams('3002'))}`)).status).toBe(401);
    expect(await count(shopperOwner(SHOP, '3002'))).toBeGreaterThan(0);

    const shopGone = await webhook('shop/redact', { shop_id: 1, shop_domain: SHOP });
    expect(shopGone.status).toBe(200);
    expect(await count(shopperOwner(SHOP, '3002'))).toBe(0);
    expect(await count(merchantOwner(SHOP))).toBe(0);
    expect(await c.store.getInstall(PLATFORM, SHOP)).toBeNull();

    // a reinstall starts a fresh account key
    expect((await install()).status).toBe(302);
    const again = (await c.store.getInstall(PLATFORM, SHOP))!;
    expect(again.keyId).not.toBe(inst.keyId);
  }, 150_000);
});

describe('the embedded admin', () => {
  it('exchanges a first session token for the offline token, then lists products', async () => {
    const shop = 'exchange-shop.myshopify.com';
    let exchange: Record<string, string> | null = null;
    nock(`https://${shop}`)
      .post('/admin/oauth/access_token')
      .reply(200, async (req: Request) => {
        exchange = (await req.json()) as Record<string, string>;
        return { access_token: 'shpat_exchanged', scope: 'read_products,write_products,write_app_proxy', expires_in: 3600, refresh_token: 'shprt_exchanged', refresh_token_expires_in: 7_776_000 };
      });
    nock(`https://${shop}`).post(GRAPHQL).reply(200, { data: { products: { nodes: [{ id: 'gid://shopify/Product/1', title: 'Boot', images: { nodes: [] }, media: { nodes: [] }, sizeChart: null }] } } });
    const token = (await getJwt('exchange-shop', API_KEY, SECRET)).token;
    const r = await fetch(`${svc.api}/shopify/api/products`, { headers: { authorization: `Bearer ${token}` } });
    const body = await r.json();
    expect(r.status, JSON.stringify(body)).toBe(200);
    expect(body.products[0].title).toBe('Boot');
    expect(exchange!.grant_type).toBe('urn:ietf:params:oauth:grant-type:token-exchange');
    expect(exchange!.subject_token).toBe(token);
    expect(exchange!.requested_token_type).toBe('urn:shopify:params:oauth:token-type:offline-access-token');
    expect(exchange!.expiring).toBe('1');
    expect((await c.offlineSession(shop)).accessToken).toBe('shpat_exchanged');
    expect((await c.store.getInstall(PLATFORM, shop))!.status).toBe('installed');
    // no or a forged session token: 401 in the envelope
    expect((await fetch(`${svc.api}/shopify/api/products`)).status).toBe(401);
    expect((await fetch(`${svc.api}/shopify/api/products`, { headers: { authorization: 'Bearer abc.def.ghi' } })).status).toBe(401);
  });

  it('stores a valid size chart as the product metafield and refuses an invalid one before calling Shopify', async () => {
    if (!(await c.store.getInstall(PLATFORM, SHOP)) || (await c.store.getInstall(PLATFORM, SHOP))!.status !== 'installed') await install();
    const token = await sessionToken();
    let sent: any = null;
    graphql({ FitroomSizeChart: [(v) => ((sent = v), { data: { metafieldsSet: { metafields: [{ id: 'gid://shopify/Metafield/1', namespace: 'app--1--fitroom', key: 'size_chart' }], userErrors: [] } } })] });
    const chart = { category: 'top', sizeChart: { version: 1, basis: 'body', unit: 'cm', sizes: [{ label: 'M', measurements: { chest: { min: 92, max: 100 } } }] } };
    const ok = await fetch(`${svc.api}/shopify/api/products/111/size-chart`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(chart) });
    expect(ok.status).toBe(200);
    expect(sent.metafields[0]).toMatchObject({ ownerId: 'gid://shopify/Product/111', namespace: '$app:fitroom', key: 'size_chart', type: 'json' });
    expect(JSON.parse(sent.metafields[0].value)).toEqual(chart);
    sent = null;
    const bad = await fetch(`${svc.api}/shopify/api/products/111/size-chart`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ category: 'top', sizeChart: { version: 2, basis: 'garment', unit: 'cm', sizes: [] } }) });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe('VALIDATION_ERROR');
    expect(sent).toBeNull();
  });

  it('digitizes a collection: a generation per product with images, the others skipped with the reason', async () => {
    if ((await c.store.getInstall(PLATFORM, SHOP))?.status !== 'installed') await install();
    graphql({
      FitroomCollection: [
        () => ({
          data: { collection: { id: 'gid://shopify/Collection/9', title: 'Sneakers', products: { nodes: [
            { id: 'gid://shopify/Product/301', title: 'Runner', images: { nodes: [0, 1, 2, 3].map((i) => ({ url: `${imageBase}/${i}.png` })) } },
            { id: 'gid://shopify/Product/302', title: 'No photos', images: { nodes: [] } },
          ] } } },
        }),
      ],
    });
    const r = await fetch(`${svc.api}/shopify/api/collections/9/3d`, { method: 'POST', headers: { authorization: `Bearer ${await sessionToken()}` } });
    const body = await r.json();
    expect(r.status, JSON.stringify(body)).toBe(200);
    expect(body.generations.map((g: { productId: string }) => g.productId)).toEqual(['gid://shopify/Product/301']);
    expect(body.skipped).toEqual([{ productId: 'gid://shopify/Product/302', reason: 'no images' }]);
    const listed = await fetch(`${svc.api}/shopify/api/generations`, { headers: { authorization: `Bearer ${await sessionToken()}` } });
    expect((await listed.json()).generations.some((g: { productId: string }) => g.productId === 'gid://shopify/Product/301')).toBe(true);
  });
});
