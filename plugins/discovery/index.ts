import { definePlugin, type FitroomPlugin, type JsonSchema } from '../../core/plugin.ts';
import { FitroomError } from '../../core/errors.ts';
import { PACKSHOT_CLASSIFIER } from '../../core/ports/packshot-classifier.ts';
import { TOKENS } from '../../core/tokens.ts';
import { CPU_POOL } from '../../core/ports/cpu-pool.ts';
import { DEFAULT_LIMITS, ProductDiscovery, type DiscoveryLimits, type ProductKind } from './discover.ts';

const ERR = (description: string) => ({ description, schema: 'ErrorEnvelope' });

const REQUEST: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    url: { type: 'string', maxLength: 2048, pattern: '^https?://', 'x-pattern-message': 'must be an http(s) URL', description: 'A shop: its home page, a category page or a product page.' },
    productType: { enum: ['shoe', 'bag', 'auto'], default: 'auto', description: '`auto`: the first product found, whatever it is.' },
    query: { type: 'string', minLength: 1, maxLength: 200, description: 'Words that must all appear in the product (title, type, tags or URL).' },
  },
};

const RESULT: JsonSchema = {
  type: 'object',
  required: ['success', 'product', 'images', 'packshots', 'shoe3dRequest', 'crawl'],
  properties: {
    success: { const: true },
    product: {
      type: 'object',
      required: ['title', 'url', 'productType', 'source'],
      properties: {
        title: { type: 'string' },
        url: { type: 'string', format: 'uri' },
        productType: { enum: ['shoe', 'bag', 'unknown'], description: 'From the product\'s own words (title, type, tags, category).' },
        source: { enum: ['shopify', 'json-ld', 'meta', 'sitemap'], description: 'Where the product was found: the Shopify storefront JSON, JSON-LD Product data, OpenGraph/product meta tags, or a page listed in the sitemap.' },
      },
    },
    images: { type: 'array', minItems: 1, maxItems: 4, items: { type: 'string', format: 'uri' }, description: 'The packshots, best first: ready to send as `images` to POST /api/v1/shoe-3d.' },
    packshots: { type: 'array', items: { type: 'object', required: ['url', 'score'], properties: { url: { type: 'string' }, score: { type: 'number' }, reasons: { type: 'array', items: { type: 'string' } } } } },
    rejected: { type: 'array', description: 'Images of the product that are not packshots (lifestyle photos, worn shots), with why.', items: { type: 'object', properties: { url: { type: 'string' }, score: { type: 'number' }, reasons: { type: 'array', items: { type: 'string' } } } } },
    shoe3dRequest: { type: 'object', description: 'A POST /api/v1/shoe-3d body built from the result.', properties: { images: { type: 'array', items: { type: 'string' } }, options: { type: 'object' } } },
    notes: { type: 'array', items: { type: 'string' } },
    crawl: { type: 'object', properties: { pagesFetched: { type: 'integer' }, imagesAssessed: { type: 'integer' }, elapsedMs: { type: 'integer' }, sourcesTried: { type: 'array', items: { type: 'string' } } } },
  },
};

/**
 * POST /api/v1/products/discover: a shop URL in, a product and its packshots out. Synchronous: the
 * crawl is bounded (20 pages of at most 2 MB, 8 images, 20 s), so it answers within the budget
 * or says which budget ran out (DISCOVERY_TIMEOUT_MS sets the time).
 */
export function createDiscoveryPlugin(base: DiscoveryLimits = DEFAULT_LIMITS): FitroomPlugin {
  return definePlugin({
    name: 'product-discovery',
    setup(api) {
      const limits = { ...base, timeMs: api.config.discoveryTimeoutMs ?? base.timeMs };
      api.schema('ProductDiscoveryRequest', REQUEST);
      api.schema('ProductDiscoveryResult', RESULT);
      const discovery = () => {
        if (!api.has(PACKSHOT_CLASSIFIER)) throw new FitroomError('SERVICE_UNAVAILABLE', 'No packshot classifier is configured on this deployment');
        return new ProductDiscovery(api.get(TOKENS.outboundHttp), api.get(TOKENS.images), api.get(PACKSHOT_CLASSIFIER), api.get(CPU_POOL), limits);
      };
      api.operation({
        id: 'discoverProduct',
        method: 'POST',
        path: '/api/v1/products/discover',
        summary: 'Find a product on a shop\'s site and its packshots for shoe-3d',
        description:
          `Finds the first product on the shop's site that matches \`productType\` (and every word of \`query\`) and returns its title, page URL and 1 to 4 packshot URLs (best first; 3 to 4 when the product has them) ready for POST /api/v1/shoe-3d. Sources in order: the Shopify storefront JSON (\`/products/<handle>.json\` for a product URL, else \`/products.json\`), the page's JSON-LD \`Product\` data, its OpenGraph and product meta tags, product pages it links to, then the sitemap. robots.txt is respected for the user agent the fetches send (\`Fitroom\`, and \`*\`). Synchronous, with budgets: at most ${limits.maxPages} fetches of at most ${limits.maxPageBytes / 1048576} MB, ${limits.maxImages} images assessed, ${limits.timeMs / 1000} s in all. Every fetch goes through the SSRF-safe client: private addresses, also behind redirects, are refused. Images are judged by the builtin packshot classifier (one product, plain backdrop, inside the frame); the rest are listed under \`rejected\` with the reasons.`,
        tags: ['Shoe 3D'],
        auth: ['apiKey'],
        rateLimit: 'submission',
        body: 'ProductDiscoveryRequest',
        example: { url: 'https://shop.example/collections/sneakers', productType: 'shoe', query: 'runner' },
        responses: {
          200: {
            description: 'Found',
            schema: 'ProductDiscoveryResult',
            example: {
              success: true,
              product: { title: 'Runner Sneaker', url: 'https://shop.example/products/runner', productType: 'shoe', source: 'shopify' },
              images: ['https://cdn.shop.example/runner-side.jpg', 'https://cdn.shop.example/runner-front.jpg', 'https://cdn.shop.example/runner-back.jpg'],
              packshots: [
                { url: 'https://cdn.shop.example/runner-side.jpg', score: 0.97, reasons: [] },
                { url: 'https://cdn.shop.example/runner-front.jpg', score: 0.94, reasons: [] },
                { url: 'https://cdn.shop.example/runner-back.jpg', score: 0.81, reasons: ['the product fills the frame'] },
              ],
              rejected: [{ url: 'https://cdn.shop.example/runner-street.jpg', score: 0.04, reasons: ['the border is not one plain backdrop (31% fits)', 'the backdrop is textured (noise 19.2)', '4 separate objects'] }],
              shoe3dRequest: { images: ['https://cdn.shop.example/runner-side.jpg', 'https://cdn.shop.example/runner-front.jpg', 'https://cdn.shop.example/runner-back.jpg'], options: { productType: 'shoe' } },
              crawl: { pagesFetched: 3, imagesAssessed: 4, elapsedMs: 1840, sourcesTried: ['shopify'] },
            },
          },
          400: ERR('VALIDATION_ERROR'),
          401: ERR('HTTP_ERROR'),
          404: ERR('PRODUCT_NOT_FOUND: nothing matching within the budgets'),
          422: ERR('SITE_UNREACHABLE (private address, DNS, refused, redirect loop, page too large), ROBOTS_DISALLOWED, NO_PACKSHOTS (with the rejected images in details), DISCOVERY_TIMEOUT'),
        },
        async handler(ctx) {
          const body = ctx.body as { url: string; productType?: ProductKind; query?: string };
          const want = body.productType ?? 'auto';
          const r = await discovery().discover(body.url, want, body.query);
          const images = r.packshots.map((p) => p.url);
          const notes = images.length < 3 ? [`only ${images.length} packshot${images.length === 1 ? '' : 's'} found: shoe-3d works best with 3 or more angles`] : [];
          return {
            body: {
              success: true,
              product: r.product,
              images,
              packshots: r.packshots,
              rejected: r.rejected,
              shoe3dRequest: { images, options: { productType: r.product.productType === 'shoe' ? 'shoe' : r.product.productType === 'bag' ? 'other' : 'auto' } },
              ...(notes.length ? { notes } : {}),
              crawl: r.crawl,
            },
            headers: { 'Cache-Control': 'no-store' },
          };
        },
      });
    },
  });
}

export const discoveryPlugin = createDiscoveryPlugin();
export default discoveryPlugin;
