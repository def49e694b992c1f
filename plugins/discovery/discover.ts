import { FitroomError } from '../../core/errors.ts';
import type { ImageLoader } from '../../core/image-loader.ts';
import { OutboundError, type OutboundHttp } from '../../core/ports/outbound-http.ts';
import type { PackshotAssessment, PackshotClassifier } from '../../core/ports/packshot-classifier.ts';
import { absolute, type FoundProduct, type PageFacts } from './page.ts';
import { cpuTask, type CpuPool, type CpuTask } from '../../core/ports/cpu-pool.ts';
import type { RobotsRule, RobotsRules } from './robots.ts';
import type { ShopifyProduct } from './tasks.ts';

/** What a shop sends is parsed on CPU pool threads (plugins/discovery/tasks.ts), never on the HTTP event loop. */
const TASKS = new URL('./tasks.ts', import.meta.url);
const TASK = {
  robotsRules: cpuTask<{ text: string; agent: string }, RobotsRules>(TASKS, 'robotsRules'),
  robotsVerdicts: cpuTask<{ rules: RobotsRule[]; paths: string[] }, boolean[]>(TASKS, 'robotsVerdicts'),
  readPage: cpuTask<{ html: string; url: string }, PageFacts>(TASKS, 'readPage'),
  sitemapLocations: cpuTask<{ xml: string; base: string }, { locs: string[]; index: boolean }>(TASKS, 'sitemapLocations'),
  shopifyProducts: cpuTask<string, { product?: ShopifyProduct; products?: ShopifyProduct[] } | null>(TASKS, 'shopifyProducts'),
};

/**
 * Product discovery: the first product of a shop that matches a type (and optional words), with
 * 3 to 4 packshot URLs for shoe-3d. Sources in order: the Shopify storefront JSON (`/products/<handle>.json`
 * for a product URL, else `/products.json`), the JSON-LD `Product` data of the page, its OpenGraph and
 * product meta tags, then product pages linked from it, then the sitemap. Every fetch goes through the
 * safe outbound client, counted against page, byte and time budgets; robots.txt is respected.
 */

export type ProductKind = 'shoe' | 'bag' | 'auto';
export type Source = 'shopify' | 'json-ld' | 'meta' | 'sitemap';

export interface DiscoveryLimits {
  /** The whole discovery, fetches and image checks, answers within this (synchronous route). */
  timeMs: number;
  maxPages: number;
  maxPageBytes: number;
  /** Candidate images downloaded and assessed. */
  maxImages: number;
}

export const DEFAULT_LIMITS: DiscoveryLimits = { timeMs: 20_000, maxPages: 20, maxPageBytes: 2 * 1024 * 1024, maxImages: 8 };
/** The agent robots.txt rules are matched for: the product token of the User-Agent every outbound fetch sends. */
export const USER_AGENT = 'Fitroom/1.2';

export interface DiscoveryResult {
  product: { title: string; url: string; productType: 'shoe' | 'bag' | 'unknown'; source: Source };
  packshots: { url: string; score: number; reasons: string[] }[];
  rejected: { url: string; score?: number; reasons: string[] }[];
  crawl: { pagesFetched: number; imagesAssessed: number; elapsedMs: number; sourcesTried: Source[] };
}

const SHOE_WORDS = /\b(shoes?|sneakers?|trainers?|boots?|booties|sandals?|loafers?|heels?|pumps?|mules?|clogs?|slippers?|espadrilles?|oxfords?|brogues?|footwear|derby|moccasins?)\b/i;
const BAG_WORDS = /\b(bags?|handbags?|totes?|backpacks?|rucksacks?|purses?|clutch(es)?|satchels?|crossbody|shoulder bag|duffels?|wallets?|pouch(es)?)\b/i;

function kindOf(text: string): 'shoe' | 'bag' | 'unknown' {
  if (SHOE_WORDS.test(text)) return 'shoe';
  if (BAG_WORDS.test(text)) return 'bag';
  return 'unknown';
}

function matches(p: FoundProduct, want: ProductKind, query: string | undefined): boolean {
  const text = `${p.title} ${p.text}`;
  if (want !== 'auto' && kindOf(text) !== want) return false;
  if (query) {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const hay = `${text} ${p.url}`.toLowerCase();
    if (!words.every((w) => hay.includes(w))) return false;
  }
  return true;
}

export class ProductDiscovery {
  readonly #http: OutboundHttp;
  readonly #images: ImageLoader;
  readonly #classifier: PackshotClassifier;
  readonly #limits: DiscoveryLimits;
  readonly #pool: CpuPool;
  constructor(http: OutboundHttp, images: ImageLoader, classifier: PackshotClassifier, pool: CpuPool, limits: DiscoveryLimits = DEFAULT_LIMITS) {
    this.#http = http;
    this.#pool = pool;
    this.#images = images;
    this.#classifier = classifier;
    this.#limits = limits;
  }

  async discover(url: string, want: ProductKind, query: string | undefined): Promise<DiscoveryResult> {
    const started = Date.now();
    const crawl = new Crawl(this.#http, this.#pool, new URL(url), this.#limits, started);
    const tried: Source[] = [];
    try {
      await crawl.loadRobots();
      if (!(await crawl.allowed(url))) throw new FitroomError('ROBOTS_DISALLOWED', `The shop's robots.txt does not allow fetching ${url}`);
      let found: { p: FoundProduct; source: Source } | null = null;

      tried.push('shopify');
      found = await this.#shopify(crawl, url, want, query);

      if (!found) {
        const page = await crawl.page(url, true);
        if (page) {
          tried.push('json-ld', 'meta');
          found = pickFrom(page.facts, want, query);
          // a listing page: its product links, JSON-LD and meta each
          for (const link of page.facts.links.filter(productLink).slice(0, 12)) {
            if (found || crawl.exhausted()) break;
            const next = await crawl.page(link, false);
            if (next) found = pickFrom(next.facts, want, query);
          }
        }
      }
      if (!found && !crawl.exhausted()) {
        tried.push('sitemap');
        found = await this.#sitemap(crawl, want, query);
      }
      if (!found) {
        throw new FitroomError('PRODUCT_NOT_FOUND', `No ${want === 'auto' ? '' : `${want} `}product${query ? ` matching "${query}"` : ''} found on ${crawl.origin} (tried ${tried.join(', ')}; ${crawl.pages} page${crawl.pages === 1 ? '' : 's'} fetched${crawl.exhausted() ? `; the ${crawl.exhaustedBy()} budget ran out` : ''})`);
      }

      const { packshots, rejected, assessed } = await this.#choosePackshots(found.p.images, crawl);
      if (packshots.length === 0) {
        throw new FitroomError('NO_PACKSHOTS', `Found "${found.p.title}" (${found.p.url}) but none of its ${assessed} image${assessed === 1 ? '' : 's'} is a packshot (one product on a plain background)`, {
          details: rejected.slice(0, 8).map((r) => ({ field: 'images', message: `${r.url}: ${r.reasons.join('; ') || 'not usable'}` })),
        });
      }
      return {
        product: { title: found.p.title || found.p.url, url: found.p.url, productType: kindOf(`${found.p.title} ${found.p.text}`), source: found.source },
        packshots,
        rejected,
        crawl: { pagesFetched: crawl.pages, imagesAssessed: assessed, elapsedMs: Date.now() - started, sourcesTried: tried },
      };
    } finally {
      crawl.close();
    }
  }

  /** Shopify storefronts answer `/products/<handle>.json` and `/products.json` (public, no key). */
  async #shopify(crawl: Crawl, url: string, want: ProductKind, query: string | undefined): Promise<{ p: FoundProduct; source: Source } | null> {
    const handle = /\/products\/([^/?#.]+)/.exec(new URL(url).pathname)?.[1];
    const toFound = (p: ShopifyProduct): FoundProduct => ({
      title: String(p.title ?? ''),
      url: `${crawl.origin}/products/${encodeURIComponent(String(p.handle ?? ''))}`,
      images: (p.images ?? []).map((i) => absolute(String(i.src ?? ''), crawl.origin)).filter((u): u is string => !!u),
      text: [p.product_type, ([] as string[]).concat(p.tags ?? []).join(' '), p.vendor].filter(Boolean).join(' '),
    });
    if (handle) {
      const one = await crawl.shopify(`${crawl.origin}/products/${handle}.json`);
      if (one?.product?.images?.length) {
        const p = toFound(one.product);
        return matches(p, want, query) ? { p, source: 'shopify' } : null;
      }
    }
    const list = await crawl.shopify(`${crawl.origin}/products.json?limit=250`);
    for (const raw of list?.products ?? []) {
      if (!raw?.images?.length) continue;
      const p = toFound(raw);
      if (matches(p, want, query)) return { p, source: 'shopify' };
    }
    return null;
  }

  /** Sitemap (robots.txt's, else /sitemap.xml); an index is followed into its product sitemaps first. */
  async #sitemap(crawl: Crawl, want: ProductKind, query: string | undefined): Promise<{ p: FoundProduct; source: Source } | null> {
    const queue = crawl.sitemaps.length ? [...crawl.sitemaps] : [`${crawl.origin}/sitemap.xml`];
    const pages: string[] = [];
    for (let i = 0; i < queue.length && i < 4 && !crawl.exhausted(); i++) {
      const xml = await crawl.text(queue[i], ['application/xml', 'text/xml', 'text/plain', 'application/octet-stream']);
      if (!xml) continue;
      const { locs, index } = await crawl.cpu(TASK.sitemapLocations, { xml, base: queue[i] });
      if (index) queue.push(...locs.sort((a, b) => Number(/product/i.test(b)) - Number(/product/i.test(a))));
      else pages.push(...locs);
    }
    const ranked = pages.filter((u) => crawl.sameSite(u)).sort((a, b) => Number(productLink(b)) - Number(productLink(a)));
    for (const link of ranked.slice(0, 12)) {
      if (crawl.exhausted()) break;
      const page = await crawl.page(link, false);
      const found = page ? pickFrom(page.facts, want, query) : null;
      if (found) return { p: found.p, source: 'sitemap' };
    }
    return null;
  }

  async #choosePackshots(urls: string[], crawl: Crawl) {
    const packshots: DiscoveryResult['packshots'] = [];
    const rejected: DiscoveryResult['rejected'] = [];
    let assessed = 0;
    for (const url of urls.slice(0, this.#limits.maxImages)) {
      if (packshots.length >= 4 || crawl.exhausted()) break;
      assessed++;
      let a: PackshotAssessment;
      try {
        const loaded = await this.#images.load(url, 'product image', { maxPixels: 40_000_000, maxSide: 384 }, crawl.signal);
        a = await this.#classifier.assess(loaded.raster, crawl.signal);
      } catch (e) {
        if (crawl.signal.aborted) throw budgetError(this.#limits);
        rejected.push({ url, reasons: [(e as Error).message] });
        continue;
      }
      if (a.packshot) packshots.push({ url, score: a.score, reasons: a.reasons });
      else rejected.push({ url, score: a.score, reasons: a.reasons });
    }
    return { packshots, rejected, assessed };
  }
}

function pickFrom(facts: { products: FoundProduct[]; meta: FoundProduct | null }, want: ProductKind, query: string | undefined): { p: FoundProduct; source: Source } | null {
  const ld = facts.products.find((p) => matches(p, want, query));
  if (ld) return { p: ld, source: 'json-ld' };
  if (facts.meta && matches(facts.meta, want, query)) return { p: facts.meta, source: 'meta' };
  return null;
}

/** Links that look like product pages on common shop systems. */
function productLink(u: string): boolean {
  return /\/(products?|p|item|artikel|produit|producto)\/|[-_/]p\d{3,}|\.html?$/i.test(new URL(u).pathname);
}

/** One crawl: the budgets, robots.txt and the fetches themselves. */
class Crawl {
  readonly origin: string;
  readonly signal: AbortSignal;
  sitemaps: string[] = [];
  pages = 0;
  readonly #http: OutboundHttp;
  readonly #limits: DiscoveryLimits;
  readonly #deadline: number;
  readonly #timer: AbortController;
  readonly #timeout: NodeJS.Timeout;
  readonly #pool: CpuPool;
  #robots: RobotsRule[] = [];

  constructor(http: OutboundHttp, pool: CpuPool, start: URL, limits: DiscoveryLimits, started: number) {
    this.#http = http;
    this.#pool = pool;
    this.#limits = limits;
    this.origin = start.origin;
    this.#deadline = started + limits.timeMs;
    this.#timer = new AbortController();
    this.#timeout = setTimeout(() => this.#timer.abort(new Error('time budget')), limits.timeMs);
    this.signal = this.#timer.signal;
  }

  close() {
    clearTimeout(this.#timeout);
  }

  /** Parsing on a pool thread, stopped by the crawl's time budget (and the pool's own). */
  async cpu<In, Out>(task: CpuTask<In, Out>, input: In): Promise<Out> {
    try {
      return await this.#pool.run(task, input, { signal: this.signal, budgetMs: Math.max(100, this.#deadline - Date.now()) });
    } catch (e) {
      if (this.signal.aborted || (e instanceof FitroomError && e.code === 'PROCESSING_TIMEOUT')) throw budgetError(this.#limits);
      throw e;
    }
  }

  exhausted(): boolean {
    return this.pages >= this.#limits.maxPages || Date.now() >= this.#deadline;
  }

  exhaustedBy(): string {
    return Date.now() >= this.#deadline ? `${this.#limits.timeMs / 1000} s time` : `${this.#limits.maxPages}-page`;
  }

  sameSite(u: string): boolean {
    try {
      return new URL(u).origin === this.origin;
    } catch {
      return false;
    }
  }

  /** robots.txt's verdict for a URL of this shop (other origins are not ours to judge). */
  async allowed(u: string): Promise<boolean> {
    if (!this.#robots.length || !this.sameSite(u)) return true;
    const url = new URL(u);
    return (await this.cpu(TASK.robotsVerdicts, { rules: this.#robots, paths: [url.pathname + url.search] }))[0];
  }

  async loadRobots() {
    const url = `${this.origin}/robots.txt`;
    const text = await this.#get(url, ['text/', 'application/octet-stream'], false);
    if (!text) return;
    const robots = await this.cpu(TASK.robotsRules, { text, agent: USER_AGENT });
    this.#robots = robots.rules;
    this.sitemaps = robots.sitemaps.filter((s) => this.sameSite(s));
  }

  async page(url: string, first: boolean): Promise<{ facts: PageFacts } | null> {
    if (!(await this.allowed(url))) return null;
    const html = await this.#get(url, ['text/html', 'application/xhtml'], first);
    return html === null ? null : { facts: await this.cpu(TASK.readPage, { html, url }) };
  }

  async shopify(url: string) {
    if (!(await this.allowed(url))) return null;
    const text = await this.#get(url, ['application/json', 'text/javascript', 'text/plain'], false);
    return text === null ? null : this.cpu(TASK.shopifyProducts, text);
  }

  async text(url: string, accept: string[]) {
    return (await this.allowed(url)) ? this.#get(url, accept, false) : null;
  }

  /**
   * One page within the budgets; null when it cannot be had (404, wrong type, too large). The start
   * page's own failure, and any refused address, end the discovery with SITE_UNREACHABLE.
   */
  async #get(url: string, accept: string[], required: boolean): Promise<string | null> {
    if (this.exhausted()) {
      if (Date.now() >= this.#deadline) throw budgetError(this.#limits);
      return null;
    }
    this.pages++;
    try {
      const res = await this.#http.fetch(url, { maxBytes: this.#limits.maxPageBytes, timeoutMs: Math.max(500, Math.min(8_000, this.#deadline - Date.now())), accept, signal: this.signal });
      return new TextDecoder().decode(res.bytes);
    } catch (e) {
      if (this.signal.aborted || Date.now() >= this.#deadline) throw budgetError(this.#limits);
      if (e instanceof OutboundError && (e.reason === 'blocked_address' || e.reason === 'invalid_url' || e.reason === 'unsupported_scheme')) {
        throw new FitroomError('SITE_UNREACHABLE', `${url} cannot be fetched: ${e.message}`);
      }
      if (required) {
        const why = e instanceof OutboundError ? `${e.reason === 'http_status' ? `HTTP ${e.status}` : e.reason}: ${e.message}` : (e as Error).message;
        throw new FitroomError('SITE_UNREACHABLE', `The shop page ${url} could not be read (${why})`);
      }
      return null;
    }
  }
}

function budgetError(limits: DiscoveryLimits) {
  return new FitroomError('DISCOVERY_TIMEOUT', `Discovery stopped after its ${limits.timeMs / 1000} s budget without finding a product; pass a product page URL instead of the shop's home page`);
}
