import type Router from '@koa/router';
import type Koa from 'koa';
import { randomUUID } from 'node:crypto';
import type { OperationPipeline } from '../../core/pipeline.ts';
import { restLinks } from '../../core/links.ts';
import { FitroomError, validationError } from '../../core/errors.ts';
import { write, type HttpDeps } from '../standalone/http.ts';
import { COLLECTION_PRODUCTS_QUERY, METAFIELDS_SET, PRODUCT_IMAGES_QUERY, PRODUCTS_QUERY, assertNoUserErrors } from './admin-api.ts';
import { PLATFORM, accountOf, exchangeToken, newMediaRow, type ShopifyConnector } from './shopify.ts';
import { mountWebhooks, readRaw } from './webhooks.ts';
import { mountDataRequests, mountCompliance } from './data-requests.ts';
import { assert3dAllowed, mountBilling } from './billing.ts';
import { countChartSaved, mountAdminApp } from './admin/routes.ts';
import { mountProxy } from './proxy.ts';
import { mountStorefrontSettings } from './storefront.ts';

export interface ShopifyMountDeps {
  connector: ShopifyConnector;
  pipeline: OperationPipeline;
  http: HttpDeps;
}

/**
 * The Shopify app's HTTP side on the API host, under /shopify: OAuth install, webhooks, the app proxy
 * (storefront operations through the core pipeline with the proxy's signature as credential) and the
 * embedded admin with its JSON routes (session-token authenticated).
 */
export function mountShopify(router: Router, deps: ShopifyMountDeps): void {
  const { connector: c, pipeline } = deps;
  const { shopify } = c;
  const fail = (ctx: Koa.Context, e: unknown) => write(ctx, pipeline.failure(e, (ctx.state as { requestId: string }).requestId ?? randomUUID(), 'shopify'));
  const guarded = (fn: (ctx: Koa.Context) => Promise<void>) => async (ctx: Koa.Context) => {
    try {
      await fn(ctx);
    } catch (e) {
      if (ctx.respond === false) return;
      fail(ctx, e);
    }
  };

  // 1. Install: OAuth for an offline token. The library writes the redirect and its state cookies.
  router.get('/shopify/auth', guarded(async (ctx) => {
    const shop = shopify.utils.sanitizeShop(String(ctx.query.shop ?? ''));
    if (!shop) throw validationError([{ field: 'shop', message: 'must be a shop domain such as name.myshopify.com' }]);
    ctx.respond = false;
    await shopify.auth.begin({ shop, callbackPath: '/shopify/auth/callback', isOnline: false, rawRequest: ctx.req, rawResponse: ctx.res });
  }));
  router.get('/shopify/auth/callback', guarded(async (ctx) => {
    let session;
    try {
      ({ session } = await shopify.auth.callback({ rawRequest: ctx.req, rawResponse: ctx.res, expiring: true }));
    } catch (e) {
      throw new FitroomError('HTTP_ERROR', `The Shopify authorization could not be completed: ${(e as Error).message}`);
    }
    await c.completeInstall(session);
    ctx.redirect(`https://${session.shop}/admin/apps/${c.settings.apiKey}`);
  }));

  // 2. Webhooks: HMAC, body checked against the headers, work before the delivery is recorded (webhooks.ts).
  mountWebhooks(router, c, fail, deps.http.log);

  // 3. The app proxy: the storefront's calls, signed by Shopify, answered by the core pipeline.
  mountProxy(router, deps);

  // 4. The embedded admin page and its JSON routes.
  const admin = (fn: (ctx: Koa.Context, shop: string) => Promise<unknown>) =>
    guarded(async (ctx) => {
      const auth = /^Bearer (.+)$/.exec(ctx.get('authorization'))?.[1];
      if (!auth) throw new FitroomError('HTTP_ERROR', 'The admin routes need the App Bridge session token (Authorization: Bearer)');
      let shop: string;
      try {
        const payload = await shopify.session.decodeSessionToken(auth);
        shop = new URL(payload.dest).hostname;
      } catch {
        throw new FitroomError('HTTP_ERROR', 'The session token is invalid or expired');
      }
      const install = await c.store.getInstall(PLATFORM, shop);
      if (!install || install.status !== 'installed') await exchangeToken(c, shop, auth).catch((e) => {
        throw new FitroomError('PLATFORM_REAUTH_REQUIRED', `Shopify did not exchange the session token: ${(e as Error).message}`);
      });
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await fn(ctx, shop);
    });
  const gql = <T>(shop: string, q: string, v: Record<string, unknown>) => c.admin<T>(shop, q, v);
  mountAdminApp(router, { connector: c, admin, gql });

  router.get('/shopify/api/products', admin(async (ctx, shop) => {
    const search = typeof ctx.query.q === 'string' ? ctx.query.q.slice(0, 200) : undefined;
    const data = await gql<{ products: { nodes: unknown[] } }>(shop, PRODUCTS_QUERY, { first: 50, query: search ?? null });
    const media = await c.store.media({ platform: PLATFORM, shop });
    return { products: data.products.nodes, generations: media.map(mediaView) };
  }));
  router.post('/shopify/api/products/:id/3d', admin(async (ctx, shop) => ({ generation: await generate3d(c, ctx, shop, productGid(ctx.params.id, 'Product')) })));
  router.post('/shopify/api/collections/:id/3d', admin(async (ctx, shop) => {
    const data = await gql<{ collection: { products: { nodes: { id: string; images: { nodes: { url: string }[] } }[] } } | null }>(shop, COLLECTION_PRODUCTS_QUERY, { id: productGid(ctx.params.id, 'Collection') });
    if (!data.collection) throw new FitroomError('NOT_FOUND', 'No such collection in this shop');
    const generations = [];
    const skipped = [];
    for (const p of data.collection.products.nodes) {
      if (!p.images.nodes.length) skipped.push({ productId: p.id, reason: 'no images' });
      else generations.push(await generate3d(c, ctx, shop, p.id, p.images.nodes.map((i) => i.url)));
    }
    return { generations, skipped };
  }));
  router.get('/shopify/api/generations', admin(async (_ctx, shop) => {
    await c.sweepMedia();
    return { generations: (await c.store.media({ platform: PLATFORM, shop })).map(mediaView) };
  }));
  router.put('/shopify/api/products/:id/size-chart', admin(async (ctx, shop) => {
    const body = (await readJson(ctx.req, 64 * 1024)) as { category?: string; sizeChart?: unknown };
    // the chart the theme block sends to size fitting: validated exactly as POST /api/v1/size-fitting would
    const probe = { digitalTwinId: '0'.repeat(64), products: [{ id: 'chart', category: body?.category, sizeChart: body?.sizeChart }] };
    deps.http.kernel.validator.assert('SizeFittingRequest', probe);
    const value = JSON.stringify({ category: body.category, sizeChart: body.sizeChart });
    const data = await gql<{ metafieldsSet: { userErrors: { field: string[]; message: string }[] } }>(shop, METAFIELDS_SET, {
      metafields: [{ ownerId: productGid(ctx.params.id, 'Product'), namespace: '$app:fitroom', key: 'size_chart', type: 'json', value }],
    });
    assertNoUserErrors('Shopify refused the size chart', data.metafieldsSet);
    await countChartSaved(c, shop);
    return { success: true };
  }));
  mountStorefrontSettings(router, deps, admin);
  mountDataRequests(router, c, admin);
  mountCompliance(router, c, admin);
  mountBilling(router, c, admin, (ctx) => readJson(ctx.req, 16 * 1024));

  async function generate3d(conn: ShopifyConnector, ctx: Koa.Context, shop: string, productId: string, known?: string[]) {
    const install = await conn.installed(shop);
    await assert3dAllowed(conn, shop);
    const images = known ?? (await gql<{ product: { images: { nodes: { url: string }[] } } | null }>(shop, PRODUCT_IMAGES_QUERY, { id: productId })).product?.images.nodes.map((i) => i.url);
    if (!images) throw new FitroomError('NOT_FOUND', 'No such product in this shop');
    if (!images.length) throw validationError([{ field: 'images', message: 'the product has no images to build a model from' }]);
    const shoe3d = deps.http.kernel.operations.find((o) => o.method === 'POST' && o.path === '/api/v1/shoe-3d');
    if (!shoe3d) throw new FitroomError('SERVICE_UNAVAILABLE', 'Shoe and bag 3D is not installed on this deployment');
    // the same validation and job as POST /api/v1/shoe-3d, as the shop's own account
    const links = restLinks(deps.http.kernel.config, c.settings.appUrl.origin);
    const body = { images: images.slice(0, 4), options: { productType: 'auto' } };
    deps.http.kernel.validator.assert(shoe3d.body!, body);
    const res = await shoe3d.handler({ params: {}, query: {}, body, caller: conn.merchantCaller(install), authScheme: 'shopify', headers: {}, ip: ctx.ip, baseUrl: links.api, links, requestId: randomUUID() });
    const jobId = (res.body as { jobId: string }).jobId;
    const row = newMediaRow(shop, productId, jobId);
    await conn.store.addMedia(row);
    return { id: row.id, productId, jobId, status: 'generating' };
  }
}

function mediaView(m: { id: string; productId: string; jobId: string; status: string; mediaId: string | null; error: string | null; updatedAt: Date }) {
  return { id: m.id, productId: m.productId, jobId: m.jobId, status: m.status, mediaId: m.mediaId, error: m.error, updatedAt: m.updatedAt.toISOString() };
}

/** Numeric ids and gids both accepted; anything else is a validation error. */
function productGid(id: string, type: 'Product' | 'Collection'): string {
  if (/^\d{1,20}$/.test(id)) return `gid://shopify/${type}/${id}`;
  if (new RegExp(`^gid://shopify/${type}/\\d{1,20}$`).test(id)) return id;
  throw validationError([{ field: 'id', message: `must be a ${type} id` }]);
}


async function readJson(req: NodeJS.ReadableStream, max: number): Promise<unknown> {
  // an empty body reads as null (routes with no fields)
  const text = await readRaw(req, max);
  if (!text.trim()) return null;
  try {
    return JSON.parse(text);
  } catch {
    throw validationError([{ field: '(body)', message: 'is not valid JSON' }], 'Malformed JSON body');
  }
}

export { accountOf };
