/**
 * ArObjectStore: the AR host's objects (uploaded shoe models), their colour presets, autofit
 * progress per colour, blob keys of the files, and the bug reports sent from the viewer pages.
 * Bytes live in the BlobStore; this port holds metadata only. PostgreSQL in the service.
 */

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

/** Blob keys of one colour's files. */
export interface ColorFiles {
  /** Aligned GLB with the preset baked in. */
  glb?: string;
  /** The other shoe of the pair. */
  mirrorGlb?: string;
  usdz?: string;
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
  /** Records autofit progress for one colour without touching modified/modifiedBy. */
  setAutofit(id: string, colorId: string, state: AutofitState): Promise<void>;
  delete(id: string): Promise<void>;
  addBugReport(report: Omit<BugReport, 'id' | 'created'>): Promise<BugReport>;
  listBugReports(limit: number, before?: string): Promise<BugReport[]>;
}
