import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import sharp from 'sharp';
import { NodeIO } from '@gltf-transform/core';
import { colorToLinear, presetFor, resolvePreset, validateMaterialsData } from '../../../../adapters/builtin/ar/materials.ts';
import type { ColorPreset, PartSetting } from '../../../../adapters/builtin/ar/materials.ts';
import { bakePreset, listGlbParts } from '../../../../adapters/builtin/ar/bake.ts';
import { makeShoeGlb } from '../../../support/shoes.ts';

const RED = { baseColor: '#ff0000' };

type Expect = 'embedded' | 'payload' | 'hidden' | 'empty_material' | 'optional_part_not_enabled';

// part name, its setting in the preset (undefined = not mentioned), expected outcome
const RULES: [string, PartSetting | undefined, Expect][] = [
  // structural parts
  ['upper', undefined, 'embedded'],
  ['upper', { visible: true, material: null }, 'embedded'],
  ['upper', { material: null }, 'embedded'],
  ['upper', {}, 'embedded'],
  ['upper', { visible: true, material: RED }, 'payload'],
  ['upper', { material: { roughness: 0.2 } }, 'payload'],
  ['upper', { visible: false, material: RED }, 'hidden'],
  ['upper', { visible: false, material: null }, 'hidden'],
  ['upper', { visible: true, material: {} }, 'empty_material'],
  ['sole', { material: {} }, 'empty_material'],
  // overlays: only with a visible part and a non-empty material
  ['perforado_1', undefined, 'optional_part_not_enabled'],
  ['perforado_1', { visible: true, material: null }, 'optional_part_not_enabled'],
  ['perforado_1', { visible: true, material: {} }, 'optional_part_not_enabled'],
  ['perforado_1', { visible: false, material: RED }, 'optional_part_not_enabled'],
  ['perforado_1', { visible: true, material: RED }, 'payload'],
  ['perforado_1', { material: RED }, 'payload'],
  ['grabado_logo', { material: RED }, 'payload'],
  ['grabado_logo', { material: null }, 'optional_part_not_enabled'],
  ['bordado_2', undefined, 'optional_part_not_enabled'],
  ['picado_x', { visible: true, material: { metallic: 1 } }, 'payload'],
  ['ghost_left', { visible: true }, 'optional_part_not_enabled'],
  ['reflejo_ghost_1', { material: RED }, 'payload'],
  ['reflejo_ghost_1', undefined, 'optional_part_not_enabled'],
  // floor meshes
  ['suelo', undefined, 'optional_part_not_enabled'],
  ['suelo', { visible: true, material: null }, 'optional_part_not_enabled'],
  ['suelo_sombra', { visible: true, material: { baseColor: [0.5, 0.5, 0.5] } }, 'payload'],
  ['suelo', { visible: false, material: RED }, 'optional_part_not_enabled'],
  // names that only resemble the prefixes are structural
  ['perforado', undefined, 'embedded'],
  ['upper_ghost_1', undefined, 'embedded'],
  ['Suelo', undefined, 'embedded'],
];

describe('resolvePreset', () => {
  it.each(RULES)('%s with %j → %s', (part, setting, expected) => {
    const preset: ColorPreset = { parts: setting === undefined ? {} : { [part]: setting } };
    const [d] = resolvePreset([part], preset);
    expect(d.part).toBe(part);
    const outcome = d.include ? d.source : d.reason;
    expect(outcome).toBe(expected);
    if (d.include && d.source === 'payload') expect(d.material).toEqual(setting!.material);
  });

  it('keeps structural parts and drops optional ones when there is no preset', () => {
    const out = resolvePreset(['sole', 'upper', 'perforado_1', 'suelo'], undefined);
    expect(out.map((d) => d.include)).toEqual([true, true, false, false]);
  });

  it('picks <color_id>_mirror for the mirrored shoe when it exists', () => {
    const data = { red: { parts: { a: {} } }, red_mirror: { parts: { b: {} } }, blue: { parts: {} } };
    expect(presetFor(data, 'red', true)).toBe(data.red_mirror);
    expect(presetFor(data, 'red', false)).toBe(data.red);
    expect(presetFor(data, 'blue', true)).toBe(data.blue);
    expect(presetFor(data, 'green')).toBeUndefined();
  });
});

describe('validateMaterialsData', () => {
  it('accepts the documented shape', () => {
    const r = validateMaterialsData({
      default: { name: 'Base', parts: { upper: { visible: true, material: null }, sole: { material: { baseColor: '#112233', roughness: 0.8, baseColorTexture: 'sole.png' } }, suelo: { material: {} } } },
      default_mirror: { parts: {} },
    });
    expect(r.ok).toBe(true);
  });

  it.each([
    [{ default: {} }, '/default'],
    [{ default: { parts: { upper: { visible: 'yes' } } } }, '/default/parts/upper/visible'],
    [{ default: { parts: { upper: { material: { baseColor: 'red' } } } } }, '/default/parts/upper/material'],
    [{ default: { parts: { upper: { material: { roughness: 2 } } } } }, '/default/parts/upper/material'],
    [{ default: { parts: { upper: { material: { colour: '#ffffff' } } } } }, '/default/parts/upper/material'],
    [{ default: { parts: { upper: { material: { baseColorTexture: '../etc/passwd' } } } } }, '/default/parts/upper/material'],
    [{ 'bad id!': { parts: {} } }, '/'],
    [[], '/'],
  ])('rejects %j at %s', (payload, field) => {
    const r = validateMaterialsData(payload);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.field)).toContain(field);
  });
});

describe('colorToLinear', () => {
  it('reads hex as sRGB and arrays as linear factors', () => {
    expect(colorToLinear('#ffffff')).toEqual([1, 1, 1, 1]);
    const mid = colorToLinear('#808080');
    expect(mid[0]).toBeCloseTo(0.2158605, 6);
    expect(colorToLinear('#ff000080')[3]).toBeCloseTo(128 / 255, 6);
    expect(colorToLinear([0.2, 0.3, 0.4])).toEqual([0.2, 0.3, 0.4, 1]);
  });
});

const validator = createRequire(import.meta.url)('gltf-validator') as {
  validateBytes(data: Uint8Array, options?: { maxIssues?: number }): Promise<{ issues: { messages: { code: string; severity: number }[] } }>;
};

describe('bakePreset', () => {
  const io = new NodeIO();
  const noTextures = async () => null;

  it('drops hidden and disabled parts, keeps embedded materials and writes payload materials', async () => {
    const glb = await makeShoeGlb();
    expect(await listGlbParts(glb)).toEqual(['sole', 'upper', 'laces', 'perforado_1', 'suelo']);
    const preset: ColorPreset = {
      parts: {
        upper: { visible: true, material: null },
        sole: { material: { baseColor: '#ff0000', roughness: 0.3, metallic: 0.1 } },
        laces: { visible: false },
        perforado_1: { visible: true, material: { baseColor: [0, 0, 1], opacity: 0.5 } },
        suelo: { material: {} },
      },
    };
    const { glb: baked, decisions } = await bakePreset(glb, preset, noTextures, 'red');
    expect(decisions.map((d) => `${d.part}:${d.include ? d.source : d.reason}`)).toEqual([
      'sole:payload', 'upper:embedded', 'laces:hidden', 'perforado_1:payload', 'suelo:optional_part_not_enabled',
    ]);
    const doc = await io.readBinary(baked);
    const byName = new Map(doc.getRoot().listNodes().filter((n) => n.getMesh()).map((n) => [n.getName(), n]));
    expect([...byName.keys()].sort()).toEqual(['perforado_1', 'sole', 'upper']);
    const sole = byName.get('sole')!.getMesh()!.listPrimitives()[0].getMaterial()!;
    expect(sole.getName()).toBe('red:sole');
    expect(sole.getBaseColorFactor()).toEqual([1, 0, 0, 1]);
    expect(sole.getRoughnessFactor()).toBeCloseTo(0.3, 6);
    expect(sole.getMetallicFactor()).toBeCloseTo(0.1, 6);
    const upper = byName.get('upper')!.getMesh()!.listPrimitives()[0].getMaterial()!;
    expect(upper.getName()).toBe('leather');
    expect(upper.getBaseColorTexture()).not.toBeNull();
    const perf = byName.get('perforado_1')!.getMesh()!.listPrimitives()[0].getMaterial()!;
    expect(perf.getBaseColorFactor()).toEqual([0, 0, 1, 0.5]);
    expect(perf.getAlphaMode()).toBe('BLEND');
    const report = await validator.validateBytes(baked, { maxIssues: 50 });
    expect(report.issues.messages.filter((m) => m.severity <= 1)).toEqual([]);
    // the floor's and laces' data is gone from the file
    expect(doc.getRoot().listMeshes().map((m) => m.getName()).sort()).toEqual(['perforado_1', 'sole', 'upper']);
  });

  it('uses uploaded textures by name and fails clearly when one is missing', async () => {
    const glb = await makeShoeGlb({ overlays: false, floor: false });
    const png = new Uint8Array(await sharp({ create: { width: 8, height: 8, channels: 4, background: '#00ff00' } }).png().toBuffer());
    const textures = async (name: string) => (name === 'green.png' ? { bytes: png, contentType: 'image/png' } : null);
    const { glb: baked } = await bakePreset(glb, { parts: { sole: { material: { baseColorTexture: 'green.png' } } } }, textures);
    const doc = await io.readBinary(baked);
    const sole = doc.getRoot().listNodes().find((n) => n.getName() === 'sole')!.getMesh()!.listPrimitives()[0].getMaterial()!;
    expect(sole.getBaseColorTexture()!.getName()).toBe('green.png');
    expect(Buffer.from(sole.getBaseColorTexture()!.getImage()!).equals(Buffer.from(png))).toBe(true);
    await expect(bakePreset(glb, { parts: { sole: { material: { baseColorTexture: 'nope.png' } } } }, textures)).rejects.toThrow(/nope.png was not uploaded/);
  });

  it('replaces a texture by a plain colour when only a colour is given', async () => {
    const glb = await makeShoeGlb({ overlays: false, floor: false });
    const { glb: baked } = await bakePreset(glb, { parts: { upper: { material: { baseColor: '#3366cc' } } } }, noTextures);
    const doc = await io.readBinary(baked);
    const upper = doc.getRoot().listNodes().find((n) => n.getName() === 'upper')!.getMesh()!.listPrimitives()[0].getMaterial()!;
    expect(upper.getBaseColorTexture()).toBeNull();
    expect(upper.getBaseColorFactor()[2]).toBeCloseTo(colorToLinear('#3366cc')[2], 6);
    expect(doc.getRoot().listTextures()).toHaveLength(0);
  });
});
