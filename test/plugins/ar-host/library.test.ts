/**
 * The AR library service the AR host provides to other plugins (core/ports/ar-library.ts): a GLB
 * becomes a stored blob, an object and a queued autofit; a failed creation leaves no blob behind
 * (callers retry), an autofit that cannot be queued is recorded on the object.
 */
import { describe, expect, it } from 'vitest';
import type { Caller } from '../../../core/credentials.ts';
import { FitroomError } from '../../../core/errors.ts';
import type { JobService } from '../../../core/jobs.ts';
import type { Links } from '../../../core/links.ts';
import type { ArLibraryEntry } from '../../../core/ports/ar-library.ts';
import type { ArModelProcessor, ArObject, ArObjectStore, AutofitState, NewArObject } from '../../../core/ports/ar-object-store.ts';
import type { BlobStore } from '../../../core/ports/blob-store.ts';
import type { ImageCodec } from '../../../core/ports/image-codec.ts';
import { ArObjectService } from '../../../plugins/ar-host/object-service.ts';

const caller = { kind: 'user', credentialId: 'cred-1', ownerHash: 'a'.repeat(64), accountId: null, development: false, countsKeyUsage: false, countsAiQuota: false } as unknown as Caller;
const entry: ArLibraryEntry = { name: 'shoe-3d 1234abcd', owner: { kind: 'session', id: 'sess-1' }, createdBy: 'shoe-3d:cred-1', properties: { source: 'shoe-3d', kind: 'shoe' }, caller, links: {} as Links };
const glb = new Uint8Array([1, 2, 3]);

function harness(opts: { createFails?: boolean; submitFails?: boolean } = {}) {
  const blobs = new Map<string, Uint8Array>();
  const created: NewArObject[] = [];
  const autofit: AutofitState[] = [];
  const submitted: unknown[] = [];
  const blobStore = {
    put: async (k: string, b: Uint8Array) => void blobs.set(k, b),
    get: async (k: string) => blobs.get(k) ?? null,
    delete: async (k: string) => void blobs.delete(k),
  } as unknown as BlobStore;
  const store = {
    create: async (o: NewArObject) => {
      if (opts.createFails) throw Object.assign(new Error('connection terminated unexpectedly'), { code: '57P01' });
      created.push(o);
      return { id: 'ab'.repeat(12), ...o } as unknown as ArObject;
    },
    setAutofit: async (_id: string, _c: string, s: AutofitState) => void autofit.push(s),
  } as unknown as ArObjectStore;
  const jobs = {
    submit: async (j: unknown) => {
      if (opts.submitFails) throw new FitroomError('SERVICE_UNAVAILABLE', 'the queue is down');
      submitted.push(j);
      return { id: 'job-1' };
    },
  } as unknown as JobService;
  const service = new ArObjectService({ store, blobs: blobStore, jobs, models: {} as ArModelProcessor, codec: {} as ImageCodec });
  return { library: service.library(), blobs, created, autofit, submitted };
}

describe('the AR library service', () => {
  it('stores the GLB, creates the object owned as asked and queues its autofit', async () => {
    const h = harness();
    const r = await h.library.addObject(glb, entry);
    expect(r).toEqual({ id: 'ab'.repeat(12), autofit: 'queued' });
    const [key] = [...h.blobs.keys()];
    expect(key).toMatch(/^uploads\/[0-9a-f-]{36}\.glb$/);
    expect(h.created[0]).toMatchObject({ name: entry.name, owner: entry.owner, createdBy: entry.createdBy, properties: entry.properties, files: { source: key }, autofit: { default: { status: 'in_queue', progress: 0 } } });
    expect(h.submitted[0]).toMatchObject({ kind: 'ar-autofit', input: { objectId: r.id, colorId: 'default', sourceKey: key }, caller });
  });

  it('removes the stored GLB when the object cannot be created, and throws what the store threw', async () => {
    const h = harness({ createFails: true });
    await expect(h.library.addObject(glb, entry)).rejects.toThrow('connection terminated unexpectedly');
    expect(h.blobs.size).toBe(0);
  });

  it('records on the object an autofit that could not be queued', async () => {
    const h = harness({ submitFails: true });
    const r = await h.library.addObject(glb, entry);
    expect(r.autofit).toBe('autofit could not be queued: the queue is down');
    expect(h.autofit[0]).toMatchObject({ status: 'failed', error: 'autofit could not be queued: the queue is down' });
  });
});
