import { createHmac } from 'node:crypto';

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

/** SHOPIFY_TOKEN_KEYS for tests: one fixed 32-byte key (never a real deployment's). */
export const TEST_TOKEN_KEYS = `k1:${Buffer.alloc(32, 7).toString('base64')}`;
