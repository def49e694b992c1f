import type { Document } from '@gltf-transform/core';
import { bakeWorldTransforms } from './bake-transforms.ts';
import { scale4 } from './linalg.ts';

/**
 * Turns an aligned shoe into the other shoe of the pair: reflection across the sagittal plane
 * x = 0 (the aligned frame puts the heel centre there), with the triangle winding reversed and
 * normals and tangent handedness reflected so the surface still faces outward.
 */
export function mirrorDocument(doc: Document): void {
  bakeWorldTransforms(doc, scale4([-1, 1, 1]));
}
