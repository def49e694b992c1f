/**
 * The embedded admin in headless Chromium, served by the app's own route, with App Bridge and
 * Polaris loaded from local stand-ins for Shopify's CDN scripts (cdn-stub/: a `shopify` global whose
 * idToken() returns a session token signed here with the app secret, a resource picker answering
 * with chosen products, a toast; the interactive Polaris elements defined minimally). Shopify's Admin
 * GraphQL is mocked with nock in this process (fixtures shaped after shopify.dev's 2026-10 reference:
 * themes/files, products, metafieldsSet); everything else is real: the page, the admin routes, the
 * token check, PostgreSQL.
 */
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Session } from '@shopify/shopify-api';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type TestService } from '../../support/harness.ts';
import { PLATFORM, type ShopifyConnector } from '../../../connectors/shopify/shopify.ts';
import { deepLinks } from '../../../connectors/shopify/admin/overview.ts';
import { PLATFORM_USAGE } from '../../../core/ports/platform-usage.ts';
import { SHOTS, launchChromium } from '../../plugins/ar-host/browser.ts';
import { signSessionToken, startShopifyService } from './support.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../../..');
const SHOP = 'admin-shop.myshopify.com';
const API_KEY = 'testApiKey';
const SECRET = 'testApiSecretKey';
const GRAPHQL = '/admin/api/2026-10/graphql.json';
const IMAGE = 'https://cdn.shopify.com/s/files/1/0001/files/red-tee.png';
const TEE = 'gid://shopify/Product/101';
/** Waits for the page on a loaded machine: on events and DOM state, never on wall-clock sleeps. */
const WAIT = { timeout: 60_000 };

let svc: TestService;
let c: ShopifyConnector;
let browser: Browser;
/** The variables of every metafieldsSet call Shopify received. */
const chartWrites: any[] = [];

/** Theme files as `OnlineStoreTheme.files` gives them: settings_data.json with Shopify's comment header. */
function themeFiles() {
  const settings = `/*\n * ------------------------------------------------------------\n * IMPORTANT: The contents of this file are auto-generated.\n * ------------------------------------------------------------\n */\n${JSON.stringify({
    current: { colors_accent_1: '#121212', blocks: { '1712345': { type: 'shopify://apps/fitroom/blocks/fitroom-embed/0b4a7e2c-1111-4c3e-9d0a-5b2f7c9e8a01', disabled: false, settings: {} } } },
  })}`;
  const product = JSON.stringify({ sections: { main: { type: 'main-product', blocks: { title: { type: 'title', settings: {} }, price: { type: 'price', settings: {} } }, block_order: ['title', 'price'] } }, order: ['main'] });
  return { data: { themes: { nodes: [{ id: 'gid://shopify/OnlineStoreTheme/1', name: 'Dawn', files: { nodes: [
    { filename: 'config/settings_data.json', body: { content: settings } },
    { filename: 'templates/product.json', body: { content: product } },
  ] } }] } } };
}

function productsPage() {
  const product = (id: number, title: string, media: { mediaContentType: string; status: string }[] = []) => ({
    id: `gid://shopify/Product/${id}`, title, handle: title.toLowerCase().replace(/\W+/g, '-'),
    images: { nodes: [{ url: IMAGE, altText: title }] }, media: { nodes: media }, sizeChart: null,
  });
  return { data: { products: { nodes: [
    product(101, 'Red T-shirt'),
    product(102, 'Canvas sneaker', [{ mediaContentType: 'MODEL_3D', status: 'READY' }]),
    product(103, 'Leather boot'),
  ] } } };
}

beforeAll(async () => {
  ({ svc, c } = await startShopifyService());
  await c.completeInstall(new Session({ id: `offline_${SHOP}`, shop: SHOP, state: 'x', isOnline: false, accessToken: 'shpat_admin', scope: 'read_products,write_products,write_app_proxy,read_themes' }));
  // a model attached last week, one that failed, and this month's storefront use
  const ready = { id: crypto.randomUUID(), platform: PLATFORM, shop: SHOP, productId: 'gid://shopify/Product/102', jobId: crypto.randomUUID() };
  const failed = { id: crypto.randomUUID(), platform: PLATFORM, shop: SHOP, productId: 'gid://shopify/Product/103', jobId: crypto.randomUUID() };
  for (const m of [ready, failed]) await c.store.addMedia(m);
  await c.store.updateMedia(ready.id, { status: 'ready', mediaId: 'gid://shopify/Model3d/9' });
  await c.store.updateMedia(failed.id, { status: 'failed', error: 'Shopify could not process the 3D model: MODEL3D_PROCESSING_FAILURE' });
  const usage = svc.fitroom.get(PLATFORM_USAGE);
  for (let i = 0; i < 7; i++) await usage.count(PLATFORM, SHOP, 'tryon');
  for (let i = 0; i < 4; i++) await usage.count(PLATFORM, SHOP, 'size_recommendation');

  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  nock(`https://${SHOP}`).persist().post(GRAPHQL).reply(200, async (req: Request) => {
    const body = (await req.json()) as { query: string; variables: any };
    const name = /(?:query|mutation) (\w+)/.exec(body.query)?.[1];
    if (name === 'FitroomThemeFiles') return themeFiles();
    if (name === 'FitroomProducts') return productsPage();
    if (name === 'FitroomSizeChart') {
      chartWrites.push(body.variables);
      return { data: { metafieldsSet: { metafields: [{ id: 'gid://shopify/Metafield/7', namespace: 'app--1--fitroom', key: 'size_chart' }], userErrors: [] } } };
    }
    return { errors: [{ message: `unexpected operation ${name}` }] };
  });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  nock.cleanAll();
  nock.enableNetConnect();
  await svc?.close();
});

/** A page of the embedded admin with Shopify's CDN answered by the stand-ins, nothing else leaving loopback. */
async function openAdmin(before?: (page: Page) => Promise<void>): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const stub = (f: string) => readFileSync(path.join(HERE, 'cdn-stub', f), 'utf8');
  const tee = readFileSync(path.join(ROOT, 'examples/storefront/red-tee.png'));
  await context.route('**/*', (route) => {
    const u = new URL(route.request().url());
    if (u.hostname === '127.0.0.1') return route.continue();
    if (u.href === 'https://cdn.shopify.com/shopifycloud/app-bridge.js') return route.fulfill({ contentType: 'text/javascript', body: stub('app-bridge.js') });
    if (u.href === 'https://cdn.shopify.com/shopifycloud/polaris.js') return route.fulfill({ contentType: 'text/javascript', body: stub('polaris.js') });
    if (u.href === IMAGE) return route.fulfill({ contentType: 'image/png', body: tee });
    return route.abort();
  });
  const token = signSessionToken(SHOP, API_KEY, SECRET);
  await context.addInitScript((cfg) => {
    (window as any).__shopifyStub = cfg;
  }, { shop: SHOP, token, picks: { product: [{ id: TEE, title: 'Red T-shirt', handle: 'red-t-shirt', images: [{ originalSrc: IMAGE }] }], collection: [] } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await before?.(page);
  const host = Buffer.from(`admin.shopify.com/store/${SHOP.split('.')[0]}`).toString('base64url');
  await page.goto(`${svc.api}/shopify/app?shop=${SHOP}&host=${host}&embedded=1`);
  return { context, page, errors };
}

const toasts = (page: Page) => page.evaluate(() => (window as any).__shopifyCalls.toasts as { message: string; isError: boolean }[]);

describe('the embedded admin (Polaris web components, App Bridge)', () => {
  it('shows the onboarding checklist from the server, and the size-chart table refuses a bad cell, then saves a good chart to the product metafield', async () => {
    // the routes of the plan, data requests, erasures and settings answer 404 here, as on a server without them
    const { context, page, errors } = await openAdmin(async (p) => void (await p.route(/\/shopify\/api\/(billing|data-requests|compliance|settings)/, (route) => route.fulfill({ status: 404, body: '' }))));
    const step = (id: string) => page.locator(`[data-step="${id}"]`);

    // the checklist: the theme has the embed on but not the block; no chart yet; a model is ready
    await expect.poll(() => page.locator('#setup-progress').textContent(), WAIT).toBe('2 of 4 steps done');
    expect(await step('appEmbed').getAttribute('data-done')).toBe('true');
    expect(await step('productBlock').getAttribute('data-done')).toBe('false');
    expect(await step('sizeChart').getAttribute('data-done')).toBe('false');
    expect(await step('firstModel').getAttribute('data-done')).toBe('true');
    expect(await step('appEmbed').locator('s-badge').textContent()).toBe('Done');
    expect(await step('productBlock').locator('s-badge').textContent()).toBe('To do');
    const links = deepLinks(SHOP, API_KEY);
    expect(links.appEmbed).toBe(`https://${SHOP}/admin/themes/current/editor?context=apps&template=index&activateAppId=${API_KEY}/fitroom-embed`);
    expect(await step('appEmbed').locator('s-button').getAttribute('href')).toBe(links.appEmbed);
    expect(await step('productBlock').locator('s-button').getAttribute('href')).toBe(`https://${SHOP}/admin/themes/current/editor?template=product&addAppBlockId=${API_KEY}/product-fitroom&target=mainSection`);
    // this month's figures
    await expect.poll(() => page.locator('[data-figure="tryOns"] s-heading').textContent(), WAIT).toBe('7');
    expect(await page.locator('[data-figure="sizeRecommendations"] s-heading').textContent()).toBe('4');
    expect(await page.locator('[data-figure="models3d"] s-heading').textContent()).toBe('1');
    // the products view: 3D state per product, a retry for the failed one
    const row = (id: number) => page.locator(`s-table-row[data-product="gid://shopify/Product/${id}"]`);
    await expect.poll(() => row(103).locator('s-badge').first().textContent(), WAIT).toBe('Failed');
    expect(await row(103).getByRole('button', { name: 'Retry' }).count()).toBe(1);
    expect(await row(103).textContent()).toContain('MODEL3D_PROCESSING_FAILURE');
    expect(await row(102).locator('s-badge').first().textContent()).toBe('Ready');
    expect(await row(101).getByRole('button', { name: 'Generate 3D' }).count()).toBe(1);
    // those sections show a short note, no error
    for (const s of ['billing', 'requests', 'settings', 'compliance']) await page.locator(`[data-empty="${s}"]`).waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'shopify-admin-page.png'), fullPage: true });
    await page.locator('#setup').screenshot({ path: path.join(SHOTS, 'shopify-admin-checklist.png') });

    // the resource picker fills the chart's product
    await page.getByRole('button', { name: 'Choose product…' }).click();
    await expect.poll(() => page.locator('#chart-product-title').textContent(), WAIT).toBe('Red T-shirt');
    expect(await page.evaluate(() => (window as any).__shopifyCalls.pickers)).toEqual([{ type: 'product', multiple: false, action: 'select' }]);

    const cell = (size: string, dim: string, end: 'min' | 'max') => page.getByLabel(`${size} ${dim} ${end}`, { exact: true });
    const fill = async (values: Record<string, [number | string, number | string, number | string, number | string]>) => {
      for (const [size, [cMin, cMax, wMin, wMax]] of Object.entries(values)) {
        await cell(size, 'chest', 'min').fill(String(cMin));
        await cell(size, 'chest', 'max').fill(String(cMax));
        await cell(size, 'waist', 'min').fill(String(wMin));
        await cell(size, 'waist', 'max').fill(String(wMax));
      }
    };
    // M's chest max below its min, L's waist not a number, L's chest inside M's range
    await fill({ S: [84, 92, 70, 78], M: [98, 90, 78, 86], L: [93, 99, '8x', 94] });
    await page.getByRole('button', { name: 'Save size chart' }).click();
    const error = (size: string, dim: string, end: string) => page.locator(`s-number-field[label="${size} ${dim} ${end}"]`).getAttribute('error');
    await expect.poll(() => error('M', 'chest', 'max'), WAIT).toBe('Must be more than the min (98)');
    expect(await error('L', 'waist', 'min')).toBe('Enter a number');
    expect(await error('S', 'chest', 'min')).toBeNull();
    expect(await page.locator('#chart-errors s-banner').getAttribute('heading')).toBe('The size chart was not saved');
    expect((await toasts(page)).at(-1)).toEqual({ message: 'Check the size chart', isError: true });
    expect(chartWrites).toHaveLength(0);
    await page.locator('#chart').screenshot({ path: path.join(SHOTS, 'shopify-admin-size-chart-errors.png') });

    // a range overlapping the size before it by more than half is refused too
    await fill({ M: [87, 100, 78, 86], L: [100, 108, 86, 94] });
    await page.getByRole('button', { name: 'Save size chart' }).click();
    await expect.poll(() => error('M', 'chest', 'min'), WAIT).toBe('Overlaps S (84–92) by more than half its range');
    expect(chartWrites).toHaveLength(0);

    await cell('M', 'chest', 'min').fill('92');
    await page.getByRole('button', { name: 'Save size chart' }).click();
    await expect.poll(async () => (await toasts(page)).at(-1)?.message, WAIT).toBe('Size chart saved for Red T-shirt');
    expect(chartWrites).toHaveLength(1);
    const write = chartWrites[0].metafields[0];
    expect(write).toMatchObject({ ownerId: TEE, namespace: '$app:fitroom', key: 'size_chart', type: 'json' });
    expect(JSON.parse(write.value)).toEqual({ category: 'top', sizeChart: { version: 1, basis: 'body', unit: 'cm', sizes: [
      { label: 'S', measurements: { chest: { min: 84, max: 92 }, waist: { min: 70, max: 78 } } },
      { label: 'M', measurements: { chest: { min: 92, max: 100 }, waist: { min: 78, max: 86 } } },
      { label: 'L', measurements: { chest: { min: 100, max: 108 }, waist: { min: 86, max: 94 } } },
    ] } });
    // the checklist follows: the chart step is done now
    await expect.poll(() => page.locator('#setup-progress').textContent(), WAIT).toBe('3 of 4 steps done');
    expect(await step('sizeChart').getAttribute('data-done')).toBe('true');
    expect(await row(101).locator('s-table-cell').nth(2).textContent()).toBe('Set');
    await page.locator('#chart').screenshot({ path: path.join(SHOTS, 'shopify-admin-size-chart.png') });
    await page.locator('#setup').screenshot({ path: path.join(SHOTS, 'shopify-admin-checklist-after.png') });
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);

  it('uses the billing, data-request, compliance and settings routes with the session token, in the shapes they answer', async () => {
    // answers in the shapes of billing.ts, data-requests.ts and the settings route, so the page is tested on its own
    const seen: { method: string; path: string; auth: string | undefined; body: unknown }[] = [];
    let delivered: string | null = null;
    let plan = 'paid';
    const request = { id: 'dr-9001', customerId: '3001', requestedAt: '2026-11-20T09:30:00.000Z', status: 'open' };
    const plans = [
      { id: 'free', name: 'Free', price: 0, usageTerms: 'Builtin engines only, no usage charges', cappedAmount: 0 },
      { id: 'paid', name: 'Fitroom Paid', price: 19, usageTerms: '$0.10 per AI try-on, $1.00 per vendor 3D model', cappedAmount: 50 },
    ];
    const answers: Record<string, (body: unknown) => unknown> = {
      'GET /shopify/api/billing': () => (plan === 'paid' ? { plan, status: 'ACTIVE', usage: { amount: 12.5, cap: 50, currency: 'USD' }, plans } : { plan, status: 'CANCELLED', usage: { amount: 0, cap: 0, currency: 'USD' }, plans }),
      'POST /shopify/api/billing/cancel': () => ((plan = 'free'), { plan: 'free', status: 'CANCELLED' }),
      'POST /shopify/api/billing/subscribe': () => ({ confirmationUrl: `https://${SHOP}/admin/charges/4028/confirm_recurring_application_charge?signature=x` }),
      'GET /shopify/api/data-requests': () => ({ dataRequests: [{ ...request, deliveredAt: delivered, status: delivered ? 'delivered' : 'open' }] }),
      'POST /shopify/api/data-requests/dr-9001/delivered': () => ((delivered = '2026-11-27T10:00:00.000Z'), { dataRequest: { ...request, deliveredAt: delivered, status: 'delivered' } }),
      'GET /shopify/api/compliance': () => ({ shopRedact: null, customersRedact: { lastRunAt: '2026-11-25T08:00:00.000Z', rows: 12, files: 3 } }),
      'GET /shopify/api/settings': () => ({ photoRetentionHours: 24, limits: { photoRetentionHours: { min: 1, max: 720, default: 24 } } }),
      'PUT /shopify/api/settings': (b) => b,
    };
    const { context, page, errors } = await openAdmin(async (p) => {
      await p.route(/\/shopify\/api\/(billing|data-requests|compliance|settings)/, async (route) => {
        const req = route.request();
        const u = new URL(req.url());
        const body = req.postData() ? JSON.parse(req.postData()!) : null;
        seen.push({ method: req.method(), path: u.pathname + u.search, auth: req.headers().authorization, body });
        if (u.pathname === '/shopify/api/data-requests/dr-9001/export') {
          const json = u.searchParams.get('format') === 'json';
          return route.fulfill({ contentType: json ? 'application/json' : 'text/html', body: json ? JSON.stringify({ customerId: '3001', holds: { jobs: [] } }) : '<h1>Customer 3001</h1>' });
        }
        const answer = answers[`${req.method()} ${u.pathname}`];
        return answer ? route.fulfill({ contentType: 'application/json', body: JSON.stringify(answer(body)) }) : route.fulfill({ status: 404, body: '' });
      });
    });
    const token = (await page.evaluate(() => (window as any).__shopifyStub.token)) as string;

    // plan and usage against the cap; the free plan by cancelling; the paid one through Shopify's confirmation page in the top frame
    await expect.poll(() => page.locator('#plan').textContent(), WAIT).toContain('Usage charges: $12.50 of $50.00 (25% of the cap)');
    expect(await page.locator('#plan [role="meter"]').getAttribute('aria-valuenow')).toBe('12.5');
    expect(await page.locator('[data-plan="paid"] s-badge').textContent()).toBe('Current plan');
    expect(await page.locator('[data-plan="paid"]').textContent()).toContain('$19.00 a month');
    await page.getByRole('button', { name: 'Choose Free', exact: true }).click();
    await expect.poll(() => page.locator('[data-plan="free"] s-badge').textContent(), WAIT).toBe('Current plan');
    expect(await page.locator('#plan [role="meter"]').count()).toBe(0);
    await page.getByRole('button', { name: 'Choose Fitroom Paid', exact: true }).click();
    await expect.poll(() => page.evaluate(() => (window as any).__shopifyCalls.opened), WAIT).toEqual([{ url: `https://${SHOP}/admin/charges/4028/confirm_recurring_application_charge?signature=x`, target: '_top' }]);
    expect(seen.find((x) => x.path === '/shopify/api/billing/cancel')).toMatchObject({ method: 'POST', auth: `Bearer ${token}` });
    expect(seen.find((x) => x.path === '/shopify/api/billing/subscribe')).toMatchObject({ method: 'POST', auth: `Bearer ${token}`, body: { plan: 'paid' } });

    // a data request: the export downloaded with the token (fetch and blob), then marked delivered
    const row = page.locator('s-table-row[data-request="dr-9001"]');
    await row.waitFor(WAIT);
    const [download] = await Promise.all([page.waitForEvent('download', WAIT), row.getByRole('button', { name: 'JSON', exact: true }).click()]);
    expect(download.suggestedFilename()).toBe('fitroom-customer-3001.json');
    expect(JSON.parse(readFileSync((await download.path())!, 'utf8'))).toEqual({ customerId: '3001', holds: { jobs: [] } });
    expect(seen.find((x) => x.path === '/shopify/api/data-requests/dr-9001/export?format=json')?.auth).toBe(`Bearer ${token}`);
    const [html] = await Promise.all([page.waitForEvent('download', WAIT), row.getByRole('button', { name: 'Summary (HTML)', exact: true }).click()]);
    expect(html.suggestedFilename()).toBe('fitroom-customer-3001.html');
    await row.getByRole('button', { name: 'Mark delivered', exact: true }).click();
    await expect.poll(() => row.locator('s-badge').textContent(), WAIT).toMatch(/^Delivered /);
    expect(await row.getByRole('button', { name: 'Mark delivered', exact: true }).count()).toBe(0);
    expect(seen.find((x) => x.path === '/shopify/api/data-requests/dr-9001/delivered')).toMatchObject({ method: 'POST', auth: `Bearer ${token}` });

    // erasures Shopify asked for, and the photo retention setting
    expect(await page.locator('#compliance').textContent()).toMatch(/Customer erasure.*12 records and 3 files removed.*Store erasure.*none yet/);
    const hours = page.getByLabel("Keep shoppers' photos for (hours)");
    expect(await hours.inputValue()).toBe('24');
    await hours.fill('721');
    await page.locator('#retention').getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.locator('#retention s-number-field').getAttribute('error'), WAIT).toBe('Enter a whole number of hours, between 1 and 720 hours');
    expect(seen.some((x) => x.method === 'PUT')).toBe(false);
    await hours.fill('48');
    await page.locator('#retention').getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(async () => (await toasts(page)).at(-1)?.message, WAIT).toBe('Photo retention saved');
    expect(seen.find((x) => x.method === 'PUT')).toMatchObject({ path: '/shopify/api/settings', auth: `Bearer ${token}`, body: { photoRetentionHours: 48 } });
    expect(seen.every((x) => x.auth === `Bearer ${token}`)).toBe(true);
    await page.locator('#billing').screenshot({ path: path.join(SHOTS, 'shopify-admin-plan.png') });
    await page.locator('#requests').screenshot({ path: path.join(SHOTS, 'shopify-admin-data-requests.png') });
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);
});
