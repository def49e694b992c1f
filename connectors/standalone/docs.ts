import type Router from '@koa/router';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

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
<link rel="icon" href="/docs/assets/favicon-32x32.png">
</head>
<body>
<div id="reference"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#reference', deepLinking: true, tryItOutEnabled: false, defaultModelsExpandDepth: 0 });`;

const CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:";

/** The API reference page at /docs, rendered by swagger-ui-dist from the live OpenAPI document. */
export function docsRoutes(router: Router): void {
  const cache = new Map<string, Buffer>();
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
