import { DIMENSIONS } from '../twins/body.ts';
import type { BodyProfile, Dimension } from '../twins/body.ts';
import { distributionOf, MEASURED_SD, toSpace } from './body-distribution.ts';
import type { BodyDistribution } from './body-distribution.ts';
import type { EstimatedBodyProfile } from './estimated-profile.ts';
import { phi } from './normal.ts';
import { prepareChart, sizeOdds } from './size-decision.ts';
import type { PreparedChart, SizeOdds } from './size-decision.ts';
import type { FitPreference, SizeFittingProduct } from './size-chart.ts';

export type FitStatus = 'fit' | 'loose' | 'tight';

export interface DimensionFit {
  dimension: Dimension;
  status: FitStatus;
  /** Body minus the nearest range bound, cm: negative = body below the range (loose), positive = above (tight), 0 inside. */
  distanceCm: number;
  supplied: boolean;
  /** Probability (0-1) that the body's value lies within this size's range, given its uncertainty. */
  fitProbability: number;
}

export interface ProductFit {
  id: string;
  recommendedSize: string;
  /** 0-1: the probability that the recommended size is the one the full, exact body would get. */
  confidence: number;
  /** The next most likely sizes, best first; score is the same probability. */
  alternatives: { label: string; score: number }[];
  /** Per dimension of the recommended size's row. */
  dimensions: DimensionFit[];
  /** The dimension that chose the recommended size over the runner-up; null when nothing competed. */
  decidedBy: Dimension | null;
  /** Plain-language summary for the shopper. */
  reason: string;
  fitPreference: FitPreference;
}

/** Ranges narrower than this (cm) are widened around their centre for fitProbability: a tape is not more precise. */
export const MIN_RANGE_WIDTH = 2;
const MAX_ALTERNATIVES = 3;
/** Inside a range but nearer an edge than this share of its width (at most 2 cm) reads as "close to the edge". */
const EDGE_SHARE = 0.25;
const EDGE_MAX_CM = 2;

/**
 * Scoring model. The profile's distribution says what the body may be (supplied values exact,
 * imputed ones spread by the conditional model, a clothing size spread over its band). The rule
 * for an exactly known body (size-decision.ts: least total centimetres outside the ranges,
 * weighted by `fitPreference`) is integrated over that distribution, giving each size the
 * probability that the body, measured in full, would get it. The most probable size is
 * recommended (ties go to the one the body misses by less on average, then the chart's first
 * row); confidence is its probability. With every value supplied this is the rule itself.
 */
export function evaluateProducts(profile: BodyProfile | EstimatedBodyProfile, products: readonly SizeFittingProduct[]): ProductFit[] {
  const dist = distributionOf(profile);
  return products.map((p) => evaluateProduct(profile, dist, p));
}

function evaluateProduct(profile: BodyProfile, dist: BodyDistribution, product: SizeFittingProduct): ProductFit {
  const chart = prepareChart(product.sizeChart);
  const preference = product.fitPreference ?? 'regular';
  const odds = sizeOdds(chart, dist, preference);
  const nd = chart.dims.length;
  const expectedTotal = chart.labels.map((_, r) => {
    let s = 0;
    for (let j = 0; j < nd; j++) s += odds.expectedMiss[r * nd + j] || 0;
    return s;
  });
  const order = chart.labels
    .map((_, i) => i)
    .sort((a, b) => odds.probability[b] - odds.probability[a] || expectedTotal[a] - expectedTotal[b] || a - b);
  const best = order[0];
  const runnerUp = order.length > 1 ? order[1] : null;
  const dimensions = dimensionFits(profile, dist, chart, best);
  const decidedBy = decider(profile, chart, odds, best, runnerUp);
  return {
    id: product.id,
    recommendedSize: chart.labels[best],
    confidence: round(odds.probability[best], 3),
    alternatives: order.slice(1, 1 + MAX_ALTERNATIVES).map((i) => ({ label: chart.labels[i], score: round(odds.probability[i], 3) })),
    dimensions,
    decidedBy,
    reason: reasonText(profile, dimensions, chart, odds, best, runnerUp, decidedBy),
    fitPreference: preference,
  };
}

function dimensionFits(profile: BodyProfile, dist: BodyDistribution, chart: PreparedChart, row: number): DimensionFit[] {
  const out: DimensionFit[] = [];
  const nd = chart.dims.length;
  chart.dims.forEach((di, j) => {
    const k = row * nd + j;
    if (Number.isNaN(chart.lo[k])) return;
    const d = DIMENSIONS[di];
    const lo = chart.lo[k];
    const hi = chart.hi[k];
    const v = profile.measurements[d];
    // Status follows the reported (0.1 cm) distance so the two never disagree.
    const distance = round(v < lo ? v - lo : v > hi ? v - hi : 0, 1);
    out.push({
      dimension: d,
      status: distance < 0 ? 'loose' : distance > 0 ? 'tight' : 'fit',
      distanceCm: distance,
      supplied: profile.supplied[d],
      fitProbability: round(probabilityWithin(dist, di, lo, hi, profile.supplied[d]), 3),
    });
  });
  return out;
}

/** P(lo <= value <= hi) under the mixture, with a tape's error on supplied values. */
function probabilityWithin(dist: BodyDistribution, di: number, lo: number, hi: number, supplied: boolean): number {
  if (hi - lo < MIN_RANGE_WIDTH) {
    const mid = (lo + hi) / 2;
    lo = mid - MIN_RANGE_WIDTH / 2;
    hi = mid + MIN_RANGE_WIDTH / 2;
  }
  const a = toSpace(dist.space, Math.max(lo, 1e-6));
  const b = toSpace(dist.space, hi);
  let p = 0;
  for (const c of dist.components) {
    const mu = c.mean[di];
    const tape = supplied ? (dist.space === 'log' ? MEASURED_SD / Math.exp(mu) : MEASURED_SD) : 0;
    const sd = Math.sqrt(c.cov[di][di] + tape * tape);
    p += c.weight * (sd > 0 ? phi((b - mu) / sd) - phi((a - mu) / sd) : mu >= a && mu <= b ? 1 : 0);
  }
  return Math.min(1, Math.max(0, p));
}

/**
 * The dimension whose expected miss most favours the recommended size over the runner-up; when
 * both fit equally (overlapping rows), the one the body sits more centrally in for the winner.
 */
function decider(profile: BodyProfile, chart: PreparedChart, odds: SizeOdds, best: number, runnerUp: number | null): Dimension | null {
  if (runnerUp === null) return null;
  const nd = chart.dims.length;
  let top: number | null = null;
  let topGap = 0.05; // cm: smaller differences decide nothing
  for (let j = 0; j < nd; j++) {
    const gap = (odds.expectedMiss[runnerUp * nd + j] || 0) - (odds.expectedMiss[best * nd + j] || 0);
    if (gap > topGap) {
      top = j;
      topGap = gap;
    }
  }
  if (top === null) {
    let centralGap = 0;
    for (let j = 0; j < nd; j++) {
      const kb = best * nd + j;
      const kr = runnerUp * nd + j;
      if (Number.isNaN(chart.lo[kb]) || Number.isNaN(chart.lo[kr])) continue;
      const v = profile.measurements[DIMENSIONS[chart.dims[j]]];
      const gap = Math.abs(v - chart.centre[kr]) / chart.half[kr] - Math.abs(v - chart.centre[kb]) / chart.half[kb];
      if (gap > centralGap) {
        top = j;
        centralGap = gap;
      }
    }
  }
  return top === null ? null : DIMENSIONS[chart.dims[top]];
}

function reasonText(profile: BodyProfile, dims: DimensionFit[], chart: PreparedChart, odds: SizeOdds, best: number, runnerUp: number | null, decidedBy: Dimension | null): string {
  const nd = chart.dims.length;
  const parts = dims.map((f) => {
    const name = f.supplied ? f.dimension : `${f.dimension} (estimated)`;
    if (f.status === 'tight') return `${name} is ${f.distanceCm} cm above the range`;
    if (f.status === 'loose') return `${name} is ${-f.distanceCm} cm below the range`;
    const k = best * nd + chart.dims.indexOf(DIMENSIONS.indexOf(f.dimension));
    return `${name} ${edgePhrase(profile.measurements[f.dimension], chart.lo[k], chart.hi[k])}`;
  });
  let text = `${chart.labels[best]}: ${parts.join(', ')}.`;
  text = text.charAt(0).toUpperCase() + text.slice(1);
  if (runnerUp !== null && odds.probability[runnerUp] >= 0.2) {
    const pct = (p: number) => `${Math.round(100 * p)}%`;
    text += ` Between sizes: ${pct(odds.probability[best])} ${chart.labels[best]}, ${pct(odds.probability[runnerUp])} ${chart.labels[runnerUp]}`;
    text += decidedBy ? `; the ${decidedBy} decided.` : '.';
  } else if (runnerUp !== null && decidedBy && dims.some((f) => f.status !== 'fit')) {
    // A conflict: the recommended size misses somewhere, yet the runner-up misses more.
    text += ` Chosen over ${chart.labels[runnerUp]} by the ${decidedBy}.`;
  }
  return text;
}

/** "fits", or how close to an edge of its range a value inside it sits. */
function edgePhrase(v: number, lo: number, hi: number): string {
  const edge = Math.min(EDGE_MAX_CM, EDGE_SHARE * (hi - lo));
  if (hi - lo > 0 && hi - v < edge) return 'fits, close to the upper edge';
  if (hi - lo > 0 && v - lo < edge) return 'fits, close to the lower edge';
  return 'fits';
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f + 0; // + 0 turns -0 into 0
}
