import { notFound } from '../../core/errors.ts';
import type { OperationContext } from '../../core/plugin.ts';
import type { ArRouteDeps } from './context.ts';
import { PAGE_HEADERS, pageAsset, renderErrorPage, renderPage } from './pages.ts';
import type { PageName } from './pages.ts';
import { parseViewerParams } from './viewer-params.ts';
import { arUrls } from './views.ts';
import { COLOR_ID } from './object-service.ts';

const PAGES: [PageName, string, string][] = [
  ['viewer', '/tryon', '3D and AR viewer of an object'],
  ['app', '/tryon/app', 'Try-on app: camera with the shoe model'],
  ['editor', '/tryon/editor', 'Part materials and colour presets'],
  ['accessory-editor', '/tryon/accessory-editor', 'Accessory placement'],
];

/** An absolute http(s) URL of a model to show; the browser fetches it, the server never does. */
function parseModelUrl(raw: string | undefined, problems: string[]): URL | null {
  if (raw === undefined) return null;
  try {
    const u = new URL(raw);
    if (u.protocol === 'https:' || u.protocol === 'http:') return u;
  } catch {
    // reported below
  }
  problems.push('src must be an absolute http(s) URL of a GLB file');
  return null;
}

/** Where an object id comes from, in the words of the API a reader can call next. */
function whereIdsComeFrom(ar: string, api: string): string[] {
  return [
    `Upload a GLB shoe to this AR host: \`curl -s ${ar}/tryon/api/upload_shoe -H "Authorization: Bearer $KEY" -F file=@shoe.glb\`; the answer's \`id\` and \`viewer_url\` open this page.`,
    `Or make one from product photos: \`POST ${api || ''}/api/v1/shoe-3d\` with \`"options": {"uploadToService": true}\`; the finished job's \`result.arObject.id\` and \`result.viewerUrl\` open this page.`,
    `The objects you have: \`curl -s ${ar}/api/get_models -H "Authorization: Bearer $KEY"\`. A GLB by URL (any shoe-3d result) opens in the viewer with \`/tryon?src=<GLB URL>\`.`,
  ];
}

const html = (status: number, body: string) => ({ status, text: { contentType: 'text/html; charset=utf-8', body }, headers: PAGE_HEADERS });

/** The browser pages and their static assets. */
export function registerPageRoutes(deps: ArRouteDeps): void {
  const { api, store } = deps;

  for (const [page, path, summary] of PAGES) {
    api.operation({
      id: `arPage${page.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase())}`,
      method: 'GET',
      path,
      host: 'ar',
      summary,
      description:
        'Query: `id` (object id or name) or, for the viewer, `src` (a GLB URL such as a shoe-3d result), `color_id`, and the viewer parameters `pose_quality` (1/2/3), `native_ml_size` (160/192/256), `mirror_mode` or `mm` (1-5), `turbo`, `no_logs`, `settings`, `async_mode`, `debug` (0/1). Invalid values answer 400 with a page naming each problem.',
      tags: ['AR pages'],
      auth: ['bearer', 'none'],
      rateLimit: 'status',
      responses: { 200: { description: 'HTML page', contentType: 'text/html' }, 400: { description: 'Invalid parameters', contentType: 'text/html' }, 404: { description: 'Unknown object', contentType: 'text/html' } },
      async handler(ctx: OperationContext) {
        const problems: string[] = [];
        const parsed = parseViewerParams(ctx.query);
        if (!parsed.ok) problems.push(...parsed.errors.map((e) => `${e.field} ${e.message}`));
        const id = ctx.query.id;
        // The viewer also shows a GLB by URL (shoe-3d results that were not uploaded to the library).
        const src = page === 'viewer' && !id ? parseModelUrl(ctx.query.src, problems) : null;
        if (!id && !src && !problems.length) problems.push(page === 'viewer' ? 'id (the object id or name) or src (a GLB URL) is required' : 'id is required (the object id or name)');
        const colorId = ctx.query.color_id ?? 'default';
        if (!COLOR_ID.test(colorId)) problems.push(`color_id must use letters, digits, - and _ (got "${colorId}")`);
        if (problems.length || !parsed.ok) return html(400, renderErrorPage('Invalid viewer parameters', problems, !id && !ctx.query.src ? whereIdsComeFrom(ctx.baseUrl, ctx.links.api) : []));
        if (src) {
          const body = renderPage({
            page,
            objectId: '',
            name: '3D model',
            colorId,
            params: parsed.params,
            properties: {},
            autofit: { status: 'finished', progress: 100 },
            urls: { glb: src.href, mirrorGlb: src.href, usdz: '', mirrorUsdz: '', status: '' },
            notice: `A model by URL, not an AR host object: the viewer shows it, but it has no autofit (sole on the ground, metres, left or right), no colour presets and the try-on app cannot open it. To make it one, submit shoe-3d with \`"options": {"uploadToService": true}\`, or upload the GLB: \`curl -s ${ctx.baseUrl}/tryon/api/upload_shoe -H "Authorization: Bearer $KEY" -F file=@model.glb\`.`,
          });
          const csp = PAGE_HEADERS['Content-Security-Policy'].replace("connect-src 'self'", `connect-src 'self' ${src.origin}`);
          return { status: 200, text: { contentType: 'text/html; charset=utf-8', body }, headers: { ...PAGE_HEADERS, 'Content-Security-Policy': csp } };
        }
        const o = await store.get(id!);
        if (!o) return html(404, renderErrorPage('Model not found', [`No model with id or name "${id}"`, 'Ids are 24 hexadecimal characters; a deleted object is gone for good.'], whereIdsComeFrom(ctx.baseUrl, ctx.links.api)));
        const base = '';
        const status = o.autofit[colorId] ?? o.autofit.default ?? null;
        return html(
          200,
          renderPage({
            page,
            objectId: o.id,
            name: o.name,
            colorId,
            params: parsed.params,
            properties: o.properties,
            autofit: status ? { status: status.status, progress: status.progress } : null,
            urls: {
              glb: arUrls.glb(base, o.id, colorId),
              mirrorGlb: arUrls.glb(base, o.id, colorId, true),
              usdz: arUrls.usdz(base, o.id, colorId),
              mirrorUsdz: arUrls.usdz(base, o.id, colorId, true),
              status: `/tryon/api/autofit_status?id=${o.id}&color_id=${encodeURIComponent(o.autofit[colorId] ? colorId : 'default')}`,
            },
          }),
        );
      },
    });
  }

  api.operation({
    id: 'arPageAsset',
    method: 'GET',
    path: '/tryon/assets/{name}',
    host: 'ar',
    summary: 'Scripts and styles of the pages',
    tags: ['AR pages'],
    auth: ['none'],
    hidden: true,
    params: { name: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' } },
    responses: { 200: { description: 'The asset' }, 404: { description: 'Unknown asset', schema: 'ErrorEnvelope' } },
    async handler(ctx) {
      const a = pageAsset(ctx.params.name);
      if (!a) throw notFound(`No asset ${ctx.params.name}`);
      return { file: { contentType: a.type, bytes: a.bytes }, headers: { 'Cache-Control': 'public, max-age=3600' } };
    },
  });

}
