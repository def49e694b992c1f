import { DIMENSIONS } from '../twins/body.ts';
import type { Dimension, Gender } from '../twins/body.ts';
import { fromSpace, MEASURED_SD, summarise, toSpace } from './body-distribution.ts';
import type { BodyComponent, BodyDistribution, DistributionSpace } from './body-distribution.ts';
import { EN13402_CHEST_BANDS } from './en13402.ts';
import type { ClothingSizeLabel } from './en13402.ts';
import type { EstimatedBodyProfile } from './estimated-profile.ts';
import { GaussianBodyModel } from './gaussian-body-model.ts';
import { IMPUTATION_SPACE } from './imputation-method.ts';
import { MEASUREMENT_BOUNDS } from './measurement-bounds.ts';
import type { ReferenceBody } from './reference/reference-body.ts';
import { TRAINING_BODIES } from './reference/reference-bodies.ts';

export { MEASURED_SD };

/** Points along a clothing size's chest band; each is one component of the body's distribution. */
const BAND_POINTS = 6;

/** Builds body profiles from a set of reference bodies (the training split by default). */
export class BodyProfiler {
  readonly #model: GaussianBodyModel;

  constructor(bodies: readonly ReferenceBody[] = TRAINING_BODIES, space: DistributionSpace = IMPUTATION_SPACE) {
    this.#model = new GaussianBodyModel(bodies, space);
  }

  /** Keeps every supplied value and imputes the others with their joint uncertainty; never rejects a query. */
  fromMeasurements(m: Partial<Record<Dimension, number>>, gender: Gender | null): EstimatedBodyProfile {
    const known = pickKnown(m);
    return this.#profile(known, gender, this.#model.distribution(known, gender), 'measurements');
  }

  /**
   * A clothing size says the chest lies in its EN 13402-3 band, not where: the chest follows the
   * population's distribution given the height, cut to the band (a grid of points across it,
   * each weighted by that density), and every other dimension follows the model given the height
   * and each chest point. The profile's chest is the centre of that spread, not the band midpoint.
   */
  fromClothingSize(height: number, size: ClothingSizeLabel, gender: Gender = 'female'): EstimatedBodyProfile {
    const [lo, hi] = EN13402_CHEST_BANDS[gender][size];
    const space = this.#model.space;
    const prior = this.#model.distribution({ height }, gender).components[0];
    const ci = DIMENSIONS.indexOf('chest');
    const mu = prior.mean[ci];
    const v = prior.cov[ci][ci];
    const a = toSpace(space, lo);
    const b = toSpace(space, hi);
    const points = Array.from({ length: BAND_POINTS }, (_, i) => a + ((i + 0.5) * (b - a)) / BAND_POINTS);
    // Log densities, normalised stably: far outside the population the band is still honoured.
    const logW = points.map((t) => (-0.5 * (t - mu) ** 2) / v);
    const maxLog = Math.max(...logW);
    const w = logW.map((l) => Math.exp(l - maxLog));
    const wSum = w.reduce((s, x) => s + x, 0);
    const components: BodyComponent[] = points.map((t, i) => ({
      ...this.#model.distribution({ height, chest: fromSpace(space, t) }, gender).components[0],
      weight: w[i] / wSum,
    }));
    return this.#profile({ height }, gender, { space, components }, 'clothing_size');
  }

  #profile(known: Partial<Record<Dimension, number>>, gender: Gender | null, distribution: BodyDistribution, source: EstimatedBodyProfile['source']): EstimatedBodyProfile {
    const { median, sd } = summarise(distribution);
    const measurements = {} as Record<Dimension, number>;
    const supplied = {} as Record<Dimension, boolean>;
    const uncertainty = {} as Record<Dimension, number>;
    for (const d of DIMENSIONS) {
      // A clothing size's chest counts as supplied (it came from the request) yet keeps its spread.
      const sizeChest = source === 'clothing_size' && d === 'chest';
      supplied[d] = known[d] !== undefined || sizeChest;
      const exact = known[d] !== undefined;
      measurements[d] = exact ? known[d]! : round1(clampToBounds(d, median[d]));
      uncertainty[d] = round1(Math.max(MEASURED_SD, exact ? 0 : sd[d]));
    }
    return { gender, measurements, supplied, source, uncertainty, distribution };
  }
}

let shared: BodyProfiler | null = null;
function defaultProfiler(): BodyProfiler {
  shared ??= new BodyProfiler();
  return shared;
}

/** Body profile from measurements (any subset, in cm); a null gender searches both genders. */
export function profileFromMeasurements(m: Partial<Record<Dimension, number>>, gender: Gender | null): EstimatedBodyProfile {
  return defaultProfiler().fromMeasurements(m, gender);
}

/** Body profile from height and an EN 13402-3 letter size; the spec defaults the gender to female. */
export function profileFromClothingSize(height: number, size: ClothingSizeLabel, gender: Gender | null = 'female'): EstimatedBodyProfile {
  return defaultProfiler().fromClothingSize(height, size, gender ?? 'female');
}

function pickKnown(m: Partial<Record<Dimension, number>>): Partial<Record<Dimension, number>> {
  const out: Partial<Record<Dimension, number>> = {};
  for (const d of DIMENSIONS) {
    const v = m[d];
    if (typeof v === 'number' && Number.isFinite(v)) out[d] = v;
  }
  return out;
}

function clampToBounds(d: Dimension, v: number): number {
  return Math.min(MEASUREMENT_BOUNDS[d].max, Math.max(MEASUREMENT_BOUNDS[d].min, v));
}

function round1(v: number): number {
  return Math.round(v * 10) / 10;
}
