import { ConfigError } from '../../core/config.ts';

/** One AES-256 key for tokens at rest, named so that rows say which key sealed them. */
export interface TokenKey {
  id: string;
  key: Buffer;
}

/** The paid plan: a recurring charge plus usage charges, capped per 30-day period. */
export interface BillingSettings {
  currency: string;
  /** Recurring price of the paid plan per 30 days. */
  price: number;
  /** Usage cap per 30 days (the capped amount the merchant approves). */
  cap: number;
  /** Usage price of one AI try-on (a vendor model) and of one vendor 3D model. */
  tryOn: number;
  model3d: number;
  /** Charges created as test charges on every shop (otherwise only on development stores). */
  forceTest: boolean;
}

export interface ShopifySettings {
  apiKey: string;
  apiSecret: string;
  /** The public origin of the app (`https://fitroom.example`); the app lives under `/shopify`. */
  appUrl: URL;
  scopes: string[];
  /** SHOPIFY_TOKEN_KEYS: the first key seals new tokens, every key opens (rotation by key id). */
  tokenKeys: TokenKey[];
  billing: BillingSettings;
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
  return { apiKey, apiSecret, appUrl, scopes, tokenKeys: parseTokenKeys(env.SHOPIFY_TOKEN_KEYS), billing: parseBilling(env) };
}

/**
 * SHOPIFY_TOKEN_KEYS=`id:base64,...`: 32-byte keys (`openssl rand -base64 32`). The first seals; the
 * others only open rows sealed before a rotation (they are resealed with the first on start).
 */
export function parseTokenKeys(value: string | undefined): TokenKey[] {
  const help = 'generate a key with `openssl rand -base64 32` and set SHOPIFY_TOKEN_KEYS=k1:<key> (to rotate: SHOPIFY_TOKEN_KEYS=k2:<new>,k1:<old>)';
  if (!value?.trim()) throw new ConfigError(`The Shopify app stores its access tokens encrypted and needs SHOPIFY_TOKEN_KEYS: ${help}`);
  const keys: TokenKey[] = [];
  for (const part of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([A-Za-z0-9_-]{1,32}):(.+)$/.exec(part);
    if (!m) throw new ConfigError(`SHOPIFY_TOKEN_KEYS: each entry is <key id>:<base64 key>; ${help}`);
    const key = Buffer.from(m[2], 'base64');
    if (key.length !== 32) throw new ConfigError(`SHOPIFY_TOKEN_KEYS: key "${m[1]}" is ${key.length} bytes, AES-256 needs 32; ${help}`);
    if (keys.some((k) => k.id === m[1])) throw new ConfigError(`SHOPIFY_TOKEN_KEYS: key id "${m[1]}" appears twice`);
    keys.push({ id: m[1], key });
  }
  if (!keys.length) throw new ConfigError(`SHOPIFY_TOKEN_KEYS is empty: ${help}`);
  return keys;
}

function parseBilling(env: Record<string, string | undefined>): BillingSettings {
  const money = (name: string, fallback: number) => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0 || Math.round(n * 100) !== n * 100) throw new ConfigError(`${name} must be an amount such as 19.00, got "${raw}"`);
    return n;
  };
  const currency = env.SHOPIFY_BILLING_CURRENCY?.trim() || 'USD';
  if (!/^[A-Z]{3}$/.test(currency)) throw new ConfigError(`SHOPIFY_BILLING_CURRENCY must be an ISO 4217 code such as USD, got "${currency}"`);
  const b = {
    currency,
    price: money('SHOPIFY_PLAN_PRICE', 19),
    cap: money('SHOPIFY_USAGE_CAP', 100),
    tryOn: money('SHOPIFY_PRICE_TRYON', 0.1),
    model3d: money('SHOPIFY_PRICE_MODEL3D', 1),
    forceTest: env.SHOPIFY_BILLING_TEST === 'true',
  };
  if (b.cap <= 0) throw new ConfigError('SHOPIFY_USAGE_CAP must be more than 0');
  return b;
}
