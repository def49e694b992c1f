import { validationError } from '../../core/errors.ts';
import type { OperationContext } from '../../core/plugin.ts';
import type { ArPrincipal } from './ar-auth.ts';
import { unauthorized } from './ar-auth.ts';
import type { ArRouteDeps } from './context.ts';
import { PUBLIC_READ_HEADERS, principalOf, requirePrincipal } from './context.ts';
import { arUrls } from './views.ts';
import { AR_ANSWERS, AR_EXAMPLES } from './examples.ts';

export const AR_UPLOAD_MAX_BYTES = 30 * 1024 * 1024;
const TEXTURE_MAX_BYTES = 16 * 1024 * 1024;
const ERR = (description: string) => ({ description, schema: 'ErrorEnvelope' });
const GLB_UPLOAD = { field: 'file', maxBytes: AR_UPLOAD_MAX_BYTES, missing: { code: 'no_file' as const }, tooLarge: { code: 'file_too_large' as const, status: 400 } };
const NAME_PARAM = { name: { type: 'string', minLength: 1, maxLength: 200 } };
const FILE_QUERY = {
  color_id: { schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' }, description: 'Colour preset (default `default`)' },
  mirror: { schema: { enum: ['0', '1'] }, description: '1: the other shoe of the pair' },
};

function field(ctx: OperationContext, name: string, max = 200): string | undefined {
  const v = (ctx.body as Record<string, string> | undefined)?.[name];
  if (v === undefined || v === '') return undefined;
  if (v.length > max) throw validationError([{ field: name, message: `must be at most ${max} characters` }]);
  return v;
}

/** Uploads, mesh replacement, textures and the model files of the AR host. */
export function registerFileRoutes(deps: ArRouteDeps): void {
  const { api, objects, auth } = deps;

  /** The caller of an upload: resolved credentials, else the form's legacy `token` field. */
  async function uploader(ctx: OperationContext): Promise<{ p: ArPrincipal; viaForm: boolean }> {
    const p = principalOf(deps, ctx);
    if (p) return { p, viaForm: false };
    const token = field(ctx, 'token', 4096);
    if (!token) {
      if (ctx.upload) await objects.discardUpload(ctx.upload.blobKey);
      throw unauthorized();
    }
    try {
      return { p: await auth.fromToken(token), viaForm: true };
    } catch (e) {
      if (ctx.upload) await objects.discardUpload(ctx.upload.blobKey);
      throw e;
    }
  }

  api.operation({
    id: 'arUploadShoe',
    method: 'POST',
    path: '/tryon/api/upload_shoe',
    host: 'ar',
    summary: 'Upload a shoe model',
    description:
      'multipart/form-data: `file` (a .glb, at most 30 MB, checked while streaming), optional `token` (legacy credential, sent before `file` when there is no Authorization header: a form without a credential is refused before the file is stored), `session_id` (anonymous ownership session) and `name`. Creates an object and queues autofit; poll `/tryon/api/autofit_status`.',
    tags: ['AR host'],
    auth: ['bearer', 'none'],
    rateLimit: 'submission',
    upload: {
      ...GLB_UPLOAD,
      // without an Authorization header the form's `token` must come before `file`: it is checked
      // before any byte of the model is stored
      async admitAnonymous(fields) {
        const token = fields.token;
        if (!token || token.length > 4096) throw unauthorized();
        await auth.fromToken(token);
      },
    },
    responses: {
      200: { description: 'Created; autofit queued', schema: 'ArUploadResult', example: AR_EXAMPLES.upload },
      400: ERR('no_file, file_too_large, or a file that is not a usable GLB (VALIDATION_ERROR)'),
      401: ERR('unauthorized, invalid_api_key'),
    },
    async handler(ctx) {
      const { p, viaForm } = await uploader(ctx);
      const o = await objects.uploadShoe(p, ctx.upload!, { sessionId: field(ctx, 'session_id'), name: field(ctx, 'name'), links: ctx.links });
      if (viaForm) await auth.countUsage(p);
      return { body: { id: o.id, color_id: 'default', viewer_url: arUrls.viewer(ctx.baseUrl, o.id) }, headers: { 'Cache-Control': 'no-store' } };
    },
  });

  api.operation({
    id: 'arUploadMesh',
    method: 'POST',
    path: '/api/upload_mesh',
    host: 'ar',
    summary: 'Upload an aligned model (no autofit)',
    description: 'multipart/form-data: `file` (.glb, at most 30 MB), optional `name`, `kind` (`accessory` default, or `shoe`), `session_id`. For models already in the AR frame (metres, +Y up, +Z forward), such as accessories.',
    tags: ['AR host'],
    auth: ['bearer'],
    rateLimit: 'submission',
    upload: GLB_UPLOAD,
    responses: { 200: { description: 'Created', schema: 'ArUploadResult', example: AR_EXAMPLES.upload }, 400: ERR('no_file, file_too_large, invalid GLB'), 401: ERR('unauthorized, invalid_api_key') },
    async handler(ctx) {
      const p = requirePrincipal(deps, ctx);
      const kind = field(ctx, 'kind') ?? 'accessory';
      if (kind !== 'accessory' && kind !== 'shoe') throw validationError([{ field: 'kind', message: 'must be accessory or shoe' }]);
      const o = await objects.uploadMesh(p, ctx.upload!, { sessionId: field(ctx, 'session_id'), name: field(ctx, 'name'), kind });
      return { body: { id: o.id, color_id: 'default', viewer_url: arUrls.viewer(ctx.baseUrl, o.id) }, headers: { 'Cache-Control': 'no-store' } };
    },
  });

  api.operation({
    id: 'arReplaceMesh',
    method: 'POST',
    path: '/api/replace_mesh',
    host: 'ar',
    summary: 'Replace the model of an object',
    description: 'multipart/form-data: `file` (.glb, at most 30 MB), `id`, optional `autofit` (`1` default: align the new model; `0`: use it as it is). Presets and textures stay.',
    tags: ['AR host'],
    auth: ['bearer'],
    rateLimit: 'submission',
    upload: GLB_UPLOAD,
    responses: { 200: { description: 'Replaced', schema: 'ArAutofitStatus', example: { status: 'in_queue', progress: 0 } }, 400: ERR('no_file, file_too_large, invalid GLB'), 401: ERR('unauthorized, invalid_api_key'), 403: ERR('Not the owner, its group or an admin'), 404: ERR('No such object') },
    async handler(ctx) {
      const p = requirePrincipal(deps, ctx);
      const id = field(ctx, 'id');
      if (!id) throw validationError([{ field: 'id', message: 'is required' }]);
      const autofit = field(ctx, 'autofit') ?? '1';
      if (autofit !== '0' && autofit !== '1') throw validationError([{ field: 'autofit', message: 'must be 0 or 1' }]);
      const o = await objects.replaceMesh(await objects.get(id), p, ctx.upload!, { autofit: autofit === '1', links: ctx.links });
      const s = o.autofit.default;
      return { body: { status: s.status, progress: s.progress, ...(s.status === 'finished' ? { glb_url: arUrls.glb(ctx.baseUrl, o.id) } : {}) }, headers: { 'Cache-Control': 'no-store' } };
    },
  });

  api.operation({
    id: 'arUploadTextures',
    method: 'POST',
    path: '/api/upload_textures',
    host: 'ar',
    summary: 'Upload a texture for an object\'s presets',
    description: 'multipart/form-data: `file` (PNG, JPEG or WebP, at most 16 MB), `id`, `name` (letters, digits, `_`, `-`, `.`). Presets reference it by name (`baseColorTexture`, `normalTexture`, `metallicRoughnessTexture`).',
    tags: ['AR host'],
    auth: ['bearer'],
    rateLimit: 'submission',
    upload: { field: 'file', maxBytes: TEXTURE_MAX_BYTES, missing: { code: 'no_file' }, tooLarge: { code: 'file_too_large', status: 400 } },
    responses: { 200: { description: 'Stored', schema: AR_ANSWERS.textures, example: AR_EXAMPLES.textures }, 400: ERR('no_file, file_too_large, not an image'), 401: ERR('unauthorized, invalid_api_key'), 403: ERR('Not the owner, its group or an admin'), 404: ERR('No such object') },
    async handler(ctx) {
      const p = requirePrincipal(deps, ctx);
      const id = field(ctx, 'id');
      const name = field(ctx, 'name', 100);
      const problems = [];
      if (!id) problems.push({ field: 'id', message: 'is required' });
      if (!name || !/^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/.test(name)) problems.push({ field: 'name', message: 'is required: letters, digits, _, - and . (no ..)' });
      if (problems.length) {
        await objects.discardUpload(ctx.upload!.blobKey);
        throw validationError(problems);
      }
      const o = await objects.uploadTexture(await objects.get(id!), p, name!, ctx.upload!);
      return { body: { id: o.id, textures: Object.keys(o.files.textures).sort() }, headers: { 'Cache-Control': 'no-store' } };
    },
  });

  api.operation({
    id: 'arGetGltf',
    method: 'GET',
    path: '/api/get_gltf/{name}',
    host: 'ar',
    summary: 'The GLB of an object',
    description: 'The aligned model with the colour preset baked in (`color_id`, default `default`); `mirror=1` for the other shoe; `variant=source` for the uploaded file (owner, group, admin).',
    tags: ['AR host'],
    auth: ['bearer', 'none'],
    rateLimit: 'download',
    params: NAME_PARAM,
    query: { ...FILE_QUERY, variant: { schema: { enum: ['model', 'source'] } } },
    responses: { 200: { description: 'GLB', contentType: 'model/gltf-binary' }, 404: ERR('No such object, colour or file'), 409: ERR('Autofit has not finished') },
    async handler(ctx) {
      const o = await objects.get(ctx.params.name);
      if (ctx.query.variant === 'source') {
        const bytes = await objects.source(o, principalOf(deps, ctx));
        return { file: { contentType: 'model/gltf-binary', bytes, filename: `${o.name}-source.glb` }, headers: { 'Cache-Control': 'no-store' } };
      }
      const bytes = await objects.glb(o, ctx.query.color_id ?? 'default', ctx.query.mirror === '1');
      return { file: { contentType: 'model/gltf-binary', bytes, filename: `${o.name}.glb` }, headers: PUBLIC_READ_HEADERS };
    },
  });

  api.operation({
    id: 'arGetUsdz',
    method: 'GET',
    path: '/api/get_usdz/{name}',
    host: 'ar',
    summary: 'The USDZ of an object (iOS AR Quick Look)',
    tags: ['AR host'],
    auth: ['bearer', 'none'],
    rateLimit: 'download',
    params: NAME_PARAM,
    query: FILE_QUERY,
    responses: { 200: { description: 'USDZ', contentType: 'model/vnd.usdz+zip' }, 404: ERR('No such object or colour'), 409: ERR('Autofit has not finished') },
    async handler(ctx) {
      const o = await objects.get(ctx.params.name);
      const bytes = await objects.usdz(o, ctx.query.color_id ?? 'default', ctx.query.mirror === '1');
      return { file: { contentType: 'model/vnd.usdz+zip', bytes, filename: `${o.name}.usdz` }, headers: PUBLIC_READ_HEADERS };
    },
  });

}
