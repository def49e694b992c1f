import type Router from '@koa/router';
import type Koa from 'koa';
import { FitroomError, validationError } from '../../core/errors.ts';
import type { DataRequestRecord } from '../../core/ports/platform-app-store.ts';
import { PLATFORM, shopperOwner, type ShopifyConnector } from './shopify.ts';

type AdminRoute = (fn: (ctx: Koa.Context, shop: string) => Promise<unknown>) => (ctx: Koa.Context) => Promise<void>;

/** The export document written when customers/data_request arrived (see webhooks.ts). */
interface ExportDoc {
  shop: string;
  customerId: string;
  dataRequestId: string;
  generatedAt: string;
  holds: {
    jobs: { id: string; kind: string; status: string; createdAt: string }[];
    files: { id: string; contentType: string; createdAt: string; expiresAt: string | null }[];
    twins: { id: string; mode: string; createdAt: string }[];
    tryOnResults: number;
  };
}

export function dataRequestView(r: DataRequestRecord) {
  return { id: r.id, customerId: r.customerId, requestedAt: r.requestedAt.toISOString(), deliveredAt: r.deliveredAt?.toISOString() ?? null, status: r.deliveredAt ? ('delivered' as const) : ('open' as const) };
}

/**
 * Customer data requests in the embedded admin (App Bridge session token): the list, the export as
 * JSON (what Fitroom holds for the customer: try-ons and other jobs, twins, files) or as a readable HTML
 * summary, and "delivered" once the merchant sent it to the customer.
 */
export function mountDataRequests(router: Router, c: ShopifyConnector, admin: AdminRoute): void {
  router.get('/shopify/api/data-requests', admin(async (_ctx, shop) => ({ dataRequests: (await c.appStore.dataRequests(PLATFORM, shop)).map(dataRequestView) })));

  router.get('/shopify/api/data-requests/:id/export', admin(async (ctx, shop) => {
    const format = String(ctx.query.format ?? 'json');
    if (format !== 'json' && format !== 'html') throw validationError([{ field: 'format', message: 'must be json or html' }]);
    const r = await c.appStore.dataRequest(PLATFORM, shop, ctx.params.id);
    if (!r) throw new FitroomError('NOT_FOUND', 'No such data request for this shop');
    const doc = await exportDoc(c, shop, r);
    const name = `fitroom-data-request-${r.id.replace(/[^\w-]/g, '_')}-customer-${r.customerId}`;
    if (format === 'html') {
      ctx.type = 'text/html; charset=utf-8';
      ctx.set('Content-Disposition', `attachment; filename="${name}.html"`);
      ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
      return exportHtml(doc, r);
    }
    ctx.set('Content-Disposition', `attachment; filename="${name}.json"`);
    return doc;
  }));

  router.post('/shopify/api/data-requests/:id/delivered', admin(async (ctx, shop) => {
    const r = await c.appStore.markDelivered(PLATFORM, shop, ctx.params.id);
    if (!r) throw new FitroomError('NOT_FOUND', 'No such data request for this shop');
    return { dataRequest: dataRequestView(r) };
  }));
}

/** The stored export; when its file expired (30 days), what is held now, computed again. */
async function exportDoc(c: ShopifyConnector, shop: string, r: DataRequestRecord): Promise<ExportDoc> {
  const rec = await c.files.get(r.fileId);
  const bytes = rec ? await c.files.read(rec) : null;
  if (bytes) return JSON.parse(new TextDecoder().decode(bytes)) as ExportDoc;
  const summary = await c.ownerData.summarize([shopperOwner(shop, r.customerId)]);
  return { shop, customerId: r.customerId, dataRequestId: r.id, generatedAt: new Date().toISOString(), holds: { ...summary, jobs: summary.jobs.map(({ ownerHash: _o, ...j }) => j) } };
}

const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

const KIND_NAMES: Record<string, string> = { 'virtual-fitting': 'Virtual try-on', tryon: 'Virtual try-on', 'digital-twin': 'Digital twin', 'size-fitting': 'Size recommendation', 'shoe-3d': '3D model' };

export function exportHtml(doc: ExportDoc, r: DataRequestRecord): string {
  const h = doc.holds;
  const table = (head: string[], rows: unknown[][]) =>
    rows.length ? `<table><thead><tr>${head.map((x) => `<th>${esc(x)}</th>`).join('')}</tr></thead><tbody>${rows.map((row) => `<tr>${row.map((x) => `<td>${esc(x ?? '')}</td>`).join('')}</tr>`).join('')}</tbody></table>` : '<p>None.</p>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Fitroom data for customer ${esc(doc.customerId)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;margin:2rem;max-width:60rem}table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}th,td{border:1px solid #ccc;padding:.3rem .5rem;text-align:left}th{background:#f4f4f4}</style></head>
<body>
<h1>What Fitroom holds for customer ${esc(doc.customerId)}</h1>
<p>Shop: ${esc(doc.shop)}. Data request ${esc(r.id)}, received ${esc(r.requestedAt.toISOString())}; export generated ${esc(doc.generatedAt)}.</p>
<p>In short: ${h.jobs.length} try-on and other requests, ${h.twins.length} digital twins, ${h.files.length} files (photos and results), ${h.tryOnResults} stored try-on results.</p>
<h2>Try-ons and other requests</h2>
${table(['Request', 'What', 'Status', 'When'], h.jobs.map((j) => [j.id, KIND_NAMES[j.kind] ?? j.kind, j.status, j.createdAt]))}
<h2>Digital twins</h2>
${table(['Twin', 'Made from', 'When'], h.twins.map((t) => [t.id, t.mode, t.createdAt]))}
<h2>Files</h2>
${table(['File', 'Type', 'Stored', 'Deleted on'], h.files.map((f) => [f.id, f.contentType, f.createdAt, f.expiresAt ?? 'kept until erased']))}
<p>The machine-readable version of this export is the JSON download of the same data request.</p>
</body></html>
`;
}

/** GET /shopify/api/compliance: the last redaction runs (what the merchant's privacy page shows). */
export function mountCompliance(router: Router, c: ShopifyConnector, admin: AdminRoute): void {
  router.get('/shopify/api/compliance', admin(async (_ctx, shop) => {
    const runs = await c.appStore.lastRuns(PLATFORM, shop);
    const view = (topic: string) => {
      const r = runs.find((x) => x.topic === topic);
      return r ? { lastRunAt: r.ranAt.toISOString(), rows: r.rows, files: r.files } : null;
    };
    return { shopRedact: view('shop/redact'), customersRedact: view('customers/redact') };
  }));
}
