import { Document, Primitive } from '@gltf-transform/core';
import type { Accessor, Mesh, Node } from '@gltf-transform/core';
import { determinant3of4, identity4, multiply4 } from './linalg.ts';
import type { Mat4 } from './linalg.ts';
import { triangleIndices } from './surface.ts';

/**
 * Writes `extra * worldMatrix` of every mesh node into its vertex data and resets all node
 * transforms to identity, so the file's vertices are in the final frame. Vertex order is kept;
 * vertex data shared between nodes or primitives is copied before it is changed. A transform with
 * a negative determinant (a mirror) also reverses the triangle winding and the tangent handedness,
 * so faces stay front-facing and normal maps stay correct.
 */
export function bakeWorldTransforms(doc: Document, extra: Mat4 = identity4()): void {
  const scene = doc.getRoot().getDefaultScene() ?? doc.getRoot().listScenes()[0];
  if (!scene) return;
  const meshNodes: { node: Node; matrix: Mat4 }[] = [];
  const all: Node[] = [];
  scene.traverse((node) => {
    all.push(node);
    if (node.getMesh()) meshNodes.push({ node, matrix: multiply4(extra, node.getWorldMatrix() as unknown as Mat4) });
  });
  const usedMeshes = new Set<Mesh>();
  for (const { node, matrix } of meshNodes) {
    let mesh = node.getMesh()!;
    if (usedMeshes.has(mesh)) {
      mesh = mesh.clone();
      node.setMesh(mesh);
    }
    usedMeshes.add(mesh);
    for (const prim of mesh.listPrimitives()) {
      const shared = prim.listParents().some((p) => p !== mesh && p.propertyType === 'Mesh');
      const own = shared ? prim.clone() : prim;
      if (own !== prim) mesh.removePrimitive(prim).addPrimitive(own);
      transformPrimitiveCopy(own, matrix);
    }
  }
  for (const node of all) node.setMatrix(identity4() as never);
}

/** Replaces the primitive's vertex data by transformed copies (the originals stay for others). */
function transformPrimitiveCopy(prim: Primitive, m: Mat4): void {
  const det = determinant3of4(m);
  const normalMatrix = inverseTranspose3(m);
  for (const semantic of prim.listSemantics()) {
    const src = prim.getAttribute(semantic)!;
    if (semantic === 'POSITION') prim.setAttribute(semantic, mapVec3(src, (v) => affine(m, v)));
    else if (semantic === 'NORMAL') prim.setAttribute(semantic, mapVec3(src, (v) => unit(linear(normalMatrix, v))));
    else if (semantic === 'TANGENT') prim.setAttribute(semantic, mapTangent(src, m, det));
  }
  for (const target of prim.listTargets()) {
    for (const semantic of target.listSemantics()) {
      const src = target.getAttribute(semantic)!;
      // Morph targets hold displacements: only the linear part applies.
      if (semantic === 'POSITION') target.setAttribute(semantic, mapVec3(src, (v) => linear(m, v)));
      else if (semantic === 'NORMAL') target.setAttribute(semantic, mapVec3(src, (v) => linear(normalMatrix, v)));
      else if (semantic === 'TANGENT') target.setAttribute(semantic, mapVec3(src, (v) => linear(m, v)));
    }
  }
  if (det < 0) reverseWinding(prim);
}

function affine(m: Mat4, v: number[]): number[] {
  return [
    m[0] * v[0] + m[4] * v[1] + m[8] * v[2] + m[12],
    m[1] * v[0] + m[5] * v[1] + m[9] * v[2] + m[13],
    m[2] * v[0] + m[6] * v[1] + m[10] * v[2] + m[14],
  ];
}

function linear(m: Mat4, v: number[]): number[] {
  return [m[0] * v[0] + m[4] * v[1] + m[8] * v[2], m[1] * v[0] + m[5] * v[1] + m[9] * v[2], m[2] * v[0] + m[6] * v[1] + m[10] * v[2]];
}

function unit(v: number[]): number[] {
  const l = Math.hypot(v[0], v[1], v[2]);
  return l > 0 ? [v[0] / l, v[1] / l, v[2] / l] : v;
}

/** Inverse transpose of the upper 3x3, as a column-major 4x4 for `linear`. */
function inverseTranspose3(m: Mat4): Mat4 {
  const [a, b, c, d, e, f, g, h, i] = [m[0], m[4], m[8], m[1], m[5], m[9], m[2], m[6], m[10]]; // row-major
  const A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
  const D = -(b * i - c * h), E = a * i - c * g, F = -(a * h - b * g);
  const G = b * f - c * e, H = -(a * f - c * d), I = a * e - b * d;
  const det = a * A + b * B + c * C || 1;
  // inverse = adj^T / det; its transpose = cofactor matrix / det (row-major: A B C / D E F / G H I)
  return [A / det, D / det, G / det, 0, B / det, E / det, H / det, 0, C / det, F / det, I / det, 0, 0, 0, 0, 1];
}

function mapVec3(src: Accessor, fn: (v: number[]) => number[]): Accessor {
  const n = src.getCount();
  const out = new Float32Array(n * 3);
  const el: number[] = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    src.getElement(i, el);
    const r = fn(el);
    out[3 * i] = r[0];
    out[3 * i + 1] = r[1];
    out[3 * i + 2] = r[2];
  }
  return src.clone().setNormalized(false).setArray(out);
}

function mapTangent(src: Accessor, m: Mat4, det: number): Accessor {
  const n = src.getCount();
  const out = new Float32Array(n * 4);
  const el: number[] = [0, 0, 0, 0];
  for (let i = 0; i < n; i++) {
    src.getElement(i, el);
    const r = unit(linear(m, el));
    out.set([r[0], r[1], r[2], det < 0 ? -el[3] : el[3]], 4 * i);
  }
  return src.clone().setNormalized(false).setArray(out);
}

function reverseWinding(prim: Primitive): void {
  const tris = triangleIndices(prim);
  if (!tris) return;
  for (let i = 0; i < tris.length; i += 3) {
    const t = tris[i + 1];
    tris[i + 1] = tris[i + 2];
    tris[i + 2] = t;
  }
  const buffer = prim.getAttribute('POSITION')!.getBuffer();
  const fresh = Document.fromGraph(prim.getGraph())!.createAccessor().setType('SCALAR').setArray(new Uint32Array(tris)).setBuffer(buffer);
  prim.setIndices(fresh).setMode(Primitive.Mode.TRIANGLES);
}
