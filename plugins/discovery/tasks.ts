/**
 * Discovery's parsing of what a shop sends (robots.txt, HTML pages up to 2 MB, sitemaps, storefront
 * JSON), run on a CPU pool thread: each is tens of milliseconds to seconds of work on hostile input.
 */
import { parseRobots, robotsAllow, type RobotsRule, type RobotsRules } from './robots.ts';
import { readPage as read, sitemapLocations as locations, type PageFacts } from './page.ts';

export function robotsRules(input: { text: string; agent: string }): RobotsRules {
  return parseRobots(input.text, input.agent);
}

/** One verdict per path (path and query of each URL). */
export function robotsVerdicts(input: { rules: RobotsRule[]; paths: string[] }): boolean[] {
  return input.paths.map((p) => robotsAllow(input.rules, p));
}

export function readPage(input: { html: string; url: string }): PageFacts {
  return read(input.html, input.url);
}

export function sitemapLocations(input: { xml: string; base: string }): { locs: string[]; index: boolean } {
  return locations(input.xml, input.base);
}

/** The fields discovery reads of a Shopify storefront's `/products.json` or `/products/<handle>.json`. */
export interface ShopifyProduct {
  title?: string;
  handle?: string;
  product_type?: string;
  tags?: string | string[];
  vendor?: string;
  images?: { src?: string }[];
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** Parses storefront JSON and keeps only those fields (a 2 MB listing comes back as a few kilobytes). */
export function shopifyProducts(text: string): { product?: ShopifyProduct; products?: ShopifyProduct[] } | null {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  if (!data || typeof data !== 'object') return null;
  const slim = (p: unknown): ShopifyProduct => {
    const o = (p && typeof p === 'object' ? p : {}) as Record<string, unknown>;
    const tags = Array.isArray(o.tags) ? o.tags.filter((t): t is string => typeof t === 'string').slice(0, 100) : str(o.tags);
    const images = Array.isArray(o.images) ? o.images.slice(0, 50).map((i) => ({ src: str((i as Record<string, unknown> | null)?.src) })) : undefined;
    return { title: str(o.title), handle: str(o.handle), product_type: str(o.product_type), tags, vendor: str(o.vendor), images };
  };
  const d = data as { product?: unknown; products?: unknown };
  return {
    ...(d.product ? { product: slim(d.product) } : {}),
    ...(Array.isArray(d.products) ? { products: d.products.slice(0, 250).map(slim) } : {}),
  };
}
