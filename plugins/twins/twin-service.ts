import type { FitroomConfig } from '../../core/config.ts';
import { FitroomError } from '../../core/errors.ts';
import type { FileService } from '../../core/files.ts';
import type { BlobStore } from '../../core/ports/blob-store.ts';
import type { FileStore } from '../../core/ports/file-store.ts';
import type { ImageCodec } from '../../core/ports/image-codec.ts';
import { OutboundError } from '../../core/ports/outbound-http.ts';
import type { OutboundHttp } from '../../core/ports/outbound-http.ts';
import type { TwinDirectory, TwinRecord, TwinStore } from '../../core/ports/twin-store.ts';
import type { TwinRender } from '../../core/ports/twin-renderer.ts';
import type { BodyRender } from '../../core/twins/body.ts';
import { packBodyBuffers, unpackBodyBuffers } from './render-buffers.ts';
import { sha256Bytes, twinId } from './twin-id.ts';
import type { TwinBodyIdentity } from './twin-id.ts';
import type { ResolvedTwinRequest } from './twin-request.ts';

export const TWIN_ID_PATTERN = /^[a-f0-9]{64}$/;

export interface TwinServiceDeps {
  store: TwinStore;
  files: FileService;
  fileStore: FileStore;
  blobs: BlobStore;
  codec: ImageCodec;
  http: OutboundHttp;
  config: FitroomConfig;
}

/** Images behind a twin request, fetched once so the id and the render see the same bytes. */
export interface IdentifiedTwin {
  id: string;
  face: Uint8Array;
  body: Uint8Array | null;
}

/**
 * Twins: content-addressed ids, the 30-day cache, persisted renders and their purge. The render
 * itself is the TwinRenderer's (see twin-job.ts).
 */
export class TwinService implements TwinDirectory {
  readonly #d: TwinServiceDeps;
  /** Decoded renders of the twins fitted last (a shopper tries several garments on one twin). */
  readonly #renders = new Map<string, { imageFileId: string; render: BodyRender }>();
  constructor(deps: TwinServiceDeps) {
    this.#d = deps;
  }

  /** Fetches the request's images (URL or data URL, with the outbound protections) and derives the twin id. */
  async identify(req: ResolvedTwinRequest, scope: string, signal?: AbortSignal): Promise<IdentifiedTwin> {
    const face = await this.#fetchImage(req.faceImage, 'faceImage', signal);
    let body: Uint8Array | null = null;
    let identity: TwinBodyIdentity;
    const s = req.source;
    if (s.mode === 'photo' || s.mode === 'direct') {
      body = await this.#fetchImage(s.bodyImage, s.mode === 'photo' ? 'bodyPhotoUrl' : 'silhouetteImage', signal);
      identity = { kind: s.mode, sha256: sha256Bytes(body) };
    } else if (s.mode === 'measurements') {
      identity = { kind: 'measurements', gender: req.gender, measurements: s.measurements };
    } else {
      identity = { kind: 'clothing_size', gender: req.gender ?? 'female', height: s.clothingSize.height, size: s.clothingSize.size };
    }
    return { id: twinId({ face: sha256Bytes(face), body: identity, pose: req.pose, scope }), face, body };
  }

  async #fetchImage(url: string, field: string, signal?: AbortSignal): Promise<Uint8Array> {
    try {
      const r = await this.#d.http.fetch(url, { maxBytes: this.#d.config.fetch.maxBytes, accept: ['image/'], signal });
      return r.bytes;
    } catch (e) {
      const reason = e instanceof OutboundError ? `${e.reason}: ${e.message}` : (e as Error).message;
      const retryable = e instanceof OutboundError && (e.reason === 'timeout' || e.reason === 'network' || (e.status ?? 0) >= 500);
      throw new FitroomError('IMAGE_FETCH_FAILED', `Could not fetch ${field}: ${reason}`, { retryable });
    }
  }

  async find(id: string, scope: string, now = new Date()): Promise<TwinRecord | null> {
    if (!TWIN_ID_PATTERN.test(id)) return null;
    const rec = await this.#d.store.get(id);
    return rec && rec.scope === scope && rec.expiresAt.getTime() > now.getTime() ? rec : null;
  }

  async loadRender(id: string, scope: string): Promise<BodyRender | null> {
    const rec = await this.find(id, scope);
    if (!rec) return null;
    const kept = this.#renders.get(id);
    if (kept && kept.imageFileId === rec.imageFileId) {
      // most recently used last; callers get their own pixels
      this.#renders.delete(id);
      this.#renders.set(id, kept);
      return copyRender(kept.render);
    }
    const [imageFile, buffersFile] = await Promise.all([this.#d.files.get(rec.imageFileId), this.#d.files.get(rec.buffersFileId)]);
    if (!imageFile || !buffersFile) return null;
    const [png, packed] = await Promise.all([this.#d.files.read(imageFile), this.#d.files.read(buffersFile)]);
    if (!png || !packed) return null;
    const { width, height } = rec.render;
    const image = await this.#d.codec.decode(png, { maxPixels: width * height });
    const { mask, depth, parts } = unpackBodyBuffers(packed, width * height);
    const render: BodyRender = { image, mask, depth, landmarks: rec.render.landmarks, pixelsPerCm: rec.render.pixelsPerCm, pose: rec.render.pose, ...(parts ? { parts } : {}) };
    this.#renders.delete(id);
    if (this.#renders.size >= KEPT_RENDERS) this.#renders.delete(this.#renders.keys().next().value!);
    this.#renders.set(id, { imageFileId: rec.imageFileId, render });
    return copyRender(render);
  }

  /** Keeps request images for the job that renders them (internal, short-lived files). */
  async stashInput(bytes: Uint8Array, ownerHash: string): Promise<string> {
    const rec = await this.#d.files.store(bytes, { ownerHash, contentType: 'application/octet-stream', ttlSeconds: INPUT_TTL_SECONDS, internal: true });
    return rec.id;
  }

  async readInput(fileId: string): Promise<Uint8Array> {
    const rec = await this.#d.files.get(fileId);
    const bytes = rec ? await this.#d.files.read(rec) : null;
    if (!bytes) throw new FitroomError('IMAGE_INVALID', 'The submitted image is no longer available; please resubmit');
    return bytes;
  }

  /** Stores a finished render as internal files and (re)records the twin for the cache lifetime. */
  async save(
    twin: Pick<TwinRecord, 'id' | 'mode' | 'pose' | 'gender' | 'profile' | 'ownerHash' | 'scope'>,
    render: TwinRender,
    now = new Date(),
  ): Promise<TwinRecord> {
    const ttl = this.#d.config.twinTtlSeconds;
    const png = await this.#d.codec.encode(render.image, 'png');
    const image = await this.#d.files.store(png.bytes, { ownerHash: twin.ownerHash, contentType: 'image/png', ttlSeconds: ttl, internal: true });
    const buffers = await this.#d.files.store(packBodyBuffers(render.mask, render.depth, render.parts), {
      ownerHash: twin.ownerHash,
      contentType: 'application/gzip',
      ttlSeconds: ttl,
      internal: true,
    });
    const rec: TwinRecord = {
      ...twin,
      render: {
        width: render.image.width,
        height: render.image.height,
        landmarks: render.landmarks,
        pixelsPerCm: render.pixelsPerCm,
        pose: render.pose,
        notes: render.notes,
      },
      imageFileId: image.id,
      buffersFileId: buffers.id,
      createdAt: now,
      expiresAt: new Date(now.getTime() + ttl * 1000),
    };
    const replaced = await this.#d.store.put(rec);
    if (replaced) await this.#deleteFiles(replaced);
    return rec;
  }

  async deleteFile(id: string): Promise<void> {
    const rec = await this.#d.fileStore.get(id);
    if (!rec) return;
    await this.#d.blobs.delete(rec.blobKey).catch(() => undefined);
    await this.#d.fileStore.delete(id);
  }

  async #deleteFiles(rec: TwinRecord): Promise<void> {
    await this.deleteFile(rec.imageFileId);
    await this.deleteFile(rec.buffersFileId);
  }

  /** Deletes expired twins and their files; returns how many twins were removed. */
  async purgeExpired(now = new Date(), limit = 500): Promise<number> {
    let removed = 0;
    for (;;) {
      const batch = await this.#d.store.expired(now, limit);
      for (const rec of batch) {
        if (await this.#d.store.deleteExpired(rec.id, now)) {
          await this.#deleteFiles(rec);
          removed++;
        }
      }
      if (batch.length < limit) return removed;
    }
  }
}

/** Decoded twin renders kept per process (about 7 MB each at 768x1024). */
const KEPT_RENDERS = 8;

function copyRender(r: BodyRender): BodyRender {
  return { ...r, image: { ...r.image, data: r.image.data.slice() }, mask: r.mask.slice(), depth: r.depth.slice(), landmarks: structuredClone(r.landmarks), ...(r.parts ? { parts: r.parts.slice() } : {}) };
}

/** Request images wait this long for their job (a day covers queue backlogs and retries). */
const INPUT_TTL_SECONDS = 24 * 3600;
