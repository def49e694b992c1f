import type Router from '@koa/router';
import type Koa from 'koa';
import { validationError } from '../../core/errors.ts';
import { DEFAULT_SHOP_SETTINGS, type PlatformShopSettings } from '../../core/ports/platform-store.ts';
import { inbound } from '../standalone/http.ts';
import { PLATFORM, shopperOwner, type ShopifyConnector } from './shopify.ts';
import type { ShopifyMountDeps } from './routes.ts';

/** Photo retention bounds in hours: at least one hour (a try-on takes minutes), at most 30 days. */
export const RETENTION_HOURS = { min: 1, max: 720, default: DEFAULT_SHOP_SETTINGS.photoRetentionHours } as const;

type AdminRoute = (fn: (ctx: Koa.Context, shop: string) => Promise<unknown>) => (ctx: Koa.Context) => Promise<void>;

/**
 * The shop's storefront settings for the embedded admin (App Bridge session token): GET and PUT
 * /shopify/api/settings, `{photoRetentionHours}` with its bounds.
 */
export function mountStorefrontSettings(router: Router, deps: ShopifyMountDeps, admin: AdminRoute): void {
  const c = deps.connector;
  const view = (s: PlatformShopSettings) => ({ photoRetentionHours: s.photoRetentionHours, limits: { photoRetentionHours: RETENTION_HOURS } });
  router.get('/shopify/api/settings', admin(async (_ctx, shop) => view(await c.store.shopSettings(PLATFORM, shop))));
  router.put('/shopify/api/settings', admin(async (ctx, shop) => {
    const body = (await inbound(ctx, deps.http).readJson(16 * 1024)) as Record<string, unknown> | undefined;
    const next = parseSettings(body, await c.store.shopSettings(PLATFORM, shop));
    await c.store.saveShopSettings(PLATFORM, shop, next);
    return view(next);
  }));
}

/** A settings update: known fields only, each checked; absent fields keep their value. */
export function parseSettings(body: unknown, current: PlatformShopSettings): PlatformShopSettings {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw validationError([{ field: '(body)', message: 'must be a JSON object' }]);
  const details = Object.keys(body).filter((k) => k !== 'photoRetentionHours').map((k) => ({ field: k, message: 'is not a setting' }));
  const h = (body as Record<string, unknown>).photoRetentionHours;
  if (h !== undefined && !(Number.isInteger(h) && (h as number) >= RETENTION_HOURS.min && (h as number) <= RETENTION_HOURS.max)) {
    details.push({ field: 'photoRetentionHours', message: `must be a whole number of hours from ${RETENTION_HOURS.min} to ${RETENTION_HOURS.max}` });
  }
  if (details.length) throw validationError(details);
  return { photoRetentionHours: (h as number | undefined) ?? current.photoRetentionHours };
}

/**
 * Retention: for every installed shop, what its shoppers sent and what was made from it (try-on
 * jobs with their photos, result files, fit profiles, cached results) older than the shop's photo
 * retention is erased. Returns the number of rows removed.
 */
export async function purgeShopperPhotos(c: ShopifyConnector, now = new Date()): Promise<number> {
  let removed = 0;
  for (const { shop, photoRetentionHours } of await c.store.retentionByShop(PLATFORM)) {
    const owners = [shopperOwner(shop), ...(await c.store.customers(PLATFORM, shop)).map((id) => shopperOwner(shop, id))];
    const n = await c.ownerData.eraseBefore(owners, new Date(now.getTime() - photoRetentionHours * 3_600_000));
    removed += n.jobs + n.files + n.twins + n.tryOnResults;
  }
  return removed;
}
