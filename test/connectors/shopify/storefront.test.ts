/**
 * The storefront side of the Shopify app over real HTTP on loopback: the 3D viewer through the app
 * proxy, the consent notice and the refusal of uploads without consent, per-shopper rate-limit
 * buckets under the shop's total, the shop's photo retention (admin settings with App Bridge session
 * tokens from @shopify/shopify-api's own test helper getJwt) enforced by the purge, and the theme app
 * extension's assets within Theme Check's budget. No Shopify host is called.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solveChallenge } from 'altcha-lib/v1';
import { readFileSync } from 'node:fs';
import { Session } from '@shopify/shopify-api';
import { getJwt } from '@shopify/shopify-api/test-helpers';
import { startTestService, type TestService } from '../../support/harness.ts';
import { loadShopifySettings } from '../../../connectors/shopify/settings.ts';
import { shopifyPlugin, shopperOwner, merchantOwner, type ShopifyConnector } from '../../../connectors/shopify/shopify.ts';
import { mountShopify } from '../../../connectors/shopify/routes.ts';
import { SHOP_BOUND_FACTOR } from '../../../connectors/shopify/proxy.ts';
import { purgeShopperPhotos } from '../../../connectors/shopify/storefront.ts';
import { DIALOG_ASSET, THEME_ASSET_BUDGET_GZIP, themeAssetSizes } from '../../../connectors/shopify/theme-assets.ts';
import { WIDGET_FILE } from '../../../plugins/storefront/widget-size.ts';
import { RATE_LIMITS } from '../../../core/pipeline.ts';
import { TOKENS } from '../../../core/tokens.ts';
import { signProxyQuery, TEST_TOKEN_KEYS, startShopifyService } from './support.ts';

const API_KEY = 'testApiKey';
const SECRET = 'testApiSecretKey';
const SHOP = 'store-front.myshopify.com';
const OTHER = 'other-front.myshopify.com';

let svc: TestService;
let c: ShopifyConnector;

beforeAll(async () => {
  ({ svc, c } = await startShopifyService({ env: { BOT_VERIFIER: 'off' } }));
  for (const shop of [SHOP, OTHER]) await c.completeInstall(new Session({ id: `offline_${shop}`, shop, state: 'x', isOnline: false, accessToken: 'shpat_x', scope: 'write_products' }));
}, 120_000);

afterAll(async () => {
  await svc?.close();
});

/** A request as Shopify's app proxy forwards it: signed query, the shopper's address in X-Forwarded-For. */
function proxied(path: string, opts: { shop?: string; customer?: string; address?: string; method?: string; headers?: Record<string, string>; body?: string; api?: string } = {}) {
  const q = signProxyQuery(SECRET, [['shop', opts.shop ?? SHOP], ['logged_in_customer_id', opts.customer ?? ''], ['path_prefix', '/apps/fitroom'], ['timestamp', String(Math.floor(Date.now() / 1000))]]);
  return fetch(`${opts.api ?? svc.api}/shopify/proxy${path}?${q}`, { method: opts.method ?? 'GET', headers: { ...(opts.address ? { 'x-forwarded-for': opts.address } : {}), ...opts.headers }, body: opts.body });
}

const admin = async (shop: string, method: string, body?: unknown) =>
  fetch(`${svc.api}/shopify/api/settings`, { method, headers: { authorization: `Bearer ${(await getJwt(shop.replace('.myshopify.com', ''), API_KEY, SECRET)).token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

describe('the storefront through the app proxy', () => {
  it('serves the 3D viewer and the widget through the proxy, signed only', async () => {
    const viewer = await proxied('/widget/v1/model-viewer.min.js');
    expect(viewer.status).toBe(200);
    expect(viewer.headers.get('content-type')).toMatch(/javascript/);
    expect((await viewer.text()).length).toBeGreaterThan(100_000);
    expect((await proxied('/widget/v1/fitroom.js')).status).toBe(200);
    expect((await fetch(`${svc.api}/shopify/proxy/widget/v1/model-viewer.min.js?shop=${SHOP}`)).status).toBe(401);
  });

  it('tells the consent step what is sent, who processes it and how long it is kept; uploads without consent are refused', async () => {
    const notice = await proxied('/storefront/v1/consent');
    const body = await notice.json();
    expect(notice.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ version: '1', photoRetentionHours: 24, processor: { name: 'Fitroom', host: 'my-test-app.myshopify.io' } });
    expect(body.sent.join(' ')).toMatch(/photo/);
    expect((await fetch(`${svc.api}/shopify/proxy/storefront/v1/consent?shop=${SHOP}`)).status).toBe(401);

    const fitting = JSON.stringify({ personImages: ['data:image/png;base64,AAAA'], topGarment: 'https://example.com/x.png' });
    const before = await svc.fitroom.pool.query<{ n: number }>('select count(*)::int as n from jobs where owner_hash = $1', [shopperOwner(SHOP, '77')]);
    for (const path of ['/api/v1/virtual-fitting', '/api/v1/digital-twin']) {
      const refused = await proxied(path, { method: 'POST', customer: '77', headers: { 'content-type': 'application/json' }, body: fitting });
      expect(refused.status).toBe(403);
      expect((await refused.json()).error.code).toBe('FORBIDDEN');
    }
    const after = await svc.fitroom.pool.query<{ n: number }>('select count(*)::int as n from jobs where owner_hash = $1', [shopperOwner(SHOP, '77')]);
    expect(after.rows[0].n).toBe(before.rows[0].n);
    // with the header the request goes on to the pipeline (here: its validation)
    const accepted = await proxied('/api/v1/virtual-fitting', { method: 'POST', customer: '77', headers: { 'content-type': 'application/json', 'x-fitroom-consent': '1' }, body: '{}' });
    expect(accepted.status).toBe(400);
  });

  it('gives each guest their own rate-limit bucket (by the address Shopify forwards) and each customer theirs, under the shop\'s total', async () => {
    const submit = (who: { address?: string; customer?: string; shop?: string }) =>
      proxied('/api/v1/virtual-fitting', { ...who, method: 'POST', headers: { 'content-type': 'application/json', 'x-fitroom-consent': '1' }, body: '{}' });
    const limit = RATE_LIMITS.submission;
    // guest A uses up their minute: every call is counted (each answers 400 for the empty body)
    const statuses: number[] = [];
    for (let i = 0; i < limit; i++) statuses.push((await submit({ address: '203.0.113.10' })).status);
    expect(new Set(statuses)).toEqual(new Set([400]));
    const over = await submit({ address: '203.0.113.10' });
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
    // a client-supplied X-Forwarded-For entry before Shopify's does not make a new guest
    expect((await submit({ address: '198.51.100.99, 203.0.113.10' })).status).toBe(429);
    // guest B and a logged-in customer are not affected
    const b = await submit({ address: '203.0.113.20' });
    expect(b.status).toBe(400);
    expect(b.headers.get('x-ratelimit-remaining')).toBe(String(limit - 1));
    expect((await submit({ address: '203.0.113.10', customer: '9001' })).status).toBe(400);

    // the shop's total still bounds everyone: fill it up to its limit, then a new guest is refused
    const shopLimit = limit * SHOP_BOUND_FACTOR;
    const limiter = svc.fitroom.get(TOKENS.rateLimiter);
    for (let d = await limiter.consume(`submission:shopify:${SHOP}`, shopLimit, 60); d.remaining > 0; d = await limiter.consume(`submission:shopify:${SHOP}`, shopLimit, 60));
    const guestC = await submit({ address: '203.0.113.30' });
    expect(guestC.status).toBe(429);
    expect((await guestC.json()).error.message).toMatch(/shared limit/);
    expect(guestC.headers.get('x-ratelimit-limit')).toBe(String(shopLimit));
    // another shop's shoppers have their own total
    expect((await submit({ address: '203.0.113.30', shop: OTHER })).status).toBe(400);
  });
});

describe('guests with a verification pass', () => {
  it('count against their pass, not their address: a guest behind the same address keeps their own bucket', async () => {
    // a second API process on the same database, with bot verification on (the builtin proof of work)
    const plugin = shopifyPlugin(loadShopifySettings({ SHOPIFY_API_KEY: API_KEY, SHOPIFY_API_SECRET: SECRET, SHOPIFY_APP_URL: 'https://my-test-app.myshopify.io', SHOPIFY_TOKEN_KEYS: TEST_TOKEN_KEYS })!);
    const bot = await startTestService({ plugins: [plugin], shareDatabaseWith: svc, worker: false, mounts: [(router, h) => mountShopify(router, { connector: plugin.connector(), pipeline: h.pipeline, http: h })] });
    try {
      const shop = 'pass-front.myshopify.com';
      await plugin.connector().completeInstall(new Session({ id: `offline_${shop}`, shop, state: 'x', isOnline: false, accessToken: 'shpat_x', scope: 'write_products' }));
      const address = '198.51.100.40';
      const submit = (headers: Record<string, string>) => proxied('/api/v1/virtual-fitting', { api: bot.api, shop, address, method: 'POST', headers: { 'content-type': 'application/json', 'x-fitroom-consent': '1', 'x-service-verification-pass-mode': 'header', ...headers }, body: '{}' });
      // the challenge, solved as the dialog does; the verified call hands back the pass in a header
      const ch = (await (await proxied('/api/v1/challenge', { api: bot.api, shop, address })).json()).challenge as { algorithm: string; challenge: string; salt: string; signature: string; maxnumber: number };
      const solved = await solveChallenge(ch.challenge, ch.salt, ch.algorithm, ch.maxnumber).promise;
      const first = await submit({ 'x-challenge-token': Buffer.from(JSON.stringify({ ...ch, number: solved!.number })).toString('base64') });
      expect(first.status).toBe(400);
      const pass = first.headers.get('x-service-verification-pass')!;
      expect(pass).toBeTruthy();
      const statuses: number[] = [];
      for (let i = 0; i < RATE_LIMITS.submission; i++) statuses.push((await submit({ 'x-service-verification-pass': pass })).status);
      expect(new Set(statuses)).toEqual(new Set([400]));
      expect((await submit({ 'x-service-verification-pass': pass })).status).toBe(429);
      // another guest at the same address, without that pass: their own bucket (then asked to verify)
      const other = await submit({});
      expect(other.status).toBe(403);
      expect((await other.json()).error.code).toBe('BOT_VERIFICATION_REQUIRED');
      // a forged pass is no bucket of its own: it counts against the address
      const forged = await submit({ 'x-service-verification-pass': `${pass.split('.')[0]}.AAAA` });
      expect(forged.headers.get('x-ratelimit-remaining')).toBe(String(RATE_LIMITS.submission - 3));
    } finally {
      await bot.close();
    }
  }, 120_000);
});

describe('photo retention', () => {
  it('is a per-shop setting for the embedded admin (session token), checked, and shown in the consent step', async () => {
    const first = await admin(SHOP, 'GET');
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ photoRetentionHours: 24, limits: { photoRetentionHours: { min: 1, max: 720, default: 24 } } });
    expect((await fetch(`${svc.api}/shopify/api/settings`)).status).toBe(401);
    for (const bad of [{ photoRetentionHours: 0 }, { photoRetentionHours: 721 }, { photoRetentionHours: 2.5 }, { photoRetentionHours: '6' }, { other: 1 }, [1]]) {
      const r = await admin(SHOP, 'PUT', bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect((await r.json()).error.code).toBe('VALIDATION_ERROR');
    }
    const saved = await admin(SHOP, 'PUT', { photoRetentionHours: 2 });
    expect((await saved.json()).photoRetentionHours).toBe(2);
    expect((await (await admin(SHOP, 'GET')).json()).photoRetentionHours).toBe(2);
    expect((await (await admin(OTHER, 'GET')).json()).photoRetentionHours).toBe(24);
    expect((await (await proxied('/storefront/v1/consent')).json()).photoRetentionHours).toBe(2);
  });

  it('is enforced by the purge: shoppers\' photos older than the shop\'s retention go, newer ones and the merchant\'s stay', async () => {
    await c.store.rememberCustomer('shopify', SHOP, '5150');
    const put = async (owner: string, hoursAgo: number) => {
      const f = await c.files.store(new TextEncoder().encode(`photo ${owner} ${hoursAgo}`), { ownerHash: owner, contentType: 'image/png', filename: 'p.png', ttlSeconds: 30 * 86_400 });
      await svc.fitroom.pool.query(`update files set created_at = now() - make_interval(hours => $2) where id = $1`, [f.id, hoursAgo]);
      return f.id;
    };
    const oldGuest = await put(shopperOwner(SHOP), 3);
    const oldCustomer = await put(shopperOwner(SHOP, '5150'), 3);
    const fresh = await put(shopperOwner(SHOP), 1);
    const merchant = await put(merchantOwner(SHOP), 3);
    const otherShop = await put(shopperOwner(OTHER), 3); // 24 h retention there
    expect(await purgeShopperPhotos(c)).toBeGreaterThanOrEqual(2);
    const left = await svc.fitroom.pool.query<{ id: string }>('select id from files where id = any($1::uuid[])', [[oldGuest, oldCustomer, fresh, merchant, otherShop]]);
    expect(left.rows.map((r) => r.id).sort()).toEqual([fresh, merchant, otherShop].sort());
  });
});

describe('the theme app extension', () => {
  it('ships the loader and the dialog code within Theme Check\'s 10 KB compressed budget per file; the dialog code is the widget', () => {
    const sizes = themeAssetSizes();
    console.log(sizes.map((s) => `${s.name}: ${s.bytes} B, ${s.gzipped} B gzipped`).join('; '));
    expect(sizes.map((s) => s.name)).toEqual(['fitroom-dialog.js', 'fitroom-loader.js']);
    for (const s of sizes) expect(s.gzipped, s.name).toBeLessThanOrEqual(THEME_ASSET_BUDGET_GZIP);
    expect(sizes.find((s) => s.name === 'fitroom-loader.js')!.gzipped).toBeLessThan(2048);
    // `npm run build:widget` copies the widget; a stale copy fails here
    expect(readFileSync(DIALOG_ASSET, 'utf8')).toBe(readFileSync(WIDGET_FILE, 'utf8'));
  });
});
