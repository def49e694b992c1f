import { DIMENSIONS } from '../twins/body.ts';
import type { BodyProfile, Dimension } from '../twins/body.ts';
import type { EstimatedBodyProfile } from './estimated-profile.ts';
import { logProbInRange } from './normal.ts';
import { CM_PER_INCH } from './size-chart.ts';
import type { SizeFittingProduct, SizeRange, SizeRow } from './size-chart.ts';

export type FitStatus = 'fit' | 'loose' | 'tight';

export interface DimensionFit {
  dimension: Dimension;
  status: FitStatus;
  /** Body minus the nearest range bound, cm: negative = body below the range (loose), positive = above (tight), 0 inside. */
  distanceCm: number;
  supplied: boolean;
}

export interface ProductFit {
  id: string;
  recommendedSize: string;
  /** 0-1: how sure the recommendation is, given the profile's uncertainty and the competing sizes. */
  confidence: number;
  /** The next best sizes, best first. */
  alternatives: { label: string; score: number }[];
  /** Per dimension of the recommended size's row. */
  dimensions: DimensionFit[];
}

/** Weight of a dimension in a size's score. Imputed values count half as much as supplied ones. */
export const SUPPLIED_WEIGHT = 1;
export const IMPUTED_WEIGHT = 0.5;
/** Standard deviation (cm) used when a profile carries no uncertainty for a value. */
export const DEFAULT_SD = { supplied: 1.5, imputed: 4 };
/** Ranges narrower than this (cm) are widened around their centre: a tape is not more precise. */
export const MIN_RANGE_WIDTH = 2;
const MAX_ALTERNATIVES = 3;

/**
 * Scoring model. Each body value is taken as normally distributed around the profile's value
 * with the profile's uncertainty (1.5 cm measured, ~2-3.5 cm from a clothing size, ~2-6 cm
 * imputed). For a size row and each dimension it gives, p = P(body value within [min, max]).
 * The row's score is the weighted geometric mean of those probabilities, weight 1 for supplied
 * values and 0.5 for imputed ones, so it lies in [0, 1]: 1 when every value sits well inside
 * the row, about 0.5 on a band edge, near 0 far outside. The recommended size has the highest
 * score (compared in log space, so the nearest size still wins when all are far away; ties go
 * to the chart's first row). Confidence = best score / max(1, sum of all scores): the best
 * score, shared out when several sizes fit the body about equally well.
 */
export function evaluateProducts(profile: BodyProfile | EstimatedBodyProfile, products: readonly SizeFittingProduct[]): ProductFit[] {
  return products.map((p) => evaluateProduct(profile, p));
}

function evaluateProduct(profile: EstimatedBodyProfile, product: SizeFittingProduct): ProductFit {
  const factor = product.sizeChart.unit === 'in' ? CM_PER_INCH : 1;
  const rows = product.sizeChart.sizes.map((row) => toCm(row, factor));
  const logScores = rows.map((row) => logScore(profile, row));
  const order = rows.map((_, i) => i).sort((a, b) => logScores[b] - logScores[a] || a - b);
  const scores = logScores.map((l) => Math.exp(l));
  const best = order[0];
  const total = scores.reduce((s, v) => s + v, 0);
  return {
    id: product.id,
    recommendedSize: rows[best].label,
    confidence: round(scores[best] / Math.max(1, total), 3),
    alternatives: order.slice(1, 1 + MAX_ALTERNATIVES).map((i) => ({ label: rows[i].label, score: round(scores[i], 3) })),
    dimensions: dimensionFits(profile, rows[best]),
  };
}

function toCm(row: SizeRow, factor: number): SizeRow {
  const measurements: Partial<Record<Dimension, SizeRange>> = {};
  for (const d of DIMENSIONS) {
    const r = row.measurements[d];
    if (r) measurements[d] = { min: r.min * factor, max: r.max * factor };
  }
  return { label: row.label, measurements };
}

function logScore(profile: EstimatedBodyProfile, row: SizeRow): number {
  let sum = 0;
  let weights = 0;
  for (const d of DIMENSIONS) {
    const r = row.measurements[d];
    if (!r) continue;
    const supplied = profile.supplied[d];
    const sd = profile.uncertainty?.[d] ?? (supplied ? DEFAULT_SD.supplied : DEFAULT_SD.imputed);
    const w = supplied ? SUPPLIED_WEIGHT : IMPUTED_WEIGHT;
    let { min, max } = r;
    if (max - min < MIN_RANGE_WIDTH) {
      const mid = (min + max) / 2;
      min = mid - MIN_RANGE_WIDTH / 2;
      max = mid + MIN_RANGE_WIDTH / 2;
    }
    sum += w * logProbInRange(profile.measurements[d], sd, min, max);
    weights += w;
  }
  // Validation guarantees a relevant dimension per row; a row without any cannot be judged.
  return weights > 0 ? sum / weights : -Infinity;
}

function dimensionFits(profile: BodyProfile, row: SizeRow): DimensionFit[] {
  const out: DimensionFit[] = [];
  for (const d of DIMENSIONS) {
    const r = row.measurements[d];
    if (!r) continue;
    const v = profile.measurements[d];
    // Status follows the reported (0.1 cm) distance so the two never disagree.
    const distance = round(v < r.min ? v - r.min : v > r.max ? v - r.max : 0, 1);
    out.push({
      dimension: d,
      status: distance < 0 ? 'loose' : distance > 0 ? 'tight' : 'fit',
      distanceCm: distance,
      supplied: profile.supplied[d],
    });
  }
  return out;
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f + 0; // + 0 turns -0 into 0
}
