/**
 * The embedded admin's server side over real HTTP: GET /shopify/api/overview (the onboarding
 * checklist from the live theme's files, this month's figures counted from the storefront's proxied
 * calls), and the size-chart editor's rules. nock answers only for Shopify's Admin GraphQL (shapes
 * from shopify.dev's 2026-10 reference: `themes(roles: [MAIN]) { files }`, and the access-denied
 * error Shopify gives without the `read_themes` scope).
 */
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Session } from '@shopify/shopify-api';
import { type TestService } from '../../support/harness.ts';
import { images as tryOnImages } from '../../plugins/tryon/helpers.ts';
import { PLATFORM, type ShopifyConnector } from '../../../connectors/shopify/shopify.ts';
import { CONSENT_HEADER, CONSENT_VERSION } from '../../../connectors/shopify/proxy.ts';
import { themeState, type ThemeFiles } from '../../../connectors/shopify/admin/overview.ts';
import { PLATFORM_USAGE } from '../../../core/ports/platform-usage.ts';
import { signProxyQuery, signSessionToken, startShopifyService } from './support.ts';

const SHOP = 'overview-shop.myshopify.com';
const API_KEY = 'testApiKey';
const SECRET = 'testApiSecretKey';
const GRAPHQL = '/admin/api/2026-10/graphql.json';
const HERE = path.dirname(fileURLToPath(import.meta.url));

let svc: TestService;
let c: ShopifyConnector;

beforeAll(async () => {
  ({ svc, c } = await startShopifyService({ env: { BOT_VERIFIER: 'off' } }));
  await c.completeInstall(new Session({ id: `offline_${SHOP}`, shop: SHOP, state: 'x', isOnline: false, accessToken: 'shpat_overview', scope: 'read_products,write_products,write_app_proxy' }));
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
}, 120_000);

afterAll(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  await svc?.close();
});

const files = (...nodes: [string, unknown][]): ThemeFiles => ({ themes: { nodes: [{ id: 'gid://shopify/OnlineStoreTheme/1', name: 'Dawn', files: { nodes: nodes.map(([filename, json]) => ({ filename, body: { content: typeof json === 'string' ? json : JSON.stringify(json) } })) } }] } });
const embed = (disabled: boolean) => ({ current: { blocks: { a1: { type: 'shopify://apps/fitroom/blocks/fitroom-embed/0b4a7e2c-1111-4c3e-9d0a-5b2f7c9e8a01', disabled } } } });
const productTemplate = { sections: { main: { type: 'main-product', blocks: { fr: { type: 'shopify://apps/fitroom/blocks/product-fitroom/0b4a7e2c-1111-4c3e-9d0a-5b2f7c9e8a01', settings: {} } } } } };

describe('the checklist reads the live theme', () => {
  it('finds the app embed on (not when disabled), the product block in any product template, and says unknown without a theme', () => {
    const header = '/*\n * IMPORTANT: The contents of this file are auto-generated.\n */\n';
    expect(themeState(files(['config/settings_data.json', header + JSON.stringify(embed(false))], ['templates/product.json', { sections: {} }]))).toEqual({ appEmbed: true, productBlock: false });
    expect(themeState(files(['config/settings_data.json', embed(true)], ['templates/product.boots.json', productTemplate]))).toEqual({ appEmbed: false, productBlock: true });
    // a preset name instead of settings, or a file that is not JSON
    expect(themeState(files(['config/settings_data.json', { current: 'Default' }], ['templates/product.json', '{not json']))).toEqual({ appEmbed: false, productBlock: false });
    expect(themeState({ themes: { nodes: [] } })).toEqual({ appEmbed: null, productBlock: null });
  });
});

describe('GET /shopify/api/overview', () => {
  const get = async (token?: string) => {
    const r = await fetch(`${svc.api}/shopify/api/overview`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: r.status, body: await r.json() };
  };

  it('needs the session token', async () => {
    const none = await get();
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBeTruthy();
    expect((await get(signSessionToken(SHOP, API_KEY, 'another-secret-entirely'))).status).toBe(401);
  });

  it('counts the storefront\'s successful try-ons (not refused size calls) and reports theme checks as unknown without read_themes', async () => {
    const proxied = (p: string, body: unknown) => fetch(`${svc.api}/shopify/proxy${p}?${signProxyQuery(SECRET, [['shop', SHOP], ['logged_in_customer_id', '77'], ['path_prefix', '/apps/fitroom'], ['timestamp', String(Math.floor(Date.now() / 1000))]])}`, { method: 'POST', headers: { 'content-type': 'application/json', [CONSENT_HEADER]: CONSENT_VERSION }, body: JSON.stringify(body) });
    const img = await tryOnImages();
    const tryOn = await proxied('/api/v1/virtual-fitting', { personImages: [img.face], topGarment: img.top, options: { quality: 'draft' } });
    expect(tryOn.status, await tryOn.clone().text()).toBe(202);
    const refused = await proxied('/api/v1/size-fitting', { digitalTwinId: 'f'.repeat(64), products: [{ id: 'p', category: 'top', sizeChart: { version: 1, basis: 'body', unit: 'cm', sizes: [{ label: 'M', measurements: { chest: { min: 92, max: 100 } } }] } }] });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    // a forged proxy call counts nothing either
    expect((await fetch(`${svc.api}/shopify/proxy/api/v1/virtual-fitting?shop=${SHOP}&signature=00`, { method: 'POST', headers: { 'content-type': 'application/json', [CONSENT_HEADER]: CONSENT_VERSION }, body: '{}' })).status).toBe(401);

    nock(`https://${SHOP}`).post(GRAPHQL).reply(200, { errors: [{ message: 'Access denied for themes field. Required access: `read_themes` access scope.', extensions: { code: 'ACCESS_DENIED' } }] });
    const r = await get(signSessionToken(SHOP, API_KEY, SECRET));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.shop).toBe(SHOP);
    expect(r.body.checklist).toEqual([
      { id: 'appEmbed', done: null, url: `https://${SHOP}/admin/themes/current/editor?context=apps&template=index&activateAppId=${API_KEY}/fitroom-embed` },
      { id: 'productBlock', done: null, url: `https://${SHOP}/admin/themes/current/editor?template=product&addAppBlockId=${API_KEY}/product-fitroom&target=mainSection` },
      { id: 'sizeChart', done: false },
      { id: 'firstModel', done: false },
    ]);
    const now = new Date();
    expect(r.body.month).toEqual({ start: `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}-01`, tryOns: 1, sizeRecommendations: 0, models3d: 0 });
    const stored = await svc.fitroom.pool.query('select metric, count::int as n from platform_usage where platform = $1 and shop = $2', [PLATFORM, SHOP]);
    expect(stored.rows).toEqual([{ metric: 'tryon', n: 1 }]);
  }, 120_000);

  it('forgets the shop\'s counters with the rest of its data on shop/redact', async () => {
    await c.api.get(PLATFORM_USAGE).count(PLATFORM, SHOP, 'size_chart');
    const raw = JSON.stringify({ shop_id: 1, shop_domain: SHOP });
    const res = await fetch(`${svc.api}/shopify/webhooks`, { method: 'POST', body: raw, headers: {
      'content-type': 'application/json', 'x-shopify-topic': 'shop/redact', 'x-shopify-shop-domain': SHOP, 'x-shopify-webhook-id': crypto.randomUUID(),
      'x-shopify-api-version': '2026-10', 'x-shopify-event-id': crypto.randomUUID(), 'x-shopify-triggered-at': new Date().toISOString(),
      'x-shopify-hmac-sha256': createHmac('sha256', SECRET).update(raw).digest('base64'),
    } });
    expect(res.status).toBe(200);
    expect((await svc.fitroom.pool.query('select 1 from platform_usage where platform = $1 and shop = $2', [PLATFORM, SHOP])).rowCount).toBe(0);
  });
});

describe('the size-chart editor\'s rules', () => {
  it('checks every cell: numbers, both ends, min below max, sizes in order, overlaps, labels, a measurement for the garment', async () => {
    const { validateChart } = await import(pathToFileURL(path.resolve(HERE, '../../../connectors/shopify/admin/size-chart-rules.js')).href);
    const state = (rows: [string, Record<string, [string, string]>][], category = 'top', unit = 'cm') => ({
      category, unit, columns: ['chest', 'waist', 'hip'],
      rows: rows.map(([label, m]) => ({ label, m: Object.fromEntries(Object.entries(m).map(([d, [min, max]]) => [d, { min, max }])) })),
    });
    const good = validateChart(state([['S', { chest: ['84', '92'], waist: ['70', '78'] }], ['M', { chest: ['92', '100'], waist: ['78,5', '86'] }]]));
    expect(good.errors).toEqual({});
    expect(good.sizeChart).toEqual({ version: 1, basis: 'body', unit: 'cm', sizes: [
      { label: 'S', measurements: { chest: { min: 84, max: 92 }, waist: { min: 70, max: 78 } } },
      { label: 'M', measurements: { chest: { min: 92, max: 100 }, waist: { min: 78.5, max: 86 } } },
    ] });

    const bad = validateChart(state([
      ['S', { chest: ['84', '92'], waist: ['-1', '78'] }],
      ['s', { chest: ['abc', '92'], waist: ['80', '79'] }],
      ['L', { chest: ['80', '90'], waist: ['70', ''] }],
      ['', { hip: ['90', '400'] }],
      ['XL', { chest: ['84', '100'] }],
    ]));
    expect(bad.sizeChart).toBeNull();
    expect(bad.errors).toEqual({
      '0.waist.min': 'Must be more than 0',
      '1.label': '"s" is already a size',
      '1.chest.min': 'Enter a number',
      '1.waist.max': 'Must be more than the min (80)',
      '2.chest.min': 'Must come after S (84–92): list sizes smallest first',
      '2.waist.max': 'Enter the max too',
      '3.label': 'Enter a size label',
      '3.hip.max': 'Too large for cm (at most 300)',
      '4.chest.min': 'Overlaps L (80–90) by more than half its range',
    });
    // a row that gives no measurement for the garment; inches have their own bound
    expect(validateChart(state([['M', { hip: ['90', '100'] }]])).errors).toEqual({ '0.label': 'Give chest, waist for a top' });
    expect(validateChart(state([['M', { chest: ['36', '130'] }]], 'top', 'in')).errors).toEqual({ '0.chest.max': 'Too large for in (at most 120)' });
    expect(validateChart(state([])).general).toEqual(['Add at least one size.']);
  });
});
