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
