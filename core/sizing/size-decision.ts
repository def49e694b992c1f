import { DIMENSIONS } from '../twins/body.ts';
import { fromSpace } from './body-distribution.ts';
import type { BodyComponent, BodyDistribution } from './body-distribution.ts';
import { normalQuantile } from './normal.ts';
import { CM_PER_INCH } from './size-chart.ts';
import type { FitPreference, SizeChart } from './size-chart.ts';


/**
 * The rule for a body whose every value is known (documented in README, "Size fitting"): each
 * size costs the centimetres by which the body misses its ranges, summed over the dimensions the
 * size gives; the cheapest size wins. A body in M by chest and L by waist therefore gets the size
 * it misses by less in total, and no dimension outranks another. Sizes that cost the same (the
 * body fits both of two overlapping rows) go to the one whose ranges it sits more centrally in,
 * then to the chart's first.
 *
 * `fitPreference` weighs the two ways of missing: `loose` (the shopper likes room) counts a body
 * above a range, where the garment would be tight, double and one below it half, so conflicts
 * go to the larger size; `snug` does the reverse. `regular` is neutral.
 */
export const MISS_WEIGHTS: Readonly<Record<FitPreference, { tight: number; loose: number }>> = {
  regular: { tight: 1, loose: 1 },
  loose: { tight: 2, loose: 0.5 },
  snug: { tight: 0.5, loose: 2 },
};

/** A chart in cm, as flat arrays: row r, chart dimension j at r * dims.length + j (NaN = not given). */
export interface PreparedChart {
  labels: string[];
  /** Indices into DIMENSIONS of the dimensions any row gives. */
  dims: number[];
  lo: Float64Array;
  hi: Float64Array;
  centre: Float64Array;
  /** Half-width, at least 1 cm, for the centrality tie-break. */
  half: Float64Array;
}

export function prepareChart(chart: SizeChart): PreparedChart {
  const factor = chart.unit === 'in' ? CM_PER_INCH : 1;
  const dims = DIMENSIONS.map((d, i) => [d, i] as const)
    .filter(([d]) => chart.sizes.some((s) => s.measurements[d]))
    .map(([, i]) => i);
  const n = chart.sizes.length * dims.length;
  const lo = new Float64Array(n).fill(NaN);
  const hi = new Float64Array(n).fill(NaN);
  const centre = new Float64Array(n).fill(NaN);
  const half = new Float64Array(n).fill(NaN);
  chart.sizes.forEach((row, r) => {
    dims.forEach((di, j) => {
      const range = row.measurements[DIMENSIONS[di]];
      if (!range) return;
      const k = r * dims.length + j;
      lo[k] = range.min * factor;
      hi[k] = range.max * factor;
      centre[k] = (lo[k] + hi[k]) / 2;
      half[k] = Math.max(1, (hi[k] - lo[k]) / 2);
    });
  });
  return { labels: chart.sizes.map((s) => s.label), dims, lo, hi, centre, half };
}

/** Weighted cm by which value x misses [lo, hi]; 0 inside. */
function miss(x: number, lo: number, hi: number, w: { tight: number; loose: number }): number {
  return x > hi ? (x - hi) * w.tight : x < lo ? (lo - x) * w.loose : 0;
}

/** The row the rule picks for a body given as cm values per chart dimension. */
export function decide(chart: PreparedChart, x: ArrayLike<number>, preference: FitPreference = 'regular'): number {
  return choose(chart, x, MISS_WEIGHTS[preference], null);
}

/** decide(), optionally writing each row's weighted miss per dimension into missOut (PreparedChart layout). */
function choose(chart: PreparedChart, x: ArrayLike<number>, w: { tight: number; loose: number }, missOut: Float64Array | null): number {
  const nd = chart.dims.length;
  let best = -1;
  let bestCost = Infinity;
  let bestCentral = Infinity;
  for (let r = 0; r < chart.labels.length; r++) {
    let cost = 0;
    let central = 0;
    for (let j = 0; j < nd; j++) {
      const k = r * nd + j;
      const lo = chart.lo[k];
      if (lo !== lo) continue; // NaN: the row does not give this dimension
      const m = miss(x[j], lo, chart.hi[k], w);
      if (missOut) missOut[k] = m;
      cost += m;
      central += Math.abs(x[j] - chart.centre[k]) / chart.half[k];
    }
    if (cost < bestCost - 1e-9 || (cost <= bestCost + 1e-9 && central < bestCentral - 1e-9)) {
      best = r;
      bestCost = cost;
      bestCentral = central;
    }
  }
  return best;
}

/**
 * Points per body: each mixture component gets an equal share, spread as a product grid over its
 * uncertain dimensions, with at most MAX_PER_AXIS points per axis. About 250 evaluations of the
 * rule per product keep 10 products well under a millisecond.
 */
const POINT_BUDGET = 256;
const MAX_PER_AXIS = 32;
const strataCache = new Map<number, number[]>();
/** The midpoints of n equal-probability strata of a standard normal. */
function strata(n: number): number[] {
  let s = strataCache.get(n);
  if (!s) {
    s = Array.from({ length: n }, (_, i) => (n === 1 ? 0 : normalQuantile((i + 0.5) / n)));
    strataCache.set(n, s);
  }
  return s;
}

export interface SizeOdds {
  /** Probability per row that the rule would pick it if every value were known. */
  probability: Float64Array;
  /** Expected weighted miss (cm) per row and chart dimension, same layout as PreparedChart.lo. */
  expectedMiss: Float64Array;
}

/**
 * Integrates the rule over the body's distribution: for each mixture component, a grid of
 * equal-probability points over the chart dimensions that are uncertain (correlated through the
 * Cholesky factor of their covariance); supplied dimensions stay at their value.
 */
export function sizeOdds(chart: PreparedChart, dist: BodyDistribution, preference: FitPreference = 'regular'): SizeOdds {
  const nr = chart.labels.length;
  const nd = chart.dims.length;
  const probability = new Float64Array(nr);
  const expectedMiss = new Float64Array(nr * nd);
  const w = MISS_WEIGHTS[preference];
  const x = new Float64Array(nd);
  const missAt = new Float64Array(nr * nd);
  const accumulate = (weight: number) => {
    probability[choose(chart, x, w, missAt)] += weight;
    for (let k = 0; k < missAt.length; k++) expectedMiss[k] += weight * missAt[k];
  };
  const share = POINT_BUDGET / dist.components.length;
  for (const c of dist.components) integrateComponent(chart, dist.space, c, x, share, accumulate);
  return { probability, expectedMiss };
}

function integrateComponent(chart: PreparedChart, space: BodyDistribution['space'], c: BodyComponent, x: Float64Array, budget: number, accumulate: (w: number) => void): void {
  const uncertain: number[] = [];
  chart.dims.forEach((di, j) => {
    if (c.cov[di][di] > 1e-10) uncertain.push(j);
    else x[j] = fromSpace(space, c.mean[di]);
  });
  const m = uncertain.length;
  if (m === 0) {
    accumulate(c.weight);
    return;
  }
  const idx = uncertain.map((j) => chart.dims[j]);
  const l = cholesky(idx.map((a) => idx.map((b) => c.cov[a][b])));
  const n = Math.max(2, Math.min(MAX_PER_AXIS, Math.floor(budget ** (1 / m) + 1e-9)));
  const z0 = strata(n);
  const total = n ** m;
  const weight = c.weight / total;
  const z = new Float64Array(m);
  for (let t = 0; t < total; t++) {
    let rest = t;
    for (let a = 0; a < m; a++) {
      z[a] = z0[rest % n];
      rest = Math.floor(rest / n);
    }
    for (let a = 0; a < m; a++) {
      let v = c.mean[idx[a]];
      for (let b = 0; b <= a; b++) v += l[a][b] * z[b];
      x[uncertain[a]] = fromSpace(space, v);
    }
    accumulate(weight);
  }
}

/** Lower Cholesky factor of a small covariance; a tiny diagonal jitter keeps it defined. */
function cholesky(a: number[][]): number[][] {
  const n = a.length;
  const l = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i][j];
      for (let k = 0; k < j; k++) s -= l[i][k] * l[j][k];
      l[i][j] = i === j ? Math.sqrt(Math.max(s, 1e-12)) : s / l[j][j];
    }
  }
  return l;
}
