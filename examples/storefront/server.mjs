/* global process, console, fetch, URL, setTimeout */
// A merchant's backend for the Fitroom storefront widget: it keeps the Fitroom key on the server,
// mints short-lived storefront tokens for the product page, and answers the size panel with its
// own size chart. Plain Node (20+), no dependencies: `node examples/storefront/server.mjs`.
import http from 'node:http';
import { readFileSync } from 'node:fs';

const FITROOM_URL = (process.env.FITROOM_URL ?? 'http://127.0.0.1:3000').replace(/\/$/, '');
const FITROOM_KEY = process.env.FITROOM_KEY;
const PORT = Number(process.env.PORT ?? 8080);
if (!FITROOM_KEY) {
  console.error('Set FITROOM_KEY to one of your Fitroom API keys (npx fitroom keys create --name my-shop)');
  process.exit(1);
}

// The shop's own size chart for the product on the page (body ranges in cm, size-fitting format 1).
const SIZE_CHARTS = {
  'red-tee': { category: 'top', sizeChart: { version: 1, basis: 'body', unit: 'cm', sizes: [
    { label: 'S', measurements: { chest: { min: 84, max: 92 }, waist: { min: 70, max: 78 } } },
    { label: 'M', measurements: { chest: { min: 92, max: 100 }, waist: { min: 78, max: 86 } } },
    { label: 'L', measurements: { chest: { min: 100, max: 108 }, waist: { min: 86, max: 94 } } },
    { label: 'XL', measurements: { chest: { min: 108, max: 118 }, waist: { min: 94, max: 104 } } },
  ] } },
};

const GARMENT_URL = `data:image/png;base64,${readFileSync(new URL('./red-tee.png', import.meta.url)).toString('base64')}`;

async function fitroom(method, path, body) {
  const res = await fetch(`${FITROOM_URL}${path}`, { method, headers: { 'x-api-key': FITROOM_KEY, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json();
  return { status: res.status, json };
}

async function readJson(req) {
  let text = '';
  for await (const chunk of req) {
    text += chunk;
    if (text.length > 15_000_000) throw new Error('too large');
  }
  return text ? JSON.parse(text) : {};
}

const send = (res, status, body, type = 'application/json') => {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(type === 'application/json' ? JSON.stringify(body) : body);
};

http
  .createServer(async (req, res) => {
    try {
      if (req.method === 'GET' && (req.url === '/' || req.url === '/index.html')) {
        // The garment goes to Fitroom inline (a data URL): Fitroom fetches garment URLs itself and
        // refuses private addresses such as this shop's 127.0.0.1, so a page served from a laptop
        // works as it is. A public shop gives its packshot's https URL instead.
        const page = readFileSync(new URL('./index.html', import.meta.url), 'utf8').replaceAll('{{FITROOM_URL}}', FITROOM_URL).replaceAll('{{GARMENT_URL}}', GARMENT_URL);
        return send(res, 200, page, 'text/html; charset=utf-8');
      }
      if (req.method === 'GET' && req.url === '/red-tee.png') return send(res, 200, readFileSync(new URL('./red-tee.png', import.meta.url)), 'image/png');
      // 1. A storefront token for this shopper's session (15 minutes); the page never sees the key.
      if (req.method === 'POST' && req.url === '/fitroom-token') {
        const r = await fitroom('POST', '/api/v1/storefront/tokens', { ttlSeconds: 900 });
        return r.status === 201 ? send(res, 200, { token: r.json.token, expiresAt: r.json.expiresAt }) : send(res, 502, r.json);
      }
      // 2. Find my size: a twin from the shopper's measurements, then size fitting on the shop's chart.
      if (req.method === 'POST' && req.url === '/fitroom-size') {
        const b = await readJson(req);
        const product = SIZE_CHARTS[b.productId];
        if (!product) return send(res, 404, { error: { message: 'No size chart for this product' } });
        const twin = await fitroom('POST', '/api/v1/digital-twin', { faceImage: b.faceImage, gender: b.gender, ...(b.clothingSize ? { clothingSize: b.clothingSize } : { bodyMeasurements: b.bodyMeasurements }) });
        if (twin.status >= 300) return send(res, twin.status, twin.json);
        let twinId = twin.json.digitalTwinId;
        for (let i = 0; !twinId && i < 120; i++) {
          await new Promise((r) => setTimeout(r, 1000));
          const job = await fitroom('GET', `/api/v1/jobs/${twin.json.jobId}`);
          if (job.json.status === 'failed') return send(res, 422, { error: { message: job.json.error } });
          if (job.json.status === 'completed') twinId = job.json.result?.digitalTwinId ?? job.json.digitalTwinId;
        }
        const fit = await fitroom('POST', '/api/v1/size-fitting', { digitalTwinId: twinId, products: [{ id: b.productId, ...product }] });
        return send(res, fit.status, fit.json);
      }
      send(res, 404, { error: { message: 'Not found' } });
    } catch (e) {
      send(res, 500, { error: { message: e.message } });
    }
  })
  .listen(PORT, '127.0.0.1', function () {
    console.log(`Example shop on http://127.0.0.1:${this.address().port} (Fitroom at ${FITROOM_URL})`);
  });
