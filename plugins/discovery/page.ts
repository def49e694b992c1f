import { Parser } from 'htmlparser2';

/** What a shop page says about products: JSON-LD, OpenGraph and product meta tags, and its links. */
export interface PageFacts {
  /** Products from JSON-LD (`Product`, also inside `@graph` and `ItemList`). */
  products: FoundProduct[];
  /** The page as a product from its meta tags, when they describe one. */
  meta: FoundProduct | null;
  /** Absolute http(s) links, in page order, without fragments. */
  links: string[];
}

export interface FoundProduct {
  title: string;
  url: string;
  images: string[];
  /** Category, type and keywords the page gives, for matching. */
  text: string;
}

const MAX_JSON_LD = 256 * 1024;

/** Reads a page with a tolerant streaming parser (htmlparser2): no DOM is built. */
export function readPage(html: string, pageUrl: string): PageFacts {
  const ldBlocks: string[] = [];
  const meta = new Map<string, string[]>();
  const links: string[] = [];
  let inLd = false;
  let ld = '';
  let title = '';
  let inTitle = false;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'script' && /ld\+json/i.test(attrs.type ?? '')) {
          inLd = true;
          ld = '';
        } else if (name === 'meta') {
          const key = (attrs.property ?? attrs.name ?? attrs.itemprop ?? '').toLowerCase();
          if (key && attrs.content) meta.set(key, [...(meta.get(key) ?? []), attrs.content]);
        } else if (name === 'a' && attrs.href) {
          const abs = absolute(attrs.href, pageUrl);
          if (abs) links.push(abs);
        } else if (name === 'title') inTitle = true;
      },
      ontext(text) {
        if (inLd && ld.length < MAX_JSON_LD) ld += text;
        else if (inTitle) title += text;
      },
      onclosetag(name) {
        if (name === 'script' && inLd) {
          inLd = false;
          ldBlocks.push(ld);
        } else if (name === 'title') inTitle = false;
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();

  const products: FoundProduct[] = [];
  for (const block of ldBlocks) {
    let data: unknown;
    try {
      data = JSON.parse(block);
    } catch {
      continue; // broken JSON-LD is common; the other sources remain
    }
    collectProducts(data, pageUrl, products, 0);
  }
  const first = (k: string) => meta.get(k)?.[0];
  const ogType = (first('og:type') ?? '').toLowerCase();
  const productMeta = ogType.includes('product') || meta.has('product:price:amount') || meta.has('product:retailer_item_id') || meta.has('og:price:amount');
  const metaImages = [...(meta.get('og:image') ?? []), ...(meta.get('og:image:secure_url') ?? []), ...(meta.get('twitter:image') ?? [])].map((u) => absolute(u, pageUrl)).filter((u): u is string => !!u);
  const found: FoundProduct | null = productMeta && metaImages.length
    ? { title: (first('og:title') ?? title).trim(), url: absolute(first('og:url') ?? pageUrl, pageUrl) ?? pageUrl, images: dedupe(metaImages), text: [first('product:category'), first('og:description'), first('keywords')].filter(Boolean).join(' ') }
    : null;
  return { products, meta: found, links: dedupe(links) };
}

function collectProducts(node: unknown, pageUrl: string, out: FoundProduct[], depth: number): void {
  if (depth > 6 || out.length >= 50 || node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const n of node) collectProducts(n, pageUrl, out, depth + 1);
    return;
  }
  const o = node as Record<string, unknown>;
  const types = ([] as unknown[]).concat(o['@type'] ?? []).map(String);
  if (types.some((t) => /(^|\/)Product(Group|Model)?$/.test(t))) {
    const images = ([] as unknown[]).concat(o.image ?? []).flatMap((i) => (typeof i === 'string' ? [i] : i && typeof i === 'object' ? [String((i as Record<string, unknown>).url ?? (i as Record<string, unknown>).contentUrl ?? '')] : []));
    const offers = ([] as unknown[]).concat(o.offers ?? [])[0] as Record<string, unknown> | undefined;
    const url = absolute(String(o.url ?? offers?.url ?? pageUrl), pageUrl) ?? pageUrl;
    const abs = images.map((i) => absolute(i, pageUrl)).filter((u): u is string => !!u);
    if (abs.length) out.push({ title: String(o.name ?? '').trim(), url, images: dedupe(abs), text: [o.category, o.description, o.keywords, (o.brand as Record<string, unknown> | undefined)?.name].filter((v) => typeof v === 'string').join(' ') });
  }
  for (const key of ['@graph', 'itemListElement', 'item', 'mainEntity', 'hasVariant']) if (key in o) collectProducts(o[key], pageUrl, out, depth + 1);
}

/** `<loc>` entries of a sitemap or sitemap index (a regular expression is enough for this flat XML). */
export function sitemapLocations(xml: string, base: string): { locs: string[]; index: boolean } {
  const locs: string[] = [];
  for (const m of xml.matchAll(/<loc>\s*([^<\s]+)\s*<\/loc>/gi)) {
    const abs = absolute(m[1].replace(/&amp;/g, '&'), base);
    if (abs) locs.push(abs);
    if (locs.length >= 5000) break;
  }
  return { locs, index: /<sitemapindex[\s>]/i.test(xml) };
}

export function absolute(href: string, base: string): string | null {
  try {
    const u = new URL(href.trim(), base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    u.hash = '';
    return u.href;
  } catch {
    return null;
  }
}

function dedupe(list: string[]): string[] {
  return [...new Set(list)];
}
