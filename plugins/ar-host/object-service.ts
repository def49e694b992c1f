import { createHash, randomUUID } from 'node:crypto';
import { FitroomError, notFound, validationError } from '../../core/errors.ts';
import type { EncodedImage } from '../../core/images.ts';
import type { BlobStore } from '../../core/ports/blob-store.ts';
import type { ImageCodec } from '../../core/ports/image-codec.ts';
import type { ArLibrary, ArLibraryEntry } from '../../core/ports/ar-library.ts';
import type { ArModelProcessor, ArObject, ArObjectPatch, ArObjectStore, AutofitState, AutofitStatus, ColorPreset } from '../../core/ports/ar-object-store.ts';
import type { JobService } from '../../core/jobs.ts';
import type { UploadedFile } from '../../core/plugin.ts';
import type { ArPrincipal } from './ar-auth.ts';
import type { Links } from '../../core/links.ts';
import { canModify, canSeePrivate, ownerFor } from './access.ts';

export const AUTOFIT_JOB = 'ar-autofit';
export const COLOR_ID = /^[A-Za-z0-9_-]{1,64}$/;

export interface AutofitJobInput {
  objectId: string;
  colorId: string;
  sourceKey: string;
}

const MIME_BY_MAGIC: [number[], string][] = [
  [[0x89, 0x50, 0x4e, 0x47], 'image/png'],
  [[0xff, 0xd8, 0xff], 'image/jpeg'],
  [[0x52, 0x49, 0x46, 0x46], 'image/webp'],
];

function sniffImage(bytes: Uint8Array): string | null {
  for (const [magic, type] of MIME_BY_MAGIC) if (magic.every((b, i) => bytes[i] === b)) return type;
  return null;
}

/**
 * The AR host's object operations: uploads and autofit jobs, metadata and presets, textures and
 * meshes, and the per-colour files (baked GLB, mirror, USDZ) generated on demand and cached under
 * a fingerprint of their inputs, so an edited preset never serves a stale file.
 */
export class ArObjectService {
  private readonly store: ArObjectStore;
  private readonly blobs: BlobStore;
  private readonly jobs: JobService;
  private readonly models: ArModelProcessor;
  private readonly codec: ImageCodec;
  constructor(deps: { store: ArObjectStore; blobs: BlobStore; jobs: JobService; models: ArModelProcessor; codec: ImageCodec }) {
    this.store = deps.store;
    this.blobs = deps.blobs;
    this.jobs = deps.jobs;
    this.models = deps.models;
    this.codec = deps.codec;
  }

  async get(idOrName: string): Promise<ArObject> {
    const o = await this.store.get(idOrName);
    if (!o) throw notFound(`No AR object named ${idOrName}`);
    return o;
  }

  assertModify(o: ArObject, p: ArPrincipal): void {
    if (!canModify(o, p)) throw new FitroomError('FORBIDDEN', 'Only the owner, members of its group and admins may change this object');
  }

  private async readUploadedGlb(upload: UploadedFile): Promise<Uint8Array> {
    const bytes = await this.blobs.get(upload.blobKey);
    if (!bytes) throw new FitroomError('INTERNAL_ERROR', 'The uploaded file disappeared');
    try {
      this.models.inspect(bytes);
    } catch (e) {
      await this.blobs.delete(upload.blobKey).catch(() => undefined);
      throw e;
    }
    return bytes;
  }

  /** upload_shoe: a new object whose autofit runs as a job. */
  async uploadShoe(p: ArPrincipal, upload: UploadedFile, opts: { sessionId?: string; name?: string; links: Links }): Promise<ArObject> {
    await this.readUploadedGlb(upload);
    const now = new Date().toISOString();
    const o = await this.store.create({
      name: opts.name || upload.filename.replace(/\.glb$/i, '') || undefined,
      owner: ownerFor(p, opts.sessionId),
      group: p.group,
      createdBy: p.label,
      files: { source: upload.blobKey },
      autofit: { default: { status: 'in_queue', progress: 0, updatedAt: now } },
    });
    await this.jobs.submit({ kind: AUTOFIT_JOB, input: { objectId: o.id, colorId: 'default', sourceKey: upload.blobKey } satisfies AutofitJobInput, caller: p.caller, links: opts.links });
    return o;
  }

  /**
   * The AR library service (core/ports/ar-library.ts) for other plugins: the GLB is stored, the
   * object created and its autofit queued. The model comes from a plugin's own checked pipeline
   * (shoe-3d validates it), not from a client, so it is not inspected again here. If the object
   * cannot be created the stored GLB is removed, so the caller may retry; if autofit cannot be
   * queued the object says so (failed).
   */
  async addObject(glb: Uint8Array, entry: ArLibraryEntry): Promise<{ id: string; autofit: string }> {
    const key = `uploads/${randomUUID()}.glb`;
    await this.blobs.put(key, glb, 'model/gltf-binary');
    let o: ArObject;
    try {
      o = await this.store.create({
        name: entry.name,
        owner: entry.owner,
        createdBy: entry.createdBy,
        properties: entry.properties,
        files: { source: key },
        autofit: { default: { status: 'in_queue', progress: 0, updatedAt: new Date().toISOString() } },
      });
    } catch (e) {
      await this.blobs.delete(key).catch(() => undefined);
      throw e;
    }
    try {
      await this.jobs.submit({ kind: AUTOFIT_JOB, input: { objectId: o.id, colorId: 'default', sourceKey: key } satisfies AutofitJobInput, caller: entry.caller, links: entry.links });
      return { id: o.id, autofit: 'queued' };
    } catch (e) {
      const cause = `autofit could not be queued: ${e instanceof FitroomError ? e.message : 'internal error'}`;
      await this.setAutofit(o.id, 'default', 'failed', 0, cause).catch(() => undefined);
      return { id: o.id, autofit: cause };
    }
  }

  /** This service as the AR library other plugins use. */
  library(): ArLibrary {
    return { addObject: (glb, entry) => this.addObject(glb, entry) };
  }

  /** upload_mesh: an already aligned model (accessories, edited shoes); no autofit. */
  async uploadMesh(p: ArPrincipal, upload: UploadedFile, opts: { sessionId?: string; name?: string; kind: string }): Promise<ArObject> {
    const bytes = await this.readUploadedGlb(upload);
    const parts = await this.models.parts(bytes);
    const now = new Date().toISOString();
    return await this.store.create({
      name: opts.name || upload.filename.replace(/\.glb$/i, '') || undefined,
      owner: ownerFor(p, opts.sessionId),
      group: p.group,
      createdBy: p.label,
      properties: { kind: opts.kind, parts },
      files: { source: upload.blobKey, aligned: upload.blobKey },
      autofit: { default: { status: 'finished', progress: 100, updatedAt: now } },
    });
  }

  /** replace_mesh: new geometry for an existing object; presets stay, autofit runs again unless disabled. */
  async replaceMesh(o: ArObject, p: ArPrincipal, upload: UploadedFile, opts: { autofit: boolean; links: Links }): Promise<ArObject> {
    this.assertModify(o, p);
    const bytes = await this.readUploadedGlb(upload);
    const now = new Date().toISOString();
    if (!opts.autofit) {
      const parts = await this.models.parts(bytes);
      const updated = await this.store.update(o.id, { properties: { parts }, files: { source: upload.blobKey, aligned: upload.blobKey, alignedMirror: undefined, colors: {} } }, p.label);
      await this.store.setAutofit(o.id, 'default', { status: 'finished', progress: 100, updatedAt: now });
      return { ...updated!, autofit: { ...updated!.autofit, default: { status: 'finished', progress: 100, updatedAt: now } } };
    }
    const updated = await this.store.update(o.id, { files: { source: upload.blobKey } }, p.label);
    const state: AutofitState = { status: 'in_queue', progress: 0, updatedAt: now };
    await this.store.setAutofit(o.id, 'default', state);
    await this.jobs.submit({ kind: AUTOFIT_JOB, input: { objectId: o.id, colorId: 'default', sourceKey: upload.blobKey } satisfies AutofitJobInput, caller: p.caller, links: opts.links });
    return { ...updated!, autofit: { ...updated!.autofit, default: state } };
  }

  async setProperties(o: ArObject, p: ArPrincipal, patch: Pick<ArObjectPatch, 'name' | 'group' | 'properties' | 'custom'>): Promise<ArObject> {
    this.assertModify(o, p);
    if (patch.group !== undefined && !canSeePrivate(o, p)) throw new FitroomError('FORBIDDEN', 'Only the owner, members of its group and admins may move an object to another group');
    return (await this.store.update(o.id, patch, p.label))!;
  }

  async setMaterials(o: ArObject, p: ArPrincipal, presets: Record<string, ColorPreset | null>): Promise<ArObject> {
    this.assertModify(o, p);
    // textures must be uploaded first, so a saved preset always bakes
    const missing = [];
    for (const [colorId, preset] of Object.entries(presets)) {
      for (const [part, setting] of Object.entries(preset?.parts ?? {})) {
        const m = setting.material;
        for (const slot of ['baseColorTexture', 'normalTexture', 'metallicRoughnessTexture'] as const) {
          const name = m?.[slot];
          if (name && !o.files.textures[name]) missing.push({ field: `materialsData/${colorId}/parts/${part}/material/${slot}`, message: `texture ${name} has not been uploaded (POST /api/upload_textures)` });
        }
      }
    }
    if (missing.length) throw validationError(missing, 'The presets reference textures that are not uploaded');
    return (await this.store.update(o.id, { materialsData: presets }, p.label))!;
  }

  async uploadTexture(o: ArObject, p: ArPrincipal, name: string, upload: UploadedFile): Promise<ArObject> {
    this.assertModify(o, p);
    const bytes = await this.blobs.get(upload.blobKey);
    const type = bytes ? sniffImage(bytes) : null;
    try {
      if (!bytes || !type) throw validationError([{ field: 'file', message: 'must be a PNG, JPEG or WebP image' }], 'The texture is not an image');
      // decoding proves the image is well formed and within the pixel limit
      await this.codec.decode(bytes, { maxPixels: 4096 * 4096 });
    } catch (e) {
      await this.blobs.delete(upload.blobKey).catch(() => undefined);
      throw e;
    }
    const key = `ar/${o.id}/textures/${name}`;
    await this.blobs.put(key, bytes, type);
    await this.blobs.delete(upload.blobKey).catch(() => undefined);
    return (await this.store.update(o.id, { files: { textures: { [name]: key } } }, p.label))!;
  }

  async claim(o: ArObject, p: ArPrincipal, sessionId: string | undefined): Promise<ArObject> {
    const target = ownerFor(p);
    if (o.owner.kind === target.kind && o.owner.id === target.id) return o;
    const allowed = p.admin || (o.owner.kind === 'session' && sessionId !== undefined && sessionId === o.owner.id);
    if (!allowed) throw new FitroomError('FORBIDDEN', o.owner.kind === 'session' ? 'Send the ownership session id of this object (session_id) to claim it' : 'This object already belongs to someone else');
    return (await this.store.update(o.id, { owner: target, group: o.group ?? p.group }, p.label))!;
  }

  /** The uploaded file (owner, group, admin). */
  async source(o: ArObject, p: ArPrincipal | null): Promise<Uint8Array> {
    if (!canSeePrivate(o, p)) throw notFound(`No source model for ${o.name}`);
    const bytes = o.files.source ? await this.blobs.get(o.files.source) : null;
    if (!bytes) throw notFound(`No source model for ${o.name}`);
    return bytes;
  }

  private textureSource(o: ArObject) {
    return async (name: string): Promise<EncodedImage | null> => {
      const key = o.files.textures[name];
      const bytes = key ? await this.blobs.get(key) : null;
      return bytes ? { bytes, contentType: sniffImage(bytes) ?? 'image/png' } : null;
    };
  }

  private requireAligned(o: ArObject, colorId: string, mirror: boolean): string {
    const key = mirror ? (o.files.alignedMirror ?? null) : (o.files.aligned ?? null);
    if (!key) {
      const s = o.autofit[colorId]?.status ?? o.autofit.default?.status;
      if (mirror && o.files.aligned) throw notFound('This object has no mirrored model');
      throw new FitroomError('CONFLICT', `The model is not ready yet (autofit ${s ?? 'not started'})`);
    }
    return key;
  }

  private fingerprint(o: ArObject, colorId: string, mirror: boolean): string {
    const preset = mirror ? (o.materialsData[`${colorId}_mirror`] ?? o.materialsData[colorId]) : o.materialsData[colorId];
    return createHash('sha256')
      .update(JSON.stringify({ src: this.requireAligned(o, colorId, mirror), preset: preset ?? null, textures: o.files.textures, v: 1 }))
      .digest('hex')
      .slice(0, 16);
  }

  /** The GLB of one colour (and side), baked from the aligned model and cached. */
  async glb(o: ArObject, colorId: string, mirror: boolean): Promise<Uint8Array> {
    if (colorId !== 'default' && !o.materialsData[colorId]) throw notFound(`No colour ${colorId} for ${o.name}`);
    const fp = this.fingerprint(o, colorId, mirror);
    const key = `ar/${o.id}/colors/${colorId}/${fp}-${mirror ? 'mirror' : 'model'}.glb`;
    const current = o.files.colors[colorId]?.[mirror ? 'mirrorGlb' : 'glb'];
    if (current === key) {
      const cached = await this.blobs.get(key);
      if (cached) return cached;
    }
    const src = await this.blobs.get(this.requireAligned(o, colorId, mirror));
    if (!src) throw new FitroomError('INTERNAL_ERROR', 'The aligned model is missing from storage');
    const preset = mirror ? (o.materialsData[`${colorId}_mirror`] ?? o.materialsData[colorId]) : o.materialsData[colorId];
    const baked = await this.models.bake(src, preset, this.textureSource(o), colorId);
    await this.blobs.put(key, baked, 'model/gltf-binary');
    await this.recordColorFile(o, colorId, mirror ? 'mirrorGlb' : 'glb', key, current);
    return baked;
  }

  async usdz(o: ArObject, colorId: string, mirror: boolean): Promise<Uint8Array> {
    const glb = await this.glb(o, colorId, mirror);
    const fresh = (await this.store.get(o.id)) ?? o;
    const fp = this.fingerprint(fresh, colorId, mirror);
    const key = `ar/${o.id}/colors/${colorId}/${fp}-${mirror ? 'mirror' : 'model'}.usdz`;
    const current = fresh.files.colors[colorId]?.[mirror ? 'mirrorUsdz' : 'usdz'];
    if (current === key) {
      const cached = await this.blobs.get(key);
      if (cached) return cached;
    }
    const usdz = await this.models.usdz(glb);
    await this.blobs.put(key, usdz, 'model/vnd.usdz+zip');
    await this.recordColorFile(fresh, colorId, mirror ? 'mirrorUsdz' : 'usdz', key, current);
    return usdz;
  }

  private async recordColorFile(o: ArObject, colorId: string, slot: 'glb' | 'mirrorGlb' | 'usdz' | 'mirrorUsdz', key: string, previous: string | undefined): Promise<void> {
    const latest = (await this.store.get(o.id)) ?? o;
    const files = { ...latest.files.colors[colorId], [slot]: key };
    await this.store.recordFiles(o.id, { colors: { [colorId]: files } });
    if (previous && previous !== key) await this.blobs.delete(previous).catch(() => undefined);
  }

  /** bake: generates (or confirms) the files of the given colours now. */
  async bake(o: ArObject, p: ArPrincipal, colorIds: string[]): Promise<Record<string, { glb: number; mirrorGlb: number | null; usdz: number }>> {
    this.assertModify(o, p);
    const out: Record<string, { glb: number; mirrorGlb: number | null; usdz: number }> = {};
    for (const c of colorIds) {
      const fresh = await this.get(o.id);
      const glb = await this.glb(fresh, c, false);
      const mirror = fresh.files.alignedMirror ? await this.glb(await this.get(o.id), c, true) : null;
      const usdz = await this.usdz(await this.get(o.id), c, false);
      out[c] = { glb: glb.length, mirrorGlb: mirror?.length ?? null, usdz: usdz.length };
    }
    return out;
  }

  setAutofit(id: string, colorId: string, status: AutofitStatus, progress: number, error?: string): Promise<void> {
    return this.store.setAutofit(id, colorId, { status, progress: Math.round(progress), updatedAt: new Date().toISOString(), ...(error ? { error } : {}) });
  }

  /** Stores autofit's output on the object. */
  async recordAutofit(objectId: string, aligned: Uint8Array, mirror: Uint8Array, properties: Record<string, unknown>): Promise<void> {
    const stamp = Date.now().toString(36);
    const alignedKey = `ar/${objectId}/aligned-${stamp}.glb`;
    const mirrorKey = `ar/${objectId}/aligned-mirror-${stamp}.glb`;
    await this.blobs.put(alignedKey, aligned, 'model/gltf-binary');
    await this.blobs.put(mirrorKey, mirror, 'model/gltf-binary');
    const o = await this.get(objectId);
    await this.store.recordFiles(objectId, { aligned: alignedKey, alignedMirror: mirrorKey });
    await this.store.update(objectId, { properties }, o.modifiedBy);
    for (const old of [o.files.aligned, o.files.alignedMirror]) if (old && old !== o.files.source) await this.blobs.delete(old).catch(() => undefined);
  }

  /** Removes an upload that will not become part of an object. */
  async discardUpload(key: string): Promise<void> {
    await this.blobs.delete(key).catch(() => undefined);
  }

  readBlob(key: string): Promise<Uint8Array | null> {
    return this.blobs.get(key);
  }
}
