/**
 * A twin's stored body buffers: mask, depth and PERSON_PART labels round-trip, and a file stored
 * before the labels were kept (mask and depth only) still reads, without labels.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { packBodyBuffers, unpackBodyBuffers } from '../../../plugins/twins/render-buffers.ts';

const N = 64 * 48;
const mask = Uint8Array.from({ length: N }, (_, i) => (i % 7 ? 255 : 0));
const depth = Float32Array.from({ length: N }, (_, i) => (i % 7 ? 0.5 + i / N : 0));
const parts = Uint8Array.from({ length: N }, (_, i) => i % 8);

describe('twin body buffers', () => {
  it('round-trips mask, depth and parts', () => {
    const back = unpackBodyBuffers(packBodyBuffers(mask, depth, parts), N);
    expect(back.mask).toEqual(mask);
    expect(back.depth).toEqual(depth);
    expect(back.parts).toEqual(parts);
  });

  it('reads a file of mask and depth only (stored before parts were kept) without parts', () => {
    const raw = new Uint8Array(N * 5);
    raw.set(mask);
    const view = new DataView(raw.buffer);
    for (let i = 0; i < N; i++) view.setFloat32(N + i * 4, depth[i], true);
    const back = unpackBodyBuffers(gzipSync(raw), N);
    expect(back.depth).toEqual(depth);
    expect(back.parts).toBeUndefined();
    expect(unpackBodyBuffers(packBodyBuffers(mask, depth), N).parts).toBeUndefined();
  });

  it('refuses buffers of another size and labels that do not match the mask', () => {
    expect(() => unpackBodyBuffers(packBodyBuffers(mask, depth, parts), N + 1)).toThrow(/expected/);
    expect(() => packBodyBuffers(mask, depth, parts.subarray(1))).toThrow(/sizes differ/);
  });
});
