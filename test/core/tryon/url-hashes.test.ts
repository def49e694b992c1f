import { describe, expect, it } from 'vitest';
import { UrlHashes, URL_HASH_MAX_FRESH_MS } from '../../../core/tryon/url-hashes.ts';

const image = { sha256: 'a'.repeat(64), contentType: 'image/png', size: 10 };
const t0 = Date.parse('2026-11-27T10:00:00Z');

describe('UrlHashes', () => {
  it('reuses a hash while the origin says it is fresh, capped at a few minutes, then keeps it stale for its validators', () => {
    const h = new UrlHashes();
    h.remember('https://shop.example/a.png', image, { storable: true, freshForMs: 60_000, etag: '"1"' }, t0);
    expect(h.fresh('https://shop.example/a.png', t0 + 59_999)).toMatchObject({ sha256: image.sha256, etag: '"1"' });
    expect(h.fresh('https://shop.example/a.png', t0 + 60_000)).toBeUndefined();
    expect(h.get('https://shop.example/a.png')).toMatchObject({ etag: '"1"' });
    // a year's max-age is reused for the cap only
    h.remember('https://shop.example/b.png', image, { storable: true, freshForMs: 365 * 86_400_000 }, t0);
    expect(h.fresh('https://shop.example/b.png', t0 + URL_HASH_MAX_FRESH_MS - 1)).toBeDefined();
    expect(h.fresh('https://shop.example/b.png', t0 + URL_HASH_MAX_FRESH_MS)).toBeUndefined();
  });

  it('keeps nothing the origin forbids or that could never be reused or revalidated, and forgets an older entry then', () => {
    const h = new UrlHashes();
    const url = 'https://shop.example/a.png';
    h.remember(url, image, { storable: true, freshForMs: 60_000 }, t0);
    h.remember(url, image, { storable: false, freshForMs: 60_000, etag: '"1"' }, t0);
    expect(h.get(url)).toBeUndefined();
    h.remember(url, image, { storable: true, freshForMs: 0 }, t0);
    expect(h.get(url)).toBeUndefined();
    h.remember(url, image, undefined, t0);
    expect(h.get(url)).toBeUndefined();
    // no freshness but a validator: kept to revalidate, never fresh
    h.remember(url, image, { storable: true, freshForMs: 0, lastModified: 'Tue, 01 Sep 2026 10:00:00 GMT' }, t0);
    expect(h.fresh(url, t0)).toBeUndefined();
    expect(h.get(url)).toMatchObject({ lastModified: 'Tue, 01 Sep 2026 10:00:00 GMT' });
  });

  it('renews an entry confirmed by a 304 with its freshness and any new validator, and drops it when the 304 forbids keeping it', () => {
    const h = new UrlHashes();
    const url = 'https://shop.example/a.png';
    h.remember(url, image, { storable: true, freshForMs: 0, etag: '"1"' }, t0);
    const renewed = h.revalidated(url, h.get(url)!, { storable: true, freshForMs: 30_000, etag: '"2"' }, t0 + 1000);
    expect(renewed).toMatchObject({ sha256: image.sha256, etag: '"2"', freshUntil: t0 + 31_000 });
    expect(h.fresh(url, t0 + 30_999)).toBeDefined();
    const confirmed = h.revalidated(url, h.get(url)!, { storable: false, freshForMs: 30_000 }, t0 + 2000);
    expect(confirmed.sha256).toBe(image.sha256);
    expect(h.get(url)).toBeUndefined();
  });

  it('holds a bounded number of URLs, the least recently used leaving first', () => {
    const h = new UrlHashes({ maxEntries: 2 });
    const fresh = { storable: true, freshForMs: 60_000 };
    h.remember('u1', image, fresh, t0);
    h.remember('u2', image, fresh, t0);
    expect(h.fresh('u1', t0)).toBeDefined();
    h.remember('u3', image, fresh, t0);
    expect(h.get('u2')).toBeUndefined();
    expect(h.get('u1')).toBeDefined();
    expect(h.get('u3')).toBeDefined();
  });
});
