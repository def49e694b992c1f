import type Router from '@koa/router';
import type Koa from 'koa';
import { isIP } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Operation } from '../../core/plugin.ts';
import type { Links } from '../../core/links.ts';
import { TOKENS } from '../../core/tokens.ts';
import { FitroomError } from '../../core/errors.ts';
import { RATE_LIMITS } from '../../core/pipeline.ts';
import { inbound, write } from '../standalone/http.ts';
import { PLATFORM, PROXY_SCHEME, type ShopifyConnector } from './shopify.ts';
import type { ShopifyMountDeps } from './routes.ts';
import { planGated } from './billing.ts';
import { countStorefrontUse } from './admin/routes.ts';

/**
 * The storefront operations the app proxy serves (the dialog's calls and the 3D viewer), by method and
 * API path. The loader and the dialog code are theme app extension assets (Shopify's CDN).
 */
const PROXIED = [
  ['POST', '/api/v1/virtual-fitting'],
  ['GET', '/api/v1/jobs/{jobId}'],
  ['POST', '/api/v1/digital-twin'],
  ['POST', '/api/v1/size-fitting'],
  ['GET', '/api/v1/challenge'],
  ['GET', '/widget/v1/fitroom.js'],
  ['GET', '/widget/v1/model-viewer.min.js'],
] as const;

/** Calls that carry a shopper's photo: refused unless the page says the shopper accepted the notice. */
const UPLOADS = new Set(['POST /api/v1/virtual-fitting', 'POST /api/v1/digital-twin']);

/** The notice's version: a changed notice is a new version, asked again. */
export const CONSENT_VERSION = '1';
export const CONSENT_HEADER = 'x-fitroom-consent';

/** The shop's total per rate-limit category, as a multiple of one shopper's limit. */
export const SHOP_BOUND_FACTOR = 20;

/**
 * The rate-limit buckets of a storefront call: the shopper's own (the logged-in customer; a guest by
 * a valid verification pass, else by the client address Shopify forwards), then the shop's total.
 */
export function shopperBuckets(c: ShopifyConnector, shop: string, customerId: string | null, req: { headers: Readonly<Record<string, string | undefined>>; ip: string }): { key: string; factor: number }[] {
  let who = customerId ? `customer:${customerId}` : null;
  if (!who) {
    const pass = req.headers['x-service-verification-pass'];
    const bot = c.api.has(TOKENS.botCheck) ? c.api.get(TOKENS.botCheck) : null;
    const holder = pass && pass.length <= 1024 && bot ? bot.passHolder(pass, req.ip) : null;
    who = holder ? `pass:${holder}` : `ip:${req.ip}`;
  }
  return [
    { key: `${PLATFORM}:${shop}/${who}`, factor: 1 },
    { key: `${PLATFORM}:${shop}`, factor: SHOP_BOUND_FACTOR },
  ];
}

/**
 * The shopper's address: Shopify's proxy puts it in X-Forwarded-For; proxies of our own in front
 * (TRUST_PROXY hops) append theirs after it. Anything before it is what the client claimed.
 */
export function shopperAddress(ctx: Koa.Context, trustedHops: number): string {
  const hops = String(ctx.get('x-forwarded-for')).split(',').map((s) => s.trim()).filter(Boolean);
  const ip = hops[hops.length - 1 - trustedHops];
  return ip && isIP(ip) ? ip : ctx.ip;
}

/**
 * The app proxy on the API host (`/apps/fitroom/...` on the shop, forwarded to `/shopify/proxy/...`):
 * each storefront operation through the core pipeline with Shopify's signature as the credential,
 * the shopper's address as the client address, and the consent notice the dialog shows.
 */
export function mountProxy(router: Router, deps: ShopifyMountDeps): void {
  const { connector: c, pipeline } = deps;
  const hops = deps.http.kernel.config.trustProxyHops;
  const fail = (ctx: Koa.Context, e: unknown) => write(ctx, pipeline.failure(e, (ctx.state as { requestId?: string }).requestId ?? randomUUID(), 'shopify-proxy'));

  for (const [method, path] of PROXIED) {
    const op = deps.http.kernel.operations.find((o) => o.method === method && o.path === path && (o.host ?? 'api') === 'api');
    if (!op) continue;
    const proxied: Operation = { ...op, auth: [PROXY_SCHEME], handler: planGated(c, op) };
    router.register(`/shopify/proxy${path.replace(/\{(\w+)\}/g, ':$1')}`, [method], async (ctx) => {
      if (UPLOADS.has(`${method} ${path}`) && ctx.get(CONSENT_HEADER) !== CONSENT_VERSION) {
        return fail(ctx, new FitroomError('FORBIDDEN', 'The shopper has not accepted the photo notice: the page sends X-Fitroom-Consent once they have'));
      }
      // the proxy scheme checks the signature over the exact query, duplicates included
      ctx.request.headers['x-fitroom-proxy-query'] = ctx.querystring;
      const req = inbound(ctx, deps.http);
      const ip = shopperAddress(ctx, hops);
      const prefix = proxyPrefix(ctx);
      const res = await pipeline.invoke(proxied, { ...req, ip, loopback: ip === ctx.ip && req.loopback, links: proxyLinks(req.links, prefix) });
      write(ctx, res);
      await countStorefrontUse(c, path, res.status, ctx.query.shop);
    });
  }

  // What the consent step says, for this shop: what is sent, who processes it, how long it is kept.
  router.get('/shopify/proxy/storefront/v1/consent', async (ctx) => {
    try {
      const resolver = deps.http.kernel.authResolvers.get(PROXY_SCHEME)!;
      const query: Record<string, string> = {};
      for (const [k, v] of new URLSearchParams(ctx.querystring)) query[k] = v;
      const ok = await resolver.resolve({ headers: { 'x-fitroom-proxy-query': ctx.querystring }, query, cookie: () => undefined, ip: shopperAddress(ctx, hops), operationId: 'shopifyConsent' });
      if (!ok) throw resolver.missing();
      // counted like a status read, in the shopper's bucket
      const bucket = ok.caller?.rateBuckets?.[0]?.key ?? `ip:${shopperAddress(ctx, hops)}`;
      const d = await c.api.get(TOKENS.rateLimiter).consume(`status:${bucket}`, RATE_LIMITS.status, 60);
      if (!d.allowed) throw new FitroomError('RATE_LIMITED', `Rate limit of ${d.limit} requests per minute exceeded`, { retryAfterSeconds: d.resetAt - Math.floor(Date.now() / 1000) });
      const shop = c.shopify.utils.sanitizeShop(query.shop ?? '')!;
      const settings = await c.store.shopSettings(PLATFORM, shop);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = {
        version: CONSENT_VERSION,
        photoRetentionHours: settings.photoRetentionHours,
        processor: { name: 'Fitroom', host: c.settings.appUrl.host },
        sent: ['the photo you choose (at most 1600 pixels on its long side)', 'the measurements and sizes you enter', 'this product\'s picture'],
      };
    } catch (e) {
      fail(ctx, e);
    }
  });
}

function proxyPrefix(ctx: Koa.Context): string {
  const p = String(ctx.query.path_prefix ?? '');
  return /^\/apps\/[a-z0-9_-]+$/i.test(p) ? p : '/apps/fitroom';
}

/** Status links stay on the shop's proxy path (same origin as the page); files stay on the API host. */
function proxyLinks(base: Links, prefix: string): Links {
  return { ...base, job: (jobId) => `${prefix}/api/v1/jobs/${encodeURIComponent(jobId)}` };
}
