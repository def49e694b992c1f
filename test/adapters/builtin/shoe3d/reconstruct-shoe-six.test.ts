import { describe, expect, it } from 'vitest';
import { BuiltinProductReconstructor } from '../../../../adapters/builtin/shoe3d/builtin-reconstructor.ts';
import { validateGlb } from '../../../../adapters/builtin/shoe3d/validate-glb.ts';
import { makeShoeMesh, renderProductViews, SHOE_LENGTH } from '../../../support/products.ts';
import { compare, glbMeshes, request, viewsOf } from './reconstruction-helpers.ts';

// Measured (384 px views, point-to-surface): 6 views Chamfer 4.62 mm / F 0.601; 4 views 4.98 / 0.607.
describe('builtin reconstruction: shoe from 6 views', () => {
  it('is valid, at scale, and closer than the 4-view threshold', async () => {
    const shoe = makeShoeMesh();
    const photos = renderProductViews(shoe, [0, 30, 60, 90, 120, 150], { size: 384 });
    const out = await new BuiltinProductReconstructor().reconstruct(request(await viewsOf(photos), 'shoe'));
    expect((await validateGlb(out.glb)).errors).toBe(0);
    expect(out.notes.join('\n')).toMatch(/angles 0\/30\/60\/90\/120\/150 deg/);
    const m = compare(await glbMeshes(out.glb), shoe, SHOE_LENGTH);
    expect(m.extent[0]).toBeCloseTo(0.28, 3);
    // solid generated shoe, hollowed as shoes are (see reconstruct-shoe.test.ts): 4.62 mm / 0.601 measured
    expect(m.chamfer).toBeLessThan(0.005);
    expect(m.fscore).toBeGreaterThan(0.58);
  });
});
