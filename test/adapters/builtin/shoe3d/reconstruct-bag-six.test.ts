import { describe, expect, it } from 'vitest';
import { BuiltinProductReconstructor } from '../../../../adapters/builtin/shoe3d/builtin-reconstructor.ts';
import { validateGlb } from '../../../../adapters/builtin/shoe3d/validate-glb.ts';
import { BAG_WIDTH, makeBagMesh, renderProductViews } from '../../../support/products.ts';
import { compare, glbMeshes, request, viewsOf } from './reconstruction-helpers.ts';

// Measured (384 px views, point-to-surface, F at 3 mm): 6 views Chamfer 0.61 mm / F 0.973.
const bag = makeBagMesh();
const reconstructor = new BuiltinProductReconstructor();

describe('builtin reconstruction: bag from 6 views', () => {
  it('is valid and closer than with 4 views', async () => {
    const photos = renderProductViews(bag, [0, 30, 60, 90, 120, 150], { size: 384 });
    const out = await reconstructor.reconstruct(request(await viewsOf(photos), 'other'));
    expect((await validateGlb(out.glb)).errors).toBe(0);
    const m = compare(await glbMeshes(out.glb), bag, BAG_WIDTH);
    expect(m.chamfer).toBeLessThan(0.0008);
    expect(m.fscore).toBeGreaterThan(0.94);
  });
});
