import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { expect, it } from 'vitest';
import { BlobTooLargeError, type BlobStore } from '../../core/ports/blob-store.ts';

/**
 * What every BlobStore must do, run against each adapter (filesystem, S3 on a real S3-protocol
 * server): whole and streamed writes, the size limit while streaming, nothing left behind by a
 * failed or oversized write, not found as null, ranges, deletes, odd but valid keys, concurrency.
 * `keys()` lists what the store holds, to prove nothing was left behind.
 */
export function blobStoreContract(make: () => { store: BlobStore; keys: () => Promise<string[]> }): void {
  const drain = async (s: Readable) => {
    const chunks: Buffer[] = [];
    for await (const c of s) chunks.push(Buffer.from(c));
    return Buffer.concat(chunks);
  };
  /** A stream of `total` bytes in `chunk`-sized pieces, failing after `failAfter` bytes when given. */
  const source = (bytes: Buffer, chunk = 64 * 1024, failAfter?: number) =>
    Readable.from((function* () {
      for (let i = 0; i < bytes.length; i += chunk) {
        if (failAfter !== undefined && i >= failAfter) throw new Error('client went away');
        yield bytes.subarray(i, i + chunk);
      }
    })());

  it('writes, reads and deletes; a missing blob is null', async () => {
    const { store } = make();
    const bytes = new Uint8Array(randomBytes(1000));
    await store.put('c/one.bin', bytes, 'application/octet-stream');
    expect(Buffer.from((await store.get('c/one.bin'))!).equals(Buffer.from(bytes))).toBe(true);
    const s = await store.stream('c/one.bin');
    expect(s!.size).toBe(1000);
    expect((await drain(s!.stream)).equals(Buffer.from(bytes))).toBe(true);
    await store.delete('c/one.bin');
    expect(await store.get('c/one.bin')).toBeNull();
    expect(await store.stream('c/one.bin')).toBeNull();
    // deleting what is not there is not an error
    await store.delete('c/one.bin');
  });

  it('streams a large write in (multipart on S3) and reads ranges of it', async () => {
    const { store } = make();
    const big = randomBytes(12 * 1024 * 1024 + 123);
    expect(await store.putStream('c/big.glb', source(big), 'model/gltf-binary', 20 * 1024 * 1024)).toBe(big.length);
    expect(Buffer.from((await store.get('c/big.glb'))!).equals(big)).toBe(true);
    const part = await store.stream('c/big.glb', { start: 5 * 1024 * 1024 - 10, end: 5 * 1024 * 1024 + 9 });
    expect(part!.size).toBe(big.length);
    expect(part!.range).toEqual({ start: 5 * 1024 * 1024 - 10, end: 5 * 1024 * 1024 + 9 });
    expect((await drain(part!.stream)).equals(big.subarray(5 * 1024 * 1024 - 10, 5 * 1024 * 1024 + 10))).toBe(true);
    await store.delete('c/big.glb');
  });

  it('stops a streamed write past its limit and leaves nothing behind', async () => {
    const { store, keys } = make();
    const before = await keys();
    const big = randomBytes(7 * 1024 * 1024);
    await expect(store.putStream('c/too-big.glb', source(big), 'model/gltf-binary', 6 * 1024 * 1024)).rejects.toBeInstanceOf(BlobTooLargeError);
    await expect(store.putStream('c/small-too-big.bin', source(randomBytes(2000), 500), 'application/octet-stream', 1000)).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(await store.get('c/too-big.glb')).toBeNull();
    expect(await store.get('c/small-too-big.bin')).toBeNull();
    expect(await keys()).toEqual(before);
  });

  it('leaves nothing behind when the source stream fails mid-write', async () => {
    const { store, keys } = make();
    const before = await keys();
    await expect(store.putStream('c/cut.glb', source(randomBytes(9 * 1024 * 1024), 256 * 1024, 6 * 1024 * 1024), 'model/gltf-binary', 50 * 1024 * 1024)).rejects.toThrow(/client went away/);
    expect(await store.get('c/cut.glb')).toBeNull();
    expect(await keys()).toEqual(before);
  });

  it('takes keys with folders, dots, dashes and underscores; refuses traversal', async () => {
    const { store } = make();
    for (const key of ['a/b/c/d.e-f_g.png', 'x.y', 'files/2026/11/24/9c1e-77.glb']) {
      await store.put(key, new Uint8Array([1, 2, 3]), 'image/png');
      expect(Array.from((await store.get(key))!)).toEqual([1, 2, 3]);
      await store.delete(key);
    }
    for (const bad of ['../etc/passwd', '/abs', 'a/../../b', 'sp ace']) await expect(store.put(bad, new Uint8Array([1]), 'x/y')).rejects.toThrow(/Invalid blob key/);
  });

  it('keeps concurrent writes apart', async () => {
    const { store } = make();
    const blobs = Array.from({ length: 8 }, (_, i) => randomBytes(50_000 + i));
    await Promise.all(blobs.map((b, i) => store.putStream(`c/par-${i}.bin`, source(b, 8192), 'application/octet-stream', 1_000_000)));
    const back = await Promise.all(blobs.map((_, i) => store.get(`c/par-${i}.bin`)));
    back.forEach((b, i) => expect(Buffer.from(b!).equals(blobs[i])).toBe(true));
    await Promise.all(blobs.map((_, i) => store.delete(`c/par-${i}.bin`)));
  });
}
