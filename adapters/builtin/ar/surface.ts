import { Primitive } from '@gltf-transform/core';
import type { Document, Node } from '@gltf-transform/core';
import { multiply4, transformPoint } from './linalg.ts';
import type { Mat4 } from './linalg.ts';

/** Triangles in world space: 9 numbers per triangle (a, b, c). */
export interface TriangleSoup {
  triangles: Float64Array;
  count: number;
}

export function partName(node: Node): string {
  return node.getName() || node.getMesh()?.getName() || '';
}

/** Triangle index triples of a primitive, or null for points and lines. */
export function triangleIndices(prim: Primitive): Uint32Array | null {
  const mode = prim.getMode();
  const position = prim.getAttribute('POSITION');
  if (!position) return null;
  const idx = prim.getIndices()?.getArray();
  const n = idx ? idx.length : position.getCount();
  const at = (i: number) => (idx ? idx[i] : i);
  if (mode === Primitive.Mode.TRIANGLES) {
    const out = new Uint32Array(n - (n % 3));
    for (let i = 0; i < out.length; i++) out[i] = at(i);
    return out;
  }
  if (mode === Primitive.Mode.TRIANGLE_STRIP || mode === Primitive.Mode.TRIANGLE_FAN) {
    const tris = Math.max(0, n - 2);
    const out = new Uint32Array(tris * 3);
    for (let i = 0; i < tris; i++) {
      if (mode === Primitive.Mode.TRIANGLE_FAN) out.set([at(0), at(i + 1), at(i + 2)], i * 3);
      else out.set(i % 2 === 0 ? [at(i), at(i + 1), at(i + 2)] : [at(i + 1), at(i), at(i + 2)], i * 3);
    }
    return out;
  }
  return null;
}

/**
 * Collects world-space triangles of the default scene's mesh nodes accepted by `include`,
 * optionally premultiplied by `extra`.
 */
export function collectTriangles(doc: Document, include: (name: string) => boolean, extra?: Mat4): TriangleSoup {
  const scene = doc.getRoot().getDefaultScene() ?? doc.getRoot().listScenes()[0];
  const chunks: Float64Array[] = [];
  let count = 0;
  scene?.traverse((node) => {
    const mesh = node.getMesh();
    if (!mesh || !include(partName(node))) return;
    const world = node.getWorldMatrix() as unknown as Mat4;
    const m = extra ? multiply4(extra, world) : world;
    for (const prim of mesh.listPrimitives()) {
      const tri = triangleIndices(prim);
      const pos = prim.getAttribute('POSITION');
      if (!tri || !pos) continue;
      const vc = pos.getCount();
      const world = new Float64Array(vc * 3);
      const el: number[] = [0, 0, 0];
      for (let i = 0; i < vc; i++) {
        pos.getElement(i, el);
        const p = transformPoint(m, [el[0], el[1], el[2]]);
        world[3 * i] = p[0];
        world[3 * i + 1] = p[1];
        world[3 * i + 2] = p[2];
      }
      const out = new Float64Array(tri.length * 3);
      for (let i = 0; i < tri.length; i++) {
        const v = tri[i];
        if (v >= vc) throw new Error('index out of range');
        out[3 * i] = world[3 * v];
        out[3 * i + 1] = world[3 * v + 1];
        out[3 * i + 2] = world[3 * v + 2];
      }
      chunks.push(out);
      count += tri.length / 3;
    }
  });
  const triangles = new Float64Array(count * 9);
  let o = 0;
  for (const c of chunks) {
    triangles.set(c, o);
    o += c.length;
  }
  return { triangles, count };
}
