import { describe, expect, it } from 'vitest';
import { BuiltinProductReconstructor } from '../../../../adapters/builtin/shoe3d/builtin-reconstructor.ts';
import { validateGlb } from '../../../../adapters/builtin/shoe3d/validate-glb.ts';
import { BAG_WIDTH, makeBagMesh, renderProductViews } from '../../../support/products.ts';
import { compare, glbMeshes, request, textureError, viewsOf } from './reconstruction-helpers.ts';

// Thresholds measured on these generated views (384 px, point-to-surface, F at 3 mm): 4 views
// Chamfer 0.76 mm / F 0.931, 6 views 0.61 mm / F 0.973.
const bag = makeBagMesh();
const reconstructor = new BuiltinProductReconstructor();

describe('builtin reconstruction: bag (productType other)', () => {
  it('4 views: valid GLB 30 cm wide, close to the true shape, handles kept', async () => {
    const photos = renderProductViews(bag, [0, 45, 90, 135], { size: 384 });
    const out = await reconstructor.reconstruct(request(await viewsOf(photos), 'other'));
    expect((await validateGlb(out.glb)).errors).toBe(0);
    expect(out.notes.join('\n')).toMatch(/widest side set to 30 cm/);
    expect(out.notes.join('\n')).toMatch(/front-back symmetry holds/);
    const meshes = await glbMeshes(out.glb);
    const m = compare(meshes, bag, BAG_WIDTH);
    expect(m.extent[0]).toBeCloseTo(0.3, 3);
    expect(Math.abs(m.extent[1] - 0.347)).toBeLessThan(0.006);
    expect(m.chamfer).toBeLessThan(0.001);
    expect(m.fscore).toBeGreaterThan(0.9);
    // the hole under the handles stays open: no surface at the middle of the arch
    const p = meshes[0].positions;
    let inArch = 0;
    for (let i = 0; i < p.length; i += 3) if (Math.abs(p[i]) < 0.03 && p[i + 1] > 0.26 && p[i + 1] < 0.3) inArch++;
    expect(inArch).toBe(0);
    for (const ph of photos) expect(textureError(meshes, ph.cutout, ph.angleDeg)).toBeLessThan(16);
  });
});
