import { describe, expect, it } from 'vitest';
import { BuiltinProductReconstructor } from '../../../../adapters/builtin/shoe3d/builtin-reconstructor.ts';
import { validateGlb } from '../../../../adapters/builtin/shoe3d/validate-glb.ts';
import { makeShoeMesh, renderProductViews, SHOE_LENGTH } from '../../../support/products.ts';
import { compare, glbMeshes, request, viewsOf } from './reconstruction-helpers.ts';

// Measured (384 px, point-to-surface): 2 views Chamfer 4.7 mm / F 0.59.
const shoe = makeShoeMesh();
const reconstructor = new BuiltinProductReconstructor();

describe('builtin reconstruction from two views', () => {
  it('two views: side and front carve a hull', async () => {
    const out = await reconstructor.reconstruct(request(await viewsOf(renderProductViews(shoe, [0, 90], { size: 384 })), 'shoe'));
    expect((await validateGlb(out.glb)).errors).toBe(0);
    expect(out.notes.join('\n')).toMatch(/side and front/);
    const m = compare(await glbMeshes(out.glb), shoe, SHOE_LENGTH);
    // solid generated shoe, hollowed as shoes are (see reconstruct-shoe.test.ts): 6.02 mm / 0.520 measured
    expect(m.chamfer).toBeLessThan(0.0066);
    expect(m.fscore).toBeGreaterThan(0.49);
  });

  it('stops when the request is aborted', async () => {
    const ac = new AbortController();
    ac.abort(new Error('cancelled'));
    const views = await viewsOf(renderProductViews(shoe, [0, 90], { size: 128 }));
    await expect(reconstructor.reconstruct({ views, productType: 'shoe', quality: 'default', signal: ac.signal })).rejects.toThrow('cancelled');
  });
});
