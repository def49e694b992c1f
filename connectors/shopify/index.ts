import type { FitroomPlugin } from '../../core/plugin.ts';
import type { Mount } from '../standalone/compose.ts';
import { loadShopifySettings } from './settings.ts';
import { shopifyPlugin } from './shopify.ts';
import { mountShopify } from './routes.ts';

/**
 * The Shopify app for a standalone service, from SHOPIFY_* variables: its plugin and its routes on the
 * API host under /shopify, or nothing (with the reason) when the variables are not set.
 */
export function shopifyFromEnv(env: Record<string, string | undefined>): { plugins: FitroomPlugin[]; mounts: Mount[]; status: string } {
  const settings = loadShopifySettings(env);
  if (!settings) return { plugins: [], mounts: [], status: 'Shopify app off (set SHOPIFY_API_KEY, SHOPIFY_API_SECRET, SHOPIFY_APP_URL and SHOPIFY_TOKEN_KEYS to mount it under /shopify)' };
  const plugin = shopifyPlugin(settings);
  const mount: Mount = (router, http) => mountShopify(router, { connector: plugin.connector(), pipeline: http.pipeline, http });
  return { plugins: [plugin], mounts: [mount], status: `Shopify app on ${settings.appUrl.origin}/shopify (app proxy: ${settings.appUrl.origin}/shopify/proxy)` };
}
