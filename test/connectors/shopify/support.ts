import { createHmac, randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../../support/harness.ts';
import type { HttpDeps } from '../../../connectors/standalone/http.ts';
import { loadShopifySettings } from '../../../connectors/shopify/settings.ts';
import { shopifyPlugin, type ShopifyConnector } from '../../../connectors/shopify/shopify.ts';
import { mountShopify } from '../../../connectors/shopify/routes.ts';

/**
 * An app proxy query as Shopify signs it: the parameters sorted, `k=v` (repeated values joined
 * with `,`) concatenated without separators, hex HMAC-SHA256 with the app secret, as `signature`.
 */
export function signProxyQuery(secret: string, pairs: [string, string][]): string {
  const grouped = new Map<string, string[]>();
  for (const [k, v] of pairs) grouped.set(k, [...(grouped.get(k) ?? []), v]);
  const message = [...grouped.keys()].sort().map((k) => `${k}=${grouped.get(k)!.join(',')}`).join('');
  const q = new URLSearchParams(pairs);
  q.append('signature', createHmac('sha256', secret).update(message).digest('hex'));
  return q.toString();
}

/**
 * An App Bridge session token as Shopify issues it (HS256 JWT signed with the app secret; `dest` the
 * shop, `aud` the app's client id), valid for `seconds` (Shopify's own last a minute).
 */
export function signSessionToken(shop: string, apiKey: string, secret: string, seconds = 600): string {
  const now = Math.floor(Date.now() / 1000);
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ iss: `https://${shop}/admin`, dest: `https://${shop}`, aud: apiKey, sub: '42', exp: now + seconds, nbf: now - 5, iat: now, jti: randomUUID(), sid: randomUUID() })}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

/** SHOPIFY_TOKEN_KEYS for tests: one fixed 32-byte key (never a real deployment's). */
export const TEST_TOKEN_KEYS = `k1:${Buffer.alloc(32, 7).toString('base64')}`;

export const TEST_APP_URL = 'https://my-test-app.myshopify.io';

/**
 * The standalone service with the Shopify app mounted under /shopify, as the test files start it:
 * the test app's credentials and token key, plus `settings` (SHOPIFY_* variables) and the service's `env`.
 */
export async function startShopifyService(opts: { settings?: Record<string, string>; env?: Record<string, string>; log?: HttpDeps['log'] } = {}): Promise<{ svc: TestService; c: ShopifyConnector }> {
  const settings = loadShopifySettings({ SHOPIFY_API_KEY: 'testApiKey', SHOPIFY_API_SECRET: 'testApiSecretKey', SHOPIFY_APP_URL: TEST_APP_URL, SHOPIFY_TOKEN_KEYS: TEST_TOKEN_KEYS, ...opts.settings })!;
  const plugin = shopifyPlugin(settings);
  const svc = await startTestService({ plugins: [plugin], ...(opts.env ? { env: opts.env } : {}), mounts: [(router, h) => mountShopify(router, { connector: plugin.connector(), pipeline: h.pipeline, http: opts.log ? { ...h, log: opts.log } : h })] });
  return { svc, c: plugin.connector() };
}
