import { findPrim, parseUsda, walkPrims } from './usda-parser.ts';
import type { UsdLayer, UsdValue } from './usda-parser.ts';
import { USDZ_ALIGNMENT } from './usdz.ts';

export interface UsdzEntry {
  name: string;
  /** Offset of the file data in the archive. */
  dataOffset: number;
  size: number;
  compression: number;
}

export interface UsdzReport {
  ok: boolean;
  problems: string[];
  entries: UsdzEntry[];
  layer?: UsdLayer;
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(b: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < b.length; i++) c = CRC_TABLE[(c ^ b[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Reads the stored files of a USDZ archive from its local headers. */
export function listUsdzEntries(bytes: Uint8Array): { entries: UsdzEntry[]; files: Map<string, Uint8Array>; problems: string[] } {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries: UsdzEntry[] = [];
  const files = new Map<string, Uint8Array>();
  const problems: string[] = [];
  let off = 0;
  while (off + 4 <= bytes.length && v.getUint32(off, true) === 0x04034b50) {
    if (off + 30 > bytes.length) {
      problems.push('truncated local header');
      break;
    }
    const flags = v.getUint16(off + 6, true);
    const compression = v.getUint16(off + 8, true);
    const crc = v.getUint32(off + 14, true);
    const compSize = v.getUint32(off + 18, true);
    const size = v.getUint32(off + 22, true);
    const nameLen = v.getUint16(off + 26, true);
    const extraLen = v.getUint16(off + 28, true);
    const name = new TextDecoder().decode(bytes.subarray(off + 30, off + 30 + nameLen));
    const dataOffset = off + 30 + nameLen + extraLen;
    if (flags & 0x1) problems.push(`${name}: encrypted`);
    if (flags & 0x8) problems.push(`${name}: uses a data descriptor`);
    if (compression !== 0) problems.push(`${name}: compressed (method ${compression}); USDZ files must be stored`);
    if (compSize !== size) problems.push(`${name}: stored size differs from its size`);
    if (dataOffset % USDZ_ALIGNMENT !== 0) problems.push(`${name}: data at offset ${dataOffset} is not ${USDZ_ALIGNMENT}-byte aligned`);
    if (dataOffset + compSize > bytes.length) {
      problems.push(`${name}: data runs past the end of the archive`);
      break;
    }
    const data = bytes.subarray(dataOffset, dataOffset + compSize);
    if (compression === 0 && crc32(data) !== crc) problems.push(`${name}: CRC mismatch`);
    entries.push({ name, dataOffset, size, compression });
    files.set(name, data);
    off = dataOffset + compSize;
  }
  // the central directory must list the same files
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65535); i--) {
    if (v.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) problems.push('no end-of-central-directory record');
  else {
    const count = v.getUint16(eocd + 10, true);
    if (count !== entries.length) problems.push(`central directory lists ${count} files, local headers ${entries.length}`);
  }
  return { entries, files, problems };
}

/**
 * Structural check of a USDZ for AR Quick Look: stored, aligned, CRC-correct entries, a USDA
 * layer first that parses, has upAxis Y, metersPerUnit, a defaultPrim that exists, and only
 * references files that are in the archive.
 */
export function checkUsdz(bytes: Uint8Array): UsdzReport {
  const { entries, files, problems } = listUsdzEntries(bytes);
  if (entries.length === 0) return { ok: false, problems: [...problems, 'no files in the archive'], entries };
  const first = entries[0];
  if (!/\.usda$/i.test(first.name)) {
    problems.push(`first file ${first.name} is not a USDA layer`);
    return { ok: false, problems, entries };
  }
  let layer: UsdLayer | undefined;
  try {
    layer = parseUsda(new TextDecoder('utf-8', { fatal: true }).decode(files.get(first.name)));
  } catch (err) {
    problems.push((err as Error).message);
    return { ok: false, problems, entries };
  }
  const md = layer.metadata;
  if (tokenOrString(md.upAxis) !== 'Y') problems.push('upAxis is not "Y"');
  if (typeof md.metersPerUnit !== 'number' || md.metersPerUnit <= 0) problems.push('metersPerUnit missing');
  const defaultPrim = tokenOrString(md.defaultPrim);
  if (!defaultPrim || !findPrim(layer, `/${defaultPrim}`)) problems.push('defaultPrim missing or not found');
  for (const asset of assetPaths(layer)) {
    if (!files.has(asset)) problems.push(`referenced file ${asset} is not in the archive`);
  }
  const meshes = [...walkPrims(layer.prims)].filter((p) => p.typeName === 'Mesh');
  if (meshes.length === 0) problems.push('no Mesh prims');
  for (const mesh of readUsdaMeshes(layer)) {
    const n = mesh.points.length / 3;
    const sum = mesh.faceVertexCounts.reduce((a, b) => a + b, 0);
    if (sum !== mesh.faceVertexIndices.length) problems.push(`${mesh.path}: faceVertexCounts do not add up to faceVertexIndices`);
    if (mesh.faceVertexIndices.some((i) => i < 0 || i >= n)) problems.push(`${mesh.path}: index out of range`);
    if (mesh.normals && mesh.normals.length !== mesh.points.length) problems.push(`${mesh.path}: normals are not per vertex`);
    if (mesh.st && mesh.st.length / 2 !== n) problems.push(`${mesh.path}: primvars:st are not per vertex`);
    if (mesh.material && !findPrim(layer, mesh.material)) problems.push(`${mesh.path}: bound material ${mesh.material} not found`);
  }
  return { ok: problems.length === 0, problems, entries, layer };
}

function tokenOrString(v: UsdValue | undefined): string | undefined {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && 'token' in v) return v.token;
  return undefined;
}

function assetPaths(layer: UsdLayer): string[] {
  const out: string[] = [];
  const visit = (v: UsdValue | undefined) => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object' && 'asset' in v) out.push(v.asset);
  };
  for (const p of walkPrims(layer.prims)) for (const prop of p.properties.values()) visit(prop.value);
  return out;
}

export interface UsdaMesh {
  path: string;
  points: Float64Array;
  faceVertexCounts: number[];
  faceVertexIndices: number[];
  normals: Float64Array | null;
  st: Float64Array | null;
  material: string | null;
}

function flatNumbers(v: UsdValue | undefined): number[] {
  const out: number[] = [];
  const visit = (x: UsdValue | undefined) => {
    if (typeof x === 'number') out.push(x);
    else if (Array.isArray(x)) x.forEach(visit);
    else if (x && typeof x === 'object' && 'tuple' in x) x.tuple.forEach(visit);
  };
  visit(v);
  return out;
}

/** The Mesh prims of a layer as arrays (for round-trip checks). */
export function readUsdaMeshes(layer: UsdLayer): UsdaMesh[] {
  return [...walkPrims(layer.prims)]
    .filter((p) => p.typeName === 'Mesh')
    .map((p) => ({
      path: p.path,
      points: new Float64Array(flatNumbers(p.properties.get('points')?.value)),
      faceVertexCounts: flatNumbers(p.properties.get('faceVertexCounts')?.value),
      faceVertexIndices: flatNumbers(p.properties.get('faceVertexIndices')?.value),
      normals: p.properties.has('normals') ? new Float64Array(flatNumbers(p.properties.get('normals')!.value)) : null,
      st: p.properties.has('primvars:st') ? new Float64Array(flatNumbers(p.properties.get('primvars:st')!.value)) : null,
      material: p.properties.get('material:binding')?.targets?.[0] ?? null,
    }));
}
