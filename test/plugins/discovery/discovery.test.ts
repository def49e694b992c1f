import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRaster, type RasterImage } from '../../../core/images.ts';
import { startTestService, type TestService } from '../../support/harness.ts';
import { makeShoeMesh, renderProductViews, rng } from '../../support/products.ts';

/**
 * Product discovery against shops served on loopback: a Shopify storefront, a JSON-LD shop, an
 * OpenGraph-only product page, a sitemap-only shop, and hostile ones (robots.txt, a redirect loop,
 * a redirect to a private address, a page too large, a page too slow, no products, images that are
 * not images). Packshots are the rendered shoe on white; the lifestyle photo puts it in a busy room.
 */

type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;
let svc: TestService;
let key: string;
let server: http.Server;
let base: string;
const routes = new Map<string, Route>();
const hits: string[] = [];

async function png(img: RasterImage): Promise<Buffer> {
  return sharp(Buffer.from(img.data), { raw: { width: img.width, height: img.height, channels: 4 } }).png().toBuffer();
}

/** The shoe on a cluttered, textured scene, cut by the frame: what a lifestyle photo looks like to the classifier. */
function lifestyle(cutout: RasterImage): RasterImage {
  const w = 360, h = 300;
  const img = createRaster(w, h, [0, 0, 0, 255]);
  const r = rng(5);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    const i = (y * w + x) * 4;
    img.data[i] = 90 + 60 * Math.sin(x / 9) + r() * 50;
    img.data[i + 1] = 70 + 40 * Math.cos(y / 7) + r() * 50;
    img.data[i + 2] = 50 + r() * 60;
  }
  // furniture-like blocks and the shoe overlapping the left edge
  for (const [x0, y0, bw, bh, c] of [[20, 20, 80, 60, [200, 40, 40]], [250, 150, 90, 120, [30, 160, 60]], [150, 30, 50, 90, [240, 220, 30]]] as const) {
    for (let y = y0; y < y0 + bh; y++) for (let x = x0; x < x0 + bw; x++) img.data.set([c[0], c[1], c[2], 255], (y * w + x) * 4);
  }
  for (let y = 0; y < cutout.height && y + 120 < h; y++) for (let x = 0; x < cutout.width && x - 40 < w; x++) {
    const s = (y * cutout.width + x) * 4;
    if (cutout.data[s + 3] < 128 || x - 40 < 0) continue;
    img.data.set([cutout.data[s], cutout.data[s + 1], cutout.data[s + 2], 255], ((y + 120) * w + (x - 40)) * 4);
  }
  return img;
}

const html = (body: string, head = '') => `<!doctype html><html><head><title>Shop</title>${head}</head><body>${body}</body></html>`;
const send = (type: string, body: string | Buffer, status = 200): Route => (_q, res) => res.writeHead(status, { 'content-type': type }).end(body);

beforeAll(async () => {
  const views = renderProductViews(makeShoeMesh(), [0, 45, 90, 135], { size: 240 });
  const packs = await Promise.all(views.map((v) => png(v.image)));
  const busy = await png(lifestyle(views[0].cutout));
  server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const hostPath = `${req.headers.host?.split(':')[0]}${path}`;
    hits.push(hostPath);
    const route = routes.get(hostPath) ?? routes.get(path);
    if (route) route(req, res);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((r) => server.listen(0, '0.0.0.0', r)); // 127.0.0.2, .3, ... reach it too
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  // Shops are told apart by host: 127.0.0.2, .3, ... all reach the same loopback server.
  const shop = (n: number) => `http://127.0.0.${n}:${port}`;
  const img = (n: number, i: number) => `${shop(n)}/img/${i}.png`;
  for (let n = 1; n <= 9; n++) {
    packs.forEach((b, i) => routes.set(`127.0.0.${n}/img/${i}.png`, send('image/png', b)));
    routes.set(`127.0.0.${n}/img/busy.png`, send('image/png', busy));
  }

  // 1: a Shopify storefront
  const products = [
    { title: 'Canvas Tote', handle: 'canvas-tote', product_type: 'Bags', tags: ['tote'], images: [{ src: img(1, 2) }] },
    { title: 'Runner Sneaker', handle: 'runner', product_type: 'Shoes', tags: ['running'], vendor: 'Acme', images: [{ src: `${shop(1)}/img/busy.png` }, ...[0, 1, 2, 3].map((i) => ({ src: img(1, i) }))] },
  ];
  routes.set('127.0.0.1/products.json', send('application/json', JSON.stringify({ products })));
  routes.set('127.0.0.1/products/runner.json', send('application/json', JSON.stringify({ product: products[1] })));
  routes.set('127.0.0.1/', send('text/html', html('<a href="/products/runner">Runner</a>')));

  // 2: JSON-LD shop: the home page links to a product page with an @graph Product
  routes.set('127.0.0.2/', send('text/html', html('<a href="/about">About</a><a href="/p/trail-boot">Trail Boot</a>')));
  routes.set('127.0.0.2/p/trail-boot', send('text/html', html('<h1>Trail Boot</h1>', `<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@graph': [{ '@type': 'BreadcrumbList' }, { '@type': 'Product', name: 'Trail Boot', category: 'Shoes > Boots', image: [img(2, 0), { '@type': 'ImageObject', url: img(2, 1) }, img(2, 2)], offers: { '@type': 'Offer', price: '129.00' } }] })}</script><script type="application/ld+json">{ broken json</script>`)));

  // 3: OpenGraph-only product page
  routes.set('127.0.0.3/item/42', send('text/html', html('<p>Leather loafer</p>', `<meta property="og:type" content="product"><meta property="og:title" content="City Loafer"><meta property="og:description" content="Leather loafers for the office"><meta property="og:image" content="/img/0.png"><meta property="og:image" content="${img(3, 1)}"><meta property="og:image" content="${img(3, 3)}"><meta property="product:price:amount" content="89">`)));

  // 4: sitemap only, through robots.txt and a sitemap index
  routes.set('127.0.0.4/', send('text/html', html('<p>Welcome</p>')));
  routes.set('127.0.0.4/robots.txt', send('text/plain', `User-agent: *\nDisallow: /checkout\nSitemap: ${shop(4)}/sitemap_index.xml\n`));
  routes.set('127.0.0.4/sitemap_index.xml', send('application/xml', `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${shop(4)}/sitemap-pages.xml</loc></sitemap><sitemap><loc>${shop(4)}/sitemap-products.xml</loc></sitemap></sitemapindex>`));
  routes.set('127.0.0.4/sitemap-products.xml', send('application/xml', `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${shop(4)}/product/weekender-bag</loc></url></urlset>`));
  routes.set('127.0.0.4/product/weekender-bag', send('text/html', html('', `<script type="application/ld+json">${JSON.stringify({ '@type': 'Product', name: 'Weekender Bag', category: 'Bags', image: [img(4, 0), img(4, 2)] })}</script>`)));

  // 5: robots.txt disallows everything
  routes.set('127.0.0.5/robots.txt', send('text/plain', 'User-agent: *\nDisallow: /\n'));
  routes.set('127.0.0.5/', send('text/html', html('<a href="/p/x">x</a>')));
  // 8: rules for Fitroom by name, everyone else allowed
  routes.set('127.0.0.8/robots.txt', send('text/plain', 'User-agent: *\nAllow: /\n\nUser-agent: Fitroom\nDisallow: /\n'));
  routes.set('127.0.0.8/', send('text/html', html('<p>shop</p>')));

  // 6: hostile
  routes.set('127.0.0.6/loop', (_q, res) => res.writeHead(302, { location: '/loop' }).end());
  routes.set('127.0.0.6/to-private', (_q, res) => res.writeHead(302, { location: 'http://10.20.30.40/admin' }).end());
  routes.set('127.0.0.6/huge', send('text/html', Buffer.alloc(3 * 1024 * 1024, 'a')));
  // answers long after the crawl's budget (the tight service's DISCOVERY_TIMEOUT_MS), unless the client gives up first
  routes.set('127.0.0.6/slow', (_q, res) => {
    const t = setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(html('')), 60_000);
    res.on('close', () => clearTimeout(t));
  });
  routes.set('127.0.0.6/empty', send('text/html', html('<p>No products here</p>')));

  // 7: a product whose images are not images, or lifestyle only
  routes.set('127.0.0.7/shoe', send('text/html', html('', `<script type="application/ld+json">${JSON.stringify({ '@type': 'Product', name: 'Phantom Shoe', category: 'Shoes', image: [`${shop(7)}/img/page.png`, `${shop(7)}/img/busy.png`] })}</script>`)));
  routes.set('127.0.0.7/img/page.png', send('text/html', html('<p>not an image</p>')));

  // a budget the crawls here stay inside however loaded the machine; the budget itself is tested on a
  // service of its own (refuses hostile shops)
  svc = await startTestService({ env: { DISCOVERY_TIMEOUT_MS: '60000' } });
  ({ key } = await svc.createKey());
});

afterAll(async () => {
  await svc?.close();
  server?.close();
});

const discover = (body: unknown, k: string | undefined = key) => svc.call('POST', '/api/v1/products/discover', { key: k, body });
const shop = (n: number, p = '/') => `${base.replace('127.0.0.1', `127.0.0.${n}`)}${p}`;

describe('product discovery', () => {
  it('finds a shoe in a Shopify storefront and keeps only its packshots', async () => {
    const r = await discover({ url: shop(1), productType: 'shoe' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.product).toMatchObject({ title: 'Runner Sneaker', url: shop(1, '/products/runner'), productType: 'shoe', source: 'shopify' });
    expect(r.body.images).toHaveLength(4);
    expect(r.body.images).toEqual([0, 1, 2, 3].map((i) => shop(1, `/img/${i}.png`)));
    // the lifestyle photo was looked at and refused, with reasons
    expect(r.body.rejected).toEqual([expect.objectContaining({ url: shop(1, '/img/busy.png') })]);
    expect(r.body.rejected[0].reasons.join(' ')).toMatch(/backdrop|objects|frame/);
    expect(r.body.shoe3dRequest).toEqual({ images: r.body.images, options: { productType: 'shoe' } });
    // the result goes straight into shoe-3d
    const sub = await svc.call('POST', '/api/v1/shoe-3d', { key, body: r.body.shoe3dRequest });
    expect(sub.status).toBe(202);
    await svc.call('DELETE', `/api/v1/jobs/${sub.body.jobId}`, { key }); // the other tests need the CPU
  });

  it('takes a bag with a query, and a product URL through its handle', async () => {
    const bag = await discover({ url: shop(1), productType: 'bag', query: 'canvas' });
    expect(bag.body.product).toMatchObject({ title: 'Canvas Tote', productType: 'bag' });
    expect(bag.body.notes[0]).toMatch(/only 1 packshot/);
    const before = hits.length;
    const one = await discover({ url: shop(1, '/products/runner'), productType: 'auto' });
    expect(one.body.product.title).toBe('Runner Sneaker');
    expect(hits.slice(before)).toContain('127.0.0.1/products/runner.json');
    expect(hits.slice(before)).not.toContain('127.0.0.1/products.json');
    const none = await discover({ url: shop(1), productType: 'shoe', query: 'velvet slipper' });
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('PRODUCT_NOT_FOUND');
  });

  it('reads JSON-LD (with @graph, ImageObject and a broken block) on a linked product page', async () => {
    const r = await discover({ url: shop(2), productType: 'shoe' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.product, JSON.stringify(r.body)).toMatchObject({ title: 'Trail Boot', source: 'json-ld', url: shop(2, '/p/trail-boot') });
    expect(r.body.images).toEqual([0, 1, 2].map((i) => shop(2, `/img/${i}.png`)));
  });

  it('reads OpenGraph product tags, relative image URLs included', async () => {
    const r = await discover({ url: shop(3, '/item/42') });
    expect(r.status, r.text).toBe(200);
    expect(r.body.product).toMatchObject({ title: 'City Loafer', source: 'meta', productType: 'shoe' });
    expect(r.body.images).toEqual([shop(3, '/img/0.png'), shop(3, '/img/1.png'), shop(3, '/img/3.png')]);
  });

  it('falls back to the sitemap (index first, product sitemap) found in robots.txt', async () => {
    const r = await discover({ url: shop(4), productType: 'bag' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.product).toMatchObject({ title: 'Weekender Bag', source: 'sitemap' });
    expect(r.body.crawl.sourcesTried).toEqual(['shopify', 'json-ld', 'meta', 'sitemap']);
  });

  it('respects robots.txt', async () => {
    const before = hits.length;
    const r = await discover({ url: shop(5) });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('ROBOTS_DISALLOWED');
    expect(hits.slice(before)).toEqual(['127.0.0.5/robots.txt']);
    // a group naming Fitroom applies to it (the name its fetches send as User-Agent)
    const named = await discover({ url: shop(8) });
    expect(named.status).toBe(422);
    expect(named.body.error.code).toBe('ROBOTS_DISALLOWED');
  });

  it('refuses hostile shops with a clear error: redirect loop, redirect to a private address, huge page, slow page, no products', async () => {
    const loop = await discover({ url: shop(6, '/loop') });
    expect(loop.status).toBe(422);
    expect(loop.body.error.code).toBe('SITE_UNREACHABLE');
    expect(loop.body.error.message).toMatch(/redirect/i);
    const priv = await discover({ url: shop(6, '/to-private') });
    expect(priv.status).toBe(422);
    expect(priv.body.error.code).toBe('SITE_UNREACHABLE');
    const metadata = await discover({ url: 'http://169.254.169.254/latest/meta-data/' });
    expect(metadata.body.error.code).toBe('SITE_UNREACHABLE');
    const huge = await discover({ url: shop(6, '/huge') });
    expect(huge.body.error.code).toBe('SITE_UNREACHABLE');
    expect(huge.body.error.message).toMatch(/too_large|larger/);
    // a budget under the 8 s one fetch may take, so that the budget, not the fetch, is what stops it
    const tight = await startTestService({ env: { DISCOVERY_TIMEOUT_MS: '3000' } });
    try {
      const slow = await tight.call('POST', '/api/v1/products/discover', { key: (await tight.createKey()).key, body: { url: shop(6, '/slow') } });
      expect(slow.status).toBe(422);
      expect(slow.body.error.code).toBe('DISCOVERY_TIMEOUT');
    } finally {
      await tight.close();
    }
    const empty = await discover({ url: shop(6, '/empty') });
    expect(empty.status).toBe(404);
    expect(empty.body.error.code).toBe('PRODUCT_NOT_FOUND');
  });

  it('says so when none of the product images is a packshot', async () => {
    const r = await discover({ url: shop(7, '/shoe') });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('NO_PACKSHOTS');
    expect(r.body.error.details.map((d: { message: string }) => d.message).join('\n')).toMatch(/page\.png: .*(fetch|decode|type)/i);
  });

  it('validates the request and needs a key', async () => {
    for (const body of [{}, { url: 'ftp://shop.example/' }, { url: shop(1), productType: 'hat' }, { url: shop(1), extra: 1 }]) {
      const r = await discover(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect((await discover({ url: shop(1) }, '')).status).toBe(401);
  });

  it('is documented in OpenAPI', async () => {
    const doc = (await svc.call('GET', '/api/v1/openapi.json')).body;
    const op = doc.paths['/api/v1/products/discover'].post;
    expect(op.responses['200']).toBeTruthy();
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['400', '401', '404', '422']));
    expect(doc.components.schemas.ProductDiscoveryResult).toBeTruthy();
  });
});
