/**
 * Baking and USDZ export on CPU pool threads: the same files as the builtin processor makes on the
 * caller's thread, the textures a preset names read first, refusals kept, and a budget that stops
 * the thread.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { PiscinaCpuPool } from '../../../../adapters/piscina/cpu-pool.ts';
import { BuiltinArModelProcessor } from '../../../../adapters/builtin/ar/model-processor.ts';
import { PooledArModelProcessor } from '../../../../adapters/builtin/ar/pooled-model-processor.ts';
import { SharpImageCodec } from '../../../../adapters/sharp/image-codec.ts';
import { FitroomError } from '../../../../core/errors.ts';

const shoe = () => new Uint8Array(readFileSync(new URL('../../../fixtures/objects/materials-variants-shoe.glb', import.meta.url)));
const inner = new BuiltinArModelProcessor(new SharpImageCodec());
const pool = new PiscinaCpuPool({ threads: 1, maxQueue: 2, budgetMs: 60_000 });
const pooled = new PooledArModelProcessor(inner, pool);
afterAll(() => pool.close());

describe('the AR model processor on the CPU pool', () => {
  it('bakes the same GLB as on the caller\'s thread, reading the textures the preset names first, and converts it to USDZ', async () => {
    const parts = await inner.parts(shoe());
    const texture = await new SharpImageCodec().encode({ width: 4, height: 4, data: new Uint8Array(64).fill(200) }, 'png');
    const asked: string[] = [];
    const textures = async (name: string) => (asked.push(name), name === 'leather' ? texture : null);
    const preset = { parts: { [parts[0]]: { material: { baseColor: '#ff0000', baseColorTexture: 'leather' } } } };
    const here = await inner.bake(shoe(), preset, textures, 'red');
    const there = await pooled.bake(shoe(), preset, textures, 'red');
    expect(asked).toContain('leather');
    expect(Buffer.from(there).equals(Buffer.from(here))).toBe(true);
    const usdz = await pooled.usdz(there);
    expect(Buffer.from(usdz.subarray(0, 2)).toString()).toBe('PK');
  }, 120_000);

  it('keeps the refusal of a model it cannot read, and stops a bake past its budget', async () => {
    const bad = new Uint8Array(Buffer.from('glTF not really a model'));
    await expect(pooled.bake(bad, undefined, async () => null, 'default')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    const hurried = new PooledArModelProcessor(inner, pool, 1);
    const e = await hurried.usdz(shoe()).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FitroomError);
    expect((e as FitroomError).code).toBe('PROCESSING_TIMEOUT');
    // the pool answers again with a fresh thread
    expect((await pooled.bake(shoe(), undefined, async () => null, 'default')).length).toBeGreaterThan(1000);
  }, 120_000);
});
