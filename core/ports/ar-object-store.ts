/**
 * ArObjectStore: the AR host's objects (uploaded shoe models), their colour presets, autofit
 * progress per colour, blob keys of the files, and the bug reports sent from the viewer pages.
 * Bytes live in the BlobStore; this port holds metadata only. PostgreSQL in the service.
 */
import { token } from '../plugin.ts';
import type { EncodedImage } from '../images.ts';

/** Who an object belongs to: an account, an anonymous ownership session, or an integration's default library. */
export type ArOwner =
  | { kind: 'user'; id: string }
  | { kind: 'session'; id: string }
  | { kind: 'library'; id: string };

export const AUTOFIT_STATUSES = ['in_queue', 'in_progress', 'exporting', 'finished', 'failed'] as const;
export type AutofitStatus = (typeof AUTOFIT_STATUSES)[number];

export interface AutofitState {
  status: AutofitStatus;
  /** 0-100. */
  progress: number;
  /** Set when failed: a short cause, never a stack trace. */
  error?: string;
  updatedAt: string;
}

/** A payload colour: `#rrggbb`/`#rrggbbaa` (sRGB) or 3-4 linear factors 0..1. */
export type ColorValue = string | number[];

export interface PartMaterial {
  baseColor?: ColorValue;
  metallic?: number;
  roughness?: number;
  opacity?: number;
  emissive?: ColorValue;
  doubleSided?: boolean;
  /** Names of textures uploaded for the object. */
  baseColorTexture?: string;
  normalTexture?: string;
  metallicRoughnessTexture?: string;
}

export interface PartSetting {
  /** Default true. */
  visible?: boolean;
  /** null or absent: keep the model's embedded material; `{}`: drop the part. */
  material?: PartMaterial | null;
}

export interface ColorPreset {
  name?: string;
  /** Keyed by part (mesh node) name. */
  parts: Record<string, PartSetting>;
}

/** Colour presets keyed by `color_id` (`default`, `<color_id>_mirror`, ...). */
export type MaterialsData = Record<string, ColorPreset>;

const COLOR_SCHEMA = {
  oneOf: [
    { type: 'string', pattern: '^#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$', description: 'sRGB hex colour' },
    { type: 'array', minItems: 3, maxItems: 4, items: { type: 'number', minimum: 0, maximum: 1 }, description: 'linear RGB(A) factors' },
  ],
};
/** Texture names become blob keys: no path separators, no '..'. */
export const TEXTURE_NAME_SCHEMA = { type: 'string', pattern: '^(?!.*\\.\\.)[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$' };
export const COLOR_ID_SCHEMA = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' };

/** JSON Schema (draft 2020-12) of one colour preset. */
export const COLOR_PRESET_SCHEMA = {
  type: 'object',
  required: ['parts'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: 200 },
    parts: {
      type: 'object',
      maxProperties: 2000,
      propertyNames: { minLength: 1, maxLength: 200 },
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        properties: {
          visible: { type: 'boolean' },
          material: {
            oneOf: [
              { type: 'null' },
              {
                type: 'object',
                additionalProperties: false,
                properties: {
                  baseColor: COLOR_SCHEMA,
                  emissive: COLOR_SCHEMA,
                  metallic: { type: 'number', minimum: 0, maximum: 1 },
                  roughness: { type: 'number', minimum: 0, maximum: 1 },
                  opacity: { type: 'number', minimum: 0, maximum: 1 },
                  doubleSided: { type: 'boolean' },
                  baseColorTexture: TEXTURE_NAME_SCHEMA,
                  normalTexture: TEXTURE_NAME_SCHEMA,
                  metallicRoughnessTexture: TEXTURE_NAME_SCHEMA,
                },
              },
            ],
          },
        },
      },
    },
  },
};

/** JSON Schema of `materialsData`: presets keyed by color_id. */
export const MATERIALS_DATA_SCHEMA = {
  type: 'object',
  maxProperties: 200,
  propertyNames: { pattern: '^[A-Za-z0-9_-]{1,64}$' },
  additionalProperties: COLOR_PRESET_SCHEMA,
};

/** Blob keys of one colour's files. */
export interface ColorFiles {
  /** Aligned GLB with the preset baked in. */
  glb?: string;
  /** The other shoe of the pair. */
  mirrorGlb?: string;
  usdz?: string;
  mirrorUsdz?: string;
}

export interface ArObjectFiles {
  /** The GLB as uploaded. */
  source?: string;
  /** Aligned GLB before any preset (autofit output) and its mirror. */
  aligned?: string;
  alignedMirror?: string;
  colors: Record<string, ColorFiles>;
  /** Uploaded textures by name. */
  textures: Record<string, string>;
}

export interface ArObject {
  /** 24 lowercase hex characters. */
  id: string;
  name: string;
  owner: ArOwner;
  /** Sharing group (a team); members may see the private metadata. */
  group: string | null;
  created: string;
  createdBy: string;
  modified: string;
  modifiedBy: string;
  /** Public metadata (dimensions, side, title, ...). */
  properties: Record<string, unknown>;
  /** Integrator's private data. */
  custom: Record<string, unknown>;
  materialsData: MaterialsData;
  /** Autofit state per color_id. */
  autofit: Record<string, AutofitState>;
  files: ArObjectFiles;
}

export interface NewArObject {
  id?: string;
  name?: string;
  owner: ArOwner;
  group?: string | null;
  createdBy: string;
  properties?: Record<string, unknown>;
  custom?: Record<string, unknown>;
  materialsData?: MaterialsData;
  autofit?: Record<string, AutofitState>;
  files?: Partial<ArObjectFiles>;
}

export interface ArObjectPatch {
  name?: string;
  group?: string | null;
  owner?: ArOwner;
  /** Shallow-merged into the stored properties; a null value removes the key. */
  properties?: Record<string, unknown>;
  custom?: Record<string, unknown>;
  /** Replaces the given presets; a null value removes the preset. */
  materialsData?: Record<string, ColorPreset | null>;
  /** Merged into the stored file keys (colors and textures per key). */
  files?: { source?: string; aligned?: string; alignedMirror?: string; colors?: Record<string, ColorFiles>; textures?: Record<string, string> };
}

export interface ArObjectFilter {
  owners?: ArOwner[];
  group?: string;
  limit?: number;
  offset?: number;
}

export interface BugReport {
  id: string;
  objectId: string | null;
  message: string;
  /** Page URL, user agent, viewer parameters... */
  context: Record<string, unknown>;
  reporter: string | null;
  created: string;
}

export interface ArObjectStore {
  create(input: NewArObject): Promise<ArObject>;
  /** By id, or by name when no object has that id. */
  get(idOrName: string): Promise<ArObject | null>;
  list(filter: ArObjectFilter): Promise<ArObject[]>;
  /** Applies a patch and stamps modified/modifiedBy; null when the object does not exist. */
  update(id: string, patch: ArObjectPatch, by: string): Promise<ArObject | null>;
  /** Records generated files (cache bookkeeping) without touching modified/modifiedBy. */
  recordFiles(id: string, files: NonNullable<ArObjectPatch['files']>): Promise<void>;
  /** Records autofit progress for one colour without touching modified/modifiedBy. */
  setAutofit(id: string, colorId: string, state: AutofitState): Promise<void>;
  delete(id: string): Promise<void>;
  addBugReport(report: Omit<BugReport, 'id' | 'created'>): Promise<BugReport>;
  listBugReports(limit: number, before?: string): Promise<BugReport[]>;
}

export const AR_OBJECT_STORE = token<ArObjectStore>('ArObjectStore');

/** What autofit reports about a model; stored in the object's properties. */
export interface AutofitOutcome {
  glb: Uint8Array;
  mirrorGlb: Uint8Array;
  /** Dimensions (metres), side, scale factor, units guess, confidence, transform, parts. */
  properties: Record<string, unknown> & { parts: string[] };
}

/**
 * ArModelProcessor: the AR host's model work, behind a port so the plugin stays independent of
 * glTF tooling (the builtin adapter uses gltf-transform and fflate). Methods throw
 * FitroomError('VALIDATION_ERROR') for models they cannot read, with the reason in `details`.
 */
export interface ArModelProcessor {
  /** Checks an untrusted GLB's container and JSON before any parser sees it. */
  inspect(glb: Uint8Array): { meshes: number; nodes: number; images: number; bytes: number };
  /** Aligns a shoe (sole down, toe +Z, heel at the origin, metres) and builds the mirrored shoe. */
  autofit(glb: Uint8Array, onProgress?: (fraction: number) => void): Promise<AutofitOutcome>;
  /** Part (mesh node) names in scene order. */
  parts(glb: Uint8Array): Promise<string[]>;
  /** Writes a colour preset into a new GLB (parts dropped or re-materialled per the payload rules). */
  bake(glb: Uint8Array, preset: ColorPreset | undefined, textures: (name: string) => Promise<EncodedImage | null>, label: string): Promise<Uint8Array>;
  /** A USDZ for AR Quick Look from an aligned GLB. */
  usdz(glb: Uint8Array): Promise<Uint8Array>;
}

export const AR_MODEL_PROCESSOR = token<ArModelProcessor>('ArModelProcessor');
