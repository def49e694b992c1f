import type { FitroomConfig } from '../../core/config.ts';
import type { Caller } from '../../core/credentials.ts';
import { FitroomError, isFitroomError } from '../../core/errors.ts';
import type { FileService } from '../../core/files.ts';
import type { ImageLoader } from '../../core/image-loader.ts';
import type { RasterImage } from '../../core/images.ts';
import { JobCancelled, type JobKind, type JobRecord, type RunningJob } from '../../core/jobs.ts';
import { raceAbort } from '../../core/abort.ts';
import { restLinks } from '../../core/links.ts';
import type { ArLibrary, ArLibraryEntry } from '../../core/ports/ar-library.ts';
import type { ArOwner } from '../../core/ports/ar-object-store.ts';
import type { GlbIO } from '../../core/ports/glb-io.ts';
import type { DecodeLimits, ImageCodec } from '../../core/ports/image-codec.ts';
import type { ModelDocument, ModelStage } from '../../core/ports/model-stage.ts';
import type { PackshotCleaner, PackshotCleanup } from '../../core/ports/packshot-cleaner.ts';
import type { PackshotCorrector } from '../../core/ports/packshot-corrector.ts';
import type { ProductReconstructor, VendorTask } from '../../core/ports/product-reconstructor.ts';
import type { ProductTypeClassifier } from '../../core/ports/product-type-classifier.ts';
import type { Shoe3dTimeouts } from '../../core/ports/shoe3d-timeouts.ts';
import type { PackshotSingleShoe, SingleShoeGuard } from '../../core/ports/single-shoe-guard.ts';
import { ModelPipeline } from './model-pipeline.ts';
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
/** The job stages model stages run in (core/ports/model-stage.ts), in order; the last one also stores. */
const MODEL_JOB_STAGES = ['enhance texture', 'refine logos', 'preview', 'store results'] as const;
const STORE_RESULTS = 'store results';
/** Job stages that run under the genaiQuality timeout (reconstruct: each builtin attempt, see reconstructAlong). */
const TIMED_STAGES = new Set(['enhance texture', 'refine logos']);
/**
 * The diagnostics key of the vendor task a job created: written before the first status read, so a
 * retried or restarted attempt resumes that task instead of creating (and paying for) another.
 */
export const VENDOR_TASK = 'vendorTask';

/** The vendor task a job created, as stored in its diagnostics. */
export interface StoredVendorTask extends VendorTask {
  reconstructor: string;
  /** Set once the job is done with it: `failed` is never resumed. */
  outcome?: 'succeeded' | 'failed';
}

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
  /** Per-photo hints (same order as the images), resolved to degrees. */
  views?: ViewHint[];
}

/** What the request said about one photo's camera (options.views). */
export interface ViewHint {
  azimuthDeg?: number;
  elevationDeg?: number;
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
 * may bind them after the plugin is installed. The packshot ports are optional: without one the
 * job records the spec's `unavailable` (cleanup, guard) or goes on without it (correction, the
 * product-type decision, which then takes `shoe`).
 */
export interface Shoe3dDeps {
  corrector: PackshotCorrector | null;
  cleaner: PackshotCleaner | null;
  guard: SingleShoeGuard | null;
  classifier: ProductTypeClassifier | null;
  reconstructors: ProductReconstructor[];
  io: GlbIO;
  stages: readonly ModelStage[];
  files: FileService;
  images: ImageLoader;
  codec: ImageCodec;
  config: FitroomConfig;
  /** The AR host's library (plugins/ar-host), when installed. */
  library: ArLibrary | null;
  timeouts: Shoe3dTimeouts;
}

/**
 * The shoe-3d job: queued → validating (fetch, decode, defensive GLB check, ownership) →
 * processing (packshot correction, cleanup, single-shoe guard, product type, reconstruction, then
 * the model stages on one document: texture enhancement, logo refinement, preview) → uploading
 * (validation, compression to the AR budget, result files, AR library object) → completed, or
 * failed with `error`. Progress is a number that only grows.
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
    // A cancelled job stops its vendor task where the vendor allows it, even when no worker runs it now.
    cancelled: (record) => cancelVendorTask(record, resolve().reconstructors),
  };
}

async function runShoe3d(job: RunningJob<Shoe3dJobInput>, d: Shoe3dDeps) {
  const { options } = job.input;
  const high = options.genaiQuality === 'high';
  const timeoutMs = high ? d.timeouts.high : d.timeouts.default;

  const loaded = await job.stage('validate inputs', async (signal) => {
    let owner: ArOwner | null = null;
    if (options.uploadToService) {
      if (!d.library) throw new FitroomError('SERVICE_UNAVAILABLE', 'uploadToService needs the AR host, which is not installed on this deployment');
      owner = resolveOwner({ sessionId: options.sessionId, accountAttribution: job.input.accountAttribution, accountId: job.record.accountId, credentialId: job.record.credentialId });
    }
    const rasters: RasterImage[] = [];
    const limits = { ...IMAGE_LIMITS, maxDecodedPixels: Math.floor(JOB_DECODED_PIXELS / Math.max(1, job.input.images.length)) };
    for (let i = 0; i < job.input.images.length; i++) rasters.push(await loadImage(d, job.input.images[i], `images[${i}]`, signal, limits));
    let doc: ModelDocument | null = null;
    if (job.input.glbInput) {
      const glb = await loadGlb(d, job.input.glbInput, job.record.ownerHash, signal);
      doc = await readInput(d, glb);
      job.note({ glbInput: glb.byteLength });
    }
    job.note({ images: rasters.map((r) => `${r.width}x${r.height}`), ...(owner ? { owner: owner.kind } : {}) });
    return { rasters, doc, owner };
  });

  let doc: ModelDocument;
  let productType: 'shoe' | 'other' = options.productType === 'other' ? 'other' : 'shoe';
  let reconstructor: ProductReconstructor | null = null;
  if (loaded.doc) {
    doc = loaded.doc;
    await job.diagnostics({ productType: { requested: options.productType, decided: options.productType === 'auto' ? null : options.productType, reason: 'glbInput: no reconstruction' } });
  } else {
    const images = await preparePackshots(job, d, loaded.rasters);
    productType = await job.stage('product type', async () => {
      if (options.productType !== 'auto') {
        await job.diagnostics({ productType: { requested: options.productType, decided: options.productType, reason: 'as requested' } });
        return options.productType;
      }
      const decision = d.classifier ? d.classifier.classify(images) : { productType: 'shoe' as const, reason: 'no product-type classifier is configured; shoe assumed', features: {} };
      job.note({ productType: decision.productType, reason: decision.reason });
      await job.diagnostics({ productType: { requested: 'auto', decided: decision.productType, reason: decision.reason, features: decision.features } });
      return decision.productType;
    });
    const chain = reconstructorChain(d.reconstructors);
    if (chain.length === 0) throw new FitroomError('SERVICE_UNAVAILABLE', 'No product reconstructor is configured');
    const built = await job.stage('reconstruct', (signal) => reconstructAlong(job, d, chain, images, productType, signal, timeoutMs));
    doc = built.doc;
    reconstructor = built.reconstructor;
  }

  // one document from here to storage: the model stages, then one write
  const maxBytes = options.uploadToService ? AR_LIBRARY_MAX_BYTES : null;
  const pipeline = new ModelPipeline(doc, d.stages, d.io, {
    jobStages: MODEL_JOB_STAGES,
    enabled: { enhanceTexture: options.enhanceTexture, refineLogo: options.refineLogo },
    skips: new Set(reconstructor?.skipsStages ?? []),
    source: reconstructor ? { kind: 'reconstructor', id: reconstructor.id } : { kind: 'glbInput' },
    quality: options.genaiQuality,
    productType,
    maxBytes,
  });
  for (const stage of pipeline.jobStages()) {
    if (stage === STORE_RESULTS) continue;
    await job.stage(stage, (signal) => pipeline.run(stage, signal, job), TIMED_STAGES.has(stage) ? { timeoutMs } : {});
  }

  const stored = await job.stage(STORE_RESULTS, async (signal) => {
    await pipeline.run(STORE_RESULTS, signal, job);
    const glb = await pipeline.glb();
    if (maxBytes !== null && glb.byteLength > maxBytes) throw new FitroomError('file_too_large', `file_too_large: The GLB is ${(glb.byteLength / 1048576).toFixed(1)} MB after compression; the AR library accepts at most 20 MB`);
    const preview = pipeline.files.preview;
    if (!preview) throw new FitroomError('INTERNAL_ERROR', 'No model stage made the preview grid');
    const ttl = job.input.resultTtlSeconds ?? d.config.resultTtlSeconds;
    const glbRec = await d.files.store(glb, { ownerHash: job.record.ownerHash, contentType: 'model/gltf-binary', filename: 'model.glb', ttlSeconds: ttl });
    const pngRec = await d.files.store(preview.bytes, { ownerHash: job.record.ownerHash, contentType: preview.contentType, filename: 'preview.png', ttlSeconds: ttl });
    job.note({ glbBytes: glb.byteLength, previewBytes: preview.bytes.byteLength });
    const links = restLinks(d.config, job.record.baseUrl);
    return { glb, glbUrl: d.files.signedUrl(glbRec, links), previewUrl: d.files.signedUrl(pngRec, links) };
  });

  const arBase = restLinks(d.config, job.record.baseUrl).ar;
  let arObject: { id: string; color_id: string; viewer_url: string } | null = null;
  if (options.uploadToService) {
    arObject = await job.stage('upload to AR host', async () => {
      const owner = loaded.owner!;
      const o = await addToLibrary(job, d.library!, stored.glb, {
        name: `shoe-3d ${job.id.slice(0, 8)}`,
        owner,
        createdBy: `shoe-3d:${job.record.credentialId}`,
        properties: { source: 'shoe-3d', jobId: job.id, kind: productType === 'shoe' ? 'shoe' : 'accessory' },
        caller: job.input.caller,
        links: restLinks(d.config, job.record.baseUrl),
      });
      job.note({ objectId: o.id, owner: owner.kind });
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

/**
 * Correction (when asked), cleanup and the single-shoe guard of every photo. The spec's packshot
 * diagnostics go on the job as soon as each is known: `packshotCleanup` and `packshotSingleShoe`
 * (the first photo's, also on the job record) and `packshots` (every photo's).
 */
async function preparePackshots(job: RunningJob<Shoe3dJobInput>, d: Shoe3dDeps, rasters: RasterImage[]): Promise<RasterImage[]> {
  let images = rasters;
  if (job.input.options.correctImage) {
    images = await job.stage('correct images', async () => {
      if (!d.corrector) {
        job.note({ corrections: 'unavailable: no packshot corrector is configured' });
        return images;
      }
      const corrections: Record<string, unknown>[] = [];
      const out = images.map((img) => {
        const r = d.corrector!.correct(img);
        corrections.push(r.correction);
        return r.image;
      });
      job.note({ corrections });
      return out;
    });
  }
  const cleanups: PackshotCleanup[] = [];
  images = await job.stage('clean packshots', async () => {
    const out: RasterImage[] = [];
    for (const img of images) {
      const r = d.cleaner ? await d.cleaner.clean(img) : { image: img, cleanup: { status: 'unavailable' } as PackshotCleanup };
      cleanups.push(r.cleanup);
      out.push(r.cleanup.status === 'failed' ? img : r.image);
    }
    job.note({ cleanup: cleanups.map((c) => c.status) });
    await job.diagnostics({ packshotCleanup: cleanups[0] });
    return out;
  });
  const guards: PackshotSingleShoe[] = [];
  images = await job.stage('single-shoe guard', async (signal) => {
    const out: RasterImage[] = [];
    for (const img of images) {
      const unavailable = (errorCode: string) => ({ image: img, singleShoe: { status: 'unavailable', attempts: 1, errorCode } as PackshotSingleShoe });
      const r = d.guard ? await d.guard.guard(img, { signal, deadline: Date.now() + 60_000 }).catch(() => unavailable('guard_error')) : unavailable('guard_not_configured');
      guards.push(r.singleShoe);
      out.push(r.image);
    }
    job.note({ singleShoe: guards.map((g) => g.status) });
    await job.diagnostics({ packshotSingleShoe: guards[0], packshots: cleanups.map((c, i) => ({ image: i, cleanup: c, singleShoe: guards[i] })) });
    return out;
  });
  return images;
}

/**
 * The reconstructors a job tries, in order: the configured one (first in the list), then the builtin
 * engine when the configured one is a vendor. Other vendors are not tried: their bills were not asked for.
 */
export function reconstructorChain(list: readonly ProductReconstructor[]): ProductReconstructor[] {
  const first = list[0];
  if (!first) return [];
  const builtin = list.find((r) => r.id === 'builtin');
  return builtin && builtin !== first ? [first, builtin] : [first];
}

/**
 * Runs the chain: each vendor under its own task timeout (counted from its task's creation, so a
 * resumed task does not get the whole budget again), the builtin engine under the genaiQuality
 * timeout. A vendor failure or timeout moves on to the next reconstructor and is recorded in the
 * trace ("tripo failed: ...; builtin used"); cancellation and worker shutdown are not failures and
 * end the stage (a restarted attempt resumes the stored task).
 */
async function reconstructAlong(job: RunningJob<Shoe3dJobInput>, d: Shoe3dDeps, chain: ProductReconstructor[], images: RasterImage[], productType: 'shoe' | 'other', signal: AbortSignal, stageTimeoutMs: number): Promise<{ doc: ModelDocument; reconstructor: ProductReconstructor }> {
  const stored = job.record.diagnostics?.[VENDOR_TASK] as StoredVendorTask | undefined;
  const failures: string[] = [];
  for (const [i, r] of chain.entries()) {
    const last = i === chain.length - 1;
    const earlier = stored?.reconstructor === r.id ? stored : undefined;
    if (earlier?.outcome === 'failed' && !last) {
      failures.push(`${r.id} failed in an earlier attempt (task ${earlier.id})`);
      continue;
    }
    const resume = earlier && earlier.outcome !== 'failed' ? { id: earlier.id, createdAt: earlier.createdAt } : undefined;
    const budget = r.taskTimeoutMs ?? stageTimeoutMs;
    const spent = resume ? Math.max(0, Date.now() - Date.parse(resume.createdAt)) : 0;
    // a resumed task gets what is left of its budget, and at least one more look (up to a minute)
    const allowed = resume ? Math.max(budget - (Number.isFinite(spent) ? spent : 0), Math.min(budget, 60_000)) : budget;
    const timer = AbortSignal.timeout(allowed);
    const attempt = AbortSignal.any([signal, timer]);
    let task: VendorTask | undefined = resume;
    const record = (patch: Partial<StoredVendorTask>) => job.diagnostics({ [VENDOR_TASK]: { reconstructor: r.id, ...task, ...patch } });
    try {
      const doc = await raceAbort(
        reconstruct(job, d, r, images, productType, attempt, {
          resume,
          onTask: async (t) => {
            task = t;
            await record({});
          },
        }),
        attempt,
      );
      if (task) await record({ outcome: 'succeeded' });
      if (failures.length) {
        const fallback = `${failures.join('; ')}; ${r.id} used`;
        job.note({ fallback });
        await job.diagnostics({ reconstructionFallback: fallback });
      }
      return { doc, reconstructor: r };
    } catch (err) {
      if (signal.aborted) {
        // cancelled: stop the vendor task too (the cancel request also tries); shutdown: keep it for the next attempt
        if (signal.reason instanceof JobCancelled && task && r.cancel) await r.cancel(task, AbortSignal.timeout(10_000));
        throw err;
      }
      const timedOut = timer.aborted;
      if (last) {
        if (timedOut) throw new FitroomError('SERVICE_UNAVAILABLE', `Stage "reconstruct" timed out after ${Math.round(allowed / 1000)} s${failures.length ? ` (${failures.join('; ')})` : ''}`, { retryable: false });
        if (failures.length && err instanceof Error) err.message = `${err.message} (after ${failures.join('; ')})`;
        throw err;
      }
      if (task) {
        // given up on: never resumed; a task that may still run (not a final refusal) is stopped where the vendor allows it
        await record({ outcome: 'failed' }).catch(() => undefined);
        if (r.cancel && (timedOut || (err as { retryable?: boolean })?.retryable !== false)) await r.cancel(task, AbortSignal.timeout(10_000));
      }
      failures.push(`${r.id} failed: ${timedOut ? `no result after ${duration(allowed)}` : (err as Error)?.message ?? String(err)}`);
    }
  }
  throw new FitroomError('SERVICE_UNAVAILABLE', `No product reconstructor succeeded (${failures.join('; ')})`);
}

function duration(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}

/** After a cancellation: the job's vendor task, if one is still wanted, is stopped where the vendor allows it. */
async function cancelVendorTask(record: JobRecord, reconstructors: readonly ProductReconstructor[]): Promise<void> {
  const task = record.diagnostics?.[VENDOR_TASK] as StoredVendorTask | undefined;
  if (!task || task.outcome) return;
  const r = reconstructors.find((x) => x.id === task.reconstructor);
  if (r?.cancel) await r.cancel({ id: task.id, createdAt: task.createdAt }, AbortSignal.timeout(10_000));
}

/** The reconstructor's GLB, read once into the document the model stages share. */
async function reconstruct(job: RunningJob<Shoe3dJobInput>, d: Shoe3dDeps, reconstructor: ProductReconstructor, images: RasterImage[], productType: 'shoe' | 'other', signal: AbortSignal, vendor: { resume?: VendorTask; onTask?: (t: VendorTask) => Promise<void> } = {}): Promise<ModelDocument> {
  const progress = monotonicProgress(job);
  const hints = job.input.options.views ?? [];
  const views = await Promise.all(images.map(async (image, i) => ({
    image,
    encoded: await d.codec.encode(image, 'png'),
    ...(hints[i]?.azimuthDeg !== undefined ? { angleDeg: hints[i].azimuthDeg } : {}),
    ...(hints[i]?.elevationDeg !== undefined ? { elevationDeg: hints[i].elevationDeg } : {}),
  })));
  const notes: string[] = [];
  const out = await reconstructor.reconstruct({
    views,
    productType,
    quality: job.input.options.genaiQuality,
    signal,
    onProgress: (f) => progress.set(25 + 45 * Math.max(0, Math.min(1, f))),
    note: (m) => notes.push(m),
    ...vendor,
  });
  await progress.flush();
  const said = out.notes.length ? out.notes : notes;
  job.note({ reconstructor: reconstructor.id, notes: said, ...(reconstructor.skipsStages?.length ? { skipsStages: reconstructor.skipsStages } : {}) });
  await job.diagnostics({ reconstruction: { reconstructor: reconstructor.id, notes: said, glbBytes: out.glb.byteLength } });
  try {
    return await d.io.read(out.glb);
  } catch (e) {
    throw new FitroomError('INTERNAL_ERROR', `The ${reconstructor.id} reconstructor returned a GLB that cannot be read (${(e as Error).message.split('\n')[0]})`);
  }
}

/** Parses a glbInput that passed the defensive inspection. */
async function readInput(d: Shoe3dDeps, glb: Uint8Array): Promise<ModelDocument> {
  try {
    return await d.io.read(glb);
  } catch (e) {
    const reason = (e as Error).message.split('\n')[0];
    throw new FitroomError('VALIDATION_ERROR', `glbInput is not a usable GLB: ${reason}`, { details: [{ field: 'glbInput', message: reason }] });
  }
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
    d.io.inspect(bytes, GLB_INPUT_MAX_BYTES);
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
 * Adds the GLB to the AR host's library (which queues its autofit). Failures of its store are
 * retried briefly; if it stays unavailable the job fails with `attribution_unavailable`
 * (temporary: the client retries). Other refusals fail the job as they are.
 */
async function addToLibrary(job: RunningJob<Shoe3dJobInput>, library: ArLibrary, glb: Uint8Array, entry: ArLibraryEntry): Promise<{ id: string }> {
  let lastError: unknown = null;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, 250 * attempt));
    try {
      const o = await library.addObject(glb, entry);
      if (o.autofit !== 'queued') job.note({ autofit: o.autofit });
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
