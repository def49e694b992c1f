import { DIMENSIONS } from '../twins/body.ts';
import type { Dimension, Gender } from '../twins/body.ts';
import type { BodyImputer, Imputation } from './imputation.ts';
import type { ReferenceBody } from './reference/reference-body.ts';

const N = DIMENSIONS.length;

interface Population {
  /** Row-major, N values per body. */
  values: Float64Array;
  count: number;
  sd: number[];
}

/**
 * k-nearest-neighbour averaging: the k reference bodies closest to the supplied values
 * (Euclidean distance in units of each dimension's standard deviation) are averaged for the
 * missing dimensions. k = 1 is the spec's floor (copy the closest body); averaging about ten
 * is markedly more accurate. Never rejects a query: out-of-data values get the closest bodies,
 * so predictions are clamped to the data's range.
 */
export class NearestBodies implements BodyImputer {
  readonly #k: number;
  readonly #populations: Record<Gender | 'both', Population>;

  constructor(bodies: readonly ReferenceBody[], k = 10) {
    if (k < 1) throw new Error('k must be at least 1');
    this.#k = k;
    const build = (subset: readonly ReferenceBody[]): Population => {
      const values = new Float64Array(subset.length * N);
      subset.forEach((b, i) => DIMENSIONS.forEach((d, j) => (values[i * N + j] = b.measurements[d])));
      const sd = DIMENSIONS.map((_, j) => {
        let s = 0;
        let s2 = 0;
        for (let i = 0; i < subset.length; i++) {
          const v = values[i * N + j];
          s += v;
          s2 += v * v;
        }
        const m = s / subset.length;
        return Math.sqrt(Math.max(1e-9, s2 / subset.length - m * m));
      });
      return { values, count: subset.length, sd };
    };
    this.#populations = {
      female: build(bodies.filter((b) => b.gender === 'female')),
      male: build(bodies.filter((b) => b.gender === 'male')),
      both: build(bodies),
    };
  }

  impute(known: Partial<Record<Dimension, number>>, gender: Gender | null): Imputation {
    const pop = this.#populations[gender ?? 'both'];
    const dims: number[] = [];
    const q: number[] = [];
    const inv: number[] = [];
    DIMENSIONS.forEach((d, j) => {
      const v = known[d];
      if (v !== undefined) {
        dims.push(j);
        q.push(v);
        inv.push(1 / pop.sd[j]);
      }
    });
    const k = Math.min(this.#k, pop.count);
    // Insertion into a small sorted list of the k best; ties keep data order.
    const bestDist = new Float64Array(k).fill(Infinity);
    const bestIdx = new Int32Array(k).fill(-1);
    const { values } = pop;
    for (let i = 0; i < pop.count; i++) {
      let dist = 0;
      const base = i * N;
      for (let t = 0; t < dims.length; t++) {
        const z = (values[base + dims[t]] - q[t]) * inv[t];
        dist += z * z;
      }
      if (dist >= bestDist[k - 1]) continue;
      let p = k - 1;
      while (p > 0 && bestDist[p - 1] > dist) {
        bestDist[p] = bestDist[p - 1];
        bestIdx[p] = bestIdx[p - 1];
        p--;
      }
      bestDist[p] = dist;
      bestIdx[p] = i;
    }
    const mean = {} as Record<Dimension, number>;
    const sd = {} as Record<Dimension, number>;
    DIMENSIONS.forEach((d, j) => {
      const v = known[d];
      if (v !== undefined) {
        mean[d] = v;
        sd[d] = 0;
        return;
      }
      let s = 0;
      let s2 = 0;
      for (let t = 0; t < k; t++) {
        const x = values[bestIdx[t] * N + j];
        s += x;
        s2 += x * x;
      }
      const m = s / k;
      mean[d] = m;
      // The spread of the neighbours, widened for the error of their mean; with k = 1 there is no
      // spread to measure, so fall back to the population's.
      sd[d] = k > 1 ? Math.sqrt(Math.max(0, (s2 / k - m * m) * (k / (k - 1))) * (1 + 1 / k)) : pop.sd[j];
    });
    return { mean, sd };
  }
}
