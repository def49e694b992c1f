import type Router from '@koa/router';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';

const require = createRequire(import.meta.url);
const SWAGGER_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Fitroom API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
</head>
<body>
<div id="reference"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#reference', deepLinking: true, tryItOutEnabled: false, defaultModelsExpandDepth: 0 });`;

const CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:";

/** Fitroom's icon: a coat hanger on the brand's dark blue. */
const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d3557"/><path d="M16 7.5a2.6 2.6 0 1 1 2.6 2.6c-.9 0-1.6.5-1.6 1.4v1.1l10.2 7.2c1 .7.5 2.2-.7 2.2H5.5c-1.2 0-1.7-1.5-.7-2.2L15 12.6" fill="none" stroke="#f1faee" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"/></svg>`;

/** The API reference page at /docs, rendered by swagger-ui-dist from the live OpenAPI document, and the host's icon. */
export function docsRoutes(router: Router): void {
  const cache = new Map<string, Buffer>();
  // /favicon.ico is what browsers ask for by themselves (a PNG, which every browser takes there)
  let png: Promise<Buffer> | null = null;
  router.get('/favicon.ico', async (ctx) => {
    png ??= sharp(Buffer.from(ICON_SVG)).resize(32, 32).png().toBuffer();
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.type = 'image/png';
    ctx.body = await png;
  });
  router.get('/favicon.svg', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.type = 'image/svg+xml';
    ctx.body = ICON_SVG;
  });
  router.get('/docs', (ctx) => {
    ctx.set('Content-Security-Policy', CSP);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE;
  });
  router.get('/docs/init.js', (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = INIT;
  });
  router.get('/docs/assets/:name', (ctx) => {
    const type = ASSETS[ctx.params.name];
    if (!type) return;
    let buf = cache.get(ctx.params.name);
    if (!buf) {
      buf = readFileSync(path.join(SWAGGER_DIR, ctx.params.name));
      cache.set(ctx.params.name, buf);
    }
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.type = type;
    ctx.body = buf;
  });
}
