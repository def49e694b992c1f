import type Router from '@koa/router';
import type Koa from 'koa';
import { readFileSync } from 'node:fs';
import { PLATFORM, type ShopifyConnector } from '../shopify.ts';
import { PLATFORM_USAGE, type PlatformMetric } from '../../../core/ports/platform-usage.ts';
import { adminPage } from './page.ts';
import { overview } from './overview.ts';

/** The page's scripts (browser modules), read once. */
const SCRIPTS = new Map(['admin.js', 'size-chart-rules.js'].map((f) => [f, readFileSync(new URL(`./${f}`, import.meta.url), 'utf8')]));

export interface AdminAppDeps {
  connector: ShopifyConnector;
  /** Wraps a JSON route with the session-token check; the handler gets the token's shop. */
  admin: (fn: (ctx: Koa.Context, shop: string) => Promise<unknown>) => (ctx: Koa.Context) => Promise<void>;
  gql: <T>(shop: string, query: string, variables: Record<string, unknown>) => Promise<T>;
}

/**
 * The embedded admin (Polaris web components and App Bridge from Shopify's CDN): its page, its script
 * and the overview route (onboarding checklist and this month's figures).
 */
export function mountAdminApp(router: Router, deps: AdminAppDeps): void {
  const { connector: c } = deps;
  router.get('/shopify/app', (ctx) => {
    const shop = c.shopify.utils.sanitizeShop(String(ctx.query.shop ?? ''));
    ctx.set('Content-Security-Policy', `frame-ancestors https://admin.shopify.com${shop ? ` https://${shop}` : ''};`);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = adminPage(c.settings.apiKey);
  });
  router.get('/shopify/app/:script', (ctx, next) => {
    const script = SCRIPTS.get(ctx.params.script);
    if (!script) return next();
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = script;
  });
  router.get('/shopify/api/overview', deps.admin((_ctx, shop) => overview(c, deps.gql, shop)));
}

/** The storefront calls the admin's figures count, by proxied API path. */
const COUNTED: Record<string, PlatformMetric> = { '/api/v1/virtual-fitting': 'tryon', '/api/v1/size-fitting': 'size_recommendation' };

/** Counts a successful storefront call for the admin's figures (the shop is the proxy's signed one). */
export async function countStorefrontUse(c: ShopifyConnector, path: string, status: number, shop: unknown): Promise<void> {
  const metric = COUNTED[path];
  const domain = typeof shop === 'string' ? c.shopify.utils.sanitizeShop(shop) : null;
  if (!metric || status >= 300 || !domain) return;
  // the shopper's answer is already written: a counter that cannot be stored only costs a figure
  await c.api.get(PLATFORM_USAGE).count(PLATFORM, domain, metric).catch(() => undefined);
}

/** Counts a size chart saved from the admin (the checklist's "set a size chart" step). */
export async function countChartSaved(c: ShopifyConnector, shop: string): Promise<void> {
  await c.api.get(PLATFORM_USAGE).count(PLATFORM, shop, 'size_chart');
}
