import { describe, expect, it } from 'vitest';
import { BuiltinProductReconstructor } from '../../../../adapters/builtin/shoe3d/builtin-reconstructor.ts';
import { buildSilhouette } from '../../../../adapters/builtin/shoe3d/silhouettes.ts';
import { chooseAngles, estimateAngles } from '../../../../adapters/builtin/shoe3d/view-angles.ts';
import { makeBagMesh, makeShoeMesh, renderProductViews, SHOE_LENGTH } from '../../../support/products.ts';
import { compare, glbMeshes, request, viewsOf } from './reconstruction-helpers.ts';
import { ankleBoot, materialsVariantsShoe, photographObject } from '../../../support/objects.ts';

/**
 * The photos' order does not decide the model: every order of the same photos gets the same angle
 * per photo, a set of both sides and front and back (the merchant's usual set) is recognised, and
 * the model from a shuffled order matches the one from the usual order.
 */

/** Eight of the 24 orders: every photo first once, each forwards and backwards. */
const ORDERS = [[0, 1, 2, 3], [3, 2, 1, 0], [1, 2, 3, 0], [0, 3, 2, 1], [2, 3, 0, 1], [1, 0, 3, 2], [3, 0, 1, 2], [2, 1, 0, 3]];

describe('view angles from the images, whatever the order', () => {
  for (const [name, mesh, truth, elevation] of [
    ['a shoe turned through half a turn', makeShoeMesh(), [0, 45, 90, 135], 0],
    ['a shoe seen from slightly above', makeShoeMesh(), [0, 45, 90, 135], 10],
    ['a shoe: both sides, front and back', makeShoeMesh(), [0, 180, 90, 270], 0],
    ['a bag: both sides, front and back', makeBagMesh(), [0, 180, 90, 270], 0],
  ] as const) {
    it(`${name}: each photo gets its role in every order`, async () => {
      const views = renderProductViews(mesh, [...truth], { size: 256, elevationDeg: elevation });
      const sils = views.map((v) => buildSilhouette(v.cutout, 160)!);
      const seen = new Set<string>();
      for (const order of ORDERS) {
        const angles = (await estimateAngles(order.map((i) => sils[i]))).angles;
        // back to photo order: the angle each photo got
        const perPhoto = new Array<number>(4);
        order.forEach((photo, k) => (perPhoto[photo] = angles[k]));
        seen.add(perPhoto.join('/'));
      }
      for (const s of seen) {
        const got = s.split('/').map(Number);
        if (truth[1] === 180) {
          // the sides are told from front and back in every order; which side is which only mirrors
          // the model (opposite silhouettes are mirror images), so the order sent decides that tie
          expect(new Set([got[0], got[1]]), s).toEqual(new Set([0, 180]));
          expect(new Set([got[2], got[3]]), s).toEqual(new Set([90, 270]));
        } else expect(got, s).toEqual([...truth]);
      }
      if (truth[1] !== 180) expect(seen.size).toBe(1);
    });
  }

  // textured objects the reconstruction did not make, photographed with a perspective camera
  for (const [name, load, truth, elevation] of [
    ['a real sneaker model turned through half a turn', materialsVariantsShoe, [0, 45, 90, 135], 0],
    ['a real sneaker model seen from 10 degrees above', materialsVariantsShoe, [0, 45, 90, 135], 10],
    ['a real sneaker model: both sides, front and back', materialsVariantsShoe, [0, 180, 90, 270], 0],
    ['an ankle boot turned through half a turn', ankleBoot, [0, 45, 90, 135], 0],
  ] as const) {
    it(`${name}: each photo gets its role in every order`, async () => {
      const photos = photographObject(await load(), [...truth], { size: 320, elevationDeg: elevation, distance: 4, supersample: 2 });
      const sils = photos.map((p) => buildSilhouette(p.cutout, 160)!);
      for (const order of ORDERS) {
        const angles = (await estimateAngles(order.map((i) => sils[i]))).angles;
        const perPhoto = new Array<number>(4);
        order.forEach((photo, k) => (perPhoto[photo] = angles[k]));
        if (truth[1] === 180) {
          expect(new Set([perPhoto[0], perPhoto[1]]), perPhoto.join('/')).toEqual(new Set([0, 180]));
          expect(new Set([perPhoto[2], perPhoto[3]]), perPhoto.join('/')).toEqual(new Set([90, 270]));
        } else expect(perPhoto, `order ${order.join('')}`).toEqual([...truth]);
      }
    });
  }

  it('six photos of the real sneaker model in shuffled orders each get their azimuth', async () => {
    const azimuths = [0, 30, 60, 90, 120, 150];
    const photos = photographObject(await materialsVariantsShoe(), azimuths, { size: 320, elevationDeg: 10, distance: 4, supersample: 2 });
    const sils = photos.map((p) => buildSilhouette(p.cutout, 160)!);
    for (const order of [[3, 5, 0, 4, 1, 2], [5, 4, 3, 2, 1, 0], [2, 4, 1, 5, 0, 3]]) {
      const choice = await chooseAngles(order.map((i) => sils[i]), []);
      expect(choice.angles.map(Math.round), order.join('')).toEqual(order.map((i) => azimuths[i]));
      expect(choice.layout).toMatch(/estimated from the images/);
    }
  });

  it('gives the same model from a shuffled order as from the usual one (Chamfer within 5 %)', async () => {
    const shoe = makeShoeMesh();
    const photos = renderProductViews(shoe, [0, 45, 90, 135], { size: 320 });
    const r = new BuiltinProductReconstructor();
    const inOrder = compare(await glbMeshes((await r.reconstruct(request(await viewsOf(photos), 'shoe'))).glb), shoe, SHOE_LENGTH);
    const shuffled = [photos[2], photos[0], photos[3], photos[1]];
    const out = await r.reconstruct(request(await viewsOf(shuffled), 'shoe'));
    expect(out.notes.join('\n')).toMatch(/angles 90\/0\/135\/45 deg \(half turn, estimated from the images/);
    const m = compare(await glbMeshes(out.glb), shoe, SHOE_LENGTH);
    expect(Math.abs(m.chamfer - inOrder.chamfer) / inOrder.chamfer).toBeLessThan(0.05);
    expect(m.fscore).toBeGreaterThan(0.6);
  });
});
