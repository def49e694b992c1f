import { describe, expect, it } from 'vitest';
import { BuiltinProductReconstructor } from '../../../../adapters/builtin/shoe3d/builtin-reconstructor.ts';
import { validateGlb } from '../../../../adapters/builtin/shoe3d/validate-glb.ts';
import { makeShoeMesh, renderProductViews, SHOE_LENGTH } from '../../../support/products.ts';
import { compare, glbMeshes, request, viewsOf } from './reconstruction-helpers.ts';

// Measured (384 px, point-to-surface): 1 view Chamfer 5.2 mm / F 0.45 (inflated silhouette).
const shoe = makeShoeMesh();
const reconstructor = new BuiltinProductReconstructor();

describe('builtin reconstruction from one view', () => {
  it('one view: a closed inflated shape at shoe scale, and a note saying so', async () => {
    const out = await reconstructor.reconstruct(request(await viewsOf(renderProductViews(shoe, [0], { size: 384 })), 'shoe'));
    expect((await validateGlb(out.glb)).errors).toBe(0);
    expect(out.notes.join('\n')).toMatch(/one view: closed shape by inflating the silhouette/);
    const m = compare(await glbMeshes(out.glb), shoe, SHOE_LENGTH);
    expect(m.extent[0]).toBeCloseTo(0.28, 3);
    // 37% of the length deep, as assumed
    expect(m.extent[2]).toBeGreaterThan(0.09);
    expect(m.extent[2]).toBeLessThan(0.115);
    expect(m.chamfer).toBeLessThan(0.0058);
  });

  it('two mirror-image views are taken as opposite sides', async () => {
    const out = await reconstructor.reconstruct(request(await viewsOf(renderProductViews(shoe, [0, 180], { size: 256 })), 'shoe'));
    expect(out.notes.join('\n')).toMatch(/opposite sides/);
    expect((await validateGlb(out.glb)).errors).toBe(0);
  });

});
