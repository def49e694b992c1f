/**
 * Defensive GLB inspection: checks the container and the JSON of an untrusted binary glTF before
 * any glTF library, image decoder or validator sees the bytes. Returns a summary or throws a
 * GlbError (code `invalid_glb` plus a stable reason).
 */

const MAGIC = 0x46546c67; // 'glTF'
const CHUNK_JSON = 0x4e4f534a; // 'JSON'
const CHUNK_BIN = 0x004e4942; // 'BIN\0'
const HEADER_BYTES = 12;
const CHUNK_HEADER_BYTES = 8;

export type GlbErrorReason =
  | 'too_short'
  | 'too_large'
  | 'bad_magic'
  | 'bad_version'
  | 'length_mismatch'
  | 'missing_json_chunk'
  | 'json_too_large'
  | 'chunk_out_of_bounds'
  | 'bad_chunk'
  | 'bad_json'
  | 'too_many_items'
  | 'external_uri'
  | 'data_uri'
  | 'buffer_out_of_bounds'
  | 'unsupported_extension';

export class GlbError extends Error {
  readonly code = 'invalid_glb';
  readonly reason: GlbErrorReason;
  constructor(reason: GlbErrorReason, detail: string) {
    super(`invalid_glb: ${reason}: ${detail}`);
    this.name = 'GlbError';
    this.reason = reason;
  }
}

export interface GlbLimits {
  /** Largest accepted file. */
  maxBytes: number;
  /** Largest accepted JSON chunk. */
  maxJsonBytes: number;
  maxMeshes: number;
  maxPrimitives: number;
  maxAccessors: number;
  maxBufferViews: number;
  /** Buffers with data (meshopt's data-less fallback buffers are counted apart). */
  maxBuffers: number;
  /** Bytes a meshopt fallback buffer may declare (what the decoder will allocate). */
  maxFallbackBytes: number;
  maxImages: number;
  maxTextures: number;
  maxMaterials: number;
  maxNodes: number;
  /** Extensions a reader may require; anything else in extensionsRequired is refused. */
  supportedRequiredExtensions: readonly string[];
}

export const DEFAULT_GLB_LIMITS: GlbLimits = {
  maxBytes: 30 * 1024 * 1024,
  maxJsonBytes: 4 * 1024 * 1024,
  maxMeshes: 2048,
  maxPrimitives: 8192,
  maxAccessors: 32768,
  maxBufferViews: 32768,
  maxBuffers: 1,
  maxFallbackBytes: 256 * 1024 * 1024,
  maxImages: 64,
  maxTextures: 256,
  maxMaterials: 512,
  maxNodes: 16384,
  supportedRequiredExtensions: [
    'KHR_mesh_quantization',
    'KHR_texture_transform',
    'KHR_materials_unlit',
    'EXT_meshopt_compression',
    'KHR_texture_basisu',
    'EXT_texture_webp',
  ],
};

export interface GlbSummary {
  byteLength: number;
  jsonByteLength: number;
  binByteLength: number;
  counts: {
    meshes: number;
    primitives: number;
    accessors: number;
    bufferViews: number;
    buffers: number;
    images: number;
    textures: number;
    materials: number;
    nodes: number;
  };
  extensionsUsed: string[];
  extensionsRequired: string[];
  generator?: string;
  /** The parsed JSON chunk (already checked against the limits). */
  json: Record<string, unknown>;
}

const ACCESSOR_COMPONENTS: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT2: 4, MAT3: 9, MAT4: 16 };
const COMPONENT_BYTES: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };

function list(json: Record<string, unknown>, key: string): Record<string, unknown>[] {
  const v = json[key];
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new GlbError('bad_json', `${key} is not an array`);
  for (const item of v) {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw new GlbError('bad_json', `${key} holds a non-object`);
  }
  return v as Record<string, unknown>[];
}

function cap(name: string, count: number, max: number): void {
  if (count > max) throw new GlbError('too_many_items', `${count} ${name} (max ${max})`);
}

function isIndex(v: unknown, length: number): v is number {
  return Number.isInteger(v) && (v as number) >= 0 && (v as number) < length;
}

function nonNegInt(v: unknown, fallback: number): number {
  if (v === undefined) return fallback;
  if (!Number.isInteger(v) || (v as number) < 0) throw new GlbError('bad_json', `expected a non-negative integer, got ${String(v)}`);
  return v as number;
}

function checkUri(kind: string, uri: unknown): void {
  if (uri === undefined) return;
  if (typeof uri !== 'string') throw new GlbError('bad_json', `${kind} uri is not a string`);
  if (/^\s*data:/i.test(uri)) throw new GlbError('data_uri', `${kind} uses a data: URI`);
  throw new GlbError('external_uri', `${kind} references an external resource`);
}

export function inspectGlb(bytes: Uint8Array, limits: Partial<GlbLimits> = {}): GlbSummary {
  const lim: GlbLimits = { ...DEFAULT_GLB_LIMITS, ...limits };
  if (bytes.byteLength > lim.maxBytes) throw new GlbError('too_large', `${bytes.byteLength} bytes (max ${lim.maxBytes})`);
  if (bytes.byteLength < HEADER_BYTES + CHUNK_HEADER_BYTES) throw new GlbError('too_short', `${bytes.byteLength} bytes`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = view.getUint32(0, true);
  if (magic !== MAGIC) throw new GlbError('bad_magic', `magic 0x${magic.toString(16)}`);
  const version = view.getUint32(4, true);
  if (version !== 2) throw new GlbError('bad_version', `version ${version}`);
  const declared = view.getUint32(8, true);
  if (declared !== bytes.byteLength) throw new GlbError('length_mismatch', `header says ${declared}, got ${bytes.byteLength}`);

  const jsonLength = view.getUint32(12, true);
  const jsonType = view.getUint32(16, true);
  if (jsonType !== CHUNK_JSON) throw new GlbError('missing_json_chunk', `first chunk type 0x${jsonType.toString(16)}`);
  if (jsonLength > lim.maxJsonBytes) throw new GlbError('json_too_large', `${jsonLength} bytes (max ${lim.maxJsonBytes})`);
  const jsonStart = HEADER_BYTES + CHUNK_HEADER_BYTES;
  if (jsonStart + jsonLength > bytes.byteLength) throw new GlbError('chunk_out_of_bounds', 'JSON chunk runs past the end of the file');

  let binLength = 0;
  let offset = jsonStart + jsonLength;
  // Chunks after JSON: at most one BIN chunk, which must come first; unknown chunk types are skipped
  // as the glTF specification allows, but every chunk must lie inside the file.
  let chunkIndex = 1;
  while (offset < bytes.byteLength) {
    if (offset + CHUNK_HEADER_BYTES > bytes.byteLength) throw new GlbError('chunk_out_of_bounds', 'truncated chunk header');
    const len = view.getUint32(offset, true);
    const type = view.getUint32(offset + 4, true);
    if (offset + CHUNK_HEADER_BYTES + len > bytes.byteLength) throw new GlbError('chunk_out_of_bounds', `chunk ${chunkIndex} runs past the end of the file`);
    if (type === CHUNK_BIN) {
      if (chunkIndex !== 1) throw new GlbError('bad_chunk', 'BIN chunk is not the second chunk');
      binLength = len;
    } else if (type === CHUNK_JSON) {
      throw new GlbError('bad_chunk', 'more than one JSON chunk');
    }
    offset += CHUNK_HEADER_BYTES + len;
    chunkIndex++;
  }

  let json: Record<string, unknown>;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(jsonStart, jsonStart + jsonLength));
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    json = parsed as Record<string, unknown>;
  } catch (err) {
    throw new GlbError('bad_json', (err as Error).message);
  }
  const asset = json.asset as Record<string, unknown> | undefined;
  if (!asset || typeof asset !== 'object' || typeof asset.version !== 'string' || !asset.version.startsWith('2.')) {
    throw new GlbError('bad_json', 'asset.version is not 2.x');
  }

  const meshes = list(json, 'meshes');
  const accessors = list(json, 'accessors');
  const bufferViews = list(json, 'bufferViews');
  const buffers = list(json, 'buffers');
  const images = list(json, 'images');
  const textures = list(json, 'textures');
  const materials = list(json, 'materials');
  const nodes = list(json, 'nodes');
  cap('meshes', meshes.length, lim.maxMeshes);
  cap('accessors', accessors.length, lim.maxAccessors);
  cap('bufferViews', bufferViews.length, lim.maxBufferViews);
  const isFallback = (b: Record<string, unknown>) => (b.extensions as Record<string, Record<string, unknown>> | undefined)?.EXT_meshopt_compression?.fallback === true && b.uri === undefined;
  cap('buffers', buffers.filter((b) => !isFallback(b)).length, lim.maxBuffers);
  cap('images', images.length, lim.maxImages);
  cap('textures', textures.length, lim.maxTextures);
  cap('materials', materials.length, lim.maxMaterials);
  cap('nodes', nodes.length, lim.maxNodes);
  let primitives = 0;
  for (const mesh of meshes) {
    if (!Array.isArray(mesh.primitives)) throw new GlbError('bad_json', 'mesh without primitives');
    primitives += mesh.primitives.length;
  }
  cap('primitives', primitives, lim.maxPrimitives);

  const extensionsUsed = stringList(json.extensionsUsed, 'extensionsUsed');
  const extensionsRequired = stringList(json.extensionsRequired, 'extensionsRequired');
  for (const ext of extensionsRequired) {
    if (!lim.supportedRequiredExtensions.includes(ext)) throw new GlbError('unsupported_extension', `required extension ${ext}`);
  }

  // Buffers: the GLB-embedded buffer (index 0, no uri), plus meshopt fallback buffers, which hold
  // no data: the decoder fills them from compressed views (EXT_meshopt_compression)
  const bufferLengths: number[] = [];
  const fallback: boolean[] = [];
  let fallbackBytes = 0;
  buffers.forEach((buffer, i) => {
    checkUri(`buffer ${i}`, buffer.uri);
    const len = nonNegInt(buffer.byteLength, -1);
    if (len < 0) throw new GlbError('bad_json', `buffer ${i} without byteLength`);
    if (i !== 0 && isFallback(buffer)) {
      fallbackBytes += len;
      if (fallbackBytes > lim.maxFallbackBytes) throw new GlbError('too_large', `meshopt fallback buffers declare ${fallbackBytes} bytes (max ${lim.maxFallbackBytes})`);
      bufferLengths.push(len);
      fallback.push(true);
      return;
    }
    if (i !== 0) throw new GlbError('external_uri', `buffer ${i} has no data in this file`);
    if (len > binLength) throw new GlbError('buffer_out_of_bounds', `buffer ${i} declares ${len} bytes, BIN chunk holds ${binLength}`);
    bufferLengths.push(len);
    fallback.push(false);
  });

  // Buffer views must lie inside their buffer (meshopt-compressed views are checked through
  // their extension's source range).
  const viewLengths: number[] = [];
  bufferViews.forEach((bv, i) => {
    const compressed = (bv.extensions as Record<string, Record<string, unknown>> | undefined)?.EXT_meshopt_compression;
    const source = compressed ?? bv;
    if (!isIndex(source.buffer, bufferLengths.length)) throw new GlbError('buffer_out_of_bounds', `bufferView ${i} points at a missing buffer`);
    if (fallback[source.buffer as number]) throw new GlbError('buffer_out_of_bounds', `bufferView ${i} reads a fallback buffer, which holds no data`);
    const start = nonNegInt(source.byteOffset, 0);
    const len = nonNegInt(source.byteLength, -1);
    if (len < 0) throw new GlbError('bad_json', `bufferView ${i} without byteLength`);
    if (start + len > bufferLengths[source.buffer as number]) throw new GlbError('buffer_out_of_bounds', `bufferView ${i} ends past its buffer`);
    viewLengths.push(nonNegInt(bv.byteLength, 0));
  });

  accessors.forEach((acc, i) => {
    const components = ACCESSOR_COMPONENTS[acc.type as string];
    const bytesPer = COMPONENT_BYTES[acc.componentType as number];
    if (!components || !bytesPer) throw new GlbError('bad_json', `accessor ${i} has an unknown type`);
    const count = nonNegInt(acc.count, -1);
    if (count < 1) throw new GlbError('bad_json', `accessor ${i} has no count`);
    if (acc.bufferView === undefined) return; // all zeros (or sparse only)
    if (!isIndex(acc.bufferView, viewLengths.length)) throw new GlbError('buffer_out_of_bounds', `accessor ${i} points at a missing bufferView`);
    const bv = bufferViews[acc.bufferView];
    const elementBytes = components * bytesPer;
    const stride = nonNegInt(bv.byteStride, 0) || elementBytes;
    const start = nonNegInt(acc.byteOffset, 0);
    const needed = start + stride * (count - 1) + elementBytes;
    if (needed > viewLengths[acc.bufferView]) throw new GlbError('buffer_out_of_bounds', `accessor ${i} reads past its bufferView`);
  });

  images.forEach((img, i) => {
    checkUri(`image ${i}`, img.uri);
    if (!isIndex(img.bufferView, bufferViews.length)) throw new GlbError('bad_json', `image ${i} has no embedded data`);
  });

  return {
    byteLength: bytes.byteLength,
    jsonByteLength: jsonLength,
    binByteLength: binLength,
    counts: {
      meshes: meshes.length,
      primitives,
      accessors: accessors.length,
      bufferViews: bufferViews.length,
      buffers: buffers.length,
      images: images.length,
      textures: textures.length,
      materials: materials.length,
      nodes: nodes.length,
    },
    extensionsUsed,
    extensionsRequired,
    generator: typeof asset.generator === 'string' ? asset.generator : undefined,
    json,
  };
}

function stringList(v: unknown, name: string): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) throw new GlbError('bad_json', `${name} is not a list of strings`);
  return v as string[];
}
