import { zipSync } from 'fflate';
import type { Zippable } from 'fflate';
import type { Document, Material, Texture } from '@gltf-transform/core';
import type { ImageCodec } from '../../../core/ports/image-codec.ts';
import { readGlb } from './gltf-io.ts';
import { triangleIndices, partName } from './surface.ts';

export interface UsdzOptions {
  /** Converts textures that are not PNG (JPEG, WebP) to PNG. Without it such textures are refused. */
  codec?: ImageCodec;
  /** Pixel limit for decoding non-PNG textures. */
  maxTexturePixels?: number;
}

/** The USD layer inside the archive; AR Quick Look opens the first file. */
export const USDZ_LAYER_NAME = 'model.usda';
/** USDZ requires every file's data to start on a 64-byte boundary. */
export const USDZ_ALIGNMENT = 64;
const PADDING_EXTRA_ID = 0x1986;
// Fixed timestamp so the same model always produces the same bytes.
const ZIP_MTIME = new Date('2001-01-01T00:00:00Z');

interface UsdMesh {
  name: string;
  points: Float64Array;
  normals: Float64Array | null;
  st: Float64Array | null;
  indices: Uint32Array;
  material: string | null;
  doubleSided: boolean;
}

function identifier(raw: string, used: Set<string>): string {
  let base = raw.replace(/[^A-Za-z0-9_]/g, '_');
  if (!/^[A-Za-z_]/.test(base)) base = `_${base}`;
  if (!base) base = 'prim';
  let name = base;
  for (let i = 1; used.has(name); i++) name = `${base}_${i}`;
  used.add(name);
  return name;
}

function num(v: number): string {
  if (!Number.isFinite(v)) return '0';
  const s = Number(v.toPrecision(7)).toString();
  return s === '-0' ? '0' : s;
}

function tuples(arr: Float64Array, size: number): string {
  const parts: string[] = [];
  for (let i = 0; i < arr.length; i += size) {
    const t: string[] = [];
    for (let k = 0; k < size; k++) t.push(num(arr[i + k]));
    parts.push(`(${t.join(', ')})`);
  }
  return `[${parts.join(', ')}]`;
}

/** Mesh data with the node's world transform applied (positions and normals). */
function collectMeshes(doc: Document, materialNames: Map<Material, string>): UsdMesh[] {
  const scene = doc.getRoot().getDefaultScene() ?? doc.getRoot().listScenes()[0];
  const meshes: UsdMesh[] = [];
  const used = new Set<string>();
  scene?.traverse((node) => {
    const mesh = node.getMesh();
    if (!mesh) return;
    const m = node.getWorldMatrix();
    const nm = normalMatrix(m as unknown as number[]);
    const flip = determinant(m as unknown as number[]) < 0;
    mesh.listPrimitives().forEach((prim, pi) => {
      const tri = triangleIndices(prim);
      const pos = prim.getAttribute('POSITION');
      if (!tri || !pos || tri.length === 0) return;
      const n = pos.getCount();
      const points = new Float64Array(n * 3);
      const el = [0, 0, 0];
      for (let i = 0; i < n; i++) {
        pos.getElement(i, el);
        points[3 * i] = m[0] * el[0] + m[4] * el[1] + m[8] * el[2] + m[12];
        points[3 * i + 1] = m[1] * el[0] + m[5] * el[1] + m[9] * el[2] + m[13];
        points[3 * i + 2] = m[2] * el[0] + m[6] * el[1] + m[10] * el[2] + m[14];
      }
      const nrm = prim.getAttribute('NORMAL');
      let normals: Float64Array | null = null;
      if (nrm) {
        normals = new Float64Array(n * 3);
        for (let i = 0; i < n; i++) {
          nrm.getElement(i, el);
          const x = nm[0] * el[0] + nm[3] * el[1] + nm[6] * el[2];
          const y = nm[1] * el[0] + nm[4] * el[1] + nm[7] * el[2];
          const z = nm[2] * el[0] + nm[5] * el[1] + nm[8] * el[2];
          const l = Math.hypot(x, y, z) || 1;
          normals.set([x / l, y / l, z / l], 3 * i);
        }
      }
      const uv = prim.getAttribute('TEXCOORD_0');
      let st: Float64Array | null = null;
      if (uv) {
        st = new Float64Array(n * 2);
        const u = [0, 0];
        for (let i = 0; i < n; i++) {
          uv.getElement(i, u);
          st[2 * i] = u[0];
          st[2 * i + 1] = 1 - u[1]; // glTF's v runs down the image, USD's st up
        }
      }
      const indices = tri.slice();
      if (flip) {
        for (let i = 0; i < indices.length; i += 3) {
          const t = indices[i + 1];
          indices[i + 1] = indices[i + 2];
          indices[i + 2] = t;
        }
      }
      const material = prim.getMaterial();
      const base = partName(node) || mesh.getName() || 'mesh';
      meshes.push({
        name: identifier(mesh.listPrimitives().length > 1 ? `${base}_${pi}` : base, used),
        points,
        normals,
        st,
        indices,
        material: material ? materialNames.get(material)! : null,
        doubleSided: material?.getDoubleSided() ?? false,
      });
    });
  });
  return meshes;
}

function normalMatrix(m: number[]): number[] {
  // inverse transpose of the upper 3x3, column-major 3x3
  const a = m[0], b = m[1], c = m[2], d = m[4], e = m[5], f = m[6], g = m[8], h = m[9], i = m[10];
  const A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
  const D = -(b * i - c * h), E = a * i - c * g, F = -(a * h - b * g);
  const G = b * f - c * e, H = -(a * f - c * d), I = a * e - b * d;
  // A..I are the cofactors of the row-major [[a b c] [d e f] [g h i]] = Mᵀ; the inverse
  // transpose of M is cof(M) / det = cof(Mᵀ)ᵀ / det, stored here column-major.
  const det = a * A + b * B + c * C || 1;
  return [A / det, B / det, C / det, D / det, E / det, F / det, G / det, H / det, I / det];
}

function determinant(m: number[]): number {
  return m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2]) + m[8] * (m[1] * m[6] - m[5] * m[2]);
}

interface TextureFile {
  path: string;
  bytes: Uint8Array;
}

async function texturePng(texture: Texture, opts: UsdzOptions): Promise<Uint8Array> {
  const image = texture.getImage();
  if (!image) throw new Error(`texture ${texture.getName()} has no image data`);
  const isPng = image.length > 8 && image[0] === 0x89 && image[1] === 0x50 && image[2] === 0x4e && image[3] === 0x47;
  if (isPng) return image;
  if (!opts.codec) throw new Error(`texture ${texture.getName() || ''} is ${texture.getMimeType()}; converting it to PNG needs an image codec`);
  const raster = await opts.codec.decode(image, { maxPixels: opts.maxTexturePixels ?? 4096 * 4096 });
  return (await opts.codec.encode(raster, 'png')).bytes;
}

function materialUsda(name: string, mat: Material, root: string, tex: (t: Texture) => string): string {
  const path = `${root}/Materials/${name}`;
  const base = mat.getBaseColorFactor();
  const lines: string[] = [];
  const shaders: string[] = [];
  const reader = `${path}/PrimvarReader_st`;
  let needsReader = false;
  const uvTexture = (shader: string, t: Texture, colorSpace: 'sRGB' | 'raw', outputs: string[], scale?: number[], bias?: number[]) => {
    needsReader = true;
    shaders.push(`            def Shader "${shader}"
            {
                uniform token info:id = "UsdUVTexture"
                asset inputs:file = @${tex(t)}@
                float2 inputs:st.connect = <${reader}.outputs:result>
                token inputs:sourceColorSpace = "${colorSpace}"
                token inputs:wrapS = "repeat"
                token inputs:wrapT = "repeat"${scale ? `\n                float4 inputs:scale = (${scale.map(num).join(', ')})` : ''}${bias ? `\n                float4 inputs:bias = (${bias.map(num).join(', ')})` : ''}
${outputs.map((o) => `                ${o}`).join('\n')}
            }`);
  };
  const baseTex = mat.getBaseColorTexture();
  if (baseTex) {
    uvTexture('BaseColorTexture', baseTex, 'sRGB', ['float3 outputs:rgb', 'float outputs:a'], base);
    lines.push(`color3f inputs:diffuseColor.connect = <${path}/BaseColorTexture.outputs:rgb>`);
  } else {
    lines.push(`color3f inputs:diffuseColor = (${num(base[0])}, ${num(base[1])}, ${num(base[2])})`);
  }
  const mr = mat.getMetallicRoughnessTexture();
  if (mr) {
    const m = mat.getMetallicFactor();
    const r = mat.getRoughnessFactor();
    uvTexture('MetallicRoughnessTexture', mr, 'raw', ['float outputs:g', 'float outputs:b'], [1, r, m, 1]);
    lines.push(`float inputs:roughness.connect = <${path}/MetallicRoughnessTexture.outputs:g>`);
    lines.push(`float inputs:metallic.connect = <${path}/MetallicRoughnessTexture.outputs:b>`);
  } else {
    lines.push(`float inputs:metallic = ${num(mat.getMetallicFactor())}`);
    lines.push(`float inputs:roughness = ${num(mat.getRoughnessFactor())}`);
  }
  const normalTex = mat.getNormalTexture();
  if (normalTex) {
    const s = mat.getNormalScale();
    uvTexture('NormalTexture', normalTex, 'raw', ['float3 outputs:rgb'], [2 * s, 2 * s, 2, 1], [-s, -s, -1, 0]);
    lines.push(`normal3f inputs:normal.connect = <${path}/NormalTexture.outputs:rgb>`);
  }
  const emissive = mat.getEmissiveFactor();
  if (emissive.some((v) => v > 0)) lines.push(`color3f inputs:emissiveColor = (${emissive.map(num).join(', ')})`);
  const alphaMode = mat.getAlphaMode();
  if (alphaMode !== 'OPAQUE') {
    if (baseTex) lines.push(`float inputs:opacity.connect = <${path}/BaseColorTexture.outputs:a>`);
    else lines.push(`float inputs:opacity = ${num(base[3])}`);
    if (alphaMode === 'MASK') lines.push(`float inputs:opacityThreshold = ${num(mat.getAlphaCutoff())}`);
  }
  if (needsReader) {
    shaders.push(`            def Shader "PrimvarReader_st"
            {
                uniform token info:id = "UsdPrimvarReader_float2"
                string inputs:varname = "st"
                float2 outputs:result
            }`);
  }
  return `        def Material "${name}"
        {
            token outputs:surface.connect = <${path}/PreviewSurface.outputs:surface>

            def Shader "PreviewSurface"
            {
                uniform token info:id = "UsdPreviewSurface"
${lines.map((l) => `                ${l}`).join('\n')}
                int inputs:useSpecularWorkflow = 0
                token outputs:surface
            }
${shaders.join('\n')}
        }`;
}

function meshUsda(m: UsdMesh, root: string): string {
  const counts = new Array<number>(m.indices.length / 3).fill(3);
  const lines = [
    `int[] faceVertexCounts = [${counts.join(', ')}]`,
    `int[] faceVertexIndices = [${Array.from(m.indices).join(', ')}]`,
  ];
  if (m.material) lines.push(`rel material:binding = <${root}/Materials/${m.material}>`);
  if (m.normals) lines.push(`normal3f[] normals = ${tuples(m.normals, 3)} (\n                interpolation = "vertex"\n            )`);
  lines.push(`point3f[] points = ${tuples(m.points, 3)}`);
  if (m.st) lines.push(`texCoord2f[] primvars:st = ${tuples(m.st, 2)} (\n                interpolation = "vertex"\n            )`);
  if (m.doubleSided) lines.push('uniform bool doubleSided = 1');
  lines.push('uniform token subdivisionScheme = "none"');
  return `        def Mesh "${m.name}" (
            prepend apiSchemas = ["MaterialBindingAPI"]
        )
        {
${lines.map((l) => `            ${l}`).join('\n')}
        }`;
}

/** Builds the USDA text and the PNG texture files for a glTF document (metres, +Y up). */
export async function documentToUsda(doc: Document, opts: UsdzOptions = {}): Promise<{ usda: string; textures: TextureFile[] }> {
  const root = '/Root';
  const materialNames = new Map<Material, string>();
  const usedNames = new Set<string>();
  for (const mat of doc.getRoot().listMaterials()) materialNames.set(mat, identifier(mat.getName() || 'Material', usedNames));
  const meshes = collectMeshes(doc, materialNames);
  const usedMaterials = [...new Set(meshes.map((m) => m.material).filter((m): m is string => m !== null))];
  const textureFiles = new Map<Texture, TextureFile>();
  const pending: Promise<void>[] = [];
  const tex = (t: Texture): string => {
    let f = textureFiles.get(t);
    if (!f) {
      f = { path: `textures/texture_${textureFiles.size}.png`, bytes: new Uint8Array() };
      textureFiles.set(t, f);
      const file = f;
      pending.push(texturePng(t, opts).then((b) => void (file.bytes = b)));
    }
    return f.path;
  };
  const materialBlocks = [...materialNames.entries()].filter(([, n]) => usedMaterials.includes(n)).map(([mat, n]) => materialUsda(n, mat, root, tex));
  await Promise.all(pending);
  const usda = `#usda 1.0
(
    customLayerData = {
        string creator = "Fitroom"
    }
    defaultPrim = "Root"
    metersPerUnit = 1
    upAxis = "Y"
)

def Xform "Root" (
    assetInfo = {
        string name = "Root"
    }
    kind = "component"
)
{
    def Scope "Geom"
    {
${meshes.map((m) => meshUsda(m, root)).join('\n\n')}
    }

    def Scope "Materials"
    {
${materialBlocks.join('\n\n')}
    }
}
`;
  return { usda, textures: [...textureFiles.values()] };
}

/**
 * Packs files as a USDZ archive: stored (no compression), the layer first, and each file's data
 * padded to a 64-byte boundary through an extra field in its local header.
 */
export function packUsdz(files: { path: string; bytes: Uint8Array }[]): Uint8Array {
  const zippable: Zippable = {};
  let offset = 0;
  for (const f of files) {
    const nameLen = new TextEncoder().encode(f.path).length;
    const headerEnd = offset + 30 + nameLen + 4; // local header + name + extra field header
    const pad = (USDZ_ALIGNMENT - (headerEnd % USDZ_ALIGNMENT)) % USDZ_ALIGNMENT;
    zippable[f.path] = [f.bytes, { level: 0, mtime: ZIP_MTIME, extra: { [PADDING_EXTRA_ID]: new Uint8Array(pad) } }];
    offset = headerEnd + pad + f.bytes.length;
  }
  return zipSync(zippable);
}

/** Converts a GLB (already aligned: metres, +Y up) to a USDZ file for iOS AR Quick Look. */
export async function glbToUsdz(glb: Uint8Array, opts: UsdzOptions = {}): Promise<Uint8Array> {
  const { doc } = await readGlb(glb);
  const { usda, textures } = await documentToUsda(doc, opts);
  return packUsdz([{ path: USDZ_LAYER_NAME, bytes: new TextEncoder().encode(usda) }, ...textures]);
}
