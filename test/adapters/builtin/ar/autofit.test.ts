import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { NodeIO } from '@gltf-transform/core';
import type { Document } from '@gltf-transform/core';
import { autofitShoe, guessUnits } from '../../../../adapters/builtin/ar/autofit.ts';
import { triangleIndices } from '../../../../adapters/builtin/ar/surface.ts';
import { makeShoeDocument, makeShoeGlb } from '../../../support/shoes.ts';
import type { ShoeSide } from '../../../support/shoes.ts';

/** Deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Uniform random rotation (Shoemake) scaled by s and translated, column-major. */
function randomSimilarity(rand: () => number, s: number, t: number[]): number[] {
  const [u1, u2, u3] = [rand(), rand(), rand()];
  const q = [Math.sqrt(1 - u1) * Math.sin(2 * Math.PI * u2), Math.sqrt(1 - u1) * Math.cos(2 * Math.PI * u2), Math.sqrt(u1) * Math.sin(2 * Math.PI * u3), Math.sqrt(u1) * Math.cos(2 * Math.PI * u3)];
  const [x, y, z, w] = q;
  const R = [
    1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w),
    2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
    2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y),
  ];
  return [R[0] * s, R[1] * s, R[2] * s, 0, R[3] * s, R[4] * s, R[5] * s, 0, R[6] * s, R[7] * s, R[8] * s, 0, t[0], t[1], t[2], 1];
}

function positionsOf(doc: Document, part: string): Float32Array {
  const node = doc.getRoot().listNodes().find((n) => n.getName() === part)!;
  return node.getMesh()!.listPrimitives()[0].getAttribute('POSITION')!.getArray() as Float32Array;
}

/**
 * Least-squares affine map Y ≈ A X + t between corresponding points; for a similarity A = sR.
 * Returns the rotation angle of R (degrees), the scale s and where X's origin lands.
 */
function fitSimilarity(X: Float32Array, Y: Float32Array): { angleDeg: number; scale: number; origin: number[] } {
  const n = X.length / 3;
  const mx = [0, 0, 0], my = [0, 0, 0];
  for (let i = 0; i < n; i++) for (let k = 0; k < 3; k++) { mx[k] += X[3 * i + k] / n; my[k] += Y[3 * i + k] / n; }
  const Cxx = new Array(9).fill(0), Cyx = new Array(9).fill(0);
  for (let i = 0; i < n; i++) {
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) {
      Cxx[r * 3 + c] += (X[3 * i + r] - mx[r]) * (X[3 * i + c] - mx[c]);
      Cyx[r * 3 + c] += (Y[3 * i + r] - my[r]) * (X[3 * i + c] - mx[c]);
    }
  }
  const inv = invert3(Cxx);
  const A = new Array(9).fill(0);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) for (let k = 0; k < 3; k++) A[r * 3 + c] += Cyx[r * 3 + k] * inv[k * 3 + c];
  const det = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) + A[2] * (A[3] * A[7] - A[4] * A[6]);
  const scale = Math.cbrt(det);
  const trace = (A[0] + A[4] + A[8]) / scale;
  const angleDeg = (Math.acos(Math.max(-1, Math.min(1, (trace - 1) / 2))) * 180) / Math.PI;
  const origin = [0, 1, 2].map((r) => my[r] - (A[r * 3] * mx[0] + A[r * 3 + 1] * mx[1] + A[r * 3 + 2] * mx[2]));
  return { angleDeg, scale, origin };
}

function invert3(m: number[]): number[] {
  const [a, b, c, d, e, f, g, h, i] = m;
  const A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
  const det = a * A + b * B + c * C;
  return [A / det, -(b * i - c * h) / det, (b * f - c * e) / det, B / det, (a * i - c * g) / det, -(a * f - c * d) / det, C / det, -(a * h - b * g) / det, (a * e - b * d) / det];
}

/** Share of triangles whose winding agrees with their vertex normals (front faces outward). */
function windingAgreement(doc: Document, part: string): number {
  const prim = doc.getRoot().listNodes().find((n) => n.getName() === part)!.getMesh()!.listPrimitives()[0];
  const P = prim.getAttribute('POSITION')!.getArray()!;
  const N = prim.getAttribute('NORMAL')!.getArray()!;
  const idx = triangleIndices(prim)!;
  let agree = 0;
  let total = 0;
  for (let t = 0; t < idx.length; t += 3) {
    const [a, b, c] = [idx[t], idx[t + 1], idx[t + 2]];
    const u = [P[3 * b] - P[3 * a], P[3 * b + 1] - P[3 * a + 1], P[3 * b + 2] - P[3 * a + 2]];
    const v = [P[3 * c] - P[3 * a], P[3 * c + 1] - P[3 * a + 1], P[3 * c + 2] - P[3 * a + 2]];
    const n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    if (Math.hypot(n[0], n[1], n[2]) < 1e-12) continue; // degenerate (heel and toe tips)
    total++;
    const m = [0, 1, 2].map((k) => N[3 * a + k] + N[3 * b + k] + N[3 * c + k]);
    if (n[0] * m[0] + n[1] * m[1] + n[2] * m[2] > 0) agree++;
  }
  return agree / total;
}

const io = new NodeIO();
const validator = createRequire(import.meta.url)('gltf-validator') as {
  validateBytes(data: Uint8Array, options?: { maxIssues?: number }): Promise<{ issues: { numErrors: number; numWarnings: number; messages: { code: string; message: string; severity: number }[] } }>;
};

describe('guessUnits', () => {
  it.each([
    [0.27, 'm', 1],
    [27, 'cm', 0.01],
    [270, 'mm', 0.001],
    [0.39, 'm', 1],
    [3.1, 'unknown', 0.27 / 3.1],
    [1000, 'unknown', 0.27 / 1000],
  ])('length %s → %s', (length, units, factor) => {
    const g = guessUnits(length);
    expect(g.unitsGuess).toBe(units);
    expect(g.scaleFactor).toBeCloseTo(factor, 10);
  });
});

describe('autofitShoe', () => {
  it('aligns a procedural shoe under random rotations, translations and scales', async () => {
    const rand = rng(20261121);
    const unitChoices = [
      { name: 'm', factor: 1 },
      { name: 'cm', factor: 100 },
      { name: 'mm', factor: 1000 },
      { name: 'unknown', factor: 3.7 },
    ];
    const rows: string[] = [];
    let worstAngle = 0;
    let worstLength = 0;
    const trials = 24;
    for (let i = 0; i < trials; i++) {
      const side: ShoeSide = i % 2 === 0 ? 'right' : 'left';
      const length = 0.23 + 0.07 * rand();
      const unit = unitChoices[i % unitChoices.length];
      const s = unit.factor * (0.97 + 0.06 * rand());
      const t = [0, 1, 2].map(() => (rand() - 0.5) * 2 * s);
      const M = randomSimilarity(rand, s, t);
      const baked = i % 3 === 0;
      const glb = await makeShoeGlb({ side, length, ...(baked ? { bakedMatrix: M } : { rootMatrix: M }) });
      const result = await autofitShoe(glb);
      const expectedLength = unit.name === 'unknown' ? 0.27 : length * (s / unit.factor);
      const canonical = await makeShoeDocument({ side, length });
      const aligned = await io.readBinary(result.glb);
      const fit = fitSimilarity(positionsOf(canonical, 'upper'), positionsOf(aligned, 'upper'));
      const lengthErr = Math.abs(result.properties.dimensions.length - expectedLength) / expectedLength;
      const originErr = Math.hypot(...fit.origin);
      worstAngle = Math.max(worstAngle, fit.angleDeg);
      worstLength = Math.max(worstLength, lengthErr);
      rows.push(
        `${String(i).padStart(2)} ${side.padEnd(5)} ${unit.name.padEnd(7)} ${baked ? 'baked' : 'node '} angle ${fit.angleDeg.toFixed(2)}° length ${(lengthErr * 100).toFixed(2)}% heel→origin ${(originErr * 1000).toFixed(1)} mm side ${result.properties.side}`,
      );
      expect(result.properties.unitsGuess).toBe(unit.name);
      expect(result.properties.side).toBe(side);
      expect(result.properties.mirrorSide).toBe(side === 'left' ? 'right' : 'left');
      expect(fit.angleDeg).toBeLessThan(5);
      expect(lengthErr).toBeLessThan(0.05);
      // the canonical heel point lands near the origin (within 1 cm)
      expect(originErr).toBeLessThan(0.01);
    }
    console.log(`autofit over ${trials} random poses\n${rows.join('\n')}\nworst angle ${worstAngle.toFixed(2)}°, worst length error ${(worstLength * 100).toFixed(2)}%`);
  });

  it('puts the sole on y = 0 and the toe towards +Z, and mirrors the pair', async () => {
    const glb = await makeShoeGlb({ side: 'left', rootMatrix: randomSimilarity(rng(7), 1000, [50, -20, 300]) });
    const result = await autofitShoe(glb);
    const aligned = await io.readBinary(result.glb);
    const mirror = await io.readBinary(result.mirrorGlb);
    const sole = positionsOf(aligned, 'sole');
    const ys = Array.from({ length: sole.length / 3 }, (_, i) => sole[3 * i + 1]);
    const zs = Array.from({ length: sole.length / 3 }, (_, i) => sole[3 * i + 2]);
    expect(Math.min(...ys)).toBeCloseTo(0, 3);
    expect(Math.min(...zs)).toBeCloseTo(0, 3);
    expect(Math.max(...zs)).toBeCloseTo(result.properties.dimensions.length, 2);
    // upper is tallest near the heel
    const upper = positionsOf(aligned, 'upper');
    let heelTop = 0, toeTop = 0;
    for (let i = 0; i < upper.length; i += 3) {
      if (upper[i + 2] < 0.25 * result.properties.dimensions.length) heelTop = Math.max(heelTop, upper[i + 1]);
      if (upper[i + 2] > 0.75 * result.properties.dimensions.length) toeTop = Math.max(toeTop, upper[i + 1]);
    }
    expect(heelTop).toBeGreaterThan(toeTop * 1.3);
    expect(result.properties.side).toBe('left');
    // Mirror: every vertex reflected across x = 0, winding and normals still outward
    const mSole = positionsOf(mirror, 'sole');
    for (let i = 0; i < sole.length; i += 3) {
      expect(mSole[i]).toBeCloseTo(-sole[i], 6);
      expect(mSole[i + 1]).toBeCloseTo(sole[i + 1], 6);
      expect(mSole[i + 2]).toBeCloseTo(sole[i + 2], 6);
    }
    for (const part of ['sole', 'upper']) {
      expect(windingAgreement(aligned, part)).toBeGreaterThan(0.99);
      expect(windingAgreement(mirror, part)).toBeGreaterThan(0.99);
    }
    // both files are valid glTF (Khronos validator: no errors, no warnings)
    for (const bytes of [result.glb, result.mirrorGlb]) {
      const report = await validator.validateBytes(bytes, { maxIssues: 50 });
      expect(report.issues.messages.filter((m) => m.severity <= 1)).toEqual([]);
    }
    // Autofit on the mirror recognises the other side
    const again = await autofitShoe(result.mirrorGlb);
    expect(again.properties.side).toBe('right');
    expect(again.properties.unitsGuess).toBe('m');
  });

  it('keeps floor and overlay parts but does not let them steer the fit', async () => {
    const withExtras = await autofitShoe(await makeShoeGlb({ side: 'right', floor: true, overlays: true }));
    const bare = await autofitShoe(await makeShoeGlb({ side: 'right', floor: false, overlays: false }));
    expect(withExtras.properties.parts).toEqual(['sole', 'upper', 'laces', 'perforado_1', 'suelo']);
    expect(bare.properties.parts).toEqual(['sole', 'upper', 'laces']);
    for (let k = 0; k < 16; k++) expect(withExtras.properties.transform[k]).toBeCloseTo(bare.properties.transform[k], 9);
  });

  it('rejects bytes that are not a GLB', async () => {
    await expect(autofitShoe(new TextEncoder().encode('not a glb at all, just text'))).rejects.toMatchObject({ code: 'invalid_glb' });
  });
});
