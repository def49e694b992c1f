import { describe, expect, it } from 'vitest';
import { createQuadMesh, meshFolds, rasteriseMesh, type QuadMesh } from '../../../../adapters/builtin/tryon/mesh-warp.ts';

/** A cols x rows mesh over the photo square [x0, x0 + size] mapped to the packshot by scale k and offset. */
function gridMesh(cols: number, rows: number, x0: number, size: number, k: number, off: number): QuadMesh {
  const m = createQuadMesh(cols, rows);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const i = r * cols + c;
      m.px[i] = x0 + (c / (cols - 1)) * size;
      m.py[i] = x0 + (r / (rows - 1)) * size;
      m.gx[i] = m.px[i] * k + off;
      m.gy[i] = m.py[i] * k + off;
      m.a[i] = c;
      m.b[i] = r;
    }
  }
  return m;
}

describe('mesh warp', () => {
  it('maps every covered pixel once, by the affine map the nodes hold', () => {
    const m = gridMesh(5, 5, 10, 40, 2, 7);
    const W = 64;
    const hits = new Uint8Array(W * W);
    let worst = 0;
    rasteriseMesh(m, W, W, (i, gx, gy) => {
      hits[i]++;
      const x = (i % W) + 0.5;
      const y = Math.floor(i / W) + 0.5;
      worst = Math.max(worst, Math.abs(gx - (2 * x + 7)), Math.abs(gy - (2 * y + 7)));
    });
    let covered = 0;
    for (const h of hits) {
      expect(h).toBeLessThanOrEqual(1);
      covered += h;
    }
    // pixel centres within [10, 50]: 40 x 40
    expect(covered).toBe(40 * 40);
    expect(worst).toBeLessThan(1e-3);
    expect(meshFolds(m)).toBe(0);
  });

  it('finds a fold-over and leaves the folded triangles out instead of drawing them mirrored', () => {
    const m = gridMesh(3, 3, 0, 20, 1, 0);
    // the middle node pushed past its right neighbours: part of the cloth would be mirrored
    m.px[4] = 25;
    const share = meshFolds(m);
    expect(share).toBeGreaterThan(0);
    expect(share).toBeLessThan(1);
    // the whole mesh mirrored left to right: every triangle folds, nothing is drawn
    const mirror = gridMesh(3, 3, 0, 20, 1, 0);
    for (let i = 0; i < mirror.px.length; i++) mirror.px[i] = 20 - mirror.px[i];
    expect(meshFolds(mirror)).toBe(1);
    let drawn = 0;
    rasteriseMesh(mirror, 32, 32, () => drawn++);
    expect(drawn).toBe(0);
  });
});
