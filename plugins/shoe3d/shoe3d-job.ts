import type { FitroomConfig } from '../../core/config.ts';
import type { Caller } from '../../core/credentials.ts';
import { FitroomError, isFitroomError } from '../../core/errors.ts';
import type { FileService } from '../../core/files.ts';
import type { ImageLoader } from '../../core/image-loader.ts';
import type { RasterImage } from '../../core/images.ts';
import type { JobKind, JobService, RunningJob } from '../../core/jobs.ts';
import type { ArObjectStore, ArOwner } from '../../core/ports/ar-object-store.ts';
import type { BlobStore } from '../../core/ports/blob-store.ts';
import type { ImageCodec } from '../../core/ports/image-codec.ts';
import type { ProductReconstructor } from '../../core/ports/product-reconstructor.ts';
import type { PackshotCleanup, PackshotSingleShoe, Shoe3dEngine, Shoe3dTimeouts } from '../../core/ports/shoe3d-engine.ts';
import { restLinks } from '../../core/links.ts';
import type { DecodeLimits } from '../../core/ports/image-codec.ts';
import { resolveOwner } from './ownership.ts';

export const SHOE3D_JOB = 'shoe-3d';

/** Largest GLB the AR library accepts from shoe-3d (spec limits). */
export const AR_LIBRARY_MAX_BYTES = 20 * 1024 * 1024;
/** Largest GLB accepted as glbInput or by POST /api/v1/files/upload (the AR host's own upload limit). */
export const GLB_INPUT_MAX_BYTES = 30 * 1024 * 1024;
/** Photos are decoded no larger than this on either side. */
const IMAGE_LIMITS = { maxPixels: 40_000_000, maxSide: 2048 };
/**
 * Decoded pixels for all of a job's photos together (four 2048² views): more photos are each decoded
 * smaller, so a job's memory does not grow with their number (12 × 6300² photos stay within 16 MP).
 */
export const JOB_DECODED_PIXELS = 4 * 2048 * 2048;
/** The AR host's autofit job kind (plugins/ar-host), queued for uploaded models. */
const AR_AUTOFIT_JOB = 'ar-autofit';

/** Where an input lives: a URL fetched in the job, or a file stashed at submission (data URLs). */
export interface StoredSource {
  url?: string;
  fileId?: string;
}

export interface Shoe3dOptions {
  uploadToService: boolean;
  sessionId?: string;
  enhanceTexture: boolean;
  correctImage: boolean;
  productType: 'shoe' | 'other' | 'auto';
  refineLogo: boolean;
  genaiQuality: 'default' | 'high';
}

export interface Shoe3dJobInput {
  images: StoredSource[];
  glbInput?: StoredSource;
  options: Shoe3dOptions;
  /** The submitting caller (no secrets: hashes and ids), for the AR host's autofit job. */
  caller: Caller;
  /** The request carried an explicit account attribution (an ownership claim of its own). */
  accountAttribution: boolean;
  /** How long the result files are kept (batch items: the batch retention); default RESULT_TTL_SECONDS. */
  resultTtlSeconds?: number;
}

/**
 * What the job needs. Ports are resolved when a job runs (not at setup), so a deployment or a test
 * may bind the engine, reconstructors, timeouts or AR store after the plugin is installed.
 */
export interface Shoe3dDeps {
  engine: Shoe3dEngine;
  reconstructors: ProductReconstructor[];
  files: FileService;
  images: ImageLoader;
  codec: ImageCodec;
  blobs: BlobStore;
  jobs: JobService;
  config: FitroomConfig;
  arStore: ArObjectStore | null;
  timeouts: Shoe3dTimeouts;
}

/**
 * The shoe-3d job: queued → validating (fetch, decode, defensive GLB check, ownership) →
 * processing (packshot correction, cleanup, single-shoe guard, product type, reconstruction,
 * texture enhancement, logo refinement, preview) → uploading (result files, AR host object) →
 * completed, or failed with `error`. Progress is a number that only grows.
 */
export function shoe3dJobKind(resolve: () => Shoe3dDeps): JobKind<Shoe3dJobInput> {
  return {
    name: SHOE3D_JOB,
    progress: 'number',
    stages: [
      { name: 'validate inputs', status: 'validating', progress: 2 },
      { name: 'correct images', status: 'processing', progress: 8 },
      { name: 'clean packshots', status: 'processing', progress: 12 },
      { name: 'single-shoe guard', status: 'processing', progress: 18 },
      { name: 'product type', status: 'processing', progress: 22 },
      { name: 'reconstruct', status: 'processing', progress: 25 },
      { name: 'enhance texture', status: 'processing', progress: 72 },
      { name: 'refine logos', status: 'processing', progress: 82 },
      { name: 'preview', status: 'processing', progress: 88 },
      { name: 'store results', status: 'uploading', progress: 92 },
      { name: 'upload to AR host', status: 'uploading', progress: 96 },
    ],
    maxAttempts: 2,
    estimatedSeconds: 120,
    recordDiagnostics: ['packshotCleanup', 'packshotSingleShoe'],
    run: (job) => runShoe3d(job, resolve()),
  };
}

async function runShoe3d(job: RunningJob<Shoe3dJobInput>, d: Shoe3dDeps) {
  const { options } = job.input;
  const high = options.genaiQuality === 'high';
  const timeoutMs = high ? d.timeouts.high : d.timeouts.default;
  const textureViews: 4 | 6 = high ? 6 : 4;
  const progress = monotonicProgress(job);

  const loaded = await job.stage('validate inputs', async (signal) => {
    let owner: ArOwner | null = null;
    if (options.uploadToService) {
      if (!d.arStore) throw new FitroomError('SERVICE_UNAVAILABLE', 'uploadToService needs the AR host, which is not installed on this deployment');
      owner = resolveOwner({ sessionId: options.sessionId, accountAttribution: job.input.accountAttribution, accountId: job.record.accountId, credentialId: job.record.credentialId });
    }
    const rasters: RasterImage[] = [];
    const limits = { ...IMAGE_LIMITS, maxDecodedPixels: Math.floor(JOB_DECODED_PIXELS / Math.max(1, job.input.images.length)) };
    for (let i = 0; i < job.input.images.length; i++) rasters.push(await loadImage(d, job.input.images[i], `images[${i}]`, signal, limits));
    let glb: Uint8Array | null = null;
    if (job.input.glbInput) glb = await loadGlb(d, job.input.glbInput, job.record.ownerHash, signal);
    job.note({ images: rasters.map((r) => `${r.width}x${r.height}`), ...(glb ? { glbInput: glb.byteLength } : {}), ...(owner ? { owner: owner.kind } : {}) });
    return { rasters, glb, owner };
  });

  let glb: Uint8Array;
  let productType: 'shoe' | 'other' = options.productType === 'other' ? 'other' : 'shoe';
  if (loaded.glb) {
    glb = loaded.glb;
    await job.diagnostics({ productType: { requested: options.productType, decided: options.productType === 'auto' ? null : options.productType, reason: 'glbInput: no reconstruction' } });
  } else {
    let images = loaded.rasters;
    if (options.correctImage) {
      images = await job.stage('correct images', async () => {
        const corrections: Record<string, unknown>[] = [];
        const out = images.map((img) => {
          const r = d.engine.correct(img);
          corrections.push(r.correction);
          return r.image;
        });
        job.note({ corrections });
        return out;
      });
    }
    const cleanups: PackshotCleanup[] = [];
    images = await job.stage('clean packshots', async () => {
      const out = images.map((img) => {
        const r = d.engine.cleanup(img);
        cleanups.push(r.cleanup);
        return r.cleanup.status === 'failed' ? img : r.image;
      });
      job.note({ cleanup: cleanups.map((c) => c.status) });
      return out;
    });
    const guards: PackshotSingleShoe[] = [];
    images = await job.stage('single-shoe guard', async (signal) => {
      const out: RasterImage[] = [];
      for (const img of images) {
        const r = await d.engine.guard(img, { signal, deadline: Date.now() + 60_000 }).catch(() => ({ image: img, singleShoe: { status: 'unavailable', attempts: 1, errorCode: 'guard_error' } as PackshotSingleShoe }));
        guards.push(r.singleShoe);
        out.push(r.image);
      }
      job.note({ singleShoe: guards.map((g) => g.status) });
      return out;
    });
    await job.diagnostics({
      packshotCleanup: cleanups[0],
      packshotSingleShoe: guards[0],
      packshots: cleanups.map((c, i) => ({ image: i, cleanup: c, singleShoe: guards[i] })),
    });
    productType = await job.stage('product type', async () => {
      if (options.productType !== 'auto') {
        await job.diagnostics({ productType: { requested: options.productType, decided: options.productType, reason: 'as requested' } });
        return options.productType;
      }
      const decision = d.engine.classify(images);
      job.note({ productType: decision.productType, reason: decision.reason });
      await job.diagnostics({ productType: { requested: 'auto', decided: decision.productType, reason: decision.reason, features: decision.features } });
      return decision.productType;
    });
    glb = await job.stage('reconstruct', async (signal) => {
      const reconstructor = d.reconstructors[0];
      if (!reconstructor) throw new FitroomError('SERVICE_UNAVAILABLE', 'No product reconstructor is configured');
      const views = await Promise.all(images.map(async (image) => ({ image, encoded: await d.engine.encodePng(image) })));
      const notes: string[] = [];
      const out = await reconstructor.reconstruct({
        views,
        productType,
        quality: options.genaiQuality,
        signal,
        onProgress: (f) => progress.set(25 + 45 * Math.max(0, Math.min(1, f))),
        note: (m) => notes.push(m),
      });
      await progress.flush();
      const report = await d.engine.validateGlb(out.glb);
      job.note({ reconstructor: reconstructor.id, notes: out.notes.length ? out.notes : notes, validation: { errors: report.errors, warnings: report.warnings } });
      await job.diagnostics({ reconstruction: { reconstructor: reconstructor.id, notes: out.notes.length ? out.notes : notes, glbBytes: out.glb.byteLength, validatorErrors: report.errors } });
      if (report.errors > 0) throw new FitroomError('INTERNAL_ERROR', `The ${reconstructor.id} reconstructor returned a GLB that fails validation (${report.messages[0] ?? 'see trace'})`);
      return out.glb;
    }, { timeoutMs });
  }

  if (options.enhanceTexture) {
    glb = await job.stage('enhance texture', async (signal) => {
      const r = await d.engine.enhanceTexture(glb, textureViews, signal);
      job.note({ views: r.views, texelsChanged: r.texelsChanged });
      return r.glb;
    }, { timeoutMs });
  }
  if (options.refineLogo) {
    glb = await job.stage('refine logos', async (signal) => {
      // non-fatal: on failure the first-pass model goes on
      try {
        const r = await d.engine.refineLogos(glb, textureViews, signal);
        job.note({ status: r.status, regions: r.regions, ...(r.errorCode ? { errorCode: r.errorCode } : {}) });
        await job.diagnostics({ logoRefinement: { status: r.status, regions: r.regions, ...(r.errorCode ? { errorCode: r.errorCode } : {}) } });
        return r.glb;
      } catch (err) {
        if (signal.aborted) throw err;
        job.note({ status: 'failed', errorCode: 'logo_refinement_failed' });
        await job.diagnostics({ logoRefinement: { status: 'failed', errorCode: 'logo_refinement_failed' } });
        return glb;
      }
    }, { timeoutMs });
  }
  const preview = await job.stage('preview', async () => d.engine.previewGrid(glb));

  const stored = await job.stage('store results', async (signal) => {
    let out = glb;
    if (options.uploadToService && out.byteLength > AR_LIBRARY_MAX_BYTES) {
      const c = await d.engine.compressGlb(out, AR_LIBRARY_MAX_BYTES, signal);
      job.note({ compression: c.steps, bytes: c.bytes });
      await job.diagnostics({ compression: { before: out.byteLength, after: c.bytes, steps: c.steps } });
      if (!c.withinBudget) throw new FitroomError('file_too_large', `file_too_large: The GLB is ${(c.bytes / 1048576).toFixed(1)} MB after compression; the AR library accepts at most 20 MB`);
      out = c.glb;
    }
    const ttl = job.input.resultTtlSeconds ?? d.config.resultTtlSeconds;
    const glbRec = await d.files.store(out, { ownerHash: job.record.ownerHash, contentType: 'model/gltf-binary', filename: 'model.glb', ttlSeconds: ttl });
    const pngRec = await d.files.store(preview.bytes, { ownerHash: job.record.ownerHash, contentType: preview.contentType, filename: 'preview.png', ttlSeconds: ttl });
    job.note({ glbBytes: out.byteLength, previewBytes: preview.bytes.byteLength });
    const links = restLinks(d.config, job.record.baseUrl);
    return { glb: out, glbUrl: d.files.signedUrl(glbRec, links), previewUrl: d.files.signedUrl(pngRec, links) };
  });

  const arBase = restLinks(d.config, job.record.baseUrl).ar;
  let arObject: { id: string; color_id: string; viewer_url: string } | null = null;
  if (options.uploadToService) {
    arObject = await job.stage('upload to AR host', async () => {
      const o = await uploadToArHost(d, job, stored.glb, loaded.owner!, productType);
      job.note({ objectId: o.id, owner: loaded.owner!.kind });
      return { id: o.id, color_id: 'default', viewer_url: `${arBase}/tryon?id=${o.id}&color_id=default` };
    });
  }
  return {
    result: {
      glbUrl: stored.glbUrl.url,
      viewerUrl: arObject ? arObject.viewer_url : `${arBase}/tryon?src=${encodeURIComponent(stored.glbUrl.url)}`,
      previewGrid: stored.previewUrl.url,
      expiresAt: stored.glbUrl.expiresAt,
      productType,
      // a result that is no AR host object says how to get one: the viewer shows it, the try-on app and editor cannot
      ...(arObject ? { arObject } : { arObjectHint: 'Not an AR host object (no autofit, materials or try-on app). Submit with options.uploadToService: true, or upload the GLB to the AR host: POST /tryon/api/upload_shoe with Authorization: Bearer <key>.' }),
    },
  };
}

async function loadImage(d: Shoe3dDeps, src: StoredSource, label: string, signal: AbortSignal, limits: DecodeLimits): Promise<RasterImage> {
  if (src.url) return (await d.images.load(src.url, label, limits, signal)).raster;
  const bytes = await readStash(d, src.fileId!);
  try {
    return await d.codec.decode(bytes, limits);
  } catch (e) {
    throw new FitroomError('IMAGE_INVALID', `Could not decode ${label}: ${(e as Error).message}`);
  }
}

async function readStash(d: Shoe3dDeps, fileId: string): Promise<Uint8Array> {
  const rec = await d.files.get(fileId);
  const bytes = rec ? await d.files.read(rec) : null;
  if (!bytes) throw new FitroomError('VALIDATION_ERROR', 'An input stored with the submission has expired; please resubmit');
  return bytes;
}

/**
 * glbInput bytes: a file of this service (from POST /api/v1/files/upload) is read directly when
 * the job's owner owns it or its signature is valid; any other URL is fetched with the outbound
 * protections; inline GLBs were stashed at submission. Every GLB passes the defensive inspection.
 */
async function loadGlb(d: Shoe3dDeps, src: StoredSource, ownerHash: string, signal: AbortSignal): Promise<Uint8Array> {
  let bytes: Uint8Array;
  if (src.fileId) bytes = await readStash(d, src.fileId);
  else {
    const own = await ownFile(d, src.url!, ownerHash);
    if (own) bytes = own;
    else {
      const r = await d.images.fetchBytes(src.url!, 'glbInput', GLB_INPUT_MAX_BYTES, signal);
      bytes = r.bytes;
    }
  }
  try {
    d.engine.inspectGlb(bytes, GLB_INPUT_MAX_BYTES);
  } catch (e) {
    const reason = (e as Error).message.replace(/^invalid_glb:\s*/, '');
    throw new FitroomError('VALIDATION_ERROR', `glbInput is not a usable GLB: ${reason}`, { details: [{ field: 'glbInput', message: reason }] });
  }
  return bytes;
}

const OWN_FILE = /\/api\/v1\/files\/([0-9a-f-]{36})(?:\?|$)/i;

async function ownFile(d: Shoe3dDeps, url: string, ownerHash: string): Promise<Uint8Array | null> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  const m = OWN_FILE.exec(u.pathname + (u.search ? '?' : ''));
  if (!m) return null;
  const rec = await d.files.get(m[1]);
  if (!rec) return null;
  if (rec.ownerHash === ownerHash) return d.files.read(rec);
  const token = u.searchParams.get('token') ?? undefined, expires = u.searchParams.get('expires') ?? undefined;
  try {
    const opened = await d.files.openForDownload(m[1], { caller: null, token, expires });
    const chunks: Buffer[] = [];
    for await (const c of opened.stream) chunks.push(Buffer.from(c as Buffer));
    return new Uint8Array(Buffer.concat(chunks));
  } catch {
    return null;
  }
}

/**
 * Stores the GLB as an AR host object owned as resolved and queues the AR host's autofit for it.
 * Store failures are retried briefly; if the store stays unavailable the job fails with
 * `attribution_unavailable` (temporary: the client retries).
 */
async function uploadToArHost(d: Shoe3dDeps, job: RunningJob<Shoe3dJobInput>, glb: Uint8Array, owner: ArOwner, productType: 'shoe' | 'other') {
  const key = `uploads/shoe3d-${job.id}.glb`;
  const now = new Date().toISOString();
  let lastError: unknown = null;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, 250 * attempt));
    try {
      await d.blobs.put(key, glb, 'model/gltf-binary');
      const o = await d.arStore!.create({
        name: `shoe-3d ${job.id.slice(0, 8)}`,
        owner,
        createdBy: `shoe-3d:${job.record.credentialId}`,
        properties: { source: 'shoe-3d', jobId: job.id, kind: productType === 'shoe' ? 'shoe' : 'accessory' },
        files: { source: key },
        autofit: { default: { status: 'in_queue', progress: 0, updatedAt: now } },
      });
      try {
        d.jobs.kind(AR_AUTOFIT_JOB);
        await d.jobs.submit({ kind: AR_AUTOFIT_JOB, input: { objectId: o.id, colorId: 'default', sourceKey: key }, caller: job.input.caller, links: restLinks(d.config, job.record.baseUrl) });
      } catch (e) {
        job.note({ autofit: `not queued: ${isFitroomError(e) ? e.message : 'internal error'}` });
      }
      return o;
    } catch (e) {
      if (isFitroomError(e) && e.code !== 'INTERNAL_ERROR' && e.code !== 'SERVICE_UNAVAILABLE') throw e;
      lastError = e;
    }
  }
  job.note({ storeError: lastError instanceof Error ? lastError.name : 'unknown' });
  throw new FitroomError('attribution_unavailable', 'attribution_unavailable: The AR library is temporarily unavailable; retry the submission');
}


/** Numeric progress that only grows; writes are serialised and coalesced. */
function monotonicProgress(job: RunningJob<unknown>) {
  let shown = 0;
  let wanted = 0;
  let chain: Promise<void> = Promise.resolve();
  return {
    set(pct: number) {
      const p = Math.floor(pct);
      if (p <= wanted) return;
      wanted = p;
      chain = chain.then(async () => {
        if (wanted <= shown) return;
        const target = wanted;
        await job.progress(target).catch(() => undefined);
        shown = target;
      });
    },
    flush() {
      return chain;
    },
  };
}
