import type { Caller } from '../../core/credentials.ts';
import { FitroomError, validationError, type ErrorDetail } from '../../core/errors.ts';
import type { FileService } from '../../core/files.ts';
import type { JobService } from '../../core/jobs.ts';
import type { OperationContext, PluginApi } from '../../core/plugin.ts';
import type { BlobStore } from '../../core/ports/blob-store.ts';
import type { GlbIO } from '../../core/ports/glb-io.ts';
import { submissionAnswer } from '../../core/jobs.ts';
import { EX } from '../../core/examples.ts';
import { inlineData, isInlineStandIn, loadInlineData } from '../../core/inline-data.ts';
import { GLB_INPUT_MAX_BYTES, SHOE3D_JOB, type Shoe3dJobInput, type Shoe3dOptions, type StoredSource, type ViewHint } from './shoe3d-job.ts';

/** Inputs sent inline (data URLs) are kept this long for the job that reads them. */
const STASH_TTL_SECONDS = 24 * 3600;
const ERR = (description: string) => ({ description, schema: 'ErrorEnvelope' });

interface Shoe3dBody {
  images: string[];
  glbInput?: string;
  options?: Partial<Shoe3dOptions>;
  webhookUrl?: string;
}

export interface OperationDeps {
  api: PluginApi;
  /** Resolved when used: a deployment may bind it after the plugin is set up. */
  io: () => GlbIO;
  jobs: JobService;
  files: FileService;
  blobs: BlobStore;
}

export function registerShoe3dOperations(d: OperationDeps): void {
  const { api } = d;
  api.operation({
    id: 'submitShoe3d',
    method: 'POST',
    path: '/api/v1/shoe-3d',
    summary: 'Generate a 3D model (GLB) from shoe or bag photos',
    description:
      'Asynchronous: answers 202 with `jobId`; poll `GET /api/v1/jobs/{jobId}` every 5-10 s. The job moves queued → validating → processing → uploading → completed (or failed with `error`); `progress` is a number 0-100 that only grows. The result carries `glbUrl`, `viewerUrl` and `previewGrid`. Packshot diagnostics: `packshotCleanup` and `packshotSingleShoe` of the first photo are on the job (`GET /api/v1/jobs/{jobId}`) once the packshots were checked; those of every photo (`packshots`) and of the other stages are in the `diagnostics` of the trace. With `options.uploadToService` the final GLB must fit 20 MB (it is compressed first) and becomes an AR host object; upload failures: `attribution_unavailable`, `invalid_user_id`, `attribution_conflict`, `file_too_large`.',
    tags: ['Shoe 3D'],
    auth: ['apiKey'],
    browserProtected: true,
    rateLimit: 'submission',
    billable: true,
    body: 'Shoe3dRequest',
    // photos and glbInput are only decoded to bytes (parseShoe3d), never read as text
    dataUrlsAsBytes: true,
    example: { images: ['https://shop.example/img/shoe-0.png', 'https://shop.example/img/shoe-45.png', 'https://shop.example/img/shoe-90.png', 'https://shop.example/img/shoe-135.png'], options: { uploadToService: true } },
    responses: {
      202: { description: 'Queued', schema: 'JobSubmitted', example: { success: true, jobId: EX.jobId, status: 'queued', estimatedProcessingTime: 120, statusUrl: EX.statusUrl } },
      400: ERR('VALIDATION_ERROR'),
      401: ERR('HTTP_ERROR'),
    },
    async handler(ctx: OperationContext<Shoe3dBody>) {
      const body = ctx.body;
      const caller = ctx.caller!;
      if (body.images.length === 0 && !body.glbInput) throw validationError([{ field: 'images', message: 'must hold at least one image unless glbInput is given' }]);
      // the large data URLs held for this request, decoded (on a pool thread) for parseShoe3d
      await loadInlineData([...body.images, body.glbInput]);
      const parsed = parseShoe3d(d, body, '');
      if (parsed.details.length) throw validationError(parsed.details);
      const input = await stashShoe3d(d, parsed, caller);
      const job = await d.jobs.submit({ kind: SHOE3D_JOB, input, caller, webhookUrl: body.webhookUrl, links: ctx.links, charged: caller.countsKeyUsage });
      return submissionAnswer(job.id, ctx.links, { estimatedProcessingTime: d.jobs.kind(SHOE3D_JOB).estimatedSeconds ?? 120 });
    },
  });

  api.operation({
    id: 'uploadFile',
    method: 'POST',
    path: '/api/v1/files/upload',
    summary: 'Upload a GLB to use as glbInput',
    description: `multipart/form-data with \`file\` (a .glb, at most ${GLB_INPUT_MAX_BYTES / 1048576} MB, enforced while streaming). The container and JSON are checked before anything else reads the file. Answers \`{url}\`, a signed URL usable as \`glbInput\`.`,
    tags: ['Shoe 3D'],
    auth: ['apiKey'],
    browserProtected: true,
    rateLimit: 'submission',
    upload: { field: 'file', maxBytes: GLB_INPUT_MAX_BYTES },
    responses: {
      200: { description: 'Stored', schema: 'FileUploadResult', example: { url: EX.fileUrl, expiresAt: EX.later, bytes: 880944 } },
      400: ERR('VALIDATION_ERROR: no file, or not a usable GLB'),
      401: ERR('HTTP_ERROR'),
      413: ERR('PAYLOAD_TOO_LARGE'),
    },
    async handler(ctx) {
      const up = ctx.upload!;
      const bytes = await d.blobs.get(up.blobKey);
      if (!bytes) throw new FitroomError('INTERNAL_ERROR', 'The uploaded file disappeared');
      const io = d.io();
      try {
        io.inspect(bytes, GLB_INPUT_MAX_BYTES);
      } catch (e) {
        await d.blobs.delete(up.blobKey).catch(() => undefined);
        throw validationError([{ field: 'file', message: `is not a usable GLB: ${(e as Error).message.replace(/^invalid_glb:\s*/, '')}` }]);
      }
      const rec = await d.files.adopt(up.blobKey, up.size, { ownerHash: ctx.caller!.ownerHash, contentType: 'model/gltf-binary', filename: safeName(up.filename), ttlSeconds: api.config.resultTtlSeconds });
      const signed = d.files.signedUrl(rec, ctx.links);
      return { status: 200, body: { url: signed.url, expiresAt: signed.expiresAt, bytes: up.size }, headers: { 'Cache-Control': 'no-store' } };
    },
  });
}

/** A shoe-3d request checked and decoded, before anything is stored. */
export interface ParsedShoe3d {
  images: ({ url: string } | { bytes: Uint8Array; contentType: string })[];
  glbInput?: { url: string } | { bytes: Uint8Array };
  options: Shoe3dOptions;
  details: ErrorDetail[];
}

/**
 * The checks the schema cannot make (inline data decodes, an inline GLB is usable) and the option
 * defaults. Field names carry `prefix` so a batch can name the item (`items[3].images[0]`).
 */
export function parseShoe3d(d: Pick<OperationDeps, 'io'>, body: { images: string[]; glbInput?: string; options?: Partial<Shoe3dOptions> }, prefix: string): ParsedShoe3d {
  const details: ErrorDetail[] = [];
  const images: ParsedShoe3d['images'] = [];
  body.images.forEach((src, i) => {
    if (!src.startsWith('data:')) return void images.push({ url: src });
    const bytes = dataUrlBytes(src);
    if (!bytes) details.push({ field: `${prefix}images[${i}]`, message: 'has no valid base64 data' });
    else images.push({ bytes, contentType: src.slice(5, src.indexOf(';')) });
  });
  let glbInput: ParsedShoe3d['glbInput'];
  if (body.glbInput?.startsWith('data:')) {
    const bytes = dataUrlBytes(body.glbInput);
    if (!bytes) details.push({ field: `${prefix}glbInput`, message: 'has no valid base64 data' });
    else {
      const io = d.io();
      try {
        io.inspect(bytes, GLB_INPUT_MAX_BYTES);
        glbInput = { bytes };
      } catch (e) {
        details.push({ field: `${prefix}glbInput`, message: `is not a usable GLB: ${(e as Error).message.replace(/^invalid_glb:\s*/, '')}` });
      }
    }
  } else if (body.glbInput) glbInput = { url: body.glbInput };
  const o = body.options ?? {};
  const options: Shoe3dOptions = {
    uploadToService: o.uploadToService ?? false,
    ...(o.sessionId !== undefined ? { sessionId: o.sessionId } : {}),
    enhanceTexture: o.enhanceTexture ?? false,
    correctImage: o.correctImage ?? false,
    productType: o.productType ?? 'auto',
    refineLogo: o.refineLogo ?? false,
    // high by default when the texture pass is on (spec)
    genaiQuality: o.genaiQuality ?? (o.enhanceTexture ? 'high' : 'default'),
  };
  const views = parseViews(o.views as RequestViewHint[] | undefined, body.images.length, prefix, details);
  if (views) options.views = views;
  return { images, ...(glbInput ? { glbInput } : {}), options, details };
}

/** Stores inline inputs for the job that reads them and builds the job input. */
export async function stashShoe3d(d: Pick<OperationDeps, 'files'>, p: ParsedShoe3d, caller: Caller, resultTtlSeconds?: number): Promise<Shoe3dJobInput> {
  const images: StoredSource[] = [];
  for (const img of p.images) images.push('url' in img ? { url: img.url } : { fileId: await stash(d.files, img.bytes, img.contentType, caller) });
  const glbInput: StoredSource | undefined = !p.glbInput ? undefined : 'url' in p.glbInput ? { url: p.glbInput.url } : { fileId: await stash(d.files, p.glbInput.bytes, 'model/gltf-binary', caller) };
  return {
    images,
    ...(glbInput ? { glbInput } : {}),
    options: p.options,
    caller: snapshot(caller),
    // a verified account token (X-Service-Account); an unverifiable one never gets this far (401)
    accountAttribution: caller.kind === 'account',
    ...(resultTtlSeconds ? { resultTtlSeconds } : {}),
  };
}

/** An options.views entry as the request gives it. */
interface RequestViewHint {
  view?: keyof typeof NAMED_VIEWS | 'top';
  azimuthDeg?: number;
  elevationDeg?: number;
}

/** Azimuths of the named views (0 = a side with the toe to the right, 90 = the toe facing the camera). */
const NAMED_VIEWS = { side: 0, 'front-three-quarter': 45, front: 90, 'back-three-quarter': 135, 'other-side': 180, back: 270 } as const;

/** options.views checked against the images (one entry each) and resolved to degrees. */
function parseViews(views: RequestViewHint[] | undefined, images: number, prefix: string, details: ErrorDetail[]): ViewHint[] | undefined {
  if (!views) return undefined;
  if (views.length !== images) {
    details.push({ field: `${prefix}options.views`, message: `must have one entry per photo of images (${images}), in the same order; has ${views.length}` });
    return undefined;
  }
  return views.map((v, i) => {
    if (v.view === 'top') {
      // straight above; azimuthDeg, when given, says where the toe points in the photo
      if (v.elevationDeg !== undefined && v.elevationDeg !== 90) {
        details.push({ field: `${prefix}options.views[${i}].elevationDeg`, message: 'a top view is taken from straight above (90 degrees): leave elevationDeg out' });
      }
      return { ...(v.azimuthDeg !== undefined ? { azimuthDeg: v.azimuthDeg % 360 } : {}), elevationDeg: 90 };
    }
    if (v.view !== undefined && v.azimuthDeg !== undefined && v.azimuthDeg % 360 !== NAMED_VIEWS[v.view]) {
      details.push({ field: `${prefix}options.views[${i}]`, message: `gives view "${v.view}" (${NAMED_VIEWS[v.view]} degrees) and azimuthDeg ${v.azimuthDeg}: give one of them` });
    }
    const azimuth = v.azimuthDeg ?? (v.view !== undefined ? NAMED_VIEWS[v.view] : undefined);
    return { ...(azimuth !== undefined ? { azimuthDeg: azimuth % 360 } : {}), ...(v.elevationDeg !== undefined ? { elevationDeg: v.elevationDeg } : {}) };
  });
}

function dataUrlBytes(s: string): Uint8Array | null {
  // a large data URL the pool thread already decoded (dataUrlsAsBytes); a released one is refused
  const held = inlineData(s);
  if (held) return held.bytes ?? null;
  if (isInlineStandIn(s)) return null;
  const comma = s.indexOf(',');
  if (comma < 0) return null;
  const payload = s.slice(comma + 1).replace(/\s+/g, '');
  if (!payload || !/^[A-Za-z0-9+/]+=*$/.test(payload)) return null;
  const bytes = Buffer.from(payload, 'base64');
  return bytes.byteLength ? new Uint8Array(bytes) : null;
}

async function stash(files: FileService, bytes: Uint8Array, contentType: string, caller: Caller): Promise<string> {
  const rec = await files.store(bytes, { ownerHash: caller.ownerHash, contentType, ttlSeconds: STASH_TTL_SECONDS, internal: true });
  return rec.id;
}

function snapshot(c: Caller): Caller {
  return { kind: c.kind, credentialId: c.credentialId, ownerHash: c.ownerHash, accountId: c.accountId, development: c.development, countsKeyUsage: false, countsAiQuota: false };
}

function safeName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? 'model.glb';
  return base.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100) || 'model.glb';
}
