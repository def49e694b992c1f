/**
 * Material payloads of AR objects and the rules that decide which parts a colour preset shows.
 *
 * Payload (`materialsData`), one colour preset per `color_id`:
 *
 * ```json
 * {
 *   "default": {
 *     "name": "Terracotta",
 *     "parts": {
 *       "upper":       { "visible": true, "material": null },
 *       "sole":        { "material": { "baseColor": "#1a1a1a", "roughness": 0.9 } },
 *       "laces":       { "visible": false },
 *       "perforado_1": { "material": { "baseColor": [0.1, 0.1, 0.12], "metallic": 0.4 } },
 *       "suelo":       { "material": {} }
 *     }
 *   },
 *   "default_mirror": { "parts": { } }
 * }
 * ```
 *
 * A part is a mesh node of the GLB, named by its node name (or its mesh name).
 * - `visible` defaults to true.
 * - `material`: `null` (or absent) keeps the GLB's embedded material; `{}` (no values) drops the
 *   part; otherwise the given values replace the embedded material when baking.
 * - `baseColor` / `emissive`: `#rrggbb` or `#rrggbbaa` (sRGB, as in colour pickers) or an array of
 *   3-4 linear factors 0..1 (as glTF stores them). `opacity` below 1 blends. A `baseColor`
 *   without `baseColorTexture` gives the part a plain colour (the embedded texture is dropped);
 *   with one, the texture is multiplied by the colour. Unset values keep the embedded ones.
 * - `baseColorTexture`, `normalTexture`, `metallicRoughnessTexture`: names of textures uploaded
 *   for the object.
 * - Overlay parts (`perforado_`, `grabado_`, `bordado_`, `picado_`, `ghost_`, `reflejo_ghost_`)
 *   and floor meshes (`suelo…`) are shown only when the preset gives them `visible` not false and
 *   a non-empty `material`; structural parts not named in the preset keep their embedded material.
 * - A mirrored shoe uses the preset `<color_id>_mirror` when it exists, else `<color_id>`.
 */
import Ajv2020Module from 'ajv/dist/2020.js';
import type { ColorPreset, ColorValue, MaterialsData, PartMaterial } from '../../../core/ports/ar-object-store.ts';
import { MATERIALS_DATA_SCHEMA } from '../../../core/ports/ar-object-store.ts';
import { isFloorPart, isOverlayPart } from './part-names.ts';

export type { ColorPreset, ColorValue, MaterialsData, PartMaterial, PartSetting } from '../../../core/ports/ar-object-store.ts';

export type PartDecision =
  | { part: string; include: true; source: 'embedded' }
  | { part: string; include: true; source: 'payload'; material: PartMaterial }
  | { part: string; include: false; reason: 'hidden' | 'empty_material' | 'optional_part_not_enabled' };

// ajv is CommonJS with a `default` export property.
const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as unknown as typeof Ajv2020Module.default;
const validate = new Ajv2020({ allErrors: true, strict: false }).compile(MATERIALS_DATA_SCHEMA);

/** Checks a payload; errors carry a JSON-pointer-like field and a message. */
export function validateMaterialsData(input: unknown): { ok: true; value: MaterialsData } | { ok: false; errors: { field: string; message: string }[] } {
  if (validate(input)) return { ok: true, value: input as MaterialsData };
  const errors = (validate.errors ?? []).map((e) => ({ field: e.instancePath || '/', message: e.message ?? 'invalid' }));
  return { ok: false, errors };
}

function isEmptyMaterial(m: PartMaterial): boolean {
  return Object.values(m).every((v) => v === undefined || v === null);
}

/** Applies the payload rules to the parts of a model for one colour preset. */
export function resolvePreset(parts: string[], preset: ColorPreset | undefined): PartDecision[] {
  return parts.map((part): PartDecision => {
    const setting = preset?.parts[part];
    const visible = setting?.visible !== false;
    const material = setting?.material ?? null;
    if (isOverlayPart(part) || isFloorPart(part)) {
      if (setting && visible && material && !isEmptyMaterial(material)) return { part, include: true, source: 'payload', material };
      return { part, include: false, reason: 'optional_part_not_enabled' };
    }
    if (!setting) return { part, include: true, source: 'embedded' };
    if (!visible) return { part, include: false, reason: 'hidden' };
    if (material === null) return { part, include: true, source: 'embedded' };
    if (isEmptyMaterial(material)) return { part, include: false, reason: 'empty_material' };
    return { part, include: true, source: 'payload', material };
  });
}

/** The preset for a shoe of the pair: `<color_id>_mirror` for the mirrored shoe when present. */
export function presetFor(data: MaterialsData | undefined, colorId: string, mirror = false): ColorPreset | undefined {
  if (!data) return undefined;
  if (mirror && data[`${colorId}_mirror`]) return data[`${colorId}_mirror`];
  return data[colorId];
}

function srgbToLinear(c: number): number {
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** A payload colour as linear RGBA factors. Hex colours are sRGB; arrays are already linear. */
export function colorToLinear(c: ColorValue): [number, number, number, number] {
  if (typeof c === 'string') {
    const h = c.slice(1);
    const byte = (i: number) => parseInt(h.slice(i, i + 2), 16) / 255;
    return [srgbToLinear(byte(0)), srgbToLinear(byte(2)), srgbToLinear(byte(4)), h.length === 8 ? byte(6) : 1];
  }
  return [c[0], c[1], c[2], c.length > 3 ? c[3] : 1];
}
