import { beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { BuiltinTryOnProvider } from '../../../../adapters/builtin/tryon/provider.ts';
import { SharpImageCodec } from '../../../../adapters/sharp/image-codec.ts';
import { ProviderError, type ModelCall } from '../../../../core/ports/image-model.ts';
import type { TryOnStructuredInput } from '../../../../core/tryon/tryon-input.ts';
import type { BodyRender } from '../../../../core/twins/body.ts';
import { drawShoes, drawTop } from '../../../support/garments.ts';
import { fixtureBody } from './fixture-body.ts';

let body: BodyRender;
const provider = new BuiltinTryOnProvider(new SharpImageCodec());

function call(structured: unknown, over: Partial<ModelCall> = {}): ModelCall {
  return { task: 'tryon', model: 'builtin-warp', prompt: '', references: [], quality: 'draft', signal: new AbortController().signal, structured, ...over };
}

beforeAll(() => {
  body = fixtureBody();
});

describe('BuiltinTryOnProvider', () => {
  it('serves try-on and shoe try-on as builtin-warp with generous reference slots', () => {
    expect(provider.id).toBe('builtin');
    const [spec] = provider.models();
    expect(spec.id).toBe('builtin-warp');
    expect(spec.tasks).toEqual(expect.arrayContaining(['tryon', 'shoe-tryon']));
    expect(spec.maxReferences).toBeGreaterThanOrEqual(8);
  });

  it('returns one PNG of the dressed body at the quality size', async () => {
    const input: TryOnStructuredInput = { body, garments: { topGarment: { packshot: drawTop() } }, preserveBackground: true };
    const [png] = await provider.run(call(input));
    expect(png.contentType).toBe('image/png');
    const meta = await sharp(png.bytes).metadata();
    expect(meta.format).toBe('png');
    expect(Math.max(meta.width!, meta.height!)).toBe(768);
  });

  it('runs a shoe try-on', async () => {
    const input: TryOnStructuredInput = { body, garments: { shoes: { packshot: drawShoes() } }, preserveBackground: false };
    const [png] = await provider.run(call(input, { task: 'shoe-tryon' }));
    expect((await sharp(png.bytes).metadata()).width).toBeGreaterThan(0);
  });

  it('refuses calls it cannot serve without retrying', async () => {
    await expect(provider.run(call({ nonsense: true }))).rejects.toMatchObject({ name: 'ProviderError', retryable: false });
    const input: TryOnStructuredInput = { body, garments: { topGarment: { packshot: drawTop() } }, preserveBackground: true };
    await expect(provider.run(call(input, { task: 'generate' }))).rejects.toBeInstanceOf(ProviderError);
    await expect(provider.run(call(input, { model: 'gemini-3.1-flash-image' }))).rejects.toBeInstanceOf(ProviderError);
    // a blank "garment" cannot be segmented: the input's fault
    const blank = { width: 32, height: 32, data: new Uint8Array(32 * 32 * 4).fill(255) };
    await expect(provider.run(call({ ...input, garments: { topGarment: { packshot: blank } } }))).rejects.toMatchObject({ retryable: false });
  });

  it('stops when the signal is aborted', async () => {
    const ac = new AbortController();
    ac.abort(new Error('cancelled by caller'));
    const input: TryOnStructuredInput = { body, garments: { topGarment: { packshot: drawTop() } }, preserveBackground: true };
    await expect(provider.run(call(input, { signal: ac.signal }))).rejects.toThrow('cancelled by caller');
  });
});
