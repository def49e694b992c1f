/**
 * The theme app extension on a product page, in headless Chromium. The page is the real Liquid of
 * `blocks/product-fitroom.liquid` and the `blocks/fitroom-embed.liquid` app embed, rendered by
 * liquidjs with Shopify-like objects (product with its media and app metafield, shop with its privacy
 * policy, customer, block.settings) and Shopify's filters (`asset_url`, `image_url`, `t`) as small
 * liquidjs filters; the `{% schema %}` tag is parsed as JSON and renders nothing, as on Shopify.
 * A local "CDN" serves the extension's assets and the product files; a local "storefront" serves the
 * page and forwards /apps/fitroom/* to the app proxy route as Shopify does (its signed query added,
 * the shopper's address in X-Forwarded-For, cookies stripped both ways). Every request that reaches
 * the app is counted: a page view makes none; the shopper accepts the consent step, tries the
 * product on, gets a size and opens the 3D view, all through the proxy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { Liquid, Tag, type TagToken, type TopLevelToken, type Context, type Emitter } from 'liquidjs';
import { Session } from '@shopify/shopify-api';
import type { Browser, Page } from 'playwright-core';
import { type TestService } from '../../support/harness.ts';
import { syntheticPerson, pngDataUrl } from '../../support/images.ts';
import { makeShoeGlb } from '../../support/shoes.ts';
import { shopperOwner, type ShopifyConnector } from '../../../connectors/shopify/shopify.ts';
import { SHOTS, launchChromium } from '../../plugins/ar-host/browser.ts';
import { signProxyQuery, startShopifyService } from './support.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const EXTENSION = path.join(ROOT, 'connectors/shopify/extensions/fitroom-theme');
const SHOP = 'theme-shop.myshopify.com';
const SECRET = 'testApiSecretKey';
const CUSTOMER = '4242';
const CHART = { category: 'top', sizeChart: { version: 1, basis: 'body', unit: 'cm', sizes: [
  { label: 'S', measurements: { chest: { min: 84, max: 92 }, waist: { min: 70, max: 78 } } },
  { label: 'M', measurements: { chest: { min: 92, max: 100 }, waist: { min: 78, max: 86 } } },
  { label: 'L', measurements: { chest: { min: 100, max: 108 }, waist: { min: 86, max: 94 } } },
] } };

let svc: TestService;
let cdn: http.Server;
let cdnUrl: string;
let store: http.Server;
let storeUrl: string;
let browser: Browser;
/** Paths of the requests the storefront forwarded to the app (the app's server load). */
const appHits: string[] = [];

/** `{% schema %}…{% endschema %}`: checked as JSON, rendered as nothing. */
class SchemaTag extends Tag {
  constructor(token: TagToken, remain: TopLevelToken[], liquid: Liquid) {
    super(token, remain, liquid);
    const text: string[] = [];
    for (let t = remain.shift(); t; t = remain.shift()) {
      if ((t as TagToken).name === 'endschema') {
        JSON.parse(text.join(''));
        return;
      }
      text.push(t.getText());
    }
    throw new Error('{% schema %} is not closed');
  }
  *render(_ctx: Context, _emitter: Emitter): Generator<unknown, void, unknown> {}
}

function liquidEngine(): Liquid {
  const engine = new Liquid({ root: path.join(EXTENSION, 'blocks'), extname: '.liquid', strictFilters: true });
  const locale = JSON.parse(readFileSync(path.join(EXTENSION, 'locales/en.default.json'), 'utf8')) as Record<string, Record<string, string>>;
  engine.registerTag('schema', SchemaTag);
  // Shopify's filters, as the page needs them: extension assets on the CDN, image URLs with a width, translations
  engine.registerFilter('asset_url', (name: string) => `${cdnUrl}/extensions/fitroom-theme/assets/${name}`);
  engine.registerFilter('image_url', (image: { src: string }, ...args: [string, unknown][]) => {
    const width = args.find((a) => Array.isArray(a) && a[0] === 'width')?.[1];
    return `${image.src}${width ? `?width=${width}` : ''}`;
  });
  engine.registerFilter('t', (key: string) => key.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], locale) ?? `translation missing: ${key}`);
  return engine;
}

interface ProductFixture {
  handle: string;
  id: number;
  title: string;
  image?: string;
  glb?: string;
  chart?: unknown;
}

const PRODUCTS: ProductFixture[] = [
  { handle: 'red-tee', id: 111, title: 'Red T-shirt', image: 'red-tee.png', chart: CHART },
  { handle: 'runner', id: 222, title: 'Trail runner', glb: 'runner.glb' },
];

/** The product page: the theme's markup around the rendered app block, the app embed before </body>. */
async function renderProductPage(engine: Liquid, p: ProductFixture): Promise<string> {
  const files = `${cdnUrl}/files`;
  const scope = {
    shop: { name: 'Theme Shop', permanent_domain: SHOP, url: storeUrl, privacy_policy: { title: 'Privacy policy', url: '/policies/privacy-policy' } },
    customer: { id: Number(CUSTOMER), first_name: 'Ada' },
    product: {
      id: p.id,
      title: p.title,
      featured_image: p.image ? { src: `${files}/${p.image}`, alt: p.title } : null,
      media: [
        ...(p.image ? [{ media_type: 'image', src: `${files}/${p.image}` }] : []),
        ...(p.glb ? [{ media_type: 'model', sources: [{ format: 'glb', mime_type: 'model/gltf-binary', url: `${files}/${p.glb}` }, { format: 'usdz', mime_type: 'model/vnd.usdz+zip', url: `${files}/${p.glb}.usdz` }] }] : []),
      ],
      metafields: { '$app:fitroom': p.chart ? { size_chart: { value: p.chart } } : {} },
    },
    block: { settings: { show_tryon: true, category: 'top', show_size: true, show_3d: true } },
  };
  const block = await engine.renderFile('product-fitroom', scope);
  const embed = await engine.renderFile('fitroom-embed', scope);
  const picture = p.image ? `<img src="${files}/${p.image}" alt="${p.title}" width="240">` : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${p.title} – Theme Shop</title></head>
<body style="font-family:system-ui;margin:2em;max-width:60em"><main><h1>${p.title}</h1>${picture}<p>€29.00</p>
<section class="product__app-blocks">${block}</section></main>${embed}</body></html>`;
}

beforeAll(async () => {
  let c: ShopifyConnector;
  ({ svc, c } = await startShopifyService());
  await c.completeInstall(new Session({ id: `offline_${SHOP}`, shop: SHOP, state: 'x', isOnline: false, accessToken: 'shpat_x', scope: 'write_products' }));

  // Shopify's CDN: the extension's assets and the product files
  const tee = readFileSync(path.join(ROOT, 'examples/storefront/red-tee.png'));
  const glb = Buffer.from(await makeShoeGlb());
  cdn = http.createServer((req, res) => {
    const u = new URL(req.url!, 'http://cdn');
    const cors = { 'access-control-allow-origin': '*', 'cache-control': 'public, max-age=31536000' };
    const asset = /^\/extensions\/fitroom-theme\/assets\/([\w.-]+\.js)$/.exec(u.pathname)?.[1];
    if (asset && existsSync(path.join(EXTENSION, 'assets', asset))) return void res.writeHead(200, { ...cors, 'content-type': 'text/javascript' }).end(readFileSync(path.join(EXTENSION, 'assets', asset)));
    if (u.pathname === '/files/red-tee.png') return void res.writeHead(200, { ...cors, 'content-type': 'image/png' }).end(tee);
    if (u.pathname === '/files/runner.glb') return void res.writeHead(200, { ...cors, 'content-type': 'model/gltf-binary' }).end(glb);
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => cdn.listen(0, '127.0.0.1', r));
  cdnUrl = `http://127.0.0.1:${(cdn.address() as AddressInfo).port}`;

  const engine = liquidEngine();
  store = http.createServer(async (req, res) => {
    const u = new URL(req.url!, 'http://store');
    const product = PRODUCTS.find((p) => u.pathname === `/products/${p.handle}`);
    if (product) return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(await renderProductPage(engine, product));
    if (u.pathname === '/policies/privacy-policy') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Privacy policy</h1>');
    if (!u.pathname.startsWith('/apps/fitroom/')) return void res.writeHead(404).end();
    // Shopify's app proxy: same path under the proxy URL, its own signed parameters, no cookies
    appHits.push(u.pathname);
    const own = [...u.searchParams].filter(([k]) => !['shop', 'signature', 'timestamp', 'logged_in_customer_id', 'path_prefix'].includes(k));
    const query = signProxyQuery(SECRET, [...own, ['shop', SHOP], ['logged_in_customer_id', CUSTOMER], ['path_prefix', '/apps/fitroom'], ['timestamp', String(Math.floor(Date.now() / 1000))]]);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers: Record<string, string> = { 'x-forwarded-for': req.socket.remoteAddress ?? '127.0.0.1', 'x-forwarded-host': SHOP };
    for (const h of ['content-type', 'x-challenge-token', 'x-service-verification-pass', 'x-service-verification-pass-mode', 'x-fitroom-consent']) if (req.headers[h]) headers[h] = String(req.headers[h]);
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
  cdn?.close();
  await svc?.close();
});

/** Every request the page makes, and its errors. */
function watch(page: Page) {
  const requests: { url: string; headers: Record<string, string> }[] = [];
  const errors: string[] = [];
  page.on('request', (r) => requests.push({ url: r.url(), headers: r.headers() }));
  page.on('pageerror', (e) => errors.push(e.message));
  return { requests, errors };
}

describe('the Fitroom theme blocks, rendered by Liquid, through the app proxy', () => {
  it('renders the block and the embed from Liquid with the size chart from the metafield', async () => {
    const html = await (await fetch(`${storeUrl}/products/red-tee`)).text();
    expect(html).not.toMatch(/\{\{|\{%|translation missing/);
    expect(html).toContain(`${cdnUrl}/extensions/fitroom-theme/assets/fitroom-loader.js`);
    expect(html).toContain('data-dialog-src="' + `${cdnUrl}/extensions/fitroom-theme/assets/fitroom-dialog.js"`);
    expect(html).toContain(`data-garment-url="${cdnUrl}/files/red-tee.png?width=1600"`);
    expect(html).toMatch(/<th scope="row">M<\/th><td>92–100<\/td><td>78–86<\/td>/);
    expect(html).toContain('data-privacy-url="/policies/privacy-policy"');
    expect(html).not.toContain('data-fitroom-3d'); // no 3D media on this product
    const runner = await (await fetch(`${storeUrl}/products/runner`)).text();
    expect(runner).toContain(`data-glb-url="${cdnUrl}/files/runner.glb"`);
    expect(runner).not.toContain('data-fitroom-tryon'); // no featured image
  });

  it('makes no request to the app on a page view; asks for consent before any upload; shows a try-on result and a size', async () => {
    const photo = path.join(SHOTS, 'theme-shopper.png');
    writeFileSync(photo, Buffer.from((await pngDataUrl(syntheticPerson({ seed: 5 }).image)).split(',')[1], 'base64'));
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    const page = await context.newPage();
    const { requests, errors } = watch(page);
    appHits.length = 0;
    await page.goto(`${storeUrl}/products/red-tee`);
    await page.waitForLoadState('networkidle');

    // a product page view: the loader from the CDN, nothing from the app's server, no dialog code yet
    expect(appHits).toEqual([]);
    expect(requests.filter((r) => r.url.startsWith(svc.api) || new URL(r.url).pathname.startsWith('/apps/'))).toEqual([]);
    expect(requests.some((r) => r.url === `${cdnUrl}/extensions/fitroom-theme/assets/fitroom-loader.js`)).toBe(true);
    expect(requests.some((r) => r.url.includes('fitroom-dialog.js'))).toBe(false);
    await page.getByText('Size chart').click();
    await expect.poll(() => page.locator('.fr-chart table').isVisible()).toBe(true);

    // first click: the dialog code from the CDN, then the consent step; the photo cannot be chosen
    await page.getByRole('button', { name: 'Try it on' }).click();
    const dialog = page.getByRole('dialog', { name: 'Try it on' });
    const consent = dialog.getByRole('group', { name: 'Before you upload a photo' });
    await expect.poll(() => consent.textContent(), { timeout: 90_000 }).toMatch(/deleted after 24 hours/);
    expect(requests.some((r) => r.url === `${cdnUrl}/extensions/fitroom-theme/assets/fitroom-dialog.js`)).toBe(true);
    expect(await consent.textContent()).toMatch(/What is sent: the photo you choose.*Who processes it: Fitroom \(my-test-app\.myshopify\.io\)/);
    expect(await consent.getByRole('link', { name: 'This shop\'s privacy policy' }).getAttribute('href')).toBe('/policies/privacy-policy');
    expect(await dialog.getByLabel('Your photo').isVisible()).toBe(false);
    // even a forced submit sends nothing before the shopper agrees
    await dialog.locator('form').evaluate((f: HTMLFormElement) => f.requestSubmit());
    expect(appHits.filter((p) => p.endsWith('/virtual-fitting'))).toEqual([]);
    await page.screenshot({ path: path.join(SHOTS, 'shopify-theme-consent.png') });

    await consent.getByRole('button', { name: 'I agree, continue' }).click();
    await dialog.getByLabel('Your photo').setInputFiles(photo);
    await dialog.getByRole('button', { name: 'Try it on' }).click();
    const result = dialog.locator('.fr-result img');
    await result.waitFor({ state: 'visible', timeout: 90_000 });
    expect(await result.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    const upload = requests.find((r) => r.url.endsWith('/apps/fitroom/api/v1/virtual-fitting'));
    expect(upload?.headers['x-fitroom-consent']).toBe('1');
    await page.screenshot({ path: path.join(SHOTS, 'shopify-theme-tryon.png') });
    await dialog.getByRole('button', { name: 'Close' }).click();

    // the answer is remembered for this shopper: the size dialog opens on its form
    await page.getByRole('button', { name: 'Find my size' }).click();
    const size = page.getByRole('dialog', { name: 'Find my size' });
    await size.getByLabel('Height (cm)').fill('178');
    expect(await size.getByRole('group', { name: 'Before you upload a photo' }).count()).toBe(0);
    await size.getByLabel('Chest (cm)').fill('103');
    await size.getByLabel('Waist (cm)').fill('89');
    await size.getByLabel('Fit', { exact: true }).selectOption('male');
    await size.getByRole('button', { name: 'Find my size' }).click();
    await expect.poll(async () => (await size.locator('.fr-size-result').textContent()) ?? '', { timeout: 90_000 }).toMatch(/Your size: L/);
    await page.screenshot({ path: path.join(SHOTS, 'shopify-theme-size.png') });
    expect(errors).toEqual([]);

    // a later visit by the same shopper is not asked again; the shopper's work belongs to the shop, per customer
    const again = await context.newPage();
    await again.goto(`${storeUrl}/products/red-tee`);
    await again.getByRole('button', { name: 'Try it on' }).click();
    await again.getByRole('dialog', { name: 'Try it on' }).getByLabel('Your photo').waitFor({ state: 'visible' });
    const owned = await svc.fitroom.pool.query<{ n: number }>('select count(*)::int as n from jobs where owner_hash = $1', [shopperOwner(SHOP, CUSTOMER)]);
    expect(owned.rows[0].n).toBeGreaterThanOrEqual(2);
    await context.close();
  }, 240_000);

  it('opens the 3D view: model-viewer through the app proxy with the product\'s GLB loaded', async () => {
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    const page = await context.newPage();
    const { errors } = watch(page);
    appHits.length = 0;
    await page.goto(`${storeUrl}/products/runner`);
    await page.waitForLoadState('networkidle');
    expect(appHits).toEqual([]);
    await page.getByRole('button', { name: 'View in 3D' }).click();
    const dialog = page.getByRole('dialog', { name: 'See it in 3D' });
    const viewer = dialog.locator('model-viewer');
    await viewer.waitFor({ state: 'attached', timeout: 90_000 });
    await expect.poll(() => viewer.evaluate((mv) => (mv as HTMLElement & { loaded?: boolean }).loaded === true), { timeout: 60_000 }).toBe(true);
    expect(appHits).toEqual(['/apps/fitroom/widget/v1/model-viewer.min.js']);
    expect(await viewer.getAttribute('src')).toBe(`${cdnUrl}/files/runner.glb`);
    expect(await viewer.getAttribute('alt')).toBe('Trail runner');
    await page.screenshot({ path: path.join(SHOTS, 'shopify-theme-3d.png') });
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
