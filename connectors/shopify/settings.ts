import { ConfigError } from '../../core/config.ts';

export interface ShopifySettings {
  apiKey: string;
  apiSecret: string;
  /** The public origin of the app (`https://fitroom.example`); the app lives under `/shopify`. */
  appUrl: URL;
  scopes: string[];
}

/**
 * The default scopes: products and their media and metafields, the app proxy, collections, and the
 * live theme's files read-only (the admin's checklist sees whether the app embed and block are on).
 */
export const DEFAULT_SCOPES = ['read_products', 'write_products', 'write_app_proxy', 'read_themes'];

/**
 * SHOPIFY_API_KEY, SHOPIFY_API_SECRET and SHOPIFY_APP_URL (and optional SHOPIFY_SCOPES): all or none.
 * None: the app is absent (null). Some, or malformed: a ConfigError that says what to fix.
 */
export function loadShopifySettings(env: Record<string, string | undefined>): ShopifySettings | null {
  const names = ['SHOPIFY_API_KEY', 'SHOPIFY_API_SECRET', 'SHOPIFY_APP_URL'] as const;
  const given = names.filter((n) => env[n]?.trim());
  if (given.length === 0) {
    if (env.SHOPIFY_SCOPES?.trim()) throw new ConfigError('SHOPIFY_SCOPES is set but SHOPIFY_API_KEY, SHOPIFY_API_SECRET and SHOPIFY_APP_URL are not: set all three to run the Shopify app');
    return null;
  }
  if (given.length < names.length) throw new ConfigError(`The Shopify app needs ${names.join(', ')}; missing: ${names.filter((n) => !given.includes(n)).join(', ')}`);
  const apiKey = env.SHOPIFY_API_KEY!.trim();
  const apiSecret = env.SHOPIFY_API_SECRET!.trim();
  if (!/^[A-Za-z0-9_-]{8,}$/.test(apiKey)) throw new ConfigError('SHOPIFY_API_KEY must be the app\'s client id from the Partner Dashboard (letters and digits)');
  if (apiSecret.length < 8) throw new ConfigError('SHOPIFY_API_SECRET must be the app\'s client secret from the Partner Dashboard');
  let appUrl: URL;
  try {
    appUrl = new URL(env.SHOPIFY_APP_URL!.trim());
  } catch {
    throw new ConfigError(`SHOPIFY_APP_URL must be an absolute URL (https://your-host), got "${env.SHOPIFY_APP_URL}"`);
  }
  if (appUrl.protocol !== 'https:' && !['localhost', '127.0.0.1'].includes(appUrl.hostname)) throw new ConfigError('SHOPIFY_APP_URL must use https (Shopify calls it from the internet)');
  if (appUrl.pathname !== '/' || appUrl.search) throw new ConfigError('SHOPIFY_APP_URL is the origin only (https://your-host); the app is mounted under /shopify');
  const scopes = env.SHOPIFY_SCOPES?.trim() ? env.SHOPIFY_SCOPES.split(',').map((s) => s.trim()).filter(Boolean) : DEFAULT_SCOPES;
  for (const s of scopes) if (!/^(read|write|unauthenticated_read|unauthenticated_write)_[a-z_]+$/.test(s)) throw new ConfigError(`SHOPIFY_SCOPES: "${s}" is not a Shopify access scope (e.g. write_products)`);
  if (!scopes.includes('write_products')) throw new ConfigError('SHOPIFY_SCOPES must include write_products (3D media and size-chart metafields)');
  return { apiKey, apiSecret, appUrl, scopes };
}
