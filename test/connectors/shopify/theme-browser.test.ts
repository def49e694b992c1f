/**
 * The theme block on a product page, in headless Chromium: a local "storefront" serves the page as
 * the Liquid block renders it and forwards /apps/fitroom/* to the app proxy route the way Shopify
 * does (its signed query added, cookies stripped both ways). The shopper tries the product on and gets
 * a size from the product's chart, all through the proxy and the core pipeline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { Session } from '@shopify/shopify-api';
import type { Browser } from 'playwright-core';
import { startTestService, type TestService } from '../../support/harness.ts';
import { syntheticPerson, pngDataUrl } from '../../support/images.ts';
import { loadShopifySettings } from '../../../connectors/shopify/settings.ts';
import { shopifyPlugin, shopperOwner } from '../../../connectors/shopify/shopify.ts';
import { mountShopify } from '../../../connectors/shopify/routes.ts';
import { SHOTS, launchChromium } from '../../plugins/ar-host/browser.ts';
import { signProxyQuery } from './support.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const SHOP = 'theme-shop.myshopify.com';
const SECRET = 'testApiSecretKey';
const CUSTOMER = '4242';
const CHART = { category: 'top', sizeChart: { version: 1, basis: 'body', unit: 'cm', sizes: [
  { label: 'S', measurements: { chest: { min: 84, max: 92 }, waist: { min: 70, max: 78 } } },
  { label: 'M', measurements: { chest: { min: 92, max: 100 }, waist: { min: 78, max: 86 } } },
  { label: 'L', measurements: { chest: { min: 100, max: 108 }, waist: { min: 86, max: 94 } } },
] } };

let svc: TestService;
let store: http.Server;
let storeUrl: string;
let browser: Browser;

const sign = (pairs: [string, string][]) => signProxyQuery(SECRET, pairs);

/** What the product-fitroom block and the app embed render for this product. */
function productPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Red T-shirt</title>
<script src="/apps/fitroom/widget/v1/fitroom.js" data-fitroom-api="/apps/fitroom" defer></script></head>
<body style="font-family:system-ui;margin:2em"><h1>Red T-shirt</h1><img src="/red-tee.png" alt="Red T-shirt" width="240">
<div class="fitroom-block" style="display:flex;gap:.6em;margin:1em 0">
<div data-fitroom-tryon data-label="Try it on" data-garment-url="/red-tee.png" data-category="top"></div>
<div data-fitroom-size data-label="Find my size" data-product-id="111" data-size-chart='${JSON.stringify(CHART)}'></div>
</div></body></html>`;
}

beforeAll(async () => {
  const settings = loadShopifySettings({ SHOPIFY_API_KEY: 'testApiKey', SHOPIFY_API_SECRET: SECRET, SHOPIFY_APP_URL: 'https://my-test-app.myshopify.io' })!;
  const plugin = shopifyPlugin(settings);
  svc = await startTestService({ plugins: [plugin], mounts: [(router, h) => mountShopify(router, { connector: plugin.connector(), pipeline: h.pipeline, http: h })] });
  await plugin.connector().completeInstall(new Session({ id: `offline_${SHOP}`, shop: SHOP, state: 'x', isOnline: false, accessToken: 'shpat_x', scope: 'write_products' }));
  const tee = readFileSync(path.join(ROOT, 'examples/storefront/red-tee.png'));
  store = http.createServer(async (req, res) => {
    const u = new URL(req.url!, 'http://store');
    if (u.pathname === '/products/red-tee') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(productPage());
    if (u.pathname === '/red-tee.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(tee);
    if (!u.pathname.startsWith('/apps/fitroom/')) return void res.writeHead(404).end();
    // Shopify's app proxy: same path under the proxy URL, its own signed parameters, no cookies
    const own = [...u.searchParams].filter(([k]) => !['shop', 'signature', 'timestamp', 'logged_in_customer_id', 'path_prefix'].includes(k));
    const query = sign([...own, ['shop', SHOP], ['logged_in_customer_id', CUSTOMER], ['path_prefix', '/apps/fitroom'], ['timestamp', String(Math.floor(Date.now() / 1000))]]);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers: Record<string, string> = {};
    for (const h of ['content-type', 'x-challenge-token', 'x-service-verification-pass', 'x-service-verification-pass-mode']) if (req.headers[h]) headers[h] = String(req.headers[h]);
    const up = await fetch(`${svc.api}/shopify/proxy${u.pathname.slice('/apps/fitroom'.length)}?${query}`, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
    const out: Record<string, string> = {};
    up.headers.forEach((v, k) => {
      if (!['set-cookie', 'content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k)) out[k] = v;
    });
    res.writeHead(up.status, out).end(Buffer.from(await up.arrayBuffer()));
  });
  await new Promise<void>((r) => store.listen(0, '127.0.0.1', r));
  storeUrl = `http://127.0.0.1:${(store.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  store?.close();
  await svc?.close();
});

describe('the Fitroom theme block through the app proxy', () => {
  it('shows a try-on result and a size recommendation on a product page', async () => {
    const photo = path.join(SHOTS, 'theme-shopper.png');
    writeFileSync(photo, Buffer.from((await pngDataUrl(syntheticPerson({ seed: 5 }).image)).split(',')[1], 'base64'));
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${storeUrl}/products/red-tee`);

    await page.getByRole('button', { name: 'Try it on' }).click();
    const dialog = page.getByRole('dialog', { name: 'Try it on' });
    await dialog.getByLabel('Your photo').setInputFiles(photo);
    await dialog.getByRole('button', { name: 'Try it on' }).click();
    const result = dialog.locator('.fr-result img');
    await result.waitFor({ state: 'visible', timeout: 90_000 });
    expect(await result.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, 'shopify-theme-tryon.png') });
    await dialog.getByRole('button', { name: 'Close' }).click();

    await page.getByRole('button', { name: 'Find my size' }).click();
    const size = page.getByRole('dialog', { name: 'Find my size' });
    await size.getByLabel('Height (cm)').fill('178');
    await size.getByLabel('Chest (cm)').fill('103');
    await size.getByLabel('Waist (cm)').fill('89');
    await size.getByLabel('Fit', { exact: true }).selectOption('male');
    await size.getByRole('button', { name: 'Find my size' }).click();
    await expect.poll(async () => (await size.locator('.fr-size-result').textContent()) ?? '', { timeout: 90_000 }).toMatch(/Your size: L/);
    await page.screenshot({ path: path.join(SHOTS, 'shopify-theme-size.png') });
    expect(errors).toEqual([]);

    // the shopper's work belongs to the shop, under the logged-in customer
    const owned = await svc.fitroom.pool.query<{ n: number }>('select count(*)::int as n from jobs where owner_hash = $1', [shopperOwner(SHOP, CUSTOMER)]);
    expect(owned.rows[0].n).toBeGreaterThanOrEqual(2);
    await context.close();
  }, 240_000);
});
