import { describe, expect, it } from 'vitest';
import { fitAffine, fitTps } from '../../../../adapters/builtin/tryon/tps.ts';

describe('thin-plate spline', () => {
  const from = [
    { x: 0, y: 0 },
    { x: 100, y: 0 },
    { x: 0, y: 100 },
    { x: 100, y: 100 },
    { x: 50, y: 50 },
    { x: 20, y: 70 },
  ];

  it('passes through its control points', () => {
    const to = from.map((p, i) => ({ x: p.x * 1.5 + 10 + (i === 4 ? 12 : 0), y: p.y * 0.8 - 5 + (i === 5 ? -9 : 0) }));
    const tps = fitTps(from, to, 1e-9);
    const out = new Float64Array(2);
    from.forEach((p, i) => {
      tps.map(p.x, p.y, out);
      expect(out[0]).toBeCloseTo(to[i].x, 4);
      expect(out[1]).toBeCloseTo(to[i].y, 4);
    });
  });

  it('reproduces an affine map exactly everywhere', () => {
    const f = (x: number, y: number) => ({ x: 0.9 * x - 0.2 * y + 7, y: 0.3 * x + 1.1 * y - 3 });
    const tps = fitTps(from, from.map((p) => f(p.x, p.y)));
    const out = new Float64Array(2);
    tps.map(250, -40, out);
    expect(out[0]).toBeCloseTo(f(250, -40).x, 3);
    expect(out[1]).toBeCloseTo(f(250, -40).y, 3);
    const affine = fitAffine(from, from.map((p) => f(p.x, p.y)));
    expect(affine({ x: 33, y: 44 }).x).toBeCloseTo(f(33, 44).x, 6);
  });
});
