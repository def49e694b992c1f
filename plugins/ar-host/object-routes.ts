import { validationError } from '../../core/errors.ts';
import type { ColorPreset } from '../../core/ports/ar-object-store.ts';
import type { ArRouteDeps } from './context.ts';
import { PUBLIC_READ_HEADERS, principalOf, requirePrincipal } from './context.ts';
import { canSeePrivate, ownersOf } from './access.ts';
import { arUrls, fallbackMaterialsView, materialsView, objectView } from './views.ts';
import { COLOR_ID } from './object-service.ts';
import { AR_ANSWERS, AR_EXAMPLES } from './examples.ts';

const NAME_PARAM = { name: { type: 'string', minLength: 1, maxLength: 200 } };
const COLOR_QUERY = { color_id: { schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' }, description: 'Colour preset (default `default`)' } };
const ERR = (description: string) => ({ description, schema: 'ErrorEnvelope' });

/** Object metadata, presets and autofit status routes of the AR host. */
export function registerObjectRoutes(deps: ArRouteDeps): void {
  const { api, objects, store } = deps;

  api.operation({
    id: 'arAutofitStatus',
    method: 'GET',
    path: '/tryon/api/autofit_status',
    host: 'ar',
    summary: 'Autofit status of an uploaded model',
    description: 'Statuses: `in_queue`, `in_progress`, `exporting`, `finished`, `failed`. `glb_url` only when finished, with the autofit findings in `object_properties`.',
    tags: ['AR host'],
    auth: ['none'],
    rateLimit: 'status',
    query: { id: { schema: { type: 'string', minLength: 1, maxLength: 200 }, required: true, description: 'Object id' }, ...COLOR_QUERY },
    responses: { 200: { description: 'The status', schema: 'ArAutofitStatus', example: AR_EXAMPLES.autofit }, 404: ERR('No such object or colour') },
    async handler(ctx) {
      const o = await objects.get(ctx.query.id);
      const colorId = ctx.query.color_id ?? 'default';
      // colours without their own run share the default colour's geometry
      const s = o.autofit[colorId] ?? (o.materialsData[colorId] ? o.autofit.default : undefined);
      if (!s) throw validationError([{ field: 'color_id', message: `object ${o.id} has no colour ${colorId}` }], 'Unknown colour');
      const body: Record<string, unknown> = { status: s.status, progress: s.progress };
      if (s.status === 'finished') {
        body.glb_url = arUrls.glb(ctx.baseUrl, o.id, colorId);
        body.object_properties = o.properties;
      }
      if (s.status === 'failed' && s.error) body.error = s.error;
      return { body, headers: { 'Cache-Control': 'no-store', 'Access-Control-Allow-Origin': '*' } };
    },
  });

  api.operation({
    id: 'arGetModels',
    method: 'GET',
    path: '/api/get_models',
    host: 'ar',
    summary: 'List models',
    description: 'Public. With credentials, only the caller\'s objects (own account or library, and its group); admins see all.',
    tags: ['AR host'],
    auth: ['bearer', 'none'],
    rateLimit: 'status',
    query: {
      limit: { schema: { type: 'string', pattern: '^[0-9]{1,3}$' }, description: '1-200, default 50' },
      offset: { schema: { type: 'string', pattern: '^[0-9]{1,7}$' } },
    },
    responses: { 200: { description: 'Objects', schema: { type: 'object', required: ['models'], properties: { models: { type: 'array', items: { $ref: '#/components/schemas/ArObject' } } } }, example: { models: [AR_EXAMPLES.object] } } },
    async handler(ctx) {
      const p = principalOf(deps, ctx);
      const limit = Math.min(200, Math.max(1, Number(ctx.query.limit ?? 50)));
      const offset = Number(ctx.query.offset ?? 0);
      const list = p && !p.admin ? await store.list({ owners: ownersOf(p), group: p.group ?? undefined, limit, offset }) : await store.list({ limit, offset });
      return { body: { models: list.map((o) => objectView(o, ctx.baseUrl, canSeePrivate(o, p))) }, headers: p ? { 'Cache-Control': 'no-store' } : PUBLIC_READ_HEADERS };
    },
  });

  api.operation({
    id: 'arGetObjectProperties',
    method: 'GET',
    path: '/api/get_object_properties/{name}',
    host: 'ar',
    summary: 'Object metadata',
    description: '`created`, `createdBy`, `modifiedBy`, `owner` and `modified` only for the owner, members of its group and admins.',
    tags: ['AR host'],
    auth: ['bearer', 'none'],
    rateLimit: 'status',
    params: NAME_PARAM,
    responses: { 200: { description: 'The object', schema: 'ArObject', example: AR_EXAMPLES.object }, 404: ERR('No such object') },
    async handler(ctx) {
      const o = await objects.get(ctx.params.name);
      const p = principalOf(deps, ctx);
      const privileged = canSeePrivate(o, p);
      return { body: objectView(o, ctx.baseUrl, privileged), headers: privileged ? { 'Cache-Control': 'no-store' } : PUBLIC_READ_HEADERS };
    },
  });

  api.operation({
    id: 'arGetMaterials',
    method: 'GET',
    path: '/api/get_materials/{name}',
    host: 'ar',
    summary: 'Colour presets of an object',
    description: 'All presets (`materialsData`) and the part names. `created`, `createdBy`, `modifiedBy`, `owner`, `modified` only for admins.',
    tags: ['AR host'],
    auth: ['bearer', 'none'],
    rateLimit: 'status',
    params: NAME_PARAM,
    responses: { 200: { description: 'Presets', schema: AR_ANSWERS.materials, example: AR_EXAMPLES.materials }, 404: ERR('No such object') },
    async handler(ctx) {
      const o = await objects.get(ctx.params.name);
      const admin = principalOf(deps, ctx)?.admin ?? false;
      return { body: materialsView(o, admin), headers: admin ? { 'Cache-Control': 'no-store' } : PUBLIC_READ_HEADERS };
    },
  });

  api.operation({
    id: 'arFallbackObjectProperties',
    method: 'GET',
    path: '/tryonapi/get_object_properties/{name}',
    host: 'ar',
    summary: 'Object metadata (public fallback)',
    description: 'Never includes `created`, `createdBy`, `modifiedBy`, `owner`, `modified`.',
    tags: ['AR host'],
    auth: ['none'],
    rateLimit: 'status',
    params: NAME_PARAM,
    responses: { 200: { description: 'The object', schema: 'ArObject', example: AR_EXAMPLES.object }, 404: ERR('No such object') },
    async handler(ctx) {
      return { body: objectView(await objects.get(ctx.params.name), ctx.baseUrl, false), headers: PUBLIC_READ_HEADERS };
    },
  });

  api.operation({
    id: 'arFallbackMaterials',
    method: 'GET',
    path: '/tryonapi/get_materials/{name}',
    host: 'ar',
    summary: 'One colour preset (public fallback)',
    description: 'The preset `color_id` (default `default`) plus `<color_id>_mirror` when it exists; never the private fields.',
    tags: ['AR host'],
    auth: ['none'],
    rateLimit: 'status',
    params: NAME_PARAM,
    query: COLOR_QUERY,
    responses: { 200: { description: 'The preset and its mirror preset', schema: AR_ANSWERS.fallbackMaterials, example: AR_EXAMPLES.fallbackMaterials }, 404: ERR('No such object') },
    async handler(ctx) {
      return { body: fallbackMaterialsView(await objects.get(ctx.params.name), ctx.query.color_id ?? 'default'), headers: PUBLIC_READ_HEADERS };
    },
  });

  api.operation({
    id: 'arSetObjectProperties',
    method: 'POST',
    path: '/api/set_object_properties',
    host: 'ar',
    summary: 'Change name, group, public properties or custom data',
    tags: ['AR host'],
    auth: ['bearer'],
    rateLimit: 'submission',
    body: 'ArSetPropertiesRequest',
    example: { id: '6ef70a61d8f7d496cb0c7377', name: 'Trail runner', properties: { brand: 'Acme' } },
    maxBodyBytes: 256 * 1024,
    responses: { 200: { description: 'The object as the caller sees it', schema: 'ArObject', example: AR_EXAMPLES.object }, 401: ERR('No or invalid credentials'), 403: ERR('Not the owner, its group or an admin'), 404: ERR('No such object') },
    async handler(ctx) {
      const p = requirePrincipal(deps, ctx);
      const b = ctx.body as { id: string; name?: string; group?: string | null; properties?: Record<string, unknown>; custom?: Record<string, unknown> };
      const o = await objects.setProperties(await objects.get(b.id), p, { name: b.name, group: b.group, properties: b.properties, custom: b.custom });
      return { body: objectView(o, ctx.baseUrl, canSeePrivate(o, p)), headers: { 'Cache-Control': 'no-store' } };
    },
  });

  api.operation({
    id: 'arSetMaterials',
    method: 'POST',
    path: '/api/set_materials',
    host: 'ar',
    summary: 'Save colour presets',
    description: 'Presets follow the material payload rules: `material: null` keeps the embedded material of a visible structural part; `visible: false` or `material: {}` drops a part; overlay (`perforado_`, `grabado_`, `bordado_`, `picado_`, `ghost_`, `reflejo_ghost_`) and floor (`suelo…`) parts appear only with a visible, non-empty material.',
    tags: ['AR host'],
    auth: ['bearer'],
    rateLimit: 'submission',
    body: 'ArSetMaterialsRequest',
    example: { id: '6ef70a61d8f7d496cb0c7377', color_id: 'red', preset: AR_EXAMPLES.preset },
    maxBodyBytes: 1024 * 1024,
    responses: { 200: { description: 'All presets after the change', schema: AR_ANSWERS.materialsAfterChange, example: { id: AR_EXAMPLES.materials.id, materialsData: AR_EXAMPLES.materials.materialsData } }, 400: ERR('Invalid presets'), 401: ERR('No or invalid credentials'), 403: ERR('Not the owner, its group or an admin'), 404: ERR('No such object') },
    async handler(ctx) {
      const p = requirePrincipal(deps, ctx);
      const b = ctx.body as { id: string; color_id?: string; preset?: ColorPreset | null; materialsData?: Record<string, ColorPreset | null> };
      const single = b.color_id !== undefined || b.preset !== undefined;
      if (single === (b.materialsData !== undefined)) throw validationError([{ field: 'materialsData', message: 'send either color_id with preset, or materialsData' }]);
      if (single && (b.color_id === undefined || b.preset === undefined)) throw validationError([{ field: b.color_id === undefined ? 'color_id' : 'preset', message: 'is required with ' + (b.color_id === undefined ? 'preset' : 'color_id') }]);
      const presets = single ? { [b.color_id!]: b.preset! } : b.materialsData!;
      for (const k of Object.keys(presets)) if (!COLOR_ID.test(k)) throw validationError([{ field: `materialsData/${k}`, message: 'colour ids use letters, digits, - and _' }]);
      const o = await objects.setMaterials(await objects.get(b.id), p, presets);
      return { body: { id: o.id, materialsData: o.materialsData }, headers: { 'Cache-Control': 'no-store' } };
    },
  });

  api.operation({
    id: 'arClaimObject',
    method: 'POST',
    path: '/api/claim_object',
    host: 'ar',
    summary: 'Take ownership of an object',
    description: 'Moves an object uploaded under an anonymous ownership session to the caller\'s account (or library) when the caller presents that `session_id`; admins may claim any object.',
    tags: ['AR host'],
    auth: ['bearer'],
    rateLimit: 'submission',
    body: 'ArClaimRequest',
    example: { id: '6ef70a61d8f7d496cb0c7377', session_id: 'checkout-5f2a' },
    responses: { 200: { description: 'The object', schema: 'ArObject', example: AR_EXAMPLES.object }, 401: ERR('No or invalid credentials'), 403: ERR('Wrong or missing session id'), 404: ERR('No such object') },
    async handler(ctx) {
      const p = requirePrincipal(deps, ctx);
      const b = ctx.body as { id: string; session_id?: string };
      const o = await objects.claim(await objects.get(b.id), p, b.session_id);
      return { body: objectView(o, ctx.baseUrl, true), headers: { 'Cache-Control': 'no-store' } };
    },
  });

  api.operation({
    id: 'arBake',
    method: 'POST',
    path: '/api/bake',
    host: 'ar',
    summary: 'Generate the files of colour presets now',
    description: 'Bakes each colour (default: every preset) into a GLB, its mirrored GLB and a USDZ; these are otherwise generated on first request.',
    tags: ['AR host'],
    auth: ['bearer'],
    rateLimit: 'submission',
    body: 'ArBakeRequest',
    example: { id: '6ef70a61d8f7d496cb0c7377', color_ids: ['red'] },
    responses: { 200: { description: 'File sizes and URLs per colour', schema: AR_ANSWERS.bake, example: AR_EXAMPLES.bake }, 401: ERR('No or invalid credentials'), 403: ERR('Not the owner, its group or an admin'), 404: ERR('No such object or colour'), 409: ERR('Autofit has not finished') },
    async handler(ctx) {
      const p = requirePrincipal(deps, ctx);
      const b = ctx.body as { id: string; color_ids?: string[] };
      const o = await objects.get(b.id);
      const ids = b.color_ids ?? ['default', ...Object.keys(o.materialsData).filter((k) => k !== 'default' && !k.endsWith('_mirror'))];
      const sizes = await objects.bake(o, p, ids);
      const colors = Object.fromEntries(
        Object.entries(sizes).map(([c, s]) => [c, { ...s, glb_url: arUrls.glb(ctx.baseUrl, o.id, c), usdz_url: arUrls.usdz(ctx.baseUrl, o.id, c), ...(s.mirrorGlb !== null ? { mirror_glb_url: arUrls.glb(ctx.baseUrl, o.id, c, true) } : {}) }]),
      );
      return { body: { id: o.id, colors }, headers: { 'Cache-Control': 'no-store' } };
    },
  });
}
